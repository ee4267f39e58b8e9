// Estimators: one generative model from the vectors of one example.
//
// The input is the example's vectors in LIBSVM's sparse form (a single vector,
// or the rows of a qid group) and the dimension D of the sample space, which
// the caller fixes for the whole data set so that models fitted from separate
// files agree. Every coordinate must be < D.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "ppk/bernoulli.hpp"
#include "ppk/data.hpp"
#include "ppk/gaussian.hpp"
#include "ppk/multinomial.hpp"

namespace ppk {

// The example cannot give a model with these options (too few vectors for the
// covariance, a singular covariance, counts that are negative...). The message
// says why and which option would help; it names no file (the caller adds that).
class EstimationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Gaussian N(mu, Sigma) by maximum likelihood from the example's n vectors x_1..x_n:
//   mu = (1/n) sum_i x_i,   S = (1/n) sum_i (x_i - mu)(x_i - mu)'   (the ML, not the unbiased, S)
//   full: Sigma = S + ridge I;  diagonal: Sigma = diag(S) + ridge I;
//   isotropic: Sigma = (trace(S)/D + ridge) I.
// With `variance` set, only the mean is fitted: Sigma = variance I (a single
// vector x gives N(x, variance I), whose kernels are RBF kernels in x).
// Without a ridge the ML covariance must be non-singular: a diagonal or isotropic
// fit needs n >= 2 and no coordinate (resp. not every coordinate) constant
// across the vectors; a full fit needs n >= D + 1 and vectors spanning R^D
// (numerically: smallest eigenvalue of S > D * machine epsilon * largest).
struct GaussianFitOptions {
  CovarianceForm covariance = CovarianceForm::full;
  std::optional<double> variance;  // > 0; then `covariance` must be isotropic and ridge 0
  double ridge = 0.0;              // >= 0, added to the covariance diagonal
};
std::unique_ptr<GaussianModel> fit_gaussian(const std::vector<SparseVector>& vectors, long dim,
                                            const GaussianFitOptions& options);

// Bernoulli over {0,1}^D from n binary vectors (a non-zero value counts as 1),
// k_d = the number of vectors with coordinate d set:
//   g_d = (k_d + alpha) / (n + 2 alpha),
// the posterior mean of g_d under a Beta(alpha, alpha) prior (alpha = 1: Laplace's
// rule; alpha = 0: maximum likelihood). Coordinates with k_d = 0 share the row's
// base probability alpha / (n + 2 alpha), so the model lists only the set coordinates.
std::unique_ptr<BernoulliModel> fit_bernoulli(const std::vector<SparseVector>& vectors, long dim,
                                              double alpha);

// Multinomial over D categories from non-negative counts c_d summed over the
// example's vectors, N = sum_d c_d:
//   a_d = (c_d + alpha) / (N + alpha D),
// the posterior mean under a symmetric Dirichlet(alpha) prior (alpha = 1: Laplace;
// alpha = 0: maximum likelihood, needs N > 0). Coordinates with c_d = 0 share
// the base probability alpha / (N + alpha D), so the model lists only the
// coordinates that have counts: a short document over a large vocabulary stays sparse.
// `trials` is stored in the model and selects its kernel (see multinomial.hpp).
struct MultinomialFitOptions {
  double alpha = 1.0;  // >= 0
  Trials trials;       // one event by default
};
std::unique_ptr<MultinomialModel> fit_multinomial(const std::vector<SparseVector>& vectors,
                                                  long dim, const MultinomialFitOptions& options);

}  // namespace ppk
