// The kernel of Bayesian networks (see bayesnet_kernel.hpp and bayesnet.cpp's file comment): the fused
// factors of a pair of networks, their elimination plan kept per pair of structures.
#include "families/bayesnet_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "ppk/core/model_fields.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk::detail {

struct NetworkShape {
  std::uint64_t id;  // never reused: a plan kept for a pair of ids is that pair's
};

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
// The pairs of structures whose plans are kept; more are dropped all at once (and made again).
constexpr std::size_t kMaxKeptPlans = 4096;

}  // namespace

void intern_shape(Network& network) {
  std::vector<long> signature{static_cast<long>(network.nodes.size())};
  for (const NetworkNode& node : network.nodes) {
    signature.insert(signature.end(),
                     {node.states, node.variable, node.has_children ? 1L : 0L, static_cast<long>(node.parents->size())});
    signature.insert(signature.end(), node.parents->begin(), node.parents->end());
  }
  static std::mutex mutex;
  static std::map<std::vector<long>, std::weak_ptr<const NetworkShape>> shapes;
  static std::uint64_t next = 0;
  static std::size_t purged_at = 64;
  const std::lock_guard<std::mutex> lock(mutex);
  std::weak_ptr<const NetworkShape>& entry = shapes[signature];
  network.shape = entry.lock();
  if (network.shape) return;
  network.shape = std::make_shared<const NetworkShape>(NetworkShape{next++});
  entry = network.shape;
  if (shapes.size() > 2 * purged_at) {  // the structures no network has any more
    for (auto it = shapes.begin(); it != shapes.end();) it = it->second.expired() ? shapes.erase(it) : std::next(it);
    purged_at = std::max<std::size_t>(64, shapes.size());
  }
}

void group_leaf_models(Network& network) {
  std::map<std::vector<double>, int> groups;
  network.groups.assign(network.nodes.size(), -1);
  for (std::size_t i = 0; i < network.nodes.size(); ++i) {
    const NetworkNode& node = network.nodes[i];
    if (node.leaf_models == nullptr || node.leaf_models->empty()) continue;
    std::vector<double> key;  // every model's row: its length, then its (index, value) entries
    for (const Model* model : *node.leaf_models) {
      const Row row = encode_row(*model);
      key.push_back(static_cast<double>(row.size()));
      for (const RowEntry& entry : row) key.insert(key.end(), {static_cast<double>(entry.index), entry.value});
    }
    network.groups[i] = groups.emplace(std::move(key), static_cast<int>(groups.size())).first->second;
  }
  network.group_count = static_cast<int>(groups.size());
}

void leaf_log_powers(const std::vector<const Model*>& models, long categories, double rho, ScaledTable& out) {
  std::vector<std::unique_ptr<Model>> certain;
  for (long v = 0; v < categories; ++v) {
    std::vector<double> delta(static_cast<std::size_t>(categories), 0.0);
    delta[static_cast<std::size_t>(v)] = 1.0;
    certain.push_back(std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(delta), Trials{}));
    certain.back()->prepare(KernelParams{rho, 0});
  }
  std::vector<double> table;
  table.reserve(models.size() * static_cast<std::size_t>(categories));
  for (const Model* model : models)
    for (const auto& delta : certain) table.push_back(ppk::log_kernel(*model, *delta));
  out.assign(table.data(), table.size());
}

namespace {

// Where each fused factor's table comes from.
struct FactorSource {
  enum class Kind {
    cpt,      // the CPT^rho of `node` in network `side` (0: a, 1: b)
    powers,   // the powers of emission leaf `node` in network `side` (Network::tables)
    kernels,  // psi(c, c') = log k_rho(p_c, p'_c'): emission leaf `node` of a, `other` of b
  };
  Kind kind;
  int side = 0;
  long node = 0, other = 0;
  long categories = 0;  // powers: the fused variable's states
};

// What the kernel of a pair of structures needs: where its factors come from and their plan.
struct PairLayout {
  std::vector<FactorSource> sources;
  EliminationPlan plan;
  std::shared_ptr<const NetworkShape> a, b;  // kept interned while the plan is kept
};

// The fused variables and factors of the file comment of bayesnet.cpp, and their plan.
PairLayout fuse(const Network& a, const Network& b) {
  std::vector<long> states;  // of each fused variable
  const auto add_variable = [&](long k) {
    states.push_back(k);
    return static_cast<int>(states.size() - 1);
  };
  std::vector<int> fused_a(a.nodes.size(), -1), fused_b(b.nodes.size(), -1);
  std::vector<std::pair<long, long>> emission_pairs;  // (node of a, node of b) paired through psi_j
  for (std::size_t j = 0; j < a.node_of_variable.size(); ++j) {
    const long ia = a.node_of_variable[j], ib = b.node_of_variable[j];
    const NetworkNode &na = a.nodes[static_cast<std::size_t>(ia)], &nb = b.nodes[static_cast<std::size_t>(ib)];
    const bool shared =
        (na.states > 0 && nb.states > 0) || (na.states > 0 && na.has_children) || (nb.states > 0 && nb.has_children);
    if (shared)
      fused_a[static_cast<std::size_t>(ia)] = fused_b[static_cast<std::size_t>(ib)] =
          add_variable(na.states > 0 ? na.states : nb.states);
    else
      emission_pairs.push_back({ia, ib});
  }
  for (std::size_t i = 0; i < a.nodes.size(); ++i)
    if (a.nodes[i].variable < 0) fused_a[i] = add_variable(a.nodes[i].states);
  for (std::size_t i = 0; i < b.nodes.size(); ++i)
    if (b.nodes[i].variable < 0) fused_b[i] = add_variable(b.nodes[i].states);

  std::vector<FactorSource> sources;
  std::vector<std::vector<int>> scopes;
  const auto fused_parents = [](const NetworkNode& node, const std::vector<int>& fused) {
    std::vector<int> variables;
    for (long u : *node.parents) variables.push_back(fused[static_cast<std::size_t>(u)]);
    return variables;
  };
  // CPT^rho of every node that is a fused variable (a discrete node, or an emission leaf paired with
  // a discrete node with children), over its parents and itself.
  for (int side = 0; side < 2; ++side) {
    const Network& network = side == 0 ? a : b;
    const std::vector<int>& fused = side == 0 ? fused_a : fused_b;
    for (std::size_t i = 0; i < network.nodes.size(); ++i) {
      const int own = fused[i];
      if (own < 0) continue;
      const NetworkNode& node = network.nodes[i];
      std::vector<int> variables = fused_parents(node, fused);
      variables.push_back(own);
      scopes.push_back(std::move(variables));
      sources.push_back({node.states > 0 ? FactorSource::Kind::cpt : FactorSource::Kind::powers, side,
                         static_cast<long>(i), 0, states[static_cast<std::size_t>(own)]});
    }
  }
  // psi_j(c, c') = k_rho(p_j(. | c), p'_j(. | c')) over both parent sets, c' fastest.
  for (const auto& [ia, ib] : emission_pairs) {
    const NetworkNode &na = a.nodes[static_cast<std::size_t>(ia)], &nb = b.nodes[static_cast<std::size_t>(ib)];
    // psi is a table of the elimination: held to its limit before its C x C' kernels are computed.
    const double entries = static_cast<double>(na.leaf_models->size()) * static_cast<double>(nb.leaf_models->size());
    if (entries > static_cast<double>(kMaxNetworkTable))
      throw KernelDomainError("bayesnet kernel on the fused networks: observed variable " + std::to_string(na.variable) +
                              " pairs " + std::to_string(na.leaf_models->size()) + " x " +
                              std::to_string(nb.leaf_models->size()) +
                              " models (one per parent configuration), a table of " + format_number(entries) +
                              " emission kernels, beyond the limit of " + std::to_string(kMaxNetworkTable) +
                              "; give its emission leaf fewer parent configurations");
    std::vector<int> variables = fused_parents(na, fused_a);
    for (int v : fused_parents(nb, fused_b)) variables.push_back(v);
    scopes.push_back(std::move(variables));
    sources.push_back({FactorSource::Kind::kernels, 0, ia, ib, 0});
  }
  try {
    return {std::move(sources), EliminationPlan(std::move(states), scopes, kMaxNetworkTable), a.shape, b.shape};
  } catch (const KernelDomainError& error) {
    throw KernelDomainError(std::string("bayesnet kernel on the fused networks: ") + error.what() +
                            "; the networks are too densely connected for exact inference");
  }
}

// The layout of the pair's structures: the one this thread used last, else the one kept for them,
// else made (and kept).
const std::shared_ptr<const PairLayout>& layout_of(const Network& a, const Network& b) {
  struct Last {
    std::uint64_t a = 0, b = 0;
    std::shared_ptr<const PairLayout> layout;
  };
  thread_local Last last;
  const std::uint64_t id_a = a.shape->id, id_b = b.shape->id;
  if (last.layout && last.a == id_a && last.b == id_b) return last.layout;
  static std::mutex mutex;
  static std::map<std::pair<std::uint64_t, std::uint64_t>, std::shared_ptr<const PairLayout>> kept;
  std::shared_ptr<const PairLayout> layout;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = kept.find({id_a, id_b});
    if (found != kept.end()) layout = found->second;
  }
  if (!layout) {
    layout = std::make_shared<const PairLayout>(fuse(a, b));
    const std::lock_guard<std::mutex> lock(mutex);
    if (kept.size() >= kMaxKeptPlans) kept.clear();
    kept.emplace(std::make_pair(id_a, id_b), layout);
  }
  last = {id_a, id_b, std::move(layout)};
  return last.layout;
}

// One evaluation's tables: the prepared CPT powers, and those computed for the pair (reused storage).
struct PairTables {
  std::shared_ptr<const PairLayout> layout;
  std::vector<const ScaledTable*> tables;
  std::vector<ScaledTable> computed;
  std::vector<int> kernels_of_groups;  // group of a x group of b -> its psi in `computed`
  std::vector<double> logs;
};

// This thread's PairTables for the evaluation in progress: one per depth, since an emission kernel
// may itself be a network's (a mixture of networks as an emission model).
class PairScratch {
 public:
  PairScratch() {
    if (stack().size() <= depth()) stack().emplace_back();  // (a deque keeps the others in place)
    ++depth();
  }
  ~PairScratch() { --depth(); }
  PairScratch(const PairScratch&) = delete;
  PairScratch& operator=(const PairScratch&) = delete;
  PairTables& tables() { return stack()[depth() - 1]; }

 private:
  static std::deque<PairTables>& stack() {
    thread_local std::deque<PairTables> tables;
    return tables;
  }
  static std::size_t& depth() {
    thread_local std::size_t level = 0;
    return level;
  }
};

}  // namespace

double log_kernel_of_networks(const Network& a, const Network& b) {
  PairScratch scratch;
  PairTables& pair = scratch.tables();
  pair.layout = layout_of(a, b);
  const PairLayout& layout = *pair.layout;
  const std::size_t count = layout.sources.size();
  pair.tables.resize(count);
  if (pair.computed.size() < count) pair.computed.resize(count);
  pair.kernels_of_groups.assign(static_cast<std::size_t>(a.group_count) * static_cast<std::size_t>(b.group_count), -1);
  std::size_t used = 0;
  for (std::size_t f = 0; f < count; ++f) {
    const FactorSource& source = layout.sources[f];
    const Network& network = source.side == 0 ? a : b;
    switch (source.kind) {
      case FactorSource::Kind::cpt: pair.tables[f] = network.tables[static_cast<std::size_t>(source.node)]; break;
      case FactorSource::Kind::powers:
        pair.tables[f] = network.tables[static_cast<std::size_t>(source.node)];
        if (pair.tables[f] == nullptr) {  // too large to keep (bayesnet.cpp): made for this pair
          leaf_log_powers(*network.nodes[static_cast<std::size_t>(source.node)].leaf_models, source.categories,
                          network.rho, pair.computed[used]);
          pair.tables[f] = &pair.computed[used++];
        }
        break;
      case FactorSource::Kind::kernels: {
        const auto ia = static_cast<std::size_t>(source.node), ib = static_cast<std::size_t>(source.other);
        int& index =
            pair.kernels_of_groups[static_cast<std::size_t>(a.groups[ia]) * static_cast<std::size_t>(b.group_count) +
                                   static_cast<std::size_t>(b.groups[ib])];
        if (index < 0) {
          pair.logs.clear();
          for (const Model* p : *a.nodes[ia].leaf_models)
            for (const Model* q : *b.nodes[ib].leaf_models) pair.logs.push_back(ppk::log_kernel(*p, *q));
          pair.computed[used].assign(pair.logs.data(), pair.logs.size());
          index = static_cast<int>(used++);
        }
        pair.tables[f] = &pair.computed[static_cast<std::size_t>(index)];
        break;
      }
    }
  }
  return layout.plan.log_sum(pair.tables.data());
}

UnrolledHmm::UnrolledHmm(const HmmModel& hmm, double rho) {
  const long states = static_cast<long>(hmm.states()), steps = hmm.steps();
  const auto log_power = [rho](double p) { return p > 0.0 ? rho * std::log(p) : kMinusInfinity; };
  std::vector<double> logs;
  for (long q = 0; q < states; ++q) logs.push_back(log_power(hmm.start()[q]));
  start_power_.assign(logs.data(), logs.size());
  logs.clear();
  for (long p = 0; p < states; ++p)
    for (long q = 0; q < states; ++q) logs.push_back(log_power(hmm.transitions()(p, q)));
  transitions_power_.assign(logs.data(), logs.size());
  for (long q = 0; q < states; ++q) emissions_.push_back(&hmm.emission(static_cast<std::size_t>(q)));
  const SampleSpace space = hmm.emission(0).sample_space();
  if (space.kind == "categories") leaf_log_powers(emissions_, space.dim, rho, emission_powers_);
  parents_.resize(static_cast<std::size_t>(steps + 1));
  emission_parents_.resize(static_cast<std::size_t>(steps + 1));
  network_.nodes.resize(static_cast<std::size_t>(2 * (steps + 1)));
  for (long t = 0; t <= steps; ++t) {
    if (t > 0) parents_[static_cast<std::size_t>(t)] = {t - 1};
    emission_parents_[static_cast<std::size_t>(t)] = {t};
    NetworkNode& hidden = network_.nodes[static_cast<std::size_t>(t)];
    hidden.states = states;
    hidden.parents = &parents_[static_cast<std::size_t>(t)];
    hidden.has_children = true;
    NetworkNode& observed = network_.nodes[static_cast<std::size_t>(steps + 1 + t)];
    observed.variable = t;
    observed.parents = &emission_parents_[static_cast<std::size_t>(t)];
    observed.leaf_models = &emissions_;
    network_.node_of_variable.push_back(steps + 1 + t);
  }
  network_.tables.assign(network_.nodes.size(), &transitions_power_);
  network_.tables[0] = &start_power_;
  network_.groups.assign(network_.nodes.size(), -1);
  for (long t = 0; t <= steps; ++t) {  // every step emits from the same models
    network_.tables[static_cast<std::size_t>(steps + 1 + t)] = &emission_powers_;
    network_.groups[static_cast<std::size_t>(steps + 1 + t)] = 0;
  }
  network_.group_count = 1;
  network_.rho = rho;
  intern_shape(network_);
}

}  // namespace ppk::detail
