// The kernel of Bayesian networks (bayesnet.hpp, JMLR 2004 section 4.3): networks as the kernel sees
// them, fused pairwise into one sum of products of factors (bayesnet.cpp's file comment), summed by a
// variable-elimination plan (variable_elimination.hpp). The plan depends only on the two networks'
// structures, so it is made once per pair of structures and kept: the kernels of a Gram matrix of
// networks of one structure share one plan, and each pair only supplies its factors' values.
#pragma once

#include <memory>
#include <vector>

#include "ppk/core/model.hpp"
#include "ppk/inference/variable_elimination.hpp"

namespace ppk {

class HmmModel;

namespace detail {

// The most entries of one CPT, one list of emission models, one elimination table.
constexpr long kMaxNetworkTable = 10000000;

// A node as the kernel sees it; a BayesNetModel's nodes, or an HMM's unrolled ones.
struct NetworkNode {
  long states = 0;     // K, or 0 for an emission leaf
  long variable = -1;  // observed variable, or -1
  const std::vector<long>* parents = nullptr;
  bool has_children = false;
  // Emission leaves: the model per parent configuration. Observed discrete leaves: their CPT rows as
  // one-event multinomials (what an emission leaf of the other network is paired with).
  const std::vector<const Model*>* leaf_models = nullptr;
};

// The structure of a network as the fusion reads it (each node's states, variable, parents and
// whether it has children), interned: networks of one structure share one.
struct NetworkShape;

struct Network {
  std::vector<NetworkNode> nodes;
  std::vector<long> node_of_variable;
  std::shared_ptr<const NetworkShape> shape;  // (intern_shape)
  // What the kernel reads per node, prepared (flat, so that a pair touches little memory):
  //   tables[i]: a discrete node's rho log P(node = k | c) at c K + k; an emission leaf over K
  //     categories: at c K + v, log k_rho(p_c, delta_v) (leaf_log_powers), its factor when the other
  //     network's variable is a discrete node with children (null: made per pair, for leaves with
  //     too many entries to keep);
  //   groups[i]: nodes with equal leaf models (an HMM's emissions at every step) share a group, and a
  //     pair's emission kernels are computed once per pair of groups (-1: no leaf models).
  std::vector<const ScaledTable*> tables;
  std::vector<int> groups;
  int group_count = 0;
  double rho = 0.0;  // prepared with
};

// The factor of an emission leaf over K categories paired with a discrete node with children (so
// the observed variable v is a fused variable): at c K + v, log k_rho(p_c, delta_v), delta_v the
// one-event multinomial certain of v, for the leaf's models p_c. For a one-event multinomial p_c that
// is rho log p_c(v); for a mixture of them, log sum_m (w_m p_m(v))^rho, the mixture's k~ with its
// component label hidden. The models are prepared with rho.
void leaf_log_powers(const std::vector<const Model*>& models, long categories, double rho, ScaledTable& out);

// Sets network.shape from its nodes' structure.
void intern_shape(Network& network);
// Sets network.groups and group_count: nodes whose leaf models encode to the same rows share a group.
void group_leaf_models(Network& network);

// log k~ between two networks with the same observed variables (their sample spaces agree), both
// prepared with one rho (their CPT powers, leaf models and leaf powers), grouped and shaped: the fused
// factors, then the pair of structures' elimination plan. KernelDomainError when the fused networks
// need a table beyond kMaxNetworkTable entries.
double log_kernel_of_networks(const Network& a, const Network& b);

// An HMM unrolled to T + 1 steps (JMLR 2004 section 4.2 as a network): hidden node t is s_t (s_0 ~ pi,
// s_t | s_{t-1} ~ A), node T + 1 + t the emission leaf x_t (observed variable t) with parent s_t.
class UnrolledHmm {
 public:
  UnrolledHmm(const HmmModel& hmm, double rho);
  UnrolledHmm(const UnrolledHmm&) = delete;
  UnrolledHmm& operator=(const UnrolledHmm&) = delete;
  const Network& network() const { return network_; }

 private:
  ScaledTable start_power_, transitions_power_, emission_powers_;
  std::vector<const Model*> emissions_;
  std::vector<std::vector<long>> parents_;
  std::vector<std::vector<long>> emission_parents_;
  Network network_;
};

}  // namespace detail
}  // namespace ppk
