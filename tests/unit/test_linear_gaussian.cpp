// Linear Gaussian DAGs (linear_gaussian.hpp): the observed marginal and the kernel against the joint
// of all nodes built here in one piece, x = (I - B)^-1 (b + e) with B the big weight matrix, and
// JMLR 2004 eq. 5 written out in its original form (P = S^-1, S+, m+) on its observed block; the
// marginal against the sample mean and covariance of DAGs simulated ancestrally; a hidden root
// feeding two observed children against their joint written out by hand; an LDS unrolled into a DAG
// against the lds family's kernel; Gram matrices (with Gaussian rows), round trips, the documented row
// layout and rejected models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "positive_family_checks.hpp"
#include "sample_moments.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/families/linear_gaussian.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using namespace checks;  // the messages of malformed rows and JSON

constexpr double kLog2Pi = 1.8378770664093454836;  // log(2 pi)

// Standard normal draws in the shapes the tests need.
class Draws {
 public:
  explicit Draws(unsigned seed) : rng_(seed) {}
  double normal() { return normal_(rng_); }
  Eigen::MatrixXd matrix(Eigen::Index rows, Eigen::Index cols) {
    return Eigen::MatrixXd::NullaryExpr(rows, cols, [this] { return normal(); });
  }
  // G G' / cols + floor I, G of `rank` columns: positive definite when floor > 0, of rank `rank` when 0.
  Eigen::MatrixXd covariance(Eigen::Index dim, Eigen::Index rank, double floor) {
    const Eigen::MatrixXd g = matrix(dim, rank);
    return g * g.transpose() / static_cast<double>(std::max<Eigen::Index>(rank, 1)) +
           floor * Eigen::MatrixXd::Identity(dim, dim);
  }
  bool coin() { return std::bernoulli_distribution(0.5)(rng_); }
  long uniform(long low, long high) { return std::uniform_int_distribution<long>(low, high)(rng_); }
  std::mt19937& engine() { return rng_; }

 private:
  std::mt19937 rng_;
  std::normal_distribution<double> normal_;
};

LinearGaussianNode make_node(long dim, bool observed, std::vector<long> parents, Eigen::MatrixXd weights,
                             Eigen::VectorXd offset, Eigen::MatrixXd cov) {
  LinearGaussianNode node;
  node.dim = dim;
  node.observed = observed;
  node.parents = std::move(parents);
  node.weights = std::move(weights);
  node.offset = std::move(offset);
  node.cov = std::move(cov);
  return node;
}

// A random DAG whose observed nodes have the dimensions `observed_dims` (in that order), with `hidden`
// hidden nodes of dimension 1..3 placed at random among them. Each earlier node is a parent with
// probability 1/2; hidden nodes have singular noise half of the time (rank-deficient or zero), observed
// nodes positive definite noise (so that the observed marginal is positive definite).
std::vector<LinearGaussianNode> random_dag(Draws& draws, long hidden, const std::vector<long>& observed_dims) {
  std::vector<bool> observed(observed_dims.size(), true);
  observed.insert(observed.end(), static_cast<std::size_t>(hidden), false);
  std::shuffle(observed.begin(), observed.end(), draws.engine());
  std::vector<LinearGaussianNode> nodes;
  std::size_t next_observed = 0;
  for (std::size_t v = 0; v < observed.size(); ++v) {
    const long dim = observed[v] ? observed_dims[next_observed++] : draws.uniform(1, 3);
    std::vector<long> parents;
    long parent_dims = 0;
    for (long u = 0; u < static_cast<long>(v); ++u)
      if (draws.coin()) {
        parents.push_back(u);
        parent_dims += nodes[static_cast<std::size_t>(u)].dim;
      }
    std::shuffle(parents.begin(), parents.end(), draws.engine());  // any listing order
    Eigen::MatrixXd cov = observed[v]    ? draws.covariance(dim, dim, 0.2)
                          : draws.coin() ? draws.covariance(dim, draws.uniform(0, dim - 1), 0.0)
                                         : draws.covariance(dim, dim, 0.1);
    nodes.push_back(
        make_node(dim, observed[v], parents, 0.6 * draws.matrix(dim, parent_dims), draws.matrix(dim, 1), std::move(cov)));
  }
  return nodes;
}

// The joint of all nodes in one piece: x = B x + b + e with B the D x D matrix holding B_{v,u} at the
// rows of v and columns of u, so x = (I - B)^-1 (b + e), mean (I - B)^-1 b and covariance
// (I - B)^-1 blockdiag(S_v) (I - B)^-T (no recursion over the nodes). Then the observed coordinates.
struct Joint {
  Eigen::VectorXd mean;
  Eigen::MatrixXd cov;
};
Joint observed_joint_by_inversion(const std::vector<LinearGaussianNode>& nodes) {
  std::vector<long> first{0};
  for (const LinearGaussianNode& node : nodes) first.push_back(first.back() + node.dim);
  const long total = first.back();
  Eigen::MatrixXd big_b = Eigen::MatrixXd::Zero(total, total), noise = Eigen::MatrixXd::Zero(total, total);
  Eigen::VectorXd offsets(total);
  std::vector<long> observed;
  for (std::size_t v = 0; v < nodes.size(); ++v) {
    const LinearGaussianNode& node = nodes[v];
    long column = 0;
    for (long u : node.parents) {
      const long dim_u = nodes[static_cast<std::size_t>(u)].dim;
      big_b.block(first[v], first[static_cast<std::size_t>(u)], node.dim, dim_u) = node.weights.middleCols(column, dim_u);
      column += dim_u;
    }
    noise.block(first[v], first[v], node.dim, node.dim) = node.cov;
    offsets.segment(first[v], node.dim) = node.offset;
    if (node.observed)
      for (long k = first[v]; k < first[v + 1]; ++k) observed.push_back(k);
  }
  const Eigen::MatrixXd inverse = (Eigen::MatrixXd::Identity(total, total) - big_b).inverse();
  const Eigen::VectorXd mean = inverse * offsets;
  const Eigen::MatrixXd cov = inverse * noise * inverse.transpose();
  const Eigen::Index dim = static_cast<Eigen::Index>(observed.size());
  Joint joint{Eigen::VectorXd(dim), Eigen::MatrixXd(dim, dim)};
  for (Eigen::Index i = 0; i < dim; ++i) {
    joint.mean[i] = mean[observed[static_cast<std::size_t>(i)]];
    for (Eigen::Index j = 0; j < dim; ++j)
      joint.cov(i, j) = cov(observed[static_cast<std::size_t>(i)], observed[static_cast<std::size_t>(j)]);
  }
  return joint;
}

// JMLR 2004 eq. 5 as printed: with P = S^-1, P' = S'^-1, S+ = (P + P')^-1, m+ = P m + P' m',
// log k = (1-2rho)D/2 log 2pi - D/2 log rho + 1/2 log|S+| - rho/2 log|S| - rho/2 log|S'|
//         - rho/2 (m'P m + m''P' m' - m+' S+ m+).
double eq5_log_kernel(const Joint& a, const Joint& b, double rho) {
  const double dim = static_cast<double>(a.mean.size());
  const Eigen::MatrixXd p = a.cov.inverse(), q = b.cov.inverse();
  const Eigen::MatrixXd s_plus = (p + q).inverse();
  const Eigen::VectorXd m_plus = p * a.mean + q * b.mean;
  const double quadratic = a.mean.dot(p * a.mean) + b.mean.dot(q * b.mean) - m_plus.dot(s_plus * m_plus);
  return (1.0 - 2.0 * rho) * dim / 2.0 * kLog2Pi - dim / 2.0 * std::log(rho) + 0.5 * std::log(s_plus.determinant()) -
         rho / 2.0 * std::log(a.cov.determinant()) - rho / 2.0 * std::log(b.cov.determinant()) - rho / 2.0 * quadratic;
}

std::unique_ptr<LinearGaussianModel> dag_model(std::vector<LinearGaussianNode> nodes) {
  return std::make_unique<LinearGaussianModel>(std::move(nodes));
}

double prepared_log_kernel(const Model& a, const Model& b, double rho) {
  const PreparedModel pa(model_from_json(model_to_json(a)), with_rho(rho)),
      pb(model_from_json(model_to_json(b)), with_rho(rho));
  return log_kernel(pa, pb);
}

double tolerance(double expected, double relative) { return relative * std::max(1.0, std::fabs(expected)); }

TEST(LinearGaussian, MarginalAndKernelEqualTheJointBuiltByInversion) {
  Draws draws(1);
  for (long hidden : {0, 1, 2, 4})
    for (const std::vector<long>& observed_dims : std::vector<std::vector<long>>{{1}, {2}, {1, 2}, {2, 1, 1}}) {
      const auto nodes_a = random_dag(draws, hidden, observed_dims),
                 nodes_b = random_dag(draws, 3 - hidden % 3, observed_dims);
      const Joint joint_a = observed_joint_by_inversion(nodes_a), joint_b = observed_joint_by_inversion(nodes_b);
      const auto a = dag_model(nodes_a), b = dag_model(nodes_b);
      const std::string what =
          "hidden " + std::to_string(hidden) + ", " + std::to_string(joint_a.mean.size()) + " observed";
      EXPECT_LT((a->observed_marginal().mean() - joint_a.mean).cwiseAbs().maxCoeff(), 1e-12) << what;
      EXPECT_LT((a->observed_marginal().covariance() - joint_a.cov).cwiseAbs().maxCoeff(),
                1e-12 * joint_a.cov.cwiseAbs().maxCoeff())
          << what;
      for (double rho : {0.5, 1.0, 2.0}) {
        const double expected = eq5_log_kernel(joint_a, joint_b, rho);
        EXPECT_NEAR(prepared_log_kernel(*a, *b, rho), expected, tolerance(expected, 1e-10)) << what << ", rho = " << rho;
        EXPECT_NEAR(prepared_log_kernel(*b, *a, rho), expected, tolerance(expected, 1e-10)) << what << ", rho = " << rho;
      }
    }
}

// Draws from the DAG by its own equations, node by node (noise by the symmetric square root of S_v,
// which may be singular).
Eigen::VectorXd simulate_observed(const std::vector<LinearGaussianNode>& nodes, Draws& draws) {
  std::vector<Eigen::VectorXd> values;
  std::vector<double> observed;
  for (const LinearGaussianNode& node : nodes) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(node.cov);
    const Eigen::MatrixXd root = eigen.eigenvectors() * eigen.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal() *
                                 eigen.eigenvectors().transpose();
    Eigen::VectorXd x = node.offset + root * draws.matrix(node.dim, 1);
    long column = 0;
    for (long u : node.parents) {
      const Eigen::VectorXd& parent = values[static_cast<std::size_t>(u)];
      x += node.weights.middleCols(column, parent.size()) * parent;
      column += static_cast<long>(parent.size());
    }
    if (node.observed) observed.insert(observed.end(), x.data(), x.data() + x.size());
    values.push_back(std::move(x));
  }
  return Eigen::Map<const Eigen::VectorXd>(observed.data(), static_cast<Eigen::Index>(observed.size()));
}

// Hidden nodes integrated out: the marginal against 100,000 ancestral draws, each mean and covariance
// entry within 5 standard errors (var of a product of zero-mean Gaussians: S_ii S_jj + S_ij^2).
TEST(LinearGaussian, MarginalMatchesAncestralSimulation) {
  Draws draws(2);
  const auto nodes = random_dag(draws, 4, {2, 1, 2});
  const auto model = dag_model(nodes);
  const Eigen::VectorXd mean = model->observed_marginal().mean();
  const Eigen::MatrixXd cov = model->observed_marginal().covariance();
  ASSERT_EQ(mean.size(), 5);
  checks::expect_sample_moments(mean, cov, 100000, [&]() -> Eigen::VectorXd { return simulate_observed(nodes, draws); });
}

// h ~ N(m, S) hidden (dimension 2) feeds x1 = B1 h + b1 + e1 (dimension 1) and x2 = B2 h + b2 + e2
// (dimension 2): (x1, x2) ~ N((B1 m + b1, B2 m + b2), [[B1 S B1' + S1, B1 S B2'], [B2 S B1', B2 S B2' + S2]]),
// correlated through h although neither child is the other's parent.
struct Fork {
  Eigen::VectorXd m, b1, b2;
  Eigen::MatrixXd s, b1_weights, b2_weights, s1, s2;
  std::vector<LinearGaussianNode> nodes() const {
    return {make_node(2, false, {}, Eigen::MatrixXd(), m, s), make_node(1, true, {0}, b1_weights, b1, s1),
            make_node(2, true, {0}, b2_weights, b2, s2)};
  }
  std::unique_ptr<GaussianModel> written_out(bool correlated) const {
    Eigen::VectorXd mean(3);
    mean << b1_weights * m + b1, b2_weights * m + b2;
    Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(3, 3);
    cov.topLeftCorner(1, 1) = b1_weights * s * b1_weights.transpose() + s1;
    cov.bottomRightCorner(2, 2) = b2_weights * s * b2_weights.transpose() + s2;
    if (correlated) {
      cov.topRightCorner(1, 2) = b1_weights * s * b2_weights.transpose();
      cov.bottomLeftCorner(2, 1) = cov.topRightCorner(1, 2).transpose();
    }
    return GaussianModel::full(std::move(mean), std::move(cov));
  }
};

Fork random_fork(Draws& draws) {
  return {draws.matrix(2, 1), draws.matrix(1, 1), draws.matrix(2, 1),          draws.covariance(2, 2, 0.1),
          draws.matrix(1, 2), draws.matrix(2, 2), draws.covariance(1, 1, 0.2), draws.covariance(2, 2, 0.2)};
}

TEST(LinearGaussian, HiddenRootCorrelatesItsObservedChildren) {
  Draws draws(3);
  const Fork fork = random_fork(draws), other = random_fork(draws);
  const auto model = dag_model(fork.nodes()), other_model = dag_model(other.nodes());
  const auto by_hand = fork.written_out(true), other_by_hand = other.written_out(true);
  EXPECT_LT((model->observed_marginal().mean() - by_hand->mean()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((model->observed_marginal().covariance() - by_hand->covariance()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_GT(model->observed_marginal().covariance().topRightCorner(1, 2).cwiseAbs().maxCoeff(), 0.1);
  for (double rho : kRhos) {
    const double expected = prepared_log_kernel(*by_hand, *other_by_hand, rho);
    EXPECT_NEAR(prepared_log_kernel(*model, *other_model, rho), expected, tolerance(expected, 1e-10)) << rho;
    // A DAG against a Gaussian row is that Gaussian against the DAG's marginal.
    EXPECT_NEAR(prepared_log_kernel(*model, *other_by_hand, rho), expected, tolerance(expected, 1e-10)) << rho;
    EXPECT_NEAR(prepared_log_kernel(*other_by_hand, *model, rho), expected, tolerance(expected, 1e-10)) << rho;
    // Dropping the correlation (independent children) is a different kernel.
    const double independent = prepared_log_kernel(*fork.written_out(false), *other_by_hand, rho);
    EXPECT_GT(std::fabs(independent - expected), 1e-3) << rho;
  }
}

// An LDS s_0 -> s_1 -> .. -> s_T with s_t -> x_t, states hidden and observations observed, in the
// order s_0, x_0, s_1, x_1, ..: its observed marginal is the joint of (x_0..x_T).
std::vector<LinearGaussianNode> unrolled(const LdsModel& lds, long steps) {
  const long n = lds.state_dim(), d = lds.observation_dim();
  std::vector<LinearGaussianNode> nodes;
  for (long t = 0; t <= steps; ++t) {
    if (t == 0)
      nodes.push_back(make_node(n, false, {}, Eigen::MatrixXd(), lds.mean0(), lds.cov0()));
    else
      nodes.push_back(make_node(n, false, {2 * (t - 1)}, lds.transition(), Eigen::VectorXd::Zero(n), lds.state_noise()));
    nodes.push_back(make_node(d, true, {2 * t}, lds.observation(), Eigen::VectorXd::Zero(d), lds.observation_noise()));
  }
  return nodes;
}

std::unique_ptr<LdsModel> random_lds(Draws& draws, long n, long d, long length) {
  const Eigen::MatrixXd a = draws.matrix(n, n);
  return std::make_unique<LdsModel>(draws.matrix(n, 1), draws.covariance(n, n, 0.1),
                                    a * (0.9 / Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues()(0)),
                                    draws.covariance(n, n, 0.05), draws.matrix(d, n), draws.covariance(d, d, 0.2),
                                    length);
}

TEST(LinearGaussian, UnrolledLdsHasTheLdsKernel) {
  Draws draws(4);
  for (long d : {1, 2})
    for (long n_a = 1; n_a <= 3; ++n_a)
      for (long n_b = 1; n_b <= 3; n_b += 2)
        for (long steps : {0, 1, 5, 20}) {
          const auto lds_a = random_lds(draws, n_a, d, steps), lds_b = random_lds(draws, n_b, d, steps);
          const auto dag_a = dag_model(unrolled(*lds_a, steps)), dag_b = dag_model(unrolled(*lds_b, steps));
          for (double rho : {0.5, 1.0, 2.0}) {
            const double expected = prepared_log_kernel(*lds_a, *lds_b, rho);  // the Kalman filter of lds.cpp
            EXPECT_NEAR(prepared_log_kernel(*dag_a, *dag_b, rho), expected, tolerance(expected, 1e-9))
                << "n = " << n_a << ", " << n_b << ", d = " << d << ", T = " << steps << ", rho = " << rho;
          }
        }
}

TEST(LinearGaussian, GramMatricesArePositiveSemidefinite) {
  Draws draws(5);
  for (double rho : {0.5, 1.0, 2.0}) {
    std::vector<PreparedModel> models;
    for (long i = 0; i < 8; ++i)
      models.emplace_back(dag_model(random_dag(draws, i % 4, i % 2 ? std::vector<long>{1, 2} : std::vector<long>{3})),
                          with_rho(rho));
    models.emplace_back(GaussianModel::full(draws.matrix(3, 1), draws.covariance(3, 3, 0.3)), with_rho(rho));
    models.emplace_back(GaussianModel::isotropic(draws.matrix(3, 1), 0.7), with_rho(rho));
    expect_positive_semidefinite(models, "linear_gaussian rho = " + std::to_string(rho));
  }
}

// Real vectors of the observed dimension: a Gaussian or a mixture of Gaussians over them pairs with a
// DAG; other dimensions do not.
TEST(LinearGaussian, SampleSpaceIsTheObservedRealVectors) {
  Draws draws(6);
  const auto model = dag_model(random_dag(draws, 2, {1, 2}));
  EXPECT_EQ(model->sample_space().describe(), "real vectors of dimension 3");
  const auto gaussian = GaussianModel::isotropic(Eigen::VectorXd::Zero(3), 1.0);
  EXPECT_NO_THROW(check_compatible(*model, *gaussian));
  EXPECT_THROW(check_compatible(*model, *GaussianModel::isotropic(Eigen::VectorXd::Zero(2), 1.0)), KernelDomainError);
  EXPECT_THROW(check_compatible(*model, *dag_model(random_dag(draws, 2, {2}))), KernelDomainError);
  std::vector<std::unique_ptr<Model>> components;
  components.push_back(GaussianModel::isotropic(Eigen::VectorXd::Zero(3), 1.0));
  const MixtureModel mixture({1.0}, std::move(components));
  for (double rho : kRhos) {
    const double expected = prepared_log_kernel(*model, *gaussian, rho);
    EXPECT_NEAR(prepared_log_kernel(*model, mixture, rho), expected, tolerance(expected, 1e-12)) << rho;
  }
  EXPECT_THROW(model->prepare(with_rho(0.0)), KernelDomainError);
}

TEST(LinearGaussian, RowAndJsonRoundTrips) {
  Draws draws(7);
  for (long hidden = 0; hidden <= 4; ++hidden) checks::expect_round_trips(*dag_model(random_dag(draws, hidden, {2, 1})));
}

// Node 0 hidden (dim 2), node 1 observed with parent 0, node 2 observed with parents 1 and 0; every value
// but the parent indices 0 non-zero.
const char* const kSampleJson =
    R"({"family":"linear_gaussian","nodes":[{"dim":2,"offset":[1,-2],"cov":[[1,0.5],[0.5,2]]},)"
    R"({"dim":1,"parents":[0],"weights":[[0.5,3]],"offset":[0.25],"cov":[[0.75]],"observed":true},)"
    R"({"dim":1,"parents":[1,0],"weights":[[2,-1,4]],"offset":[-3],"cov":[[1.5]],"observed":true}]})";

TEST(LinearGaussian, RowLayoutIsTheDocumentedOne) {
  // 3 N; node 0 at 4..11: 4 dim, 5 observed, 6 P, 7..8 offset, 9..11 cov; node 1 at 12..19: 12 dim,
  // 13 observed, 14 P, 15 parent, 16 offset, 17 cov, 18..19 weights; node 2 at 20..29: 20 dim,
  // 21 observed, 22 P, 23..24 parents, 25 offset, 26 cov, 27..29 weights (B_{2,1} then B_{2,0}).
  EXPECT_EQ(format_entries(encode_row(*model_from_json(nlohmann::json::parse(kSampleJson)))),
            "1:1 2:12 3:3 4:2 7:1 8:-2 9:1 10:0.5 11:2 12:1 13:1 14:1 16:0.25 17:0.75 18:0.5 19:3 "
            "20:1 21:1 22:2 23:1 25:-3 26:1.5 27:2 28:-1 29:4");
}

TEST(LinearGaussian, RejectsMalformedRows) {
  Row row = encode_row(*model_from_json(nlohmann::json::parse(kSampleJson)));
  row.insert(row.begin() + 12, {15, 0.0});  // the zero parent indices, present so that they can be changed
  row.insert(row.begin() + 21, {24, 0.0});
  EXPECT_EQ(row_error(row), "");
  EXPECT_TRUE(mentions(row_error(with_value(row, 11, -1.0)),
                       {"linear_gaussian nodes[0] field \"cov\" (indices 9..11)", "positive semidefinite"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 4, 0.0)), {"linear_gaussian nodes[0] field \"dim\" (index 4)", "[1, 1000]"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 13, 2.0)), {"nodes[1] field \"observed\" (index 13)", "[0, 1]", "got 2"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 14, 2.0)), {"nodes[1] field \"parents\" (index 14)", "[0, 1]"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 15, 1.0)), {"nodes[1] field \"parents\" (index 15)", "[0, 0]", "got 1"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 23, 2.0)), {"nodes[2] field \"parents\" (index 23)", "[0, 1]"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 23, 0.0)), {"nodes[2] field \"parents\" (index 24)", "distinct parents"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 17, -0.75)), {"nodes[1] field \"cov\" (index 17)", "positive semidefinite"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 18, std::numeric_limits<double>::quiet_NaN())), {"index 18", "finite"}));
  EXPECT_TRUE(mentions(row_error(with_value(with_value(row, 13, 0.0), 21, 0.0)),
                       {"linear_gaussian field \"nodes\" (index 3)", "at least one observed node"}));
  // x_2 = 2 x_1 - 3 exactly (no noise, no weight on node 0): the observed marginal is singular.
  const Row deterministic = with_value(with_value(with_value(row, 26, 0.0), 28, 0.0), 29, 0.0);
  EXPECT_TRUE(mentions(row_error(deterministic), {"linear_gaussian nodes[2] field \"cov\" (index 26)", "singular"}));
  // Node 1 without noise is fine: it depends on the hidden node 0, whose covariance is positive definite.
  EXPECT_EQ(row_error(with_value(row, 17, 0.0)), "");
  Row extra = row;
  extra.push_back({30, 1.0});
  EXPECT_NE(row_error(extra), "");
  Row short_row = row;
  short_row.resize(short_row.size() - 1);  // weights[2] missing: reads as 0, a valid model
  EXPECT_EQ(row_error(short_row), "");
}

TEST(LinearGaussian, RejectsMalformedJson) {
  const std::string json = kSampleJson;
  EXPECT_EQ(json_error(json), "");
  EXPECT_TRUE(
      mentions(json_error(replaced(json, R"("weights":[[2,-1,4]])", R"("weights":[[2,-1]])")),
               {"linear_gaussian nodes[2] field \"weights\"", "1 x 3", "1 for node 1, 2 for node 0", "got 1 x 2"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("parents":[1,0])", R"("parents":[2,0])")),
                       {"linear_gaussian nodes[2] field \"parents\"[0]", "a node listed before this one", "got 2"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("parents":[0],)", R"("parents":[2],)")),
                       {"linear_gaussian nodes[1] field \"parents\"[0]", "parents precede their children", "got 2"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("parents":[1,0])", R"("parents":[0,0])")),
                       {"linear_gaussian nodes[2] field \"parents\"[1]", "distinct parents"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("cov":[[1,0.5],[0.5,2]])", R"("cov":[[1,0.5],[0.4,2]])")),
                       {"linear_gaussian nodes[0] field \"cov\"[0][1]", "symmetric"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("cov":[[1,0.5],[0.5,2]])", R"("cov":[[1,2],[2,1]])")),
                       {"linear_gaussian nodes[0] field \"cov\"", "positive semidefinite"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("offset":[0.25])", R"("offset":[0.25,1])")),
                       {"linear_gaussian nodes[1] field \"offset\"", "1 values", "got 2 values"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("cov":[[0.75]])", R"("cov":[[0.75,0]])")),
                       {"linear_gaussian nodes[1] field \"cov\"", "1 x 1", "1 x 2"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("weights":[[0.5,3]],)", "")),
                       {"linear_gaussian nodes[1] field \"weights\"", "missing"}));
  EXPECT_TRUE(
      mentions(json_error(replaced(json, R"("cov":[[1,0.5],[0.5,2]])", R"("cov":[[1,0.5],[0.5,2]],"weights":[[1],[1]])")),
               {"linear_gaussian nodes[0] field \"weights\"", "no parents: no weights", "2 x 1"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("observed":true})", R"("observed":1})")),
                       {"linear_gaussian nodes[1] field \"observed\"", "true or false"}));
  EXPECT_TRUE(mentions(json_error(replaced(replaced(json, R"("observed":true)", R"("observed":false)"),
                                           R"("observed":true)", R"("observed":false)")),
                       {"linear_gaussian field \"nodes\"", "at least one observed node"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("weights":[[2,-1,4]],"offset":[-3],"cov":[[1.5]])",
                                           R"("weights":[[2,0,0]],"offset":[-3],"cov":[[0]])")),
                       {"linear_gaussian nodes[2] field \"cov\"", "singular"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("dim":1,"parents":[0])", R"("dim":1,"parent":[0])")),
                       {"linear_gaussian nodes[1] field \"parent\"", "not a field"}));
  EXPECT_TRUE(
      mentions(json_error(R"({"family":"linear_gaussian","nodes":[]})"), {"linear_gaussian field \"nodes\"", "1 to"}));
}

TEST(LinearGaussian, ConstructorChecksEveryNode) {
  const auto error = [](std::vector<LinearGaussianNode> nodes) {
    return checks::constructor_error([&] { LinearGaussianModel model(std::move(nodes)); });
  };
  const Eigen::MatrixXd one = Eigen::MatrixXd::Ones(1, 1);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(1);
  EXPECT_EQ(error({make_node(1, true, {}, Eigen::MatrixXd(), zero, one)}), "");
  EXPECT_TRUE(mentions(error({}), {"linear_gaussian field \"nodes\"", "between 1 and 5000 nodes", "got 0 nodes"}));
  EXPECT_TRUE(
      mentions(error({make_node(1, true, {}, Eigen::MatrixXd(), Eigen::VectorXd::Constant(1, std::nan("")), one)}),
               {"nodes[0] field \"offset\"[0]", "finite"}));
  EXPECT_TRUE(mentions(error({make_node(1, true, {}, Eigen::MatrixXd(), zero, one),
                              make_node(1, true, {0}, Eigen::MatrixXd::Constant(1, 1, INFINITY), zero, one)}),
                       {"nodes[1] field \"weights\"[0][0]", "finite"}));
  EXPECT_TRUE(mentions(error({make_node(1, true, {-1}, one, zero, one)}), {"nodes[0] field \"parents\"[0]", "got -1"}));
  std::vector<LinearGaussianNode> wide;
  for (long i = 0; i < 6; ++i)
    wide.push_back(make_node(1000, i == 5, {}, Eigen::MatrixXd(), Eigen::VectorXd::Zero(1000),
                             Eigen::MatrixXd::Identity(1000, 1000)));
  EXPECT_TRUE(mentions(error(std::move(wide)), {"nodes[5] field \"dim\"", "at most 5000 coordinates", "have 5000"}));
}

}  // namespace
}  // namespace ppk
