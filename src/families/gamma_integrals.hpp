// Internal to libppk: what the gamma and Dirichlet kernels share.
//
// Both kernels are gamma-function integrals (JMLR 2004 section 3; docs/design.md "Mathematics"):
//   over x > 0:        integral of x^(a+ - 1) exp(-r x) dx = Gamma(a+) / r^a+,
//   over the simplex:  integral of prod_d x_d^(a+_d - 1) dx = B(a+) = prod_d Gamma(a+_d) / Gamma(sum_d a+_d),
// with the pair's shapes a+ = rho (a + a' - 2) + 1; each is finite iff every a+ > 0.
//
// Each model contributes half of a+: with h = rho (a - 1) + 1/2, a+ = h + h'. prepare() computes
// h once and requires h > 0, i.e. a+ = 2h > 0 for the model paired with itself, the worst pair
// (exponential_family.hpp). The a+ of any pair of prepared models is then a sum of two positive
// doubles, positive in floating point too, so the pair loop needs no domain check.
#pragma once

#include <math.h>  // lgamma_r

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "ppk/core/model_fields.hpp"
#include "ppk/core/model.hpp"

namespace ppk::detail {

// exp(log_x), but at least the smallest positive double: a draw of the tilted gamma or Dirichlet
// model (sampling.hpp) made in logs stays inside the support (0, inf), where log p is finite, even
// when a shape far below 1 puts it below 1e-308.
inline double positive_exp(double log_x) { return std::fmax(std::exp(log_x), std::numeric_limits<double>::denorm_min()); }

// log Gamma(x) for x > 0. std::lgamma stores the sign of Gamma(x) in the global `signgam`, a data
// race when kernels are evaluated on several threads (OpenMP); lgamma_r returns the sign instead.
inline double log_gamma(double x) {
  int sign;
  return ::lgamma_r(x, &sign);
}

// log of the integral over x > 0 of x^(shape - 1) exp(-rate x) dx = log Gamma(shape) - shape log(rate).
inline double log_gamma_integral(double shape, double rate) { return log_gamma(shape) - shape * std::log(rate); }

// The halves h_d = rho (a_d - 1) + 1/2 of the pair shapes, for the shapes a_d of `field` (non-empty).
// Throws KernelDomainError unless every h_d > 0: the message names the field's smallest entry, which
// gives the smallest bound rho < 1 / (2 (1 - a_d)).
inline std::vector<double> half_shapes(const std::string& family, const char* field, const std::vector<double>& shapes,
                                       double rho) {
  std::vector<double> halves(shapes.size());
  std::size_t worst = 0;
  for (std::size_t d = 0; d < shapes.size(); ++d) {
    halves[d] = rho * (shapes[d] - 1.0) + 0.5;
    if (halves[d] < halves[worst]) worst = d;
  }
  if (halves[worst] > 0.0) return halves;
  const double a = shapes[worst];
  char self_shape[32], bound[32];
  std::snprintf(self_shape, sizeof self_shape, "%.9g", 2.0 * halves[worst]);
  std::snprintf(bound, sizeof bound, "%.9g", 1.0 / (2.0 * (1.0 - a)));
  throw KernelDomainError(family + " kernel at rho = " + format_number(rho) + ": \"" + field + "\"[" +
                          std::to_string(worst) + "] = " + format_number(a) +
                          " gives a+ = rho (a + a' - 2) + 1 = " + self_shape +
                          " <= 0 for this model paired with itself, the worst pair (the integral diverges); "
                          "this model needs rho < " +
                          bound + " (= 1 / (2 (1 - " + format_number(a) + ")))");
}

}  // namespace ppk::detail
