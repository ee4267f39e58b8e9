// Models whose kernel is an inner product of finitely many features: the capability behind the
// exact feature maps of `ppk map` (maps/feature_map.hpp).
//
// Over a finite sample space X the probability product kernel (JMLR 2004, eq. 2) is a finite sum,
//     k_rho(p, p') = sum_x p(x)^rho p'(x)^rho = <phi(p), phi(p')>,   phi_x(p) = p(x)^rho,
// so a linear model on phi(p) is the kernel machine on k itself. A family whose kernel is such a sum
// (for the prepared rho) implements MappableModel next to Model, in its own file.
//
// The features come in two parts, phi(p) = c beta + u, where beta is one vector fixed by the sample
// space and u is sparse: a smoothed multinomial over a 50,000-word vocabulary has a_d^rho = b^rho on
// every word it does not list, so c = b^rho, beta = (1, ..., 1) and u_d = a_d^rho - b^rho on its
// listed words only. Then
//     <phi(p), phi(p')> = c c' |beta|^2 + c <beta, u'> + c' <beta, u> + <u, u'>,
// and the map layer chooses between the dense phi and a sparse map (feature_map.hpp).
#pragma once

#include <vector>

#include "ppk/core/model.hpp"

namespace ppk {

// phi(p) = shared * beta + listed (see the top of this file), in a prepared model's parameters.
struct ExactFeatures {
  long dim = 0;               // the number of features |X|
  std::vector<long> index;    // u: its non-zero coordinates, 0-based, strictly increasing
  std::vector<double> value;  // u at those coordinates
  double shared = 0.0;        // c; 0 for a model without a shared part (then phi = u)
  double shared_norm2 = 0.0;  // |beta|^2
  double shared_dot = 0.0;    // <beta, u>
  // beta = (1, ..., 1), so that the dense phi can be written out. False where the model knows only
  // |beta|^2 and <beta, u> (a multinomial over a leveled base lists the level of its own words only).
  bool shared_is_uniform = false;
};

class MappableModel {
 public:
  virtual ~MappableModel() = default;
  // The model's features for the rho it was prepared with (Model::prepare first). Throws
  // KernelDomainError, naming the model and why, where the family's kernel for these parameters is
  // not a finite sum this model can write out (a multinomial over counts; too many features).
  virtual ExactFeatures exact_features() const = 0;
};

}  // namespace ppk
