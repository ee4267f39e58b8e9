// The estimator of fully observed discrete Bayesian networks (see estimate_bayesnet.hpp).
#include "ppk/estimate_bayesnet.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "estimate_detail.hpp"
#include "ppk/json.hpp"

namespace ppk {
namespace {

using detail::short_number;

const char* const kFamily = "bayesnet";
constexpr std::size_t kMaxCpt = 10000000;  // bayesnet.cpp's largest CPT

std::string count_name(std::size_t node) { return "node " + std::to_string(node); }

// The structure as a network with uniform CPTs, which validates it as any network is validated.
// A "cpt" the structure should not have is an error; the CPT sizes follow from the parents' states
// (when the parents are invalid, the network's own check names them before any CPT is looked at).
std::unique_ptr<BayesNetModel> structure_network(const nlohmann::json& structure) {
  if (!structure.is_object() || !structure.contains("nodes") || !structure["nodes"].is_array())
    throw ModelError("a network structure is a JSON object {\"nodes\":[{\"states\":K,\"parents\":[..],\"variable\":j},..]}");
  nlohmann::json network = structure;
  network["family"] = kFamily;
  nlohmann::json& nodes = network["nodes"];
  const auto states_of = [&](const nlohmann::json& node) {
    return node.is_object() && node.contains("states") && node["states"].is_number_unsigned()
               ? node["states"].get<std::size_t>()
               : std::size_t{1};
  };
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nlohmann::json& node = nodes[i];
    if (!node.is_object() || !node.contains("states")) continue;  // the network's check explains
    if (node.contains("cpt"))
      throw ModelError("bayesnet nodes[" + std::to_string(i) + "] field \"cpt\": a structure gives no CPTs (they are fitted)");
    std::size_t rows = 1;
    const std::size_t states = states_of(node);
    if (node.contains("parents") && node["parents"].is_array())
      for (const nlohmann::json& u : node["parents"])
        if (u.is_number_unsigned() && u.get<std::size_t>() < nodes.size() && rows * states <= kMaxCpt)
          rows *= states_of(nodes[u.get<std::size_t>()]);
    if (rows * states > kMaxCpt || states > kMaxCpt) continue;  // the network's check reports the size
    node["cpt"] = std::vector<std::vector<double>>(rows, std::vector<double>(states, 1.0 / static_cast<double>(states)));
  }
  std::unique_ptr<Model> model = model_from_json(network);
  return std::unique_ptr<BayesNetModel>(static_cast<BayesNetModel*>(model.release()));
}

class BayesNetEstimator : public Estimator {
 public:
  BayesNetEstimator(std::unique_ptr<BayesNetModel> structure, const BayesNetFitOptions& options)
      : structure_(std::move(structure)), options_(options) {
    detail::check_option("--alpha", options.alpha, 0, false);
    detail::prior_shift(options.method, options.alpha);
    for (std::size_t i = 0; i < structure_->size(); ++i) {
      const BayesNode& node = structure_->node(i);
      if (node.variable < 0)
        throw ModelError("bayesnet nodes[" + std::to_string(i) + "] is hidden (no \"variable\"): fitting hidden nodes "
                         "needs EM, which ppk fit bayesnet does not offer; every node must be observed");
      if (node.states == 0)
        throw ModelError("bayesnet nodes[" + std::to_string(i) + "] is an emission leaf (no \"states\"): ppk fit "
                         "bayesnet fits discrete nodes only");
    }
  }
  std::string family() const override { return kFamily; }

  // n(i, c, k) for every node, from each vector's values (variable j at coordinate j, in 1..K_j).
  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    const long variables = static_cast<long>(structure_->observed_variables());
    if (dim != variables)
      throw EstimationError("the structure has " + std::to_string(variables) + " observed variables (indices 1.." +
                            std::to_string(variables) + "), but the dimension is " + std::to_string(dim) +
                            " (--dim, or the largest index)");
    detail::check_example(vectors, dim);
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    std::vector<Eigen::MatrixXd> counts;
    for (std::size_t i = 0; i < structure_->size(); ++i) counts.push_back(Eigen::MatrixXd::Zero(cpt_size(i), 1));
    // state[v][i]: node i's state (0-based) in vector v.
    std::vector<std::vector<long>> state(vectors.size(), std::vector<long>(structure_->size()));
    detail::for_each_value(vectors, dim, [&](std::size_t v, long d, double value) {
      const std::size_t i = node_of_variable(d);
      const long states = structure_->node(i).states;
      if (value != std::floor(value) || value < 1 || value > static_cast<double>(states))
        throw EstimationError(detail::value_at(value, v, d, vectors.size()) + ": observed variable " +
                              std::to_string(d) + " (node " + std::to_string(i) + ") takes the values 1.." +
                              std::to_string(states));
      state[v][i] = static_cast<long>(value) - 1;
    });
    for (const std::vector<long>& observed : state)
      for (std::size_t i = 0; i < structure_->size(); ++i)
        counts[i](configuration(i, observed) * structure_->node(i).states + observed[i], 0) += 1.0;
    for (std::size_t i = 0; i < structure_->size(); ++i) statistics.sums[count_name(i)] = std::move(counts[i]);
    return statistics;
  }

  // Each CPT row (n(i, c, k) + shift) / (n(i, c) + K shift).
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    const double shift = detail::prior_shift(options_.method, options_.alpha);
    std::vector<BayesNode> nodes;
    for (std::size_t i = 0; i < structure_->size(); ++i) {
      const BayesNode& shape = structure_->node(i);
      const Eigen::MatrixXd& counts = detail::sum_of(statistics, count_name(i));
      if (counts.rows() != cpt_size(i)) throw EstimationError("the pooled statistics are of another structure");
      BayesNode node;
      node.states = shape.states;
      node.variable = shape.variable;
      node.parents = shape.parents;
      for (long c = 0; c < cpt_size(i) / shape.states; ++c) {
        const double denominator = counts.block(c * shape.states, 0, shape.states, 1).sum() +
                                   shift * static_cast<double>(shape.states);
        if (!(denominator > 0))
          throw EstimationError("node " + std::to_string(i) + ": parent configuration " + std::to_string(c) +
                                " is never observed, so its " + method_name(options_.method) +
                                " CPT row is undefined; give --alpha > 0 with --estimator posterior");
        for (long k = 0; k < shape.states; ++k) node.cpt.push_back((counts(c * shape.states + k, 0) + shift) / denominator);
      }
      nodes.push_back(std::move(node));
    }
    return detail::build_model([&] { return std::make_unique<BayesNetModel>(std::move(nodes)); });
  }

 private:
  long cpt_size(std::size_t i) const {
    long size = structure_->node(i).states;
    for (long u : structure_->node(i).parents) size *= structure_->node(static_cast<std::size_t>(u)).states;
    return size;
  }
  // c = row-major over the parents' states, the last parent fastest (bayesnet.hpp).
  long configuration(std::size_t i, const std::vector<long>& state) const {
    long c = 0;
    for (long u : structure_->node(i).parents)
      c = c * structure_->node(static_cast<std::size_t>(u)).states + state[static_cast<std::size_t>(u)];
    return c;
  }
  std::size_t node_of_variable(long variable) const {
    for (std::size_t i = 0; i < structure_->size(); ++i)
      if (structure_->node(i).variable == variable) return i;
    throw EstimationError("no node is observed variable " + std::to_string(variable));
  }

  std::unique_ptr<BayesNetModel> structure_;
  BayesNetFitOptions options_;
};

}  // namespace

std::unique_ptr<Estimator> bayesnet_estimator(const nlohmann::json& structure, const BayesNetFitOptions& options) {
  return std::make_unique<BayesNetEstimator>(structure_network(structure), options);
}

}  // namespace ppk
