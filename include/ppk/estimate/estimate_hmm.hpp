// A hidden Markov model (hmm.hpp) from one sequence x_0..x_{n-1} by Baum-Welch (EM; Rabiner 1989),
// M states with start probabilities pi, transitions A and one emission model per state:
//   discrete   a one-event multinomial over O symbols per state; the example's vectors are
//              one-hot (a single entry, value 1, at the symbol's coordinate) and D = O;
//   gaussian   N(mu_q, Sigma_q) in the `covariance` form over R^D; the vectors are the x_t.
// E-step: the scaled forward-backward recursions. With b_t(q) = p_q(x_t) / m_t (m_t the largest
// emission density at t, so that Gaussian densities cannot underflow):
//   alpha_0 = pi .* b_0 / c_0,  alpha_t = (A' alpha_{t-1}) .* b_t / c_t,  c_t making alpha_t sum to 1,
//   beta_{n-1} = 1,  beta_t = A (b_{t+1} .* beta_{t+1}) / c_{t+1},
//   log p(x_0..x_{n-1}) = sum_t (log c_t + log m_t),
//   gamma_t = alpha_t .* beta_t = P(s_t | X),
//   xi_t(p, q) = alpha_t(p) A_pq b_{t+1}(q) beta_{t+1}(q) / c_{t+1} = P(s_t = p, s_{t+1} = q | X).
// M-step, with the pseudo-count a (smoothing) added to every expected count:
//   pi_q ∝ gamma_0(q) + a,  A_pq ∝ sum_t xi_t(p, q) + a,
//   discrete:  E_qo ∝ sum_{t: x_t = o} gamma_t(q) + a;
//   gaussian:  the weighted Gaussian M-step of the mixture estimator with r_tq = gamma_t(q):
//              mu_q = sum_t gamma_t(q) x_t / N_q, Sigma_q = (S_q + R I) / N_q in the chosen form
//              (with `prior`, the mixture's MAP M-step: Sigma_q = ((nu - D - 1) C + S_q + R I) /
//              (nu + N_q + D + 1) in full form, and L gains sum_q log IW(Sigma_q)).
// This is the posterior mode (MAP) under independent symmetric Dirichlet(1 + a) priors on pi, on
// each row of A and on each emission row, and under the ridge penalty of the mixture estimator,
// so EM maximises and never decreases the penalised objective
//   L = log p(X) + a (sum_q log pi_q + sum_pq log A_pq [+ sum_qo log E_qo])
//       [- (R/2) sum_q trace(Sigma_q^-1)]
// (the bracketed terms for discrete resp. Gaussian emissions). a > 0 keeps every probability
// positive however short the sequence, so a test sequence never meets a zero. The default a = 0.1
// is a tenth of an observation per parameter: for DNA (O = 4) 0.4 pseudo-symbols per emission row,
// which moves a probability estimated from N expected counts by at most O a / N (0.4% at N = 100),
// while a 3-symbol sequence still gets every emission probability >= a / (3 + O a) (1/34 for DNA).
// Start: pi and the rows of A proportional to 1/2 + u (u uniform on [0, 1)); discrete emission rows
// likewise; Gaussian emissions seeded as the mixture's components (k-means++ means, the data's
// covariance). EM stops after `iterations` M-steps or when L gains less than tolerance * |L|; the
// fit with the largest L over the restarts is kept. The random stream is std::mt19937_64 seeded by
// (seed, n, D, a hash of the sequence), so the same sequence and options always give the same HMM.
// The model's stored length is T = n - 1 (T transitions, x_0..x_T), or `length` when set.
//
// The number of states: `states`, or the rule of JMLR 2004 section 8.2 (the paper's HMMs for DNA),
//   M = floor(sqrt(O^2 + 4 (n z + O + 1)) / 2 - O / 2) + 1,
// n the number of symbols of the sequence, z = param_ratio (about z n parameters for n symbols),
// and O the number of symbols for discrete emissions; for Gaussian emissions O is the number of
// emission parameters per state: D + 1 (isotropic), 2 D (diagonal), D + D (D + 1) / 2 (full).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"

namespace ppk {

enum class HmmEmissions { discrete, gaussian };
struct HmmFitOptions {
  HmmEmissions emissions = HmmEmissions::discrete;
  std::optional<long> states;                        // M >= 1; unset: the section 8.2 rule with param_ratio
  double param_ratio = 0.1;                          // z > 0, the paper's 1/10
  double smoothing = 0.1;                            // a >= 0
  CovarianceForm covariance = CovarianceForm::full;  // gaussian emissions
  std::optional<double> ridge;  // R > 0 (gaussian); default as for the mixture: 1e-6 times the data's variance
  long iterations = 400;        // >= 1; the paper iterated EM 400 times
  double tolerance = 1e-8;      // >= 0
  long restarts = 3;            // >= 1
  std::uint64_t seed = 1;
  std::optional<long> length;            // the stored T >= 0; default n - 1
  std::optional<CovariancePrior> prior;  // gaussian: the states' covariance prior (none by default)
};
std::unique_ptr<Estimator> hmm_estimator(const HmmFitOptions& options);
// Its Fisher scores (fisher.hpp, fisher_hmm.cpp; the estimator's fisher_scores): EstimationError
// unless the emissions are all one-event multinomials (not leveled) or all Gaussians of one form
// (naming the first that is not); OptionError naming {adapt} as check_adapted_parameters.
std::unique_ptr<FisherScores> hmm_fisher_scores(const HmmModel& pooled, const AdaptedParameters& parameters);

// The section 8.2 rule above for O symbols (or emission parameters per state), n symbols, ratio z.
long hmm_auto_states(long symbols, long length, double param_ratio);

// The Baum-Welch fit and L after each M-step of the kept restart (L[0]: the starting point; the
// model is the one of the last entry).
struct HmmFit {
  std::unique_ptr<HmmModel> model;
  std::vector<double> log_likelihoods;  // the penalised L above
};
// A sequence of symbols in 0..alphabet-1.
HmmFit fit_discrete_hmm(const std::vector<long>& sequence, long alphabet, const HmmFitOptions& options);
// The rows of x (n x D) as the sequence x_0..x_{n-1}.
HmmFit fit_gaussian_hmm(const Eigen::MatrixXd& x, const HmmFitOptions& options);

// The pooled HMM and its MAP adaptation (adaptation.hpp). Pooled: EM over all the sequences at
// once, the E-step forward-backward on every sequence with the shared parameters and the M-step from
// the expected counts summed over the sequences; the options are those of the per-sequence fit
// (restarts, seed, states, smoothing, ridge...; `states` auto counts the symbols of all the
// sequences). `threads` runs the E-step's sequences in parallel; the result does not depend on it.
HmmFit fit_pooled_discrete_hmm(const std::vector<std::vector<long>>& sequences, long alphabet,
                               const HmmFitOptions& options, unsigned threads = 1);
HmmFit fit_pooled_gaussian_hmm(const std::vector<Eigen::MatrixXd>& sequences, const HmmFitOptions& options,
                               unsigned threads = 1);

// The number of states of a pooled HMM chosen by held-out likelihood (`ppk fit hmm --pooled
// --states auto`): every fifth example (the 5th, 10th, ...; "symbols" or "x" statistics of
// hmm_estimator) is held out, the pooled HMM of the rest is fitted for each M of `grid` with the
// options' restarts and seed and at most 100 iterations, and the M whose fit gives the held-out
// sequences the largest log-likelihood (the forward recursion) is kept. OptionError naming {states}
// with fewer than 5 examples.
std::vector<long> default_state_grid();  // 1, 2, 3, 4, 5, 6, 8, 10, 12, 16
SizeChoice choose_pooled_states(const std::vector<Statistics>& examples, const HmmFitOptions& options,
                                const std::vector<long>& grid, unsigned threads = 1);

// The MAP adaptation of `pooled` to one sequence (adaptation.hpp); log_likelihoods holds the MAP
// objective after 0, 1, 2, ... M-steps. The pooled HMM's emissions must be one-event multinomials
// (a sequence of symbols < their dimension) or Gaussians (the rows of x).
HmmFit adapt_hmm(const HmmModel& pooled, const std::vector<long>& sequence, const AdaptationOptions& options);
HmmFit adapt_hmm(const HmmModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options);

}  // namespace ppk
