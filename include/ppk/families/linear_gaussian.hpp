// Linear Gaussian DAGs (JMLR 2004 section 4.4, the continuous-state Bayesian networks): nodes
// v = 0..N-1, each a real d_v-vector with
//     x_v = sum_{u in pa(v)} B_{v,u} x_u + b_v + e_v,   e_v ~ N(0, S_v),
// S_v symmetric positive semidefinite (0: a deterministic node), and a flag "observed". Parents
// precede their children: every parent index of node v is below v, so the listing order is a
// topological order and there are no cycles (a later parent is rejected, naming the node).
//
// The model's distribution is the marginal of the observed nodes, concatenated in node order: the
// hidden nodes are integrated out. (x_0..x_{N-1}) is jointly Gaussian; its mean and covariance follow
// in node order (linear_gaussian.cpp), and the observed coordinates' block N(m, S) must be positive
// definite (else the observations have no density). The kernel is the Gaussian family's exact
// probability product kernel (JMLR 2004 eq. 5, any rho > 0) between two such marginals: the sample
// space is the real vectors of the observed dimension, so a linear_gaussian row also pairs with a
// gaussian row of that dimension (and a mixture of either).
//
// Row fields (family code 12): 3: N nodes (>= 1), then the N nodes in order, node v:
//     d_v (1..1000)   observed (0 or 1)   P_v parents   the P_v parent indices (distinct, each < v)
//     offset b_v (d_v values)   cov S_v (lower triangle row by row, d_v(d_v+1)/2 values)
//     weights W_v = [B_{v,u_1} .. B_{v,u_P}] (d_v x (d_{u_1} + .. + d_{u_P}), row by row: the parents'
//     blocks side by side in the order listed; nothing without parents).
// JSON: {"family":"linear_gaussian","nodes":[{"dim":d,"parents":[..],"weights":[[..]],"offset":[..],
//        "cov":[[..]],"observed":true},..]}   ("parents" absent: none; "observed" absent: hidden).
#pragma once

#include <memory>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/family.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

// One node, declared field by field in row order (include/ppk/core/family_fields.hpp, a record of "nodes"):
// "dim", "observed", "parents", "offset", "cov", "weights" (the weights' columns: the parents' dims).
struct LinearGaussianNode {
  long dim = 0;
  bool observed = false;
  std::vector<long> parents;  // node indices below this node's
  Eigen::MatrixXd weights;    // d x (sum of the parents' dims): [B_{v,u_1} .. B_{v,u_P}]
  Eigen::VectorXd offset;     // b
  Eigen::MatrixXd cov;        // S, symmetric positive semidefinite
  template <class Archive>
  void fields(Archive& archive, const std::vector<LinearGaussianNode>& nodes, long i);
};

// The parameters: the row's N, then the N nodes.
struct LinearGaussianParameters {
  std::vector<LinearGaussianNode> nodes;
  template <class Archive>
  void fields(Archive& archive);
};

class LinearGaussianModel : public Model, public SamplableModel {
 public:
  // Throws ModelError (a FieldError naming the node and its field) unless there are 1..5000 nodes of
  // dimension 1..1000 with at most 5000 coordinates in all, each parent index is below the node's and
  // listed once, every shape agrees, every value is finite, every cov is symmetric positive
  // semidefinite, some node is observed and the observed marginal covariance is positive definite
  // (the error names the first observed node whose coordinates depend linearly on those before it).
  using Parameters = LinearGaussianParameters;
  explicit LinearGaussianModel(Parameters parameters);
  explicit LinearGaussianModel(std::vector<LinearGaussianNode> nodes)
      : LinearGaussianModel(Parameters{std::move(nodes)}) {}
  const Parameters& parameters() const;  // as validated (covariances symmetrised)
  std::size_t size() const;
  const LinearGaussianNode& node(std::size_t i) const;
  // N(m, S) of the observed nodes, concatenated in node order.
  const GaussianModel& observed_marginal() const;

  ~LinearGaussianModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;  // real vectors of the observed dimension
  void prepare(const KernelParams& params) override;
  // `other`: a linear Gaussian DAG or a Gaussian over the same real vectors.
  double log_kernel(const Model& other) const override;
  double kernel_work() const override;  // the observed marginal's

  // SamplableModel interface (sampling.hpp), any rho > 0: the observed marginal's (gaussian.cpp),
  // p^rho / Z = N(m, S / rho). A sample is the observed nodes' values, concatenated in node order.
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double log_probability_work() const override;  // the observed marginal's

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& linear_gaussian_family();

}  // namespace ppk
