// Fitting a Bayesian network (bayesnet.hpp) of given structure to one example's joint observations.
//
// The structure is a network's JSON without CPTs: {"nodes":[{"states":K,"parents":[..],"variable":j},..]}.
// Every node must be an observed discrete node: hidden nodes need EM and emission leaves their own
// conditional estimators, neither of which is offered yet (a ModelError says so). Each vector
// of the example is one joint observation, observed variable j at index j + 1 with a value in 1..K_j
// (LIBSVM rows omit zeros, so the states are numbered from 1 in the data; state k - 1 of the model).
// Sufficient statistics: the counts n(i, c, k) of node i in state k with its parents in configuration c.
// Under a symmetric Dirichlet(alpha) prior on each CPT row (the multinomial's estimators, estimate.hpp):
//   ml:        P(k | c) = n(i, c, k) / n(i, c)                  (needs every configuration observed)
//   map:       P(k | c) = (n(i, c, k) + alpha - 1) / (n(i, c) + K (alpha - 1))   (alpha >= 1)
//   posterior: P(k | c) = (n(i, c, k) + alpha) / (n(i, c) + K alpha)
// The counts are sums over the vectors, so shrinkage (--shrink) pools them like any other statistics.
#pragma once

#include <memory>

#include <nlohmann/json_fwd.hpp>

#include "ppk/bayesnet.hpp"
#include "ppk/estimate.hpp"

namespace ppk {

struct BayesNetFitOptions {
  Method method = Method::posterior;
  double alpha = 1.0;  // >= 0
};

// The estimator for networks of the structure `structure` (the JSON above). Throws ModelError for a
// structure that is not a valid network (a cycle, bad parents, ...: the message names the node) or
// that it cannot fit (hidden nodes, emission leaves), EstimationError for bad options.
std::unique_ptr<Estimator> bayesnet_estimator(const nlohmann::json& structure, const BayesNetFitOptions& options);

}  // namespace ppk
