// Bernoulli over {0,1}^D from n binary vectors (a non-zero value counts as 1), k_d the number of
// vectors with coordinate d set, under the conjugate prior g_d ~ Beta(alpha, alpha):
//   ml:        g_d = k_d / n
//   map:       g_d = (k_d + alpha - 1) / (n + 2 alpha - 2)       (needs alpha >= 1)
//   posterior: g_d = (k_d + alpha) / (n + 2 alpha)               (alpha = 1: Laplace's rule)
// Coordinates with k_d = 0 share the row's base probability, so the model lists only the set ones.
#pragma once

#include <memory>

#include "ppk/estimate/estimate.hpp"

namespace ppk {

struct BernoulliFitOptions {
  Method method = Method::posterior;
  double alpha = 1.0;  // >= 0
};
std::unique_ptr<Estimator> bernoulli_estimator(const BernoulliFitOptions& options);

}  // namespace ppk
