// Bayesian networks and their exact kernel (see bayesnet.hpp).
//
// JMLR 2004 section 4.3: the kernel k~ raises the joint of hidden and observed variables to the power
// rho. Write H for the hidden nodes of the first network, H' for those of the second, V for the
// observed variables that are discrete nodes and E for those that are emission leaves. Given (H, H', V),
// the integral over the emission variables factorises into one emission kernel per variable, so
//     k~ = sum_{H, H', V} prod_i P(x_i | pa_i)^rho prod_i' P'(x_i' | pa_i')^rho prod_{j in E} psi_j(pa_j, pa'_j),
//     psi_j(c, c') = k_rho(p_j(. | c), p'_j(. | c')),
// the first two products over the discrete nodes of each network. This is a sum over the fused
// variable set (H, H' and V, an observed variable being one variable of both networks) of a product
// of factors: each CPT^rho is a factor over a node and its parents, each psi_j a factor over the
// parents of variable j in both networks (the parents of a common child are married into one clique).
// Variable elimination in a greedy min-fill order sums it exactly (bayesnet_kernel.hpp: one plan per
// pair of structures; variable_elimination.hpp: tables scaled by powers of two, or held as logs where
// their range demands, so products of many small probabilities do not underflow).
//
// How observed variable j enters, by what it is in each network (D: a discrete node, E: an emission leaf):
//   D, D:                one fused variable with K states; both CPT factors contain it.
//   E, E:                the factor psi_j over both parent sets.
//   D without children, E: the same, the discrete node's CPT rows being one-event multinomials over
//                        its K states (its conditional as an emission model).
//   D with children, E:  one fused variable (then the emission leaf is over K categories); its factor is
//                        k_rho(p'(. | c'), delta_v) = p'(v | c')^rho for one-event multinomials (the
//                        mixture's k~ for mixtures of them).
// An HMM is the network s_0 -> s_1 -> .. -> s_T with emission leaves s_t -> x_t (JMLR 2004 section 4.2);
// against a network it is unrolled so, and its kernel is this one (for two HMMs this is the HMM
// recursion of hmm.cpp, whose min-fill order is the forward order along the coupled chains).
#include "ppk/families/bayesnet.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "families/bayesnet_kernel.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk {

namespace {

const char* const kFamily = "bayesnet";
constexpr long kMaxNodes = 100000;
constexpr long kMaxStates = 10000;
constexpr long kMaxTable = detail::kMaxNetworkTable;  // entries of one CPT, one list of emission models
constexpr double kSumTolerance = 1e-6;                // how far a CPT row may sum from 1 (then renormalised)
constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
// The most entries of an emission leaf's powers (detail::leaf_log_powers) that prepare() keeps.
constexpr double kPreparedPowers = 100000;

// How errors address node i: `bayesnet nodes[i] field "cpt"[1][0]` (JSON) or `... (index 40)` (rows).
std::string node_family(long i) { return detail::record_family(kFamily, "nodes", i); }

// A FieldError about field `field` of node `node`, covering `count` consecutive elements from
// `element` (element -1: the whole field), so that the row decoder can name their indices.
detail::FieldError node_error(long node, std::string field, long element, long count, std::string json_path,
                              std::string expected, std::string got) {
  return detail::FieldError(node_family(node), std::move(field), element, std::move(json_path), std::move(expected),
                            std::move(got), count);
}

// The number of configurations of `parents`, prod K_u (1 with none); check_structure bounds it.
long configurations(const std::vector<BayesNode>& nodes, const std::vector<long>& parents) {
  long count = 1;
  for (long u : parents) count *= nodes[static_cast<std::size_t>(u)].states;
  return count;
}

// "P(node 2 | node 0 = 1, node 3 = 0)": row c of node i's CPT (parents numbered row-major, the last fastest).
std::string describe_row(const std::vector<BayesNode>& nodes, long i, long c) {
  const std::vector<long>& parents = nodes[static_cast<std::size_t>(i)].parents;
  std::string condition;
  for (std::size_t p = parents.size(); p-- > 0;) {
    const long states = nodes[static_cast<std::size_t>(parents[p])].states;
    condition = "node " + std::to_string(parents[p]) + " = " + std::to_string(c % states) +
                (condition.empty() ? "" : ", ") + condition;
    c /= states;
  }
  return "P(node " + std::to_string(i) + (condition.empty() ? "" : " | " + condition) + ")";
}

// A cycle among the parent links, or an empty vector: the nodes u -> .. -> u, each a parent of the next.
std::vector<long> find_cycle(const std::vector<BayesNode>& nodes) {
  enum Colour : char { unvisited, on_path, done };
  std::vector<Colour> colour(nodes.size(), unvisited);
  // Depth-first along parent links, iteratively (a chain of 10^5 nodes must not exhaust the stack).
  std::vector<std::pair<long, std::size_t>> path;  // (node, next parent to visit)
  for (std::size_t root = 0; root < nodes.size(); ++root) {
    if (colour[root] != unvisited) continue;
    path.push_back({static_cast<long>(root), 0});
    colour[root] = on_path;
    while (!path.empty()) {
      auto& [node, next] = path.back();
      const std::vector<long>& parents = nodes[static_cast<std::size_t>(node)].parents;
      if (next == parents.size()) {
        colour[static_cast<std::size_t>(node)] = done;
        path.pop_back();
        continue;
      }
      const long parent = parents[next++];
      if (colour[static_cast<std::size_t>(parent)] == on_path) {
        // path = .., parent, x_1, .., x_m with x_1 a parent of `parent`, .., and parent a parent of x_m.
        std::vector<long> cycle{parent};
        for (std::size_t k = path.size(); k-- > 0 && path[k].first != parent;) cycle.push_back(path[k].first);
        cycle.push_back(parent);
        return cycle;
      }
      if (colour[static_cast<std::size_t>(parent)] == unvisited) {
        colour[static_cast<std::size_t>(parent)] = on_path;
        path.push_back({parent, 0});
      }
    }
  }
  return {};
}

// Everything about the nodes but their CPTs and emission models: kinds, observed variables, parent
// links, table sizes, acyclicity. Throws node_error()s (FieldError on "nodes" for their number).
void check_structure(const std::vector<BayesNode>& nodes) {
  const long count = static_cast<long>(nodes.size());
  if (count < 1 || count > kMaxNodes)
    throw detail::field_error(kFamily, "nodes", "between 1 and " + std::to_string(kMaxNodes) + " nodes",
                              std::to_string(count));
  for (long i = 0; i < count; ++i) {
    const BayesNode& node = nodes[static_cast<std::size_t>(i)];
    if (node.states < 0 || node.states > kMaxStates)
      throw node_error(i, "states", -1, 1, "", detail::whole_numbers(0, kMaxStates) + " (0: an emission leaf)",
                       std::to_string(node.states));
    if (node.variable < -1 || node.variable >= count)
      throw node_error(i, "variable", -1, 1, "", "an observed variable in [0, " + std::to_string(count - 1) + "]",
                       std::to_string(node.variable));
    if (node.states == 0 && node.variable < 0)
      throw node_error(i, "variable", -1, 1, "", "an observed variable (an emission leaf is observed)", "none (hidden)");
    double table = node.states == 0 ? 1.0 : static_cast<double>(node.states);
    for (std::size_t p = 0; p < node.parents.size(); ++p) {
      const long u = node.parents[p];
      const std::string path = "[" + std::to_string(p) + "]";
      if (u < 0 || u >= count)
        throw node_error(i, "parents", static_cast<long>(p), 1, path,
                         "a node index in [0, " + std::to_string(count - 1) + "]", std::to_string(u));
      if (u == i) throw node_error(i, "parents", static_cast<long>(p), 1, path, "another node", "the node itself");
      if (std::find(node.parents.begin(), node.parents.begin() + static_cast<long>(p), u) !=
          node.parents.begin() + static_cast<long>(p))
        throw node_error(i, "parents", static_cast<long>(p), 1, path, "distinct parents",
                         "node " + std::to_string(u) + " twice");
      if (nodes[static_cast<std::size_t>(u)].states == 0)
        throw node_error(i, "parents", static_cast<long>(p), 1, path,
                         "a discrete node (an emission leaf has no children)",
                         "node " + std::to_string(u) + ", an emission leaf");
      table *= static_cast<double>(nodes[static_cast<std::size_t>(u)].states);
    }
    if (table > static_cast<double>(kMaxTable))
      throw node_error(i, "parents", -1, -1, "",
                       std::string(node.states == 0 ? "at most " : "a CPT of at most ") + std::to_string(kMaxTable) +
                           (node.states == 0 ? " parent configurations" : " entries"),
                       detail::format_number(table));
  }
  const std::vector<long> cycle = find_cycle(nodes);
  if (!cycle.empty()) {
    std::string names;
    for (long u : cycle) names += (names.empty() ? "" : " -> ") + ("node " + std::to_string(u));
    throw node_error(cycle.front(), "parents", -1, -1, "", "parents that make no cycle",
                     "the cycle " + names + " (each a parent of the next)");
  }
  // The observed variables are 0..n-1, one node each.
  const long observed = static_cast<long>(
      std::count_if(nodes.begin(), nodes.end(), [](const BayesNode& node) { return node.variable >= 0; }));
  if (observed == 0)
    throw detail::field_error(kFamily, "nodes", "at least one observed node (one with a \"variable\")",
                              "only hidden nodes");
  std::vector<long> node_of_variable(static_cast<std::size_t>(observed), -1);
  for (long i = 0; i < count; ++i) {
    const long j = nodes[static_cast<std::size_t>(i)].variable;
    if (j < 0) continue;
    const std::string expected = "observed variables numbered 0.." + std::to_string(observed - 1) + " (" +
                                 std::to_string(observed) + " observed nodes), each used by one node";
    if (j >= observed) throw node_error(i, "variable", -1, 1, "", expected, std::to_string(j));
    long& owner = node_of_variable[static_cast<std::size_t>(j)];
    if (owner >= 0)
      throw node_error(i, "variable", -1, 1, "", expected,
                       std::to_string(j) + ", already the variable of node " + std::to_string(owner));
    owner = i;
  }
}

// Checks node i's CPT (C rows of K probabilities, each summing to 1) and renormalises its rows.
void check_cpt(const std::vector<BayesNode>& nodes, long i, std::vector<double>& cpt) {
  const BayesNode& node = nodes[static_cast<std::size_t>(i)];
  const long rows = configurations(nodes, node.parents), states = node.states;
  if (static_cast<long>(cpt.size()) != rows * states)
    throw node_error(i, "cpt", -1, -1, "",
                     std::to_string(rows) + " x " + std::to_string(states) + " probabilities (one row of " +
                         std::to_string(states) + " states per configuration of the parents)",
                     std::to_string(cpt.size()) + " values");
  for (long c = 0; c < rows; ++c) {
    double* row = cpt.data() + c * states;
    double sum = 0.0;
    for (long k = 0; k < states; ++k) {
      if (!detail::is_probability(row[k]))
        throw node_error(i, "cpt", c * states + k, 1, "[" + std::to_string(c) + "][" + std::to_string(k) + "]",
                         "a probability in [0, 1]", detail::format_number(row[k]));
      sum += row[k];
    }
    if (!(std::fabs(sum - 1.0) <= kSumTolerance))
      throw node_error(i, "cpt", c * states, states, "[" + std::to_string(c) + "]",
                       "row " + std::to_string(c) + ", " + describe_row(nodes, i, c) + ", summing to 1 within 1e-6",
                       "a sum of " + detail::format_number(sum));
    // Only a sum off by more than rounding is divided out, so round trips keep the last bits.
    if (std::fabs(sum - 1.0) > static_cast<double>(states) * std::numeric_limits<double>::epsilon())
      for (long k = 0; k < states; ++k) row[k] /= sum;
  }
}

// Checks emission leaf i's models: one per parent configuration, none an hmm or a network, one sample space.
void check_emissions(const std::vector<BayesNode>& nodes, long i, const std::vector<std::unique_ptr<Model>>& emissions) {
  const long rows = configurations(nodes, nodes[static_cast<std::size_t>(i)].parents);
  if (static_cast<long>(emissions.size()) != rows)
    throw node_error(i, "emissions", -1, -1, "",
                     std::to_string(rows) + " emission models (one per configuration of the parents)",
                     std::to_string(emissions.size()));
  for (long c = 0; c < rows; ++c) {
    const Model* model = emissions[static_cast<std::size_t>(c)].get();
    const std::string path = "[" + std::to_string(c) + "]";
    if (!model) throw node_error(i, "emissions", c, 1, path, "a model", "nothing");
    if (&model->family() == &hmm_family() || &model->family() == &bayesnet_family())
      throw node_error(i, "emissions", c, 1, path, "an emission model that is neither an hmm nor a bayesnet",
                       "a " + model->family().name);
    if (model->sample_space() != emissions[0]->sample_space())
      throw node_error(i, "emissions", c, 1, path,
                       "the sample space of emission 0 (" + emissions[0]->sample_space().describe() + ")",
                       model->sample_space().describe());
  }
}

}  // namespace

// A node's header: its kind (states, 0 for an emission leaf), its observed variable and its parents.
template <class Archive>
void BayesNode::header(Archive& archive, const std::vector<BayesNode>& nodes, long) {
  const long count = static_cast<long>(nodes.size());
  archive.optional_whole_number("states", states, 1, kMaxStates);
  archive.optional_whole_number("variable", variable, 0, count - 1);
  archive.whole_numbers("parents", parents, count - 1, 0, count - 1);
}

// A node's body (every header checked): its CPT, one row per configuration of its parents, or its
// emission models, one per configuration.
template <class Archive>
void BayesNode::body(Archive& archive, const std::vector<BayesNode>& nodes, long) {
  const long rows = configurations(nodes, parents);
  const detail::Dimension cpt_rows{rows, 1, kMaxTable, "parents"}, cpt_columns{states, 0, kMaxStates, "states"},
      models{states == 0 ? rows : 0, 0, kMaxTable, "parents"};
  if (archive.optional("cpt", states > 0, "nothing (a node without \"states\" is an emission leaf)"))
    archive.table("cpt", cpt, cpt_rows, cpt_columns, "configuration of the parents", "probabilities (one per state)");
  if (archive.optional("emissions", states == 0, "nothing (a node with \"states\" is discrete: it has a \"cpt\")"))
    archive.models("emissions", emissions, models);
}

// The row's N, the N node headers, then (the structure checked) the N node bodies.
template <class Archive>
void BayesNetParameters::fields(Archive& archive) {
  const auto count = archive.dimension("nodes", static_cast<long>(nodes.size()), 1, kMaxNodes);
  archive.record_headers("nodes", nodes, count, "node", nodes);
  archive.validate([&] { check_structure(nodes); });
  archive.record_bodies("nodes", nodes, nodes);
}

struct BayesNetModel::Impl {
  BayesNetParameters parameters;
  std::vector<BayesNode>& nodes = parameters.nodes;
  SampleSpace space;
  // One-event multinomials of the CPT rows of observed discrete nodes without children.
  std::vector<std::vector<std::unique_ptr<Model>>> leaf_multinomials;
  std::vector<std::vector<const Model*>> leaf_models;  // per node: emissions or leaf_multinomials
  std::vector<ScaledTable> cpt_power;                  // per discrete node: rho log CPT, set by prepare()
  std::vector<ScaledTable> leaf_powers;                // per emission leaf over categories (prepare)
  double rho = 0.0;
  double kernel_work = 0.0;  // kernel_work(), set by prepare()
  detail::Network network;   // the nodes as the kernel sees them (pointing into the members above)
  bool grouped = false;      // network's leaf groups are set (prepare)
};

BayesNetModel::BayesNetModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  std::vector<BayesNode>& nodes = parameters.nodes;
  check_structure(nodes);
  const std::size_t count = nodes.size();
  std::vector<char> has_children(count, 0);
  for (const BayesNode& node : nodes)
    for (long u : node.parents) has_children[static_cast<std::size_t>(u)] = 1;
  for (std::size_t i = 0; i < count; ++i) {
    BayesNode& node = nodes[i];
    const long index = static_cast<long>(i);
    if (node.states > 0) {
      if (!node.emissions.empty())
        throw node_error(index, "emissions", -1, -1, "", "no emission models (a discrete node has a \"cpt\")",
                         std::to_string(node.emissions.size()) + " models");
      check_cpt(nodes, index, node.cpt);
    } else {
      if (!node.cpt.empty())
        throw node_error(index, "cpt", -1, -1, "", "no CPT (an emission leaf has \"emissions\")",
                         std::to_string(node.cpt.size()) + " values");
      check_emissions(nodes, index, node.emissions);
    }
  }
  Impl& m = *impl_;
  m.nodes = std::move(nodes);
  m.leaf_multinomials.resize(count);
  m.leaf_models.resize(count);
  m.cpt_power.resize(count);
  m.leaf_powers.resize(count);
  m.network.tables.assign(count, nullptr);
  m.network.nodes.resize(count);
  std::vector<SampleSpace> spaces;
  for (std::size_t i = 0; i < count; ++i) {
    const BayesNode& node = m.nodes[i];
    if (node.states == 0) {
      for (const auto& model : node.emissions) m.leaf_models[i].push_back(model.get());
    } else if (node.variable >= 0 && !has_children[i]) {
      for (long c = 0; c < static_cast<long>(node.cpt.size()) / node.states; ++c) {
        const std::vector<double> row(node.cpt.begin() + c * node.states, node.cpt.begin() + (c + 1) * node.states);
        m.leaf_multinomials[i].push_back(
            std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(row), Trials{}));
        m.leaf_models[i].push_back(m.leaf_multinomials[i].back().get());
      }
    }
    m.network.nodes[i] = {node.states, node.variable, &node.parents, has_children[i] != 0, &m.leaf_models[i]};
  }
  m.network.node_of_variable.assign(
      static_cast<std::size_t>(
          std::count_if(m.nodes.begin(), m.nodes.end(), [](const BayesNode& n) { return n.variable >= 0; })),
      -1);
  for (std::size_t i = 0; i < count; ++i)
    if (m.nodes[i].variable >= 0)
      m.network.node_of_variable[static_cast<std::size_t>(m.nodes[i].variable)] = static_cast<long>(i);
  detail::intern_shape(m.network);
  // Observed variable j: a discrete node with K states ranges over K categories (the space of a
  // one-event multinomial over K), an emission leaf over its models' space.
  for (long i : m.network.node_of_variable) {
    const BayesNode& node = m.nodes[static_cast<std::size_t>(i)];
    spaces.push_back(node.states > 0 ? SampleSpace{"categories", node.states} : node.emissions[0]->sample_space());
  }
  const bool uniform = std::all_of(spaces.begin(), spaces.end(), [&](const SampleSpace& s) { return s == spaces[0]; });
  if (uniform) {
    m.space = {"sequences of " + std::to_string(spaces.size()) + " " + spaces[0].kind, spaces[0].dim};
  } else {
    std::string kind = "tuples of (";
    for (std::size_t j = 0; j < spaces.size(); ++j) kind += (j ? ", " : "") + spaces[j].describe();
    m.space = {kind + ")", static_cast<long>(spaces.size())};
  }
}

BayesNetModel::~BayesNetModel() = default;

const BayesNetParameters& BayesNetModel::parameters() const { return impl_->parameters; }
std::size_t BayesNetModel::size() const { return impl_->nodes.size(); }
const BayesNode& BayesNetModel::node(std::size_t i) const { return impl_->nodes.at(i); }
std::size_t BayesNetModel::observed_variables() const { return impl_->network.node_of_variable.size(); }

const FamilyInfo& BayesNetModel::family() const { return bayesnet_family(); }

SampleSpace BayesNetModel::sample_space() const { return impl_->space; }

void BayesNetModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  // Nodes with equal CPTs (an unrolled chain's steps) share one table of powers: a kernel then reads
  // few tables, which stay in cache across the pairs of a Gram matrix.
  const auto by_entries = [](const std::vector<double>* a, const std::vector<double>* b) { return *a < *b; };
  std::map<const std::vector<double>*, std::size_t, decltype(by_entries)> tables(by_entries);  // -> the kept node
  std::vector<double> powers;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    for (const auto& model : m.nodes[i].emissions) model->prepare(params);
    for (const auto& model : m.leaf_multinomials[i]) model->prepare(params);
    const auto [kept, fresh] = tables.emplace(&m.nodes[i].cpt, i);
    if (fresh) {
      powers.clear();
      for (double p : m.nodes[i].cpt) powers.push_back(p > 0.0 ? params.rho * std::log(p) : kMinusInfinity);
      m.cpt_power[i].assign(powers.data(), powers.size());
    }
    m.network.tables[i] = &m.cpt_power[kept->second];
    // An emission leaf over K categories meets a discrete node of the other network through its
    // powers: made here when small, else by each kernel that needs them (bayesnet_kernel.cpp).
    if (m.nodes[i].states > 0) continue;
    m.network.tables[i] = nullptr;
    const SampleSpace space = m.nodes[i].emissions[0]->sample_space();
    if (space.kind == "categories" &&
        static_cast<double>(space.dim) * static_cast<double>(m.leaf_models[i].size()) <= kPreparedPowers) {
      detail::leaf_log_powers(m.leaf_models[i], space.dim, params.rho, m.leaf_powers[i]);
      m.network.tables[i] = &m.leaf_powers[i];
    }
  }
  // Leaves with equal models share their emission kernels (bayesnet_kernel.hpp); once per model.
  if (!m.grouped) detail::group_leaf_models(m.network);
  m.grouped = true;
  // Each observed variable's leaf models meet the other network's, C x C' kernels (psi; a leaf's
  // one-event multinomials alike); the elimination's tables are held to kMaxTable as they are built.
  double leaf_work = 0.0;
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    leaf_work += detail::parts_kernel_work(m.nodes[i].emissions) + detail::parts_kernel_work(m.leaf_multinomials[i]);
  m.kernel_work =
      detail::check_kernel_work(kFamily, "the emission leaves' C x C' kernels (C their parent configurations)", leaf_work,
                                "give the emission leaves fewer parent configurations or smaller models");
  m.rho = m.network.rho = params.rho;
}

double BayesNetModel::kernel_work() const { return impl_->kernel_work; }

double BayesNetModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  if (a.rho <= 0.0) detail::throw_unprepared_pair(kFamily);
  if (const auto* network = dynamic_cast<const BayesNetModel*>(&other)) {
    if (network->impl_->rho != a.rho || network->impl_->space != a.space) detail::throw_unprepared_pair(kFamily);
    return detail::log_kernel_of_networks(a.network, network->impl_->network);
  }
  const auto* hmm = dynamic_cast<const HmmModel*>(&other);
  if (hmm == nullptr || hmm->sample_space() != a.space) detail::throw_unprepared_pair(kFamily);
  const detail::UnrolledHmm unrolled(*hmm, a.rho);
  return detail::log_kernel_of_networks(a.network, unrolled.network());
}

// ---- Sampling (bayesnet.hpp): ancestral draws, and log p(x) over the hidden configurations, rho = 1 ----

namespace {

// The nodes in an order where parents come first (the structure is a DAG: check_structure).
std::vector<std::size_t> topological_order(const std::vector<BayesNode>& nodes) {
  std::vector<std::size_t> order;
  std::vector<char> placed(nodes.size(), 0);
  while (order.size() < nodes.size())
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (!placed[i] && std::all_of(nodes[i].parents.begin(), nodes[i].parents.end(),
                                    [&](long u) { return placed[static_cast<std::size_t>(u)] != 0; })) {
        placed[i] = 1;
        order.push_back(i);
      }
  return order;
}

// Node i's parent configuration given every node's state (row-major, the last parent fastest).
long parent_configuration(const std::vector<BayesNode>& nodes, std::size_t i, const std::vector<long>& state) {
  long c = 0;
  for (long u : nodes[i].parents) c = c * nodes[static_cast<std::size_t>(u)].states + state[static_cast<std::size_t>(u)];
  return c;
}

// The size of observed variable j's sample: 1 for a discrete node (its state), else its models'.
long variable_sample_size(const BayesNode& node) {
  return node.states > 0 ? 1 : as_samplable(*node.emissions.front())->sample_size();
}

// prod K_i over the hidden discrete nodes, counted only up to kMaxSampledHiddenConfigurations + 1.
long capped_hidden_configurations(const std::vector<BayesNode>& nodes) {
  long count = 1;
  for (const BayesNode& node : nodes)
    if (node.variable < 0) count = std::min(count * node.states, kMaxSampledHiddenConfigurations + 1);
  return count;
}

}  // namespace

bool BayesNetModel::can_sample() const {
  for (const BayesNode& node : impl_->nodes)
    for (const auto& model : node.emissions)
      if (as_samplable(*model) == nullptr) return false;
  return true;
}

// log_probability: every emission model's log p once, then each hidden configuration's product over
// the nodes.
double BayesNetModel::log_probability_work() const {
  const std::vector<BayesNode>& nodes = impl_->nodes;
  double work = static_cast<double>(capped_hidden_configurations(nodes)) * static_cast<double>(nodes.size());
  for (const BayesNode& node : nodes)
    for (const auto& model : node.emissions) work += as_samplable(*model)->log_probability_work();
  return work;
}

long BayesNetModel::sample_size() const {
  long size = 0;
  for (long i : impl_->network.node_of_variable) size += variable_sample_size(impl_->nodes[static_cast<std::size_t>(i)]);
  return size;
}

double BayesNetModel::log_tilted_normalizer(double rho) const {
  require_rho_one(*this, "a network", "p^rho / Z is not a network and Z has no closed form", rho);
  if (capped_hidden_configurations(impl_->nodes) > kMaxSampledHiddenConfigurations)
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": the Monte Carlo kernel evaluates p(x) by summing over the configurations of the hidden "
                            "nodes, at most " +
                            std::to_string(kMaxSampledHiddenConfigurations) +
                            "; this network has more (rho = " + detail::format_number(rho) + ")");
  return 0.0;
}

// Per sample, the nodes in topological order: a discrete node's state from its CPT row, an emission
// leaf's draw from its model for the parents' configuration.
void BayesNetModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const std::vector<BayesNode>& nodes = impl_->nodes;
  const std::vector<std::size_t> order = topological_order(nodes);
  std::vector<long> offset(nodes.size(), 0);  // of each observed node's sample
  long next = 0;
  for (long i : impl_->network.node_of_variable) {
    offset[static_cast<std::size_t>(i)] = next;
    next += variable_sample_size(nodes[static_cast<std::size_t>(i)]);
  }
  std::vector<long> state(nodes.size(), 0);
  std::vector<double> sums;
  for (Eigen::Index k = 0; k < samples.cols(); ++k)
    for (std::size_t i : order) {
      const BayesNode& node = nodes[i];
      const long c = parent_configuration(nodes, i, state);
      if (node.states > 0) {
        sums.assign(node.cpt.begin() + c * node.states, node.cpt.begin() + (c + 1) * node.states);
        for (std::size_t s = 1; s < sums.size(); ++s) sums[s] += sums[s - 1];
        state[i] = static_cast<long>(generator.categorical(sums.data(), sums.size()));
        if (node.variable >= 0) samples(offset[i], k) = static_cast<double>(state[i]);
      } else {
        const SamplableModel& emission = *as_samplable(*node.emissions[static_cast<std::size_t>(c)]);
        Eigen::MatrixXd draw(emission.sample_size(), 1);
        emission.sample_tilted(rho, generator, draw);
        samples.col(k).segment(offset[i], draw.rows()) = draw.col(0);
      }
    }
}

// log p(x) = log sum over the hidden states h of prod_i P(node i | its parents) (discrete nodes, at
// their observed or hidden state) prod_leaves p_leaf(x_leaf | its parents' configuration). An observed
// discrete value that is not one of the node's states has probability 0.
double BayesNetModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const std::vector<BayesNode>& nodes = impl_->nodes;
  if (capped_hidden_configurations(nodes) > kMaxSampledHiddenConfigurations) log_tilted_normalizer(1.0);  // throws
  std::vector<long> state(nodes.size(), 0);
  std::vector<std::size_t> hidden;
  std::vector<std::vector<double>> leaf_log_probability(nodes.size());  // per emission leaf, per configuration
  long next = 0;
  for (long variable_node : impl_->network.node_of_variable) {
    const std::size_t i = static_cast<std::size_t>(variable_node);
    const BayesNode& node = nodes[i];
    const long size = variable_sample_size(node);
    if (node.states > 0) {
      const double value = x[next];
      if (!(value >= 0.0 && value < static_cast<double>(node.states) && value == std::floor(value)))
        return kMinusInfinity;
      state[i] = static_cast<long>(value);
    } else {
      for (const auto& model : node.emissions)
        leaf_log_probability[i].push_back(as_samplable(*model)->log_probability(x.segment(next, size)));
    }
    next += size;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].variable < 0) hidden.push_back(i);
  std::vector<double> terms;
  for (;;) {
    double term = 0.0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const long c = parent_configuration(nodes, i, state);
      term += nodes[i].states > 0 ? std::log(nodes[i].cpt[static_cast<std::size_t>(c * nodes[i].states + state[i])])
                                  : leaf_log_probability[i][static_cast<std::size_t>(c)];
    }
    terms.push_back(term);
    // The next hidden configuration (the last hidden node fastest).
    std::size_t h = hidden.size();
    while (h > 0 && ++state[hidden[h - 1]] == nodes[hidden[h - 1]].states) state[hidden[--h]] = 0;
    if (h == 0) break;
  }
  return detail::log_sum_exp(terms);
}

const FamilyInfo& bayesnet_family() {
  static const FamilyInfo info = [] {
    FamilyInfo family = make_family<BayesNetModel>(kFamily, 10);
    // An HMM is the network s_0 -> .. -> s_T with emission leaves s_t -> x_t (bayesnet.hpp), and
    // BayesNetModel::log_kernel takes it as its other model.
    family.kernels_with = {"hmm"};
    return family;
  }();
  return info;
}

}  // namespace ppk
