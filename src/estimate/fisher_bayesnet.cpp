// Fisher scores (fisher.hpp) of a pooled network of discrete nodes, x a set of n joint observations
// of its observed variables. The E-step is the network's expected counts (estimate_bayesnet.hpp,
// enumerating the hidden nodes) under the pooled CPTs: the logit scores (fisher.hpp) of each row
// P(. | c) of node i's CPT have the expected counts
//     cpts         c_k = n(i, c, k), the expected count of node i in state k with its parents in
//                  configuration c over the n observations, N = n(i, c).
// u(x) = U(x) / n, n the number of observations.
//
// Feature order: cpts[i][e] for node i = 0.. and its CPT entry e = c K_i + k (row c, state k), every
// node. The selection's name: cpts.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "estimate/fisher_scores.hpp"
#include "ppk/estimate/estimate_bayesnet.hpp"
#include "ppk/estimate/fisher.hpp"
#include "ppk/families/bayesnet.hpp"

namespace ppk {

namespace {

// A copy of the pooled network's nodes; EstimationError naming the first that is an emission leaf.
std::unique_ptr<BayesNetModel> discrete_copy(const BayesNetModel& network) {
  std::vector<BayesNode> nodes;
  for (std::size_t i = 0; i < network.size(); ++i) {
    const BayesNode& from = network.node(i);
    if (from.states == 0)
      throw EstimationError("the pooled network's node " + std::to_string(i) +
                            " is an emission leaf: Fisher scores need every node discrete");
    BayesNode node;
    node.states = from.states;
    node.variable = from.variable;
    node.parents = from.parents;
    node.cpt = from.cpt;
    nodes.push_back(std::move(node));
  }
  return std::make_unique<BayesNetModel>(std::move(nodes));
}

class BayesNetScores final : public FisherScores {
 public:
  BayesNetScores(const BayesNetModel& pooled, const AdaptedParameters& parameters) : network_(discrete_copy(pooled)) {
    check_adapted_parameters(parameters, "bayesnet", {"cpts"});
    for (std::size_t i = 0; i < network_->size(); ++i)
      for (std::size_t e = 0; e < network_->node(i).cpt.size(); ++e)
        names_.push_back(detail::indexed(detail::indexed("cpts", static_cast<long>(i)), static_cast<long>(e)));
  }

  Eigen::VectorXd rows_score(const Eigen::MatrixXd&) const override {
    throw EstimationError("the pooled model is a network: score its joint observations, not vectors");
  }

  Eigen::VectorXd observations_score(const std::vector<std::vector<long>>& observations) const override {
    const BayesNetExpectedCounts expected = bayesnet_expected_counts(*network_, observations);
    return counts_score(expected.counts, static_cast<double>(observations.size()));
  }

  // The example's expected counts: its observations' (with hidden nodes), or a fully observed
  // network's counts as they are.
  Eigen::VectorXd statistics_score(const Statistics& example) const override {
    return counts_score(bayesnet_expected_counts(*network_, example).counts, example.count);
  }

  Eigen::VectorXd counts_score(const std::vector<Eigen::VectorXd>& expected_counts, double observations) const override {
    if (!(observations > 0)) throw EstimationError("there are no observations");
    if (expected_counts.size() != network_->size())
      throw EstimationError("the counts are of " + std::to_string(expected_counts.size()) +
                            " nodes, the pooled network has " + std::to_string(network_->size()));
    Eigen::VectorXd out(static_cast<Eigen::Index>(names_.size()));
    Eigen::Index j = 0;
    for (std::size_t i = 0; i < network_->size(); ++i) {
      const BayesNode& node = network_->node(i);
      const Eigen::Index entries = static_cast<Eigen::Index>(node.cpt.size());
      if (expected_counts[i].size() != entries)
        throw EstimationError("node " + std::to_string(i) + "'s counts have " +
                              std::to_string(expected_counts[i].size()) + " entries, its CPT " + std::to_string(entries));
      const Eigen::Map<const Eigen::VectorXd> cpt(node.cpt.data(), entries);
      for (Eigen::Index row = 0; row < entries; row += node.states)
        detail::write_logit_scores(expected_counts[i].segment(row, node.states), cpt.segment(row, node.states),
                                   out.segment(j + row, node.states));
      j += entries;
    }
    return out / observations;
  }

 protected:
  std::string pooled_model() const override { return "the pooled model is a network"; }

 private:
  std::unique_ptr<BayesNetModel> network_;  // a copy of the discrete nodes
};

}  // namespace

std::unique_ptr<FisherScores> bayesnet_fisher_scores(const BayesNetModel& pooled, const AdaptedParameters& parameters) {
  return std::make_unique<BayesNetScores>(pooled, parameters);
}

}  // namespace ppk
