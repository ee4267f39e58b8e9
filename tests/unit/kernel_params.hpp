// Kernel parameters shared by the unit tests.
#pragma once

#include "ppk/core/model.hpp"

namespace ppk {

// The rho values every closed form is checked at (issue: rho in {0.25, 0.5, 1, 2}).
inline constexpr double kRhos[] = {0.25, 0.5, 1.0, 2.0};

inline KernelParams with_rho(double rho) {
  KernelParams params;
  params.rho = rho;
  return params;
}

// rho and -d T, for sequence models.
inline KernelParams with_rho_and_length(double rho, int length) {
  KernelParams params = with_rho(rho);
  params.length = length;
  return params;
}

}  // namespace ppk
