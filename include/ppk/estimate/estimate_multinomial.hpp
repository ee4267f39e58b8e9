// Multinomial over D categories from non-negative counts c_d summed over the example's vectors,
// N = sum_d c_d, under the conjugate prior a ~ Dirichlet(alpha, .., alpha):
//   ml:        a_d = c_d / N                                      (needs N > 0)
//   map:       a_d = (c_d + alpha - 1) / (N + D (alpha - 1))      (needs alpha >= 1)
//   posterior: a_d = (c_d + alpha) / (N + alpha D), the Dirichlet-multinomial predictive mean
// Coordinates with c_d = 0 share the base probability, so a short document over a large
// vocabulary stays sparse. `trials` is stored in the model and selects its kernel.
#pragma once

#include <memory>

#include "ppk/estimate/estimate.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk {

struct MultinomialFitOptions {
  Method method = Method::posterior;
  double alpha = 1.0;  // >= 0
  Trials trials;       // one event by default
  // A leveled base m (`--base pooled`; null: the uniform base). posterior only:
  //   a_d = (c_d + alpha D m_d) / (N + alpha D), the Dirichlet(alpha D m) predictive mean (Zhai & Lafferty 2001).
  std::shared_ptr<const LeveledBase> base;
};
std::unique_ptr<Estimator> multinomial_estimator(const MultinomialFitOptions& options);

}  // namespace ppk
