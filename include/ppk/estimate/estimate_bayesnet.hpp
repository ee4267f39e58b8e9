// Fitting a Bayesian network (bayesnet.hpp) of given structure to one example's joint observations.
//
// The structure is a network's JSON without CPTs: {"nodes":[{"states":K,"parents":[..],"variable":j},..]}.
// Every node must be discrete, observed or hidden (emission leaves would need their own conditional
// estimators, which are not offered: a ModelError says so). Each vector of the example is one joint
// observation of the observed variables, variable j at index j + 1 with a value in 1..K_j (LIBSVM
// rows omit zeros, so the states are numbered from 1 in the data; state k - 1 of the model).
// Under a symmetric Dirichlet(alpha) prior on each CPT row (the multinomial's estimators, estimate.hpp),
// with n(i, c, k) the number of observations with node i in state k and its parents in configuration c:
//   ml:        P(k | c) = n(i, c, k) / n(i, c)                  (needs every configuration observed)
//   map:       P(k | c) = (n(i, c, k) + alpha - 1) / (n(i, c) + K (alpha - 1))   (alpha >= 1)
//   posterior: P(k | c) = (n(i, c, k) + alpha) / (n(i, c) + K alpha)
// i.e. P(k | c) = (n(i, c, k) + s) / (n(i, c) + K s) with the shift s = 0, alpha - 1, alpha.
//
// Fully observed networks: the counts are the sufficient statistics, so shrinkage (--shrink) pools
// them like any other statistics, and the fit is this closed form.
//
// Networks with hidden nodes: EM (Dempster, Laird and Rubin 1977) with expected counts,
//   E-step:  n(i, c, k) = sum over observations x of P(node i = k, parents of i = c | x), the posterior
//            over the joint hidden configurations h computed exactly by enumerating them, in log space:
//            log p(h, x) = sum_i log P(node i | its parents), P(h | x) = exp(log p(h, x) - m) / Z with
//            m the largest log p(h, x), log p(x) = m + log Z;
//   M-step:  the formula above applied to the expected counts.
// The update (n + s) / (n + K s) maximises sum n(i, c, k) log P(k | c) + s sum log P(k | c): it is the
// MAP under independent Dirichlet(1 + s) priors on the CPT rows, so EM never decreases the objective
//   L = sum over observations x of log p(x) + s sum_{i, c, k} log P(node i = k | c)
// (ml: the log-likelihood; map: the log-posterior under Dirichlet(alpha), up to a constant;
// posterior: the log-posterior under Dirichlet(1 + alpha), up to a constant: the smoothed mean under
// Dirichlet(alpha) is the mode under Dirichlet(1 + alpha)). The enumeration visits every joint
// hidden configuration, so the structure's hidden nodes may have at most kMaxHiddenConfigurations
// of them. A row whose expected count and shift are both 0 is undefined (an error, as for ml with
// an unobserved configuration). Each restart starts from CPT rows proportional to 1/2 + u (u uniform
// on [0, 1)) for every node; EM stops after `iterations` M-steps or when L gains less than
// tolerance * |L|; the fit with the largest L over the restarts is kept. The random stream is
// std::mt19937_64 seeded by (seed, n, the number of observed variables, a hash of the observations),
// so the same observations and options always give the same network. Such estimators keep the
// observations as the statistic "states" (n x variables, 0-based states) and cannot pool.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>

#include "ppk/families/bayesnet.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk {

struct BayesNetFitOptions {
  Method method = Method::posterior;
  double alpha = 1.0;       // >= 0
  long iterations = 200;    // >= 1 (hidden nodes)
  double tolerance = 1e-8;  // >= 0 (hidden nodes)
  long restarts = 3;        // >= 1 (hidden nodes)
  std::uint64_t seed = 1;   // (hidden nodes)
};

// The most joint hidden configurations (the product of the hidden nodes' states) EM enumerates.
constexpr double kMaxHiddenConfigurations = 65536;  // 2^16

// The estimator for networks of the structure `structure` (the JSON above). Throws ModelError for a
// structure that is not a valid network (a cycle, bad parents, ...: the message names the node) or
// that it cannot fit (emission leaves, too many hidden configurations), EstimationError for bad options.
std::unique_ptr<Estimator> bayesnet_estimator(const nlohmann::json& structure, const BayesNetFitOptions& options);
// Its Fisher scores (fisher.hpp, fisher_bayesnet.cpp; the estimator's fisher_scores): EstimationError
// unless every node is discrete (naming the first emission leaf); OptionError naming {adapt} as
// check_adapted_parameters.
std::unique_ptr<FisherScores> bayesnet_fisher_scores(const BayesNetModel& pooled, const AdaptedParameters& parameters);

// The EM fit of a structure with hidden nodes and L after each M-step of the kept restart (L[0]: the
// starting point; the model is the one of the last entry). observations[v][j]: observed variable
// j's state (0-based) in observation v. Throws as bayesnet_estimator, and EstimationError for
// observations that are not states of the observed variables.
struct BayesNetFit {
  std::unique_ptr<BayesNetModel> model;
  std::vector<double> objectives;  // L above
};
BayesNetFit fit_bayesnet_em(const nlohmann::json& structure, const std::vector<std::vector<long>>& observations,
                            const BayesNetFitOptions& options);

// The E-step above under `network`: the expected counts n(i, c, k) of the observations (node i's CPT
// entry c K + k; the plain counts for a fully observed network) and sum over the observations of
// log p(x). Throws ModelError for a network EM cannot enumerate (emission leaves, too many hidden
// configurations), EstimationError for observations that are not states of the observed variables or
// an observation of probability 0.
struct BayesNetExpectedCounts {
  std::vector<Eigen::VectorXd> counts;
  double log_likelihood = 0;
};
BayesNetExpectedCounts bayesnet_expected_counts(const BayesNetModel& network,
                                                const std::vector<std::vector<long>>& observations);
// The same for one example's statistics as bayesnet_estimator makes them: its observations (with
// hidden nodes), or a fully observed network's counts, which are returned as they are. EstimationError
// when they are not statistics of this network's shape.
BayesNetExpectedCounts bayesnet_expected_counts(const BayesNetModel& network, const Statistics& example);

// The MAP adaptation of a pooled network (adaptation.hpp; `ppk fit bayesnet --pooled`, then
// --adapt-from): EM from `pooled` with the pseudo-counts tau P0(k | c) on every CPT entry, so each row
// becomes (n(i, c, k) + tau P0(k | c)) / (n(i, c) + tau) with expected counts n, and EM never decreases
//   L = sum over observations x of log p(x) + tau sum_{i, c, k} P0(k | c) log P(node i = k | c).
// Without hidden nodes this is one closed-form step. objectives: L after 0, 1, ... M-steps.
struct AdaptationOptions;
BayesNetFit adapt_bayesnet(const BayesNetModel& pooled, const std::vector<std::vector<long>>& observations,
                           const AdaptationOptions& options);

}  // namespace ppk
