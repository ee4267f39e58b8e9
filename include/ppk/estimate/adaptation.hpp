// Pooled models and MAP adaptation of latent-variable models (HMMs, Gaussian mixtures, Bayesian
// networks, LDSs and SLDSs).
//
// Per-example Baum-Welch or EM on a short example overfits, and its hidden states (components) mean
// different things in different examples, so a kernel between two such fits compares unaligned
// parameters. The remedy of speaker recognition (Reynolds, Quatieri & Dunn 2000, "Speaker
// verification using adapted Gaussian mixture models"): fit one *pooled* model to all training
// examples at once, then fit each example by MAP-EM started from the pooled model under conjugate
// priors centred on the pooled parameters with strength tau (the relevance factor). Every example's
// state q stays the pooled model's state q and moves only as far as the example's own data warrants.
//
// Pooled fit: EM over all examples at once, each example's E-step under the shared parameters and
// the M-step from the expected counts summed over the examples. Each family's pooled fit and
// adaptation are declared beside its fit: the hmm's in estimate_hmm.hpp, the mixture's in
// estimate_mixture.hpp, the Bayesian network's in estimate_bayesnet.hpp, the lds's and the slds's
// (with their priors on the dynamics) in estimate_lds.hpp and estimate_slds.hpp, "Pooled fit and
// adaptation".
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
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

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

// The result of choosing a pooled model's size by held-out likelihood (the hmm's states, the
// mixture's components, the markov chain's order): the size kept, and each size tried with its
// held-out score.
struct SizeChoice {
  long size = 0;
  double best_score = 0.0;
  std::vector<long> grid;                        // the sizes tried
  std::vector<double> held_out_log_likelihoods;  // per size tried
};

}  // namespace ppk
