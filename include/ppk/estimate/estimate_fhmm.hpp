// A factorial HMM (fhmm.hpp) from one sequence x_0..x_{n-1} of real vectors by EM (Ghahramani &
// Jordan 1997), C chains of M states each, with one of two E-steps:
// * exact: the FHMM is an HMM over the M^C product states (start prod_c pi_c, transitions
//   prod_c A_c, emission N(sum_c W_c[:, k_c], Sigma)), whose scaled forward-backward recursions (as
//   for hmm) give gamma_t and sum_t xi_t over product states. M^C is limited to 1024 (the E-step
//   costs O(n M^(2C))).
// * mean-field: the structured variational approximation (G&J section 3.5) Q = prod_c Q_c, each
//   Q_c an HMM over chain c's path whose emission potentials h_t^(c) depend on the other chains'
//   expected means; the factors are updated in turn by forward-backward on one chain until the
//   bound F = log p(X) - KL(Q || p(S | X)) <= log p(X) gains less than 1e-10 (relative) in a sweep
//   (at most 100 sweeps). Q is kept from one EM iteration to the next. E[s_t] and E[s_t s_t'] are
//   those of Q: the chains are independent under Q (off-diagonal blocks E[S_t^(c)] E[S_t^(l)]'),
//   and the pairwise counts come from each chain's forward-backward. Costs O(n C (M^2 + d M))
//   per sweep; C M is limited to 1000. This is variational EM: it maximises the lower bound F (plus
//   the prior terms) rather than log p(X), and F equals log p(X) when C = 1.
// M-step, with s_t the stacked one-hot vector of the C chains' states (length K = C M):
//   pi_c(k) ∝ E[S_0^(c)](k) + a,   A_c(k, l) ∝ sum_t E[S_{t-1}^(c)(k) S_t^(c)(l)] + a,
//   W = [W_1 .. W_C] = (sum_t x_t E[s_t]') (sum_t E[s_t s_t'])^+     (the pseudo-inverse: the
//       one-hot blocks make the K x K moment matrix singular; every solution has the same means),
//   Sigma = (sum_t E[(x_t - W s_t)(x_t - W s_t)'] + R I) / n,
// the MAP under Dirichlet(1 + a) priors on each pi_c and row of A_c and the penalty -(R/2) tr Sigma^-1
// (as for hmm), so EM never decreases
//   L = log p(X) + a (sum_c sum_k log pi_c(k) + sum_c sum_kl log A_c(k, l)) - (R/2) tr Sigma^-1
// (mean-field: F in place of log p(X)).
// Start: chains as for hmm (rows proportional to 1/2 + u); W_c[:, k] = x-bar / C + a draw of
// N(0, diag(var) / C) (var the data's per-coordinate variance); Sigma the data's covariance + R I.
// Restarts, tolerance, iterations, seeding (seed, n, D, a hash of the data) and the stored length
// as for hmm.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/families/fhmm.hpp"

namespace ppk {

enum class FhmmEStep { exact, mean_field };
struct FhmmFitOptions {
  long chains = 2;                  // C >= 1
  long states = 2;                  // M >= 1 per chain
  std::optional<FhmmEStep> e_step;  // default: exact when M^C <= 1024, mean_field above
  double smoothing = 0.1;           // a >= 0
  std::optional<double> ridge;      // R > 0; default 1e-6 times the data's variance
  long iterations = 400;            // >= 1
  double tolerance = 1e-8;          // >= 0
  long restarts = 3;                // >= 1
  std::uint64_t seed = 1;
  std::optional<long> length;  // the stored T >= 0; default n - 1
  // Sigma ~ IW(nu, (nu - D - 1) C) (CovariancePrior; none by default): the M-step becomes
  // Sigma = ((nu - D - 1) C + expected residual scatter + R I) / (nu + n + D + 1), and L gains log IW(Sigma).
  std::optional<CovariancePrior> prior;
};
std::unique_ptr<Estimator> fhmm_estimator(const FhmmFitOptions& options);

// EM's result: the model and L after each M-step of the kept restart (L[0]: the starting point).
struct FhmmFit {
  std::unique_ptr<FhmmModel> model;
  std::vector<double> log_likelihoods;  // the penalised L above (mean-field: with the bound F)
};
// The rows of x (n x D) as the sequence x_0..x_{n-1}.
FhmmFit fit_fhmm(const Eigen::MatrixXd& x, const FhmmFitOptions& options);
// The mean-field E-step's bound F <= log p(X) for a model and the rows of x, from Q_c = each chain's
// prior; `updates` holds F at that start and after each chain update of every sweep.
struct FhmmMeanField {
  double bound = 0.0;
  std::vector<double> updates;
};
FhmmMeanField fhmm_mean_field(const FhmmModel& model, const Eigen::MatrixXd& x);
// The exact log p(x_0..x_{n-1}) of a factorial HMM (the product-state forward recursion; M^C <= 1024).
double fhmm_log_likelihood(const FhmmModel& model, const Eigen::MatrixXd& x);

}  // namespace ppk
