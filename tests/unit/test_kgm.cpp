// Kernel graphical models (kgm.hpp): base kernels against their formulas written out; mean map,
// cross-covariance and conditional embedding against explicit sums and a dense inverse; path
// estimates on discrete chains and trees with delta kernels against counting estimates computed
// here from the same samples, and against the true probabilities; on a linear-Gaussian chain with
// RBF kernels against the closed-form smoothed joint density.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "ppk/inference/kgm.hpp"

namespace ppk::kgm {
namespace {

constexpr double kPi = 3.14159265358979323846;

// ------------------------------------------------------------------------------------------------
// Discrete directed trees: node j has parent parent[j] < j (or -1) and table[parent value] = its
// conditional distribution (table[0] = the marginal for a root).
struct DiscreteTree {
  std::vector<int> parent;
  std::vector<std::vector<std::vector<double>>> table;
  int states(int node) const { return static_cast<int>(table[node][0].size()); }
};

// N ancestral samples: row i holds the values of all nodes.
std::vector<std::vector<int>> sample(const DiscreteTree& tree, long n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<int>> rows(static_cast<std::size_t>(n), std::vector<int>(tree.parent.size()));
  for (auto& row : rows)
    for (std::size_t j = 0; j < tree.parent.size(); ++j) {
      const auto& p = tree.table[j][tree.parent[j] < 0 ? 0 : row[tree.parent[j]]];
      row[j] = std::discrete_distribution<int>(p.begin(), p.end())(rng);
    }
  return rows;
}

// The model with one delta-kernel variable per node, named "V0", "V1", ...
KernelGraphicalModel delta_model(const DiscreteTree& tree, const std::vector<std::vector<int>>& rows, double lambda) {
  std::vector<Variable> variables;
  for (std::size_t j = 0; j < tree.parent.size(); ++j) {
    Eigen::MatrixXd samples(static_cast<Eigen::Index>(rows.size()), 1);
    for (std::size_t i = 0; i < rows.size(); ++i) samples(static_cast<Eigen::Index>(i), 0) = rows[i][j];
    variables.push_back({"V" + std::to_string(j), samples, DeltaKernel{}});
  }
  return KernelGraphicalModel(std::move(variables), lambda);
}

// The column of values 0..states-1, as query points.
Eigen::MatrixXd all_values(int states) { return Eigen::VectorXd::LinSpaced(states, 0, states - 1); }

// Counted joint frequencies P^(node i = u, node j = v) and marginals P^(node = u).
Eigen::MatrixXd joint_frequencies(const DiscreteTree& tree, const std::vector<std::vector<int>>& rows, int i, int j) {
  Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(tree.states(i), tree.states(j));
  for (const auto& row : rows) counts(row[i], row[j]) += 1;
  return counts / static_cast<double>(rows.size());
}
Eigen::VectorXd frequencies(const DiscreteTree& tree, const std::vector<std::vector<int>>& rows, int node) {
  return joint_frequencies(tree, rows, node, node).diagonal();
}
// P^(j = v | i = u) as a matrix (u, v); rows of unseen u are left 0 (their terms vanish anyway).
Eigen::MatrixXd conditional_frequencies(const DiscreteTree& tree, const std::vector<std::vector<int>>& rows, int i,
                                        int j) {
  Eigen::MatrixXd joint = joint_frequencies(tree, rows, i, j);
  const Eigen::VectorXd marginal = frequencies(tree, rows, i);
  for (Eigen::Index u = 0; u < joint.rows(); ++u)
    if (marginal(u) > 0) joint.row(u) /= marginal(u);
  return joint;
}

// A chain V0 -> V1 -> V2 -> V3 with 3, 4, 2, 3 states.
DiscreteTree four_node_chain() {
  return {{-1, 0, 1, 2},
          {{{0.5, 0.3, 0.2}},
           {{0.1, 0.2, 0.3, 0.4}, {0.5, 0.1, 0.1, 0.3}, {0.25, 0.25, 0.4, 0.1}},
           {{0.8, 0.2}, {0.3, 0.7}, {0.5, 0.5}, {0.1, 0.9}},
           {{0.2, 0.5, 0.3}, {0.6, 0.3, 0.1}}}};
}

TEST(KgmDelta, ChainReproducesCountingEstimate) {
  const DiscreteTree tree = four_node_chain();
  const auto rows = sample(tree, 600, 11);
  // Counting estimates: sum_b P^(a, b) P^(c | b), and for the path of length 3
  // sum_{b, c} P^(a, b) P^(c | b) P^(d | c).
  const Eigen::MatrixXd chain2 = joint_frequencies(tree, rows, 0, 1) * conditional_frequencies(tree, rows, 1, 2);
  const Eigen::MatrixXd chain3 = chain2 * conditional_frequencies(tree, rows, 2, 3);
  for (double lambda : {1e-9, 1e-12}) {
    const KernelGraphicalModel model = delta_model(tree, rows, lambda);
    // Bias: K S = sum_s n_s/(n_s + lambda N) e_s e_s'/n_s differs from the projection by
    // lambda N / n_s <= 1e-9 * 600 / 10 relatively; kgm.cpp applies K S as I - lambda N S, so
    // rounding stays near 1e-16 * N; 1e-6 is far above both.
    const Eigen::MatrixXd two = model.path_estimates(chain_path({"V0", "V1", "V2"}), all_values(3), all_values(2));
    const Eigen::MatrixXd three =
        model.path_estimates(chain_path({"V0", "V1", "V2", "V3"}), all_values(3), all_values(3));
    EXPECT_LT((two - chain2).cwiseAbs().maxCoeff(), 1e-6) << "lambda " << lambda << "\n" << two << "\n" << chain2;
    EXPECT_LT((three - chain3).cwiseAbs().maxCoeff(), 1e-6) << "lambda " << lambda;
    // The reversed chain (query from the leaf up) is the transpose.
    const Eigen::MatrixXd reversed =
        model.path_estimates(tree_path({{"V0", "V1"}, {"V1", "V2"}}, "V2", "V0"), all_values(2), all_values(3));
    EXPECT_LT((reversed - chain2.transpose()).cwiseAbs().maxCoeff(), 1e-6);
  }
}

TEST(KgmDelta, TreeReproducesCountingEstimate) {
  // R = V0 with children A = V1 and X = V2, and X -> C = V3.
  const DiscreteTree tree{{-1, 0, 0, 2},
                          {{{0.3, 0.3, 0.4}},
                           {{0.7, 0.2, 0.1}, {0.1, 0.8, 0.1}, {0.2, 0.2, 0.6}},
                           {{0.6, 0.4}, {0.5, 0.5}, {0.1, 0.9}},
                           {{0.3, 0.3, 0.2, 0.2}, {0.1, 0.1, 0.4, 0.4}}}};
  const auto rows = sample(tree, 500, 5);
  const KernelGraphicalModel model = delta_model(tree, rows, 1e-10);
  const std::vector<Edge> edges{{"V0", "V1"}, {"V0", "V2"}, {"V2", "V3"}};
  const Eigen::MatrixXd a_given_r = conditional_frequencies(tree, rows, 0, 1);
  // A <- R -> X: sum_r P^(r) P^(a | r) P^(x | r).
  const Eigen::MatrixXd siblings = a_given_r.transpose() * joint_frequencies(tree, rows, 0, 2);
  // A <- R -> X -> C: sum_{r, x} P^(r) P^(a | r) P^(x | r) P^(c | x).
  const Eigen::MatrixXd cousins = siblings * conditional_frequencies(tree, rows, 2, 3);
  EXPECT_LT(
      (model.path_estimates(tree_path(edges, "V1", "V2"), all_values(3), all_values(2)) - siblings).cwiseAbs().maxCoeff(),
      1e-6);
  EXPECT_LT(
      (model.path_estimates(tree_path(edges, "V1", "V3"), all_values(3), all_values(4)) - cousins).cwiseAbs().maxCoeff(),
      1e-6);
}

TEST(KgmDelta, ApproachesTrueProbabilities) {
  const DiscreteTree tree = four_node_chain();
  // P(a, c) = sum_b P(a) P(b | a) P(c | b).
  Eigen::MatrixXd p_a = Eigen::MatrixXd::Zero(3, 3), b_given_a(3, 4), c_given_b(4, 2);
  for (int a = 0; a < 3; ++a) p_a(a, a) = tree.table[0][0][a];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 4; ++b) b_given_a(a, b) = tree.table[1][a][b];
  for (int b = 0; b < 4; ++b)
    for (int c = 0; c < 2; ++c) c_given_b(b, c) = tree.table[2][b][c];
  const Eigen::MatrixXd truth = p_a * b_given_a * c_given_b;
  std::vector<double> errors;
  for (long n : {100L, 1600L}) {
    const auto rows = sample(tree, n, 23);
    const Eigen::MatrixXd counting = joint_frequencies(tree, rows, 0, 1) * conditional_frequencies(tree, rows, 1, 2);
    const Eigen::MatrixXd kernel =
        delta_model(tree, rows, 1e-10).path_estimates(chain_path({"V0", "V1", "V2"}), all_values(3), all_values(2));
    EXPECT_LT((kernel - counting).cwiseAbs().maxCoeff(), 1e-6);
    // Every plug-in frequency has standard deviation <= 1/(2 sqrt(N)); the estimate is a sum of
    // 4 products of such frequencies (each <= 1), so its error is a few 1/sqrt(N) at most: 3/sqrt(N)
    // is about 6 standard deviations of one frequency.
    const double error = (kernel - truth).cwiseAbs().maxCoeff();
    EXPECT_LT(error, 3 / std::sqrt(static_cast<double>(n))) << "N = " << n;
    errors.push_back(error);
  }
  EXPECT_LT(errors[1], errors[0]);
}

// ------------------------------------------------------------------------------------------------
// Continuous: explicit formulas on a tiny example.

Eigen::MatrixXd random_points(long n, long d, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd points(n, d);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < d; ++j) points(i, j) = normal(rng);
  return points;
}

// exp(-|x - y|^2 / (2 s^2)) written out coordinate by coordinate.
double rbf(const Eigen::MatrixXd& xs, Eigen::Index i, const Eigen::MatrixXd& ys, Eigen::Index j, double s) {
  double squared = 0;
  for (Eigen::Index k = 0; k < xs.cols(); ++k) squared += (xs(i, k) - ys(j, k)) * (xs(i, k) - ys(j, k));
  return std::exp(-squared / (2 * s * s));
}

Eigen::MatrixXd rbf_matrix(const Eigen::MatrixXd& xs, const Eigen::MatrixXd& ys, double s) {
  Eigen::MatrixXd m(xs.rows(), ys.rows());
  for (Eigen::Index i = 0; i < xs.rows(); ++i)
    for (Eigen::Index j = 0; j < ys.rows(); ++j) m(i, j) = rbf(xs, i, ys, j, s);
  return m;
}

TEST(KgmKernels, ValuesAndPositiveSemidefiniteGram) {
  const Eigen::MatrixXd points = random_points(30, 2, 3);
  const GaussianRbfKernel plain(0.7, false), density(0.7, true);
  for (Eigen::Index i = 0; i < 3; ++i) {
    const Eigen::VectorXd x = points.row(i), y = points.row(i + 1);
    EXPECT_NEAR(plain.evaluate(x, y), rbf(points, i, points, i + 1, 0.7), 1e-15);
    // N(x - y; 0, 0.49 I) in 2 dimensions: exp(...) / (2 pi 0.49).
    EXPECT_NEAR(density.evaluate(x, y), rbf(points, i, points, i + 1, 0.7) / (2 * kPi * 0.49), 1e-15);
  }
  EXPECT_EQ(DeltaKernel{}.evaluate(Eigen::Vector2d(1, 2), Eigen::Vector2d(1, 2)), 1.0);
  EXPECT_EQ(DeltaKernel{}.evaluate(Eigen::Vector2d(1, 2), Eigen::Vector2d(1, 3)), 0.0);
  EXPECT_THROW(GaussianRbfKernel(0, false), std::invalid_argument);
  Eigen::MatrixXd discrete = (random_points(30, 1, 4).array() * 2).round().matrix();
  for (const BaseKernel& kernel : {BaseKernel(plain), BaseKernel(density), BaseKernel(DeltaKernel{})}) {
    const Eigen::MatrixXd& xs = std::holds_alternative<DeltaKernel>(kernel) ? discrete : points;
    const Eigen::MatrixXd gram = cross_gram(kernel, xs, xs);
    EXPECT_LT((gram - gram.transpose()).cwiseAbs().maxCoeff(), 1e-15);
    const Eigen::VectorXd eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram).eigenvalues();
    EXPECT_GE(eigenvalues.minCoeff(), -1e-9 * eigenvalues.maxCoeff());
  }
}

TEST(KgmOperators, AgainstExplicitSumsAndDenseInverse) {
  const long n = 6;
  const double s = 0.8, lambda = 0.05;
  const Eigen::MatrixXd xs = random_points(n, 2, 7), ys = random_points(n, 1, 8), zs = random_points(n, 1, 9);
  const KernelGraphicalModel model({{"X", xs, GaussianRbfKernel(s, false)},
                                    {"Y", ys, GaussianRbfKernel(s, false)},
                                    {"Z", zs, GaussianRbfKernel(s, false)}},
                                   lambda);
  const Eigen::MatrixXd x_queries = random_points(3, 2, 10), y_queries = random_points(4, 1, 11),
                        z_queries = random_points(2, 1, 12);
  // Mean map: (1/N) sum_i k(x_i, x).
  const Eigen::VectorXd mean = model.mean_map("X", x_queries);
  for (Eigen::Index q = 0; q < x_queries.rows(); ++q) {
    double sum = 0;
    for (Eigen::Index i = 0; i < n; ++i) sum += rbf(xs, i, x_queries, q, s);
    EXPECT_NEAR(mean(q), sum / n, 1e-15);
  }
  // Cross-covariance: (1/N) sum_i k(y_i, y) k(x_i, x).
  const Eigen::MatrixXd cross = model.cross_covariance("Y", "X", y_queries, x_queries);
  for (Eigen::Index p = 0; p < y_queries.rows(); ++p)
    for (Eigen::Index q = 0; q < x_queries.rows(); ++q) {
      double sum = 0;
      for (Eigen::Index i = 0; i < n; ++i) sum += rbf(ys, i, y_queries, p, s) * rbf(xs, i, x_queries, q, s);
      EXPECT_NEAR(cross(p, q), sum / n, 1e-15);
    }
  // Conditional embedding: k_Y(y)' (K_X + lambda N I)^-1 k_X(x) with a dense inverse.
  const Eigen::MatrixXd inverse_x = (rbf_matrix(xs, xs, s) + lambda * n * Eigen::MatrixXd::Identity(n, n)).inverse();
  const Eigen::MatrixXd expected = rbf_matrix(ys, y_queries, s).transpose() * inverse_x * rbf_matrix(xs, x_queries, s);
  EXPECT_LT((model.conditional_embedding("Y", "X", y_queries, x_queries) - expected).cwiseAbs().maxCoeff(), 1e-12);
  // The chain X -> Y -> Z, section 4.3 written out with dense inverses.
  const Eigen::MatrixXd k_x = rbf_matrix(xs, xs, s), k_y = rbf_matrix(ys, ys, s);
  const Eigen::MatrixXd inverse_y = (k_y + lambda * n * Eigen::MatrixXd::Identity(n, n)).inverse();
  const Eigen::MatrixXd chain =
      rbf_matrix(xs, x_queries, s).transpose() * k_x * inverse_x * k_y * inverse_y * rbf_matrix(zs, z_queries, s) / n;
  EXPECT_LT((model.path_estimates(chain_path({"X", "Y", "Z"}), x_queries, z_queries) - chain).cwiseAbs().maxCoeff(),
            1e-12);
  // The tree X <- Y -> Z: C_{X|Y} C_YY C_{Z|Y}' = (1/N) Phi_X S_Y K_Y K_Y S_Y Phi_Z'.
  const Eigen::MatrixXd tree =
      rbf_matrix(xs, x_queries, s).transpose() * inverse_y * k_y * k_y * inverse_y * rbf_matrix(zs, z_queries, s) / n;
  EXPECT_LT((model.path_estimates(tree_path({{"Y", "X"}, {"Y", "Z"}}, "X", "Z"), x_queries, z_queries) - tree)
                .cwiseAbs()
                .maxCoeff(),
            1e-12);
}

TEST(KgmPaths, TreePathFactorPowersAndErrors) {
  const std::vector<Edge> edges{{"R", "A"}, {"R", "X"}, {"X", "C"}, {"X", "D"}};
  const auto powers = [](const std::vector<PathNode>& path) {
    std::string out;
    for (const PathNode& node : path) out += node.variable + std::to_string(node.factor_power) + " ";
    return out;
  };
  EXPECT_EQ(powers(tree_path(edges, "A", "C")), "A0 R2 X1 C0 ");
  EXPECT_EQ(powers(tree_path(edges, "C", "A")), "C0 X1 R2 A0 ");
  EXPECT_EQ(powers(tree_path(edges, "R", "C")), "R1 X1 C0 ");
  EXPECT_EQ(powers(tree_path(edges, "C", "R")), "C0 X1 R1 ");
  EXPECT_EQ(powers(tree_path(edges, "C", "D")), "C0 X2 D0 ");
  EXPECT_THROW(tree_path({{"A", "B"}, {"C", "B"}}, "A", "C"), std::invalid_argument);  // two parents
  EXPECT_THROW(tree_path({{"A", "B"}, {"B", "A"}}, "A", "B"), std::invalid_argument);  // cycle
  EXPECT_THROW(tree_path({{"A", "B"}, {"C", "D"}}, "A", "D"), std::invalid_argument);  // not connected
  EXPECT_THROW(tree_path(edges, "A", "Q"), std::invalid_argument);
  EXPECT_THROW(KernelGraphicalModel({{"A", Eigen::MatrixXd::Zero(3, 1), DeltaKernel{}}}, 0), std::invalid_argument);
  EXPECT_THROW(
      KernelGraphicalModel(
          {{"A", Eigen::MatrixXd::Zero(3, 1), DeltaKernel{}}, {"B", Eigen::MatrixXd::Zero(4, 1), DeltaKernel{}}}, 1e-3),
      std::invalid_argument);
}

// ------------------------------------------------------------------------------------------------
// A linear-Gaussian chain A -> B -> C of scalars: A ~ N(0, 1), B = 0.8 A + 0.6 e, C = 0.7 B + 0.5 e'.
// With density-normalised RBF kernels of width s, phi(a)' C_AC phi(c) = E[k(A, a) k(C, c)] is the
// density at (a, c) of (A + s e1, C + s e2): N(0, [[1 + s^2, 0.56], [0.56, 0.74 + s^2]]).
TEST(KgmGaussian, ChainApproachesSmoothedJointDensityRatios) {
  const double s = 0.3;
  const Eigen::Matrix2d covariance{{1 + s * s, 0.56}, {0.56, 0.74 + s * s}};
  const Eigen::Matrix2d precision = covariance.inverse();
  const auto density_ratio = [&](double a, double c) {  // f(a, c) / f(0, 0)
    const Eigen::Vector2d x(a, c);
    return std::exp(-0.5 * x.dot(precision * x));
  };
  Eigen::MatrixXd queries(3, 1);
  queries << -1, 0, 1;
  std::vector<double> errors;
  for (long n : {200L, 800L, 1600L}) {
    std::mt19937_64 rng(31);
    std::normal_distribution<double> normal;
    Eigen::MatrixXd a(n, 1), b(n, 1), c(n, 1);
    for (Eigen::Index i = 0; i < n; ++i) {
      a(i, 0) = normal(rng);
      b(i, 0) = 0.8 * a(i, 0) + 0.6 * normal(rng);
      c(i, 0) = 0.7 * b(i, 0) + 0.5 * normal(rng);
    }
    // lambda -> 0 as N grows, slowly (lambda N -> infinity), so that K_B S_B -> the identity on the
    // functions that the samples resolve while the regularised inverse stays stable.
    const double lambda = 0.1 / std::sqrt(static_cast<double>(n));
    const KernelGraphicalModel model({{"A", a, GaussianRbfKernel(s, true)},
                                      {"B", b, GaussianRbfKernel(s, true)},
                                      {"C", c, GaussianRbfKernel(s, true)}},
                                     lambda);
    const Eigen::MatrixXd estimates = model.path_estimates(chain_path({"A", "B", "C"}), queries, queries);
    double error = 0;
    for (Eigen::Index i = 0; i < 3; ++i)
      for (Eigen::Index j = 0; j < 3; ++j)
        error = std::max(error, std::abs(estimates(i, j) / estimates(1, 1) - density_ratio(queries(i), queries(j))));
    errors.push_back(error);
  }
  // The estimates are kernel-density-like: at (0, 0) about N f(0, 0) 4 pi s^2 ~ 0.23 N samples
  // (f(0, 0) ~ 0.2) fall in the kernels' window, so at N = 1600 a ratio has a sampling standard
  // deviation of about 1/sqrt(370) ~ 0.05; 0.1 is two of them. Going from 200 to 1600 samples must
  // at least halve the error (the sampling part alone shrinks by sqrt(8) ~ 2.8).
  EXPECT_LT(errors[2], 0.1) << errors[0] << " " << errors[1] << " " << errors[2];
  EXPECT_LT(errors[1], errors[0]);
  EXPECT_LT(errors[2], errors[0] / 2);
}

}  // namespace
}  // namespace ppk::kgm
