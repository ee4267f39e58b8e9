// Bayesian networks over discrete hidden variables and observed variables (JMLR 2004 section 4.3).
//
// A network is a DAG of nodes, listed in any order (cycles are rejected, naming the nodes on one):
//   * discrete nodes with K >= 1 states (0..K-1) and a conditional probability table over the
//     configurations of their parents, hidden or observed;
//   * emission leaves: observed nodes without children whose conditional, for each configuration
//     of their (discrete) parents, is one model of another family (any but hmm and bayesnet).
// The observed nodes are the observed variables 0..n-1 (each node says which), and two networks
// pair variable j with variable j: the sample space is the tuple of the variables' spaces
// (a discrete node with K states: one of K categories, as a one-event multinomial over K), written
// "sequences of n S" when every variable has the space S, so that a network whose n observed
// variables share S has the sample space of an HMM over sequences x_0..x_{n-1} of S.
//
// A parent configuration c of parents (u_1..u_P) with state counts (K_1..K_P) is numbered row-major,
// the last parent fastest: c = (..(s_1 K_2 + s_2) K_3 + ..) K_P + s_P; with no parents, c = 0.
//
// Kernel: the k~ of latent-variable models (JMLR 2004 section 4), the power applied to the joint of
// hidden and observed variables,
//     k~ = sum over hidden configurations h of the first network, h' of the second and the shared
//          observed discrete variables v of  prod (CPT entries of the first)^rho
//          prod (CPT entries of the second)^rho  prod over emission variables j of
//          k_rho(p_j(. | pa_j), p'_j(. | pa'_j)),
// evaluated exactly by variable elimination on the fused graph (bayesnet.cpp). The two networks
// need not have the same structure; an HMM row pairs with a network whose observed variables are
// its x_0..x_T (the HMM is the network s_0 -> s_1 -> .. -> s_T, s_t -> x_t).
//
// Row fields (family code 10): 3: N nodes (>= 1), then N node headers, node i:
//     states K_i (0: an emission leaf)   variable (j + 1 for observed variable j; 0: hidden)
//     P_i parents   the P_i parent node indices (0-based)
//   then the N node bodies in node order: C_i K_i CPT entries (row c: P(node = k | configuration c),
//   k = 0..K_i-1), or C_i nested emission models (RowWriter::model), C_i the number of parent
//   configurations (1 with no parents).
// JSON: {"family":"bayesnet","nodes":[{"states":K,"parents":[..],"cpt":[[..],..],"variable":j},
//         {"parents":[..],"variable":j,"emissions":[{model},..]},..]}   ("variable" absent: hidden)
#pragma once

#include <memory>
#include <vector>

#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

// The most configurations of the hidden discrete nodes whose sum log p(x) enumerates (sampling).
constexpr long kMaxSampledHiddenConfigurations = 100000;

struct BayesNode {
  long states = 0;                                // K >= 1: a discrete node; 0: an emission leaf
  long variable = -1;                             // the observed variable this node is (0-based); -1: hidden
  std::vector<long> parents;                      // node indices, discrete nodes
  std::vector<double> cpt;                        // discrete: C x K row-major, row c = P(node | parent configuration c)
  std::vector<std::unique_ptr<Model>> emissions;  // emission leaf: one model per parent configuration
  // Declared field by field (include/ppk/core/family_fields.hpp, a two-phase record of "nodes"): the header
  // "states", "variable", "parents"; the body "cpt" or "emissions", sized by the nodes' headers.
  template <class Archive>
  void header(Archive& archive, const std::vector<BayesNode>& nodes, long i);
  template <class Archive>
  void body(Archive& archive, const std::vector<BayesNode>& nodes, long i);
};

// The parameters: the row's N, then "nodes" (every header, then every body).
struct BayesNetParameters {
  std::vector<BayesNode> nodes;
  template <class Archive>
  void fields(Archive& archive);
};

class BayesNetModel : public Model, public SamplableModel {
 public:
  // Throws ModelError (a FieldError naming the node and its field) unless the nodes form a DAG,
  // parents are distinct discrete nodes, emission leaves are observed, every CPT row is a
  // probability vector (summing to 1 within 1e-6; then renormalised) with one row per parent
  // configuration, every emission leaf has one model per parent configuration over one sample
  // space, and the observed variables are numbered 0..n-1, one node each.
  using Parameters = BayesNetParameters;
  explicit BayesNetModel(Parameters parameters);
  explicit BayesNetModel(std::vector<BayesNode> nodes) : BayesNetModel(Parameters{std::move(nodes)}) {}
  const Parameters& parameters() const;  // as validated (CPT rows renormalised)
  std::size_t size() const;
  const BayesNode& node(std::size_t i) const;
  std::size_t observed_variables() const;

  ~BayesNetModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;
  void prepare(const KernelParams& params) override;  // CPT^rho in log space; prepares the emissions
  // `other` is a network, or an HMM whose x_0..x_T are this network's observed variables.
  double log_kernel(const Model& other) const override;
  double kernel_work() const override;  // the emission leaves' C x C' kernels' (prepare)

  // SamplableModel interface (sampling.hpp), rho = 1 only (p^rho / Z is not a network otherwise),
  // when every emission model can be sampled. A sample is the observed variables 0..n-1 in order,
  // each as its space's sample (a discrete variable: its state k as the number k). A draw is
  // ancestral: each discrete node from its CPT row given its parents' drawn states (in a topological
  // order), each emission leaf from its model for its parents' configuration. log p(x) sums the joint
  // over the configurations of the hidden discrete nodes (enumerated, log-sum-exp), at most
  // kMaxSampledHiddenConfigurations (100000): more, or another rho, gives KernelDomainError.
  bool can_sample() const override;
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double log_probability_work() const override;  // the emissions' and the hidden configurations'

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& bayesnet_family();

}  // namespace ppk
