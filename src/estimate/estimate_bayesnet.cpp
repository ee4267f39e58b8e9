// The estimator of discrete Bayesian networks (see estimate_bayesnet.hpp): closed-form counts when
// every node is observed, EM with exact enumeration of the hidden configurations otherwise.
#include "ppk/estimate/estimate_bayesnet.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "estimate/estimate_detail.hpp"
#include "ppk/core/json.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/fisher.hpp"

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
    throw ModelError(
        "a network structure is a JSON object {\"nodes\":[{\"states\":K,\"parents\":[..],\"variable\":j},..]}");
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
      throw ModelError("bayesnet nodes[" + std::to_string(i) +
                       "] field \"cpt\": a structure gives no CPTs (they are fitted)");
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

// The number of CPT entries of node i: its states times its parents' configurations.
long cpt_size(const BayesNetModel& network, std::size_t i) {
  long size = network.node(i).states;
  for (long u : network.node(i).parents) size *= network.node(static_cast<std::size_t>(u)).states;
  return size;
}

// The entry of node i's CPT for the nodes' states `state`: row c = row-major over the parents' states,
// the last parent fastest (bayesnet.hpp), column state[i].
std::size_t cpt_entry(const BayesNetModel& network, std::size_t i, const std::vector<long>& state) {
  long c = 0;
  for (long u : network.node(i).parents)
    c = c * network.node(static_cast<std::size_t>(u)).states + state[static_cast<std::size_t>(u)];
  return static_cast<std::size_t>(c * network.node(i).states + state[i]);
}

// How the fit sees a structure: which node each observed variable is, and the hidden nodes.
struct Layout {
  std::vector<std::size_t> variable_nodes;  // observed variable j is node variable_nodes[j]
  std::vector<std::size_t> hidden;          // the hidden nodes, in node order
  double hidden_configurations = 1;         // the product of their states
};

// Throws ModelError for what cannot be fitted: emission leaves and too many hidden configurations.
Layout layout_of(const BayesNetModel& network) {
  Layout layout;
  layout.variable_nodes.resize(network.observed_variables());
  for (std::size_t i = 0; i < network.size(); ++i) {
    const BayesNode& node = network.node(i);
    if (node.states == 0)
      throw ModelError("bayesnet nodes[" + std::to_string(i) +
                       "] is an emission leaf (no \"states\"): ppk fit "
                       "bayesnet fits discrete nodes only");
    if (node.variable >= 0) {
      layout.variable_nodes[static_cast<std::size_t>(node.variable)] = i;
    } else {
      layout.hidden.push_back(i);
      layout.hidden_configurations *= static_cast<double>(node.states);
    }
  }
  if (layout.hidden_configurations > kMaxHiddenConfigurations)
    throw ModelError("bayesnet structure: the " + std::to_string(layout.hidden.size()) + " hidden nodes have " +
                     short_number(layout.hidden_configurations) + " joint configurations, more than the limit of " +
                     short_number(kMaxHiddenConfigurations) + " (2^16) that EM enumerates exactly");
  return layout;
}

// The distinct observations (the observed variables' states) and how often each occurs.
using Patterns = std::map<std::vector<long>, double>;

Patterns patterns_of(const std::vector<std::vector<long>>& observations) {
  Patterns patterns;
  for (const std::vector<long>& x : observations) patterns[x] += 1.0;
  return patterns;
}

using ExpectedCounts = BayesNetExpectedCounts;

// The E-step of estimate_bayesnet.hpp: for each observation x the log joint log p(h, x) of every
// hidden configuration h (node i's state in h: the mixed-radix digit of h, the last hidden node
// fastest), then n(i, c, k) += P(h | x) at node i's entry. Without hidden nodes P(h | x) = 1 exactly,
// so the counts are the plain counts.
ExpectedCounts expected_counts(const BayesNetModel& network, const Layout& layout, const Patterns& patterns) {
  std::vector<Eigen::ArrayXd> log_cpts;
  ExpectedCounts out;
  for (std::size_t i = 0; i < network.size(); ++i) {
    const std::vector<double>& cpt = network.node(i).cpt;
    log_cpts.push_back(Eigen::Map<const Eigen::ArrayXd>(cpt.data(), static_cast<Eigen::Index>(cpt.size())).log());
    out.counts.push_back(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(cpt.size())));
  }
  const auto configurations = static_cast<std::size_t>(layout.hidden_configurations);
  std::vector<long> state(network.size(), 0);
  const auto set_hidden = [&](std::size_t h) {
    for (auto it = layout.hidden.rbegin(); it != layout.hidden.rend(); ++it) {
      const long states = network.node(*it).states;
      state[*it] = static_cast<long>(h % static_cast<std::size_t>(states));
      h /= static_cast<std::size_t>(states);
    }
  };
  std::vector<double> log_joint(configurations);
  for (const auto& [x, multiplicity] : patterns) {
    for (std::size_t j = 0; j < x.size(); ++j) state[layout.variable_nodes[j]] = x[j];
    for (std::size_t h = 0; h < configurations; ++h) {
      set_hidden(h);
      double sum = 0;
      for (std::size_t i = 0; i < network.size(); ++i)
        sum += log_cpts[i](static_cast<Eigen::Index>(cpt_entry(network, i, state)));
      log_joint[h] = sum;
    }
    const double largest = *std::max_element(log_joint.begin(), log_joint.end());
    if (!std::isfinite(largest)) throw EstimationError("an observation has probability 0 under the network's CPTs");
    double normaliser = 0;  // Z
    for (double& w : log_joint) normaliser += (w = std::exp(w - largest));
    out.log_likelihood += multiplicity * (largest + std::log(normaliser));
    for (std::size_t h = 0; h < configurations; ++h) {
      if (log_joint[h] == 0.0) continue;
      set_hidden(h);
      const double weight = multiplicity * log_joint[h] / normaliser;
      for (std::size_t i = 0; i < network.size(); ++i)
        out.counts[i](static_cast<Eigen::Index>(cpt_entry(network, i, state))) += weight;
    }
  }
  return out;
}

// The Dirichlet pseudo-counts of every CPT entry (node i's at entry c K + k): the shift s of
// estimate_bayesnet.hpp on every entry, or tau P0(k | c) for the MAP adaptation of a pooled network
// (adaptation.hpp).
using PseudoCounts = std::vector<Eigen::VectorXd>;

PseudoCounts shift_counts(const BayesNetModel& shape, double shift) {
  PseudoCounts pseudo;
  for (std::size_t i = 0; i < shape.size(); ++i) pseudo.push_back(Eigen::VectorXd::Constant(cpt_size(shape, i), shift));
  return pseudo;
}

PseudoCounts adaptation_counts(const BayesNetModel& pooled, double relevance) {
  PseudoCounts pseudo;
  for (std::size_t i = 0; i < pooled.size(); ++i) {
    const std::vector<double>& cpt = pooled.node(i).cpt;
    pseudo.push_back(relevance * Eigen::Map<const Eigen::VectorXd>(cpt.data(), static_cast<Eigen::Index>(cpt.size())));
  }
  return pseudo;
}

// The M-step, and the closed form of fully observed networks: the network of the structure's shape
// whose CPT rows are (n(i, c, k) + pseudo(i, c, k)) / (n(i, c) + pseudo(i, c)), the maximiser of
// sum (n + pseudo) log P. `options` names the prior in the error for a row that is undefined.
std::unique_ptr<BayesNetModel> maximise(const BayesNetModel& shape, const std::vector<Eigen::VectorXd>& counts,
                                        const PseudoCounts& pseudo, const BayesNetFitOptions& options) {
  std::vector<BayesNode> nodes;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const BayesNode& from = shape.node(i);
    BayesNode node;
    node.states = from.states;
    node.variable = from.variable;
    node.parents = from.parents;
    for (long c = 0; c < cpt_size(shape, i) / from.states; ++c) {
      const Eigen::VectorXd row =
          counts[i].segment(c * from.states, from.states) + pseudo[i].segment(c * from.states, from.states);
      const double denominator = row.sum();
      if (!(denominator > 0))
        throw OptionError("node " + std::to_string(i) + ": parent configuration " + std::to_string(c) +
                          " is never observed, so its " + method_name(options.method) +
                          " CPT row is undefined; give {alpha} > 0 with {method} posterior");
      for (long k = 0; k < from.states; ++k) node.cpt.push_back(row(k) / denominator);
    }
    nodes.push_back(std::move(node));
  }
  return detail::build_model([&] { return std::make_unique<BayesNetModel>(std::move(nodes)); });
}

// sum_{i, c, k} pseudo(i, c, k) log P(node i = k | c): the prior's term of L (entries without
// pseudo-counts add nothing, so an ML entry may be 0).
double log_prior(const BayesNetModel& network, const PseudoCounts& pseudo) {
  double sum = 0;
  for (std::size_t i = 0; i < network.size(); ++i) {
    const std::vector<double>& cpt = network.node(i).cpt;
    sum += detail::log_dirichlet_prior(
        Eigen::Map<const Eigen::ArrayXd>(cpt.data(), static_cast<Eigen::Index>(cpt.size())), pseudo[i].array());
  }
  return sum;
}

// EM from `network` (estimate_bayesnet.hpp), M-steps with the pseudo-counts; L after 0, 1, 2, ...
// M-steps, `network` left at the last.
std::vector<double> run_em(std::unique_ptr<BayesNetModel>& network, const Layout& layout, const Patterns& patterns,
                           const PseudoCounts& pseudo, long iterations, double tolerance,
                           const BayesNetFitOptions& options) {
  std::vector<double> objectives;
  for (long step = 0;; ++step) {
    const ExpectedCounts expected = expected_counts(*network, layout, patterns);
    const double objective = expected.log_likelihood + log_prior(*network, pseudo);
    const bool converged = !objectives.empty() && objective - objectives.back() < tolerance * std::fabs(objective);
    objectives.push_back(objective);
    if (converged || step == iterations) break;
    network = maximise(*network, expected.counts, pseudo, options);
  }
  return objectives;
}

// A copy of the network's discrete nodes.
std::vector<BayesNode> discrete_nodes(const BayesNetModel& network) {
  std::vector<BayesNode> nodes;
  for (std::size_t i = 0; i < network.size(); ++i) {
    BayesNode node;
    node.states = network.node(i).states;
    node.variable = network.node(i).variable;
    node.parents = network.node(i).parents;
    node.cpt = network.node(i).cpt;
    nodes.push_back(std::move(node));
  }
  return nodes;
}

// The structure's shape with every CPT row proportional to 1/2 + u, u uniform on [0, 1).
std::unique_ptr<BayesNetModel> random_network(const BayesNetModel& shape, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<BayesNode> nodes = discrete_nodes(shape);
  for (BayesNode& node : nodes)
    for (std::size_t row = 0; row < node.cpt.size(); row += static_cast<std::size_t>(node.states)) {
      double total = 0;
      for (long k = 0; k < node.states; ++k) total += (node.cpt[row + static_cast<std::size_t>(k)] = 0.5 + uniform(rng));
      for (long k = 0; k < node.states; ++k) node.cpt[row + static_cast<std::size_t>(k)] /= total;
    }
  return std::make_unique<BayesNetModel>(std::move(nodes));
}

void check_options(const BayesNetFitOptions& options) {
  detail::check_option("alpha", options.alpha, 0, false);
  detail::prior_shift(options.method, options.alpha);
  if (options.iterations < 1)
    throw OptionError("{iterations} must be at least 1, got " + std::to_string(options.iterations));
  detail::check_option("tolerance", options.tolerance, 0, false);
  if (options.restarts < 1) throw OptionError("{restarts} must be at least 1, got " + std::to_string(options.restarts));
}

// EstimationError unless every observation gives each observed variable one of its states.
void check_observations(const BayesNetModel& shape, const Layout& layout,
                        const std::vector<std::vector<long>>& observations) {
  if (observations.empty()) throw EstimationError("there are no observations");
  for (std::size_t v = 0; v < observations.size(); ++v) {
    if (observations[v].size() != layout.variable_nodes.size())
      throw EstimationError("observation " + std::to_string(v + 1) + " has " + std::to_string(observations[v].size()) +
                            " values, the structure " + std::to_string(layout.variable_nodes.size()) +
                            " observed variables");
    for (std::size_t j = 0; j < observations[v].size(); ++j) {
      const long states = shape.node(layout.variable_nodes[j]).states;
      if (observations[v][j] < 0 || observations[v][j] >= states)
        throw EstimationError("observation " + std::to_string(v + 1) + ": observed variable " + std::to_string(j) +
                              " is in state " + std::to_string(observations[v][j]) + ", not in 0.." +
                              std::to_string(states - 1));
    }
  }
}

// EM from each restart's random start (estimate_bayesnet.hpp); the restart with the largest final L.
BayesNetFit fit_em(const BayesNetModel& shape, const Layout& layout, const std::vector<std::vector<long>>& observations,
                   const BayesNetFitOptions& options) {
  check_options(options);
  check_observations(shape, layout, observations);
  const double shift = detail::prior_shift(options.method, options.alpha);
  const Patterns patterns = patterns_of(observations);
  std::vector<long> flat;
  for (const std::vector<long>& x : observations) flat.insert(flat.end(), x.begin(), x.end());
  std::seed_seq seed{options.seed, static_cast<std::uint64_t>(observations.size()),
                     static_cast<std::uint64_t>(layout.variable_nodes.size()),
                     detail::fingerprint(flat.data(), flat.size())};
  std::mt19937_64 rng(seed);
  const PseudoCounts pseudo = shift_counts(shape, shift);
  BayesNetFit best;
  for (long restart = 0; restart < options.restarts; ++restart) {
    std::unique_ptr<BayesNetModel> network = random_network(shape, rng);
    std::vector<double> objectives =
        run_em(network, layout, patterns, pseudo, options.iterations, options.tolerance, options);
    if (!best.model || objectives.back() > best.objectives.back()) {
      best.model = std::move(network);
      best.objectives = std::move(objectives);
    }
  }
  return best;
}

// The observations of the statistic "states" (n x variables, 0-based states).
std::vector<std::vector<long>> observations_of(const Statistics& statistics) {
  const Eigen::MatrixXd& states = detail::sum_of(statistics, "states");
  if (states.cols() != statistics.dim)
    throw EstimationError("the statistic \"states\" must have one column per observed variable");
  std::vector<std::vector<long>> observations(static_cast<std::size_t>(states.rows()));
  for (Eigen::Index v = 0; v < states.rows(); ++v)
    for (Eigen::Index d = 0; d < states.cols(); ++d)
      observations[static_cast<std::size_t>(v)].push_back(static_cast<long>(states(v, d)));
  return observations;
}

// EstimationError unless `pooled` has the shape of the structure: the same nodes, states, variables
// and parents.
void check_same_structure(const BayesNetModel& shape, const BayesNetModel& pooled) {
  const auto same = [&](std::size_t i) {
    const BayesNode &a = shape.node(i), &b = pooled.node(i);
    return a.states == b.states && a.variable == b.variable && a.parents == b.parents;
  };
  if (shape.size() != pooled.size())
    throw EstimationError("the pooled network has " + std::to_string(pooled.size()) + " nodes, the structure " +
                          std::to_string(shape.size()));
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (!same(i))
      throw EstimationError("the pooled network's node " + std::to_string(i) +
                            " differs from the structure's in its states, variable or parents");
}

// The MAP adaptation of `pooled` (adaptation.hpp) to the observations: EM from the pooled network
// with pseudo-counts tau P0(k | c) on every CPT entry (without hidden nodes one M-step is the closed
// form (n(i, c, k) + tau P0) / (n(i, c) + tau)).
BayesNetFit adapt_network(const BayesNetModel& pooled, const Layout& layout,
                          const std::vector<std::vector<long>>& observations, const AdaptationOptions& options) {
  check_adaptation_options(options);
  check_adapted_parameters(options.adapt, "bayesnet", {"cpts"});
  check_observations(pooled, layout, observations);
  BayesNetFit fit;
  fit.model = std::make_unique<BayesNetModel>(discrete_nodes(pooled));
  BayesNetFitOptions names;  // the prior is tau P0 > 0: no row is undefined
  fit.objectives = run_em(fit.model, layout, patterns_of(observations), adaptation_counts(pooled, options.relevance),
                          layout.hidden.empty() ? 1 : options.iterations, options.tolerance, names);
  return fit;
}

class BayesNetEstimator : public Estimator {
 public:
  BayesNetEstimator(std::unique_ptr<BayesNetModel> structure, const BayesNetFitOptions& options)
      : structure_(std::move(structure)), layout_(layout_of(*structure_)), options_(options) {
    check_options(options);
  }
  std::string family() const override { return kFamily; }
  std::unique_ptr<FisherScores> fisher_scores(const Model& pooled, const AdaptedParameters& parameters) const override {
    return bayesnet_fisher_scores(detail::pooled_model_as<BayesNetModel>(pooled, family()), parameters);
  }

  // Fully observed: n(i, c, k) for every node; with hidden nodes: the observations as "states".
  // Each vector's values: variable j at coordinate j, in 1..K_j.
  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    const long variables = static_cast<long>(structure_->observed_variables());
    if (dim != variables)
      throw OptionError("the structure has " + std::to_string(variables) + " observed variables (indices 1.." +
                        std::to_string(variables) + "), but the dimension is " + std::to_string(dim) +
                        " ({dim}, or the largest index)");
    detail::check_example(vectors, dim);
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    std::vector<std::vector<long>> observations(vectors.size(), std::vector<long>(static_cast<std::size_t>(dim)));
    detail::for_each_value(vectors, dim, [&](std::size_t v, long d, double value) {
      const std::size_t i = layout_.variable_nodes[static_cast<std::size_t>(d)];
      const long states = structure_->node(i).states;
      if (value != std::floor(value) || value < 1 || value > static_cast<double>(states))
        throw EstimationError(detail::value_at(value, v, d, vectors.size()) + ": observed variable " + std::to_string(d) +
                              " (node " + std::to_string(i) + ") takes the values 1.." + std::to_string(states));
      observations[v][static_cast<std::size_t>(d)] = static_cast<long>(value) - 1;
    });
    if (!layout_.hidden.empty()) {
      Eigen::MatrixXd states(static_cast<Eigen::Index>(vectors.size()), dim);
      for (std::size_t v = 0; v < observations.size(); ++v)
        for (long d = 0; d < dim; ++d)
          states(static_cast<Eigen::Index>(v), d) = static_cast<double>(observations[v][static_cast<std::size_t>(d)]);
      statistics.sums["states"] = std::move(states);
      return statistics;
    }
    ExpectedCounts counts = expected_counts(*structure_, layout_, patterns_of(observations));
    for (std::size_t i = 0; i < structure_->size(); ++i) statistics.sums[count_name(i)] = std::move(counts.counts[i]);
    return statistics;
  }

  Statistics pool(const Statistics& a, const Statistics& b, double weight) const override {
    if (!layout_.hidden.empty()) detail::reject_pooling(family());
    return Estimator::pool(a, b, weight);
  }

  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    if (!layout_.hidden.empty())
      return std::move(fit_em(*structure_, layout_, observations_of(statistics), options_).model);
    std::vector<Eigen::VectorXd> counts;
    for (std::size_t i = 0; i < structure_->size(); ++i) {
      counts.push_back(detail::sum_of(statistics, count_name(i)));
      if (counts.back().size() != cpt_size(*structure_, i))
        throw EstimationError("the pooled statistics are of another structure");
    }
    return maximise(*structure_, counts, shift_counts(*structure_, detail::prior_shift(options_.method, options_.alpha)),
                    options_);
  }

  // The pooled network: EM over every example's observations at once (the observations of all
  // examples are independent under one network); fully observed, the closed form of the summed counts.
  std::unique_ptr<Model> fit_pooled(const std::vector<Statistics>& examples, unsigned) const override {
    if (examples.empty()) throw EstimationError("there are no examples to pool");
    if (layout_.hidden.empty()) {
      Statistics pooled = examples[0];
      for (std::size_t e = 1; e < examples.size(); ++e) pooled = Estimator::pool(pooled, examples[e], 1.0);
      return fit(pooled);
    }
    std::vector<std::vector<long>> observations;
    for (const Statistics& example : examples)
      for (std::vector<long>& x : observations_of(example)) observations.push_back(std::move(x));
    return std::move(fit_em(*structure_, layout_, observations, options_).model);
  }

  std::unique_ptr<Model> adapt(const Model& pooled, const Statistics& example,
                               const AdaptationOptions& options) const override {
    const auto& network = detail::pooled_model_as<BayesNetModel>(pooled, family());
    check_same_structure(*structure_, network);
    if (!layout_.hidden.empty())
      return std::move(adapt_network(network, layout_, observations_of(example), options).model);
    check_adaptation_options(options);
    std::vector<Eigen::VectorXd> counts;
    for (std::size_t i = 0; i < structure_->size(); ++i) counts.push_back(detail::sum_of(example, count_name(i)));
    return maximise(*structure_, counts, adaptation_counts(network, options.relevance), options_);
  }

 private:
  std::unique_ptr<BayesNetModel> structure_;
  Layout layout_;
  BayesNetFitOptions options_;
};

}  // namespace

std::unique_ptr<Estimator> bayesnet_estimator(const nlohmann::json& structure, const BayesNetFitOptions& options) {
  return std::make_unique<BayesNetEstimator>(structure_network(structure), options);
}

BayesNetExpectedCounts bayesnet_expected_counts(const BayesNetModel& network,
                                                const std::vector<std::vector<long>>& observations) {
  const Layout layout = layout_of(network);
  check_observations(network, layout, observations);
  return expected_counts(network, layout, patterns_of(observations));
}

BayesNetExpectedCounts bayesnet_expected_counts(const BayesNetModel& network, const Statistics& example) {
  if (example.sums.count("states")) return bayesnet_expected_counts(network, observations_of(example));
  BayesNetExpectedCounts out;
  for (std::size_t i = 0; i < network.size(); ++i) {
    const std::vector<double>& cpt = network.node(i).cpt;
    out.counts.push_back(detail::sum_of(example, count_name(i)));
    if (out.counts.back().size() != static_cast<Eigen::Index>(cpt.size()))
      throw EstimationError("the statistics are of another structure than the network's");
    // sum n(i, c, k) log P(k | c), the entries never observed left out (their P may be 0).
    out.log_likelihood += detail::log_dirichlet_prior(
        Eigen::Map<const Eigen::ArrayXd>(cpt.data(), static_cast<Eigen::Index>(cpt.size())), out.counts.back().array());
  }
  return out;
}

BayesNetFit adapt_bayesnet(const BayesNetModel& pooled, const std::vector<std::vector<long>>& observations,
                           const AdaptationOptions& options) {
  return adapt_network(pooled, layout_of(pooled), observations, options);
}

BayesNetFit fit_bayesnet_em(const nlohmann::json& structure, const std::vector<std::vector<long>>& observations,
                            const BayesNetFitOptions& options) {
  const std::unique_ptr<BayesNetModel> shape = structure_network(structure);
  const Layout layout = layout_of(*shape);
  if (layout.hidden.empty()) throw EstimationError("the structure has no hidden nodes: its fit is closed-form, not EM");
  return fit_em(*shape, layout, observations, options);
}

}  // namespace ppk
