// Pooled models and MAP adaptation of latent-variable models (HMMs, Gaussian mixtures, LDSs and SLDSs).
//
// Per-example Baum-Welch or EM on a short example overfits, and its hidden states (components) mean
// different things in different examples, so a kernel between two such fits compares unaligned
// parameters. The remedy of speaker recognition (Reynolds, Quatieri & Dunn 2000, "Speaker
// verification using adapted Gaussian mixture models"): fit one *pooled* model to all training
// examples at once, then fit each example by MAP-EM started from the pooled model under conjugate
// priors centred on the pooled parameters with strength tau (the relevance factor). Every example's
// state q stays the pooled model's state q and moves only as far as the example's own data warrants.
//
// Pooled fit: EM over all examples at once. For an HMM the E-step runs forward-backward on every
// sequence with the shared parameters and the M-step sums the expected counts over the sequences;
// for a mixture the sets' vectors are pooled into one i.i.d. sample.
//
// Adaptation: the priors are tau pseudo-observations drawn from the pooled model's own parameters
// (theta0). With expected counts from the E-step under the current parameters:
//   a probability vector p (HMM start pi, each transition row A_p., each discrete emission row E_q.,
//   mixture weights w), with expected counts c_o summing to N, has the Dirichlet(1 + tau p0) prior
//   prod_o p_o^(tau p0_o), whose M-step is
//     p_o = (c_o + tau p0_o) / (N + tau);
//   a Gaussian state (component) with expected count N_q, weighted mean xbar_q and weighted scatter
//   S_q = sum_t gamma_t(q) (x_t - xbar_q)(x_t - xbar_q)' has the log prior
//     -(tau/2) [ log|Sigma| + tr(Sigma^-1 Sigma0) + (mu - mu0)' Sigma^-1 (mu - mu0) ]
//   (tau pseudo-observations with mean mu0 and covariance Sigma0: a normal-inverse-Wishart prior
//   with kappa = tau, Psi = tau Sigma0, whose mode is at (mu0, Sigma0)), so that
//     mu    = (N_q xbar_q + tau mu0) / (N_q + tau),
//     Sigma = (S_q + N_q (xbar_q - mu)(xbar_q - mu)' + tau Sigma0 + tau (mu - mu0)(mu - mu0)' + R I) / (N_q + tau)
//   in the pooled model's covariance form (diagonal: the diagonal; isotropic: trace / D), R the ridge.
// Parameters not adapted keep their pooled values. EM maximises the MAP objective
//   log p(X | theta) + sum over the adapted parameters of their log priors [- (R/2) sum_q tr Sigma_q^-1],
// which therefore never decreases from one iteration to the next. tau -> infinity gives the pooled
// model; tau -> 0 gives EM for the per-example maximum likelihood, started from the pooled model.
// Reynolds et al. adapt with the coefficient N_q / (N_q + tau): the same mean update.
//
// LDS (estimate_lds.hpp). Pooled: fit_lds's EM with one Kalman smoother per sequence and the
// sufficient statistics P, P-, P+, P1, Sxs, Sxx (and their counts) summed over the sequences; the
// first states give mean0 = (1/S) sum_i s_0|N^(i) and
// cov0 = (sum_i (V_0|N^(i) + (s_0|N^(i) - mean0)(..)') + (r + nu) I) / (S + nu) over the S sequences;
// the constraints of fit_lds with the R floor from the coordinates' variances of all the vectors
// and the Q floor from the state's mean square over all the steps; restarts seeded by (seed, the
// data) and run in parallel. One sequence gives fit_lds exactly (fit_lds is that case).
// Adaptation from theta0 = (mean0_0, cov0_0, A0, Q0, C0, R0): with M0 = (1/(T+1)) sum_{t=0..T} E0[s_t s_t']
// the pooled model's expected state second moment per step (T its stored length; E0 under theta0:
// m_t = A0^t mean0_0, V_t = A0 V_t-1 A0' + Q0 from V_0 = cov0_0), the log priors are
//   start (mean0, cov0):  -(tau/2) [log|cov0| + tr(cov0^-1 (cov0_0 + (mean0 - mean0_0)(mean0 - mean0_0)'))]
//   transitions (A, Q):   -(tau/2) [log|Q| + tr(Q^-1 (Q0 + (A - A0) M0 (A - A0)'))]
//   emissions (C, R):     -(tau/2) [log|R| + tr(R^-1 (R0 + (C - C0) M0 (C - C0)'))]
// i.e. a matrix-normal prior on A (on C) centred on A0 (C0) with row covariance Q (R) and column
// precision tau M0, with an inverse-Wishart-type prior on Q (R) whose mode with A = A0 (C = C0) is
// Q0 (R0), and the normal-inverse-Wishart of the Gaussians above on (mean0, cov0): tau
// pseudo-observations of the pooled model, each a pseudo-step whose previous state has second
// moment M0. EM maximises the MAP objective
//   L = log p(X | theta) + sum over the adapted groups of their log priors - (r/2) sum_S tr(S^-1)
// (S = cov0, Q, R; r the ridge, default 0) by adding the pseudo-observations to the E-step's sums:
//   C = (Sxs + tau C0 M0) (P + tau M0)^-1,
//   R = (Sxx + tau (C0 M0 C0' + R0) - C (Sxs + tau C0 M0)' + r I) / (N + tau),
//   A = (P1 + tau A0 M0) (P- + tau M0)^-1,
//   Q = (P+ + tau (A0 M0 A0' + Q0) - A (P1 + tau A0 M0)' + r I) / (T + tau),
//   mean0 = (s_0|N + tau mean0_0) / (1 + tau),
//   cov0 = (V_0|N + (s_0|N - mean0)(..)' + tau (cov0_0 + (mean0_0 - mean0)(..)') + r I) / (1 + tau),
// the closed forms of the (C, R), (A, Q) and (mean0, cov0) maximisations. The constraints of fit_lds
// stay: rho(A) <= 0.999 by the same generalised M-step (with Q maximised out the objective depends
// on A only through the augmented residual scatter S(A), so the segment and scaling argument of
// estimate_lds.hpp holds unchanged and L never decreases); R >= diag(min(0.01 v_j, lambda_min(R0)))
// and Q >= min(q, lambda_min(Q0)) I (the floors of fit_lds, lowered so that theta0 meets them).
// EM starts from theta0, so tau -> infinity keeps theta0 and tau -> 0 is maximum-likelihood EM from
// theta0. The state's basis is not identified by the data (s -> D s, C -> C D^-1 leaves p(X)
// unchanged): per-sequence fits land in arbitrary bases, so their A, Q, C of different sequences are
// not comparable, while every adapted LDS starts in the pooled model's basis and the priors, centred
// on theta0 in that basis, keep it there: adapted rows are comparable with each other and with the
// pooled row.
//
// SLDS (estimate_slds.hpp: hard EM over regime paths, its objective J). Pooled: that hard EM over
// all the sequences X_1..X_S at once, one regime path r^(i) per sequence, maximising
//   J = sum_i [log p(r^(i) | theta) + log p(X_i | r^(i), theta)] + the priors of J (counted once)
// with ONE theta = (pi, trans, A_k, Q_k, C, R, mean0, cov0): (1) one Kalman smoother per sequence
// along its path; (2) one Viterbi path per sequence; (3) the M-step of estimate_slds.hpp from the
// sums over the sequences (P-, P+, P1 and the step counts per regime, P, Sxs, Sxx, the first states
// as for the pooled LDS; pi_k ~ #{i: r_0^(i) = k} + a, trans_jk ~ #{i, t: r_{t-1}^(i) = j, r_t^(i) = k} + a).
// Start: the pooled LDS (fit_pooled_lds, same options) for every regime, a uniform chain, and first
// paths from the k-means of the windowed local dynamics of all the sequences' steps together; R
// floor from all the vectors, Q floor from all the steps, stability and R scaling as for one
// sequence; restarts seeded by (seed, the stacked data) and run in parallel, the E-steps too; the
// result does not depend on `threads`. One sequence gives fit_slds exactly (fit_slds is that case).
// Adaptation from theta0 = (pi0, trans0, A0_k, Q0_k, C0, R0, mean0_0, cov0_0), tau the relevance,
// with ONE M0 shared by the regimes: the pooled model's expected state second moment per step
//   M0 = (1/(T+1)) sum_{t=0..T} E0[s_t s_t']   (T its stored length; the chain summed out exactly:
//   M_t(k) = E0[s_t s_t' 1{r_t = k}] = sum_j trans0_jk (A0_k M_{t-1}(j) A0_k' + P0(r_{t-1} = j) Q0_k),
//   M_0(k) = pi0_k (cov0_0 + mean0_0 mean0_0'), E0[s_t s_t'] = sum_k M_t(k)),
// the log priors are those of the LDS above on (mean0, cov0) and (C, R), for each regime k that of
// the LDS's transitions on (A_k, Q_k) with A0_k, Q0_k (a matrix-normal prior centred on A0_k with row
// covariance Q_k and column precision tau M0, an inverse-Wishart-type prior with mode Q0_k: tau
// pseudo-steps per regime), and the HMM's Dirichlet priors on the chain:
//   start (pi, mean0, cov0):        tau sum_k pi0_k log pi_k  + the LDS's start prior,
//   transitions (trans, A_k, Q_k):  tau sum_jk trans0_jk log trans_jk + sum_k -(tau/2) [log|Q_k|
//                                   + tr(Q_k^-1 (Q0_k + (A_k - A0_k) M0 (A_k - A0_k)'))],
//   emissions (C, R):               the LDS's emission prior.
// Hard EM maximises J_MAP = log p(r | theta) + log p(X | r, theta) + the log priors of the adapted
// groups - (r/2) sum_S tr(S^-1) (S = cov0, Q_k, R; r the ridge, default 0; no smoothing a and no
// prior on A_k besides the pooled one) by the same three steps; (1) and (2) do not involve the priors,
// and the M-step (3) has the closed forms
//   pi_k = ([r_0 = k] + tau pi0_k) / (1 + tau),  trans_jk = (n_jk + tau trans0_jk) / (n_j + tau),
//   A_k = (P1_k + tau A0_k M0) (P-_k + tau M0)^-1,
//   Q_k = (P+_k + tau (A0_k M0 A0_k' + Q0_k) - A_k (P1_k + tau A0_k M0)' + r I) / (n_k + tau),
//   C, R, mean0, cov0 as for the LDS above,
// over the steps t >= 1 of regime k on the path (n_k of them; n_jk the path's j -> k moves, n_j its
// moves from j), so no step decreases J_MAP. The constraints of the fit stay: with K >= 2 each A_k's
// spectral norm (K = 1: spectral radius) <= 0.999 by the generalised M-step, R >= diag(min(0.01 v_j,
// lambda_min(R0))), Q_k >= min(q, lambda_min(Q0_k)) I. The start: theta0 and the path reached from the
// pooled chain's most probable path by steps (1) and (2) under theta0 until it repeats (at most 100
// times). Groups not
// adapted keep their pooled values. tau -> infinity keeps theta0; tau -> 0 is hard EM for J with
// a = r = 0 started from theta0. With K = 1 it is the LDS's adaptation. The regimes, like the state
// basis, stay the pooled model's, so adapted rows are comparable with each other and the pooled row.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/estimate/estimate_slds.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/families/slds.hpp"

namespace ppk {

// Which parameters adapt (the others keep the pooled model's values). Names, as in
// parse_adapted_parameters: start, transitions, emissions (an HMM's discrete emission
// probabilities), weights (a mixture's), means, covariances (Gaussian states or components), cpts
// (a Bayesian network's tables, which adapt as the HMM's probabilities). An LDS's start is
// (mean0, cov0), its transitions (A, Q) and its emissions the observation model (C, R).
struct AdaptedParameters {
  bool start = true;
  bool transitions = true;
  bool emissions = true;
  bool weights = true;
  bool means = true;
  bool covariances = true;
  bool cpts = true;  // a Bayesian network's conditional probability tables
  bool all = true;   // "all": every parameter the family has
};
// A comma-separated list of the names above, or "all". OptionError naming {adapt} for an unknown
// or repeated name or an empty list.
AdaptedParameters parse_adapted_parameters(const std::string& list);
// OptionError naming {adapt} when a listed name is not a parameter of `family` ("hmm with discrete
// emissions": start, transitions, emissions; "hmm with gaussian emissions": start, transitions,
// means, covariances; "mixture": weights, means, covariances; "bayesnet": cpts; "lds" and "slds":
// start, transitions, emissions) or none of them is
// listed or selected. "all" adapts whatever the family has.
void check_adapted_parameters(const AdaptedParameters& adapted, const std::string& family,
                              std::initializer_list<const char*> applicable);

struct AdaptationOptions {
  double relevance = 16.0;  // tau > 0 (Reynolds et al.'s 16)
  AdaptedParameters adapt;
  long iterations = 100;        // >= 1
  double tolerance = 1e-8;      // >= 0: stop when the objective gains less than tolerance * |objective|
  std::optional<double> ridge;  // R >= 0 for Gaussian covariances; default 0 (tau > 0 keeps them positive definite)
  std::optional<long> length;   // the adapted HMM's stored T; default n - 1
};
// OptionError naming {relevance}, {iterations}, {tolerance} or {ridge}.
void check_adaptation_options(const AdaptationOptions& options);

// One model fitted to all examples at once (see above), with the options of the per-example fit
// (restarts, seed, states, smoothing, ridge...; `states` auto counts the symbols of all the
// examples). `threads` runs the E-step's examples in parallel; the result does not depend on it.
HmmFit fit_pooled_discrete_hmm(const std::vector<std::vector<long>>& sequences, long alphabet,
                               const HmmFitOptions& options, unsigned threads = 1);
HmmFit fit_pooled_gaussian_hmm(const std::vector<Eigen::MatrixXd>& sequences, const HmmFitOptions& options,
                               unsigned threads = 1);
GaussianMixtureFit fit_pooled_mixture(const std::vector<Eigen::MatrixXd>& sets, const MixtureFitOptions& options);

// The number of states of a pooled HMM chosen by held-out likelihood (`ppk fit hmm --pooled
// --states auto`): every fifth example (the 5th, 10th, ...; "symbols" or "x" statistics of
// hmm_estimator) is held out, the pooled HMM of the rest is fitted for each M of `grid` with the
// options' restarts and seed and at most 100 iterations, and the M whose fit gives the held-out
// sequences the largest log-likelihood (the forward recursion) is kept. OptionError naming {states}
// with fewer than 5 examples.
// The result of either choice: the size kept, and each size tried with its held-out score.
struct SizeChoice {
  long size = 0;
  double best_score = 0.0;
  std::vector<long> grid;                        // the sizes tried
  std::vector<double> held_out_log_likelihoods;  // per size tried
};
std::vector<long> default_state_grid();  // 1, 2, 3, 4, 5, 6, 8, 10, 12, 16
SizeChoice choose_pooled_states(const std::vector<Statistics>& examples, const HmmFitOptions& options,
                                const std::vector<long>& grid, unsigned threads = 1);

// The number of components of a pooled mixture chosen likewise (`ppk fit mixture --pooled
// --components auto`): every fifth set held out, the pooled mixture of the others fitted for each K
// of `grid` (at most 100 iterations; K larger than the kept vectors skipped), the held-out vectors
// scored by their log-likelihood. OptionError naming {components} with fewer than 5 sets.
std::vector<long> default_component_grid();  // 1, 2, 3, 4, 6, 8, 12, 16, 24, 32
SizeChoice choose_pooled_components(const std::vector<Eigen::MatrixXd>& sets, const MixtureFitOptions& options,
                                    const std::vector<long>& grid);

// The MAP adaptation of `pooled` to one example (see above); log_likelihoods holds the MAP
// objective after 0, 1, 2, ... M-steps. The pooled HMM's emissions must be one-event multinomials
// (a sequence of symbols < their dimension) or Gaussians (the rows of x); the mixture's components
// Gaussians over the columns of x.
HmmFit adapt_hmm(const HmmModel& pooled, const std::vector<long>& sequence, const AdaptationOptions& options);
HmmFit adapt_hmm(const HmmModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options);
GaussianMixtureFit adapt_mixture(const MixtureModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options);

// LDS: the pooled fit of fit_lds's EM over all the sequences (each of at least 2 vectors) and the MAP
// adaptation of a pooled LDS to one sequence (see "LDS" above); log_likelihoods holds the pooled
// penalised L resp. the MAP objective after 0, 1, 2, ... M-steps. The pooled LDS stores T = the
// first sequence's N - 1 (or options.length), the adapted one the sequence's N - 1 (or length).
LdsFit fit_pooled_lds(const std::vector<Eigen::MatrixXd>& sequences, const LdsFitOptions& options, unsigned threads = 1);
LdsFit adapt_lds(const LdsModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options);

// SLDS: the pooled hard EM over all the sequences (each of at least 2 vectors) and the MAP adaptation
// of a pooled SLDS to one sequence (see "SLDS" above); objectives holds J resp. J_MAP after the start
// and each round, paths the final regime path of each sequence. The pooled SLDS stores T = the first
// sequence's N - 1 (or options.length), the adapted one the sequence's N - 1 (or options.length) and
// S = `paths` (default: the pooled model's S).
SldsFit fit_pooled_slds(const std::vector<Eigen::MatrixXd>& sequences, const SldsFitOptions& options,
                        unsigned threads = 1);
SldsFit adapt_slds(const SldsModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options,
                   std::optional<long> paths = std::nullopt);

}  // namespace ppk
