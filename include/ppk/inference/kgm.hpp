// Kernel graphical models: inference on a directed tree of variables whose conditional
// probability tables are replaced by conditional embedding operators in an RKHS, estimated
// from N joint samples through Gram matrices only (Xing 2014 lecture notes, sections 3-4.3,
// after Song, Gretton & Guestrin 2010, "Nonparametric tree graphical models").
//
// Notation (lecture section 4.1): for a variable X with samples x_1..x_N and base kernel k,
// Phi_X = [phi(x_1) ... phi(x_N)], K_X = Phi_X' Phi_X (the N x N Gram matrix) and
// k_X(x) = Phi_X' phi(x) = (k(x_1, x), ..., k(x_N, x))' (the column K_XX(1:N, x) of section 4.3).
//   mean map            mu_X = (1/N) Phi_X 1,                 <mu_X, phi(x)> = (1/N) 1' k_X(x)
//   cross-covariance    C_YX = (1/N) Phi_Y Phi_X',            <phi(y), C_YX phi(x)> = (1/N) k_Y(y)' k_X(x)
//   conditional embedding C_{Y|X} = Phi_Y (K_X + lambda N I)^-1 Phi_X',
//                       <phi(y), C_{Y|X} phi(x)> = k_Y(y)' (K_X + lambda N I)^-1 k_X(x)
// with regularisation lambda > 0. Independent of Boost and LIBSVM; depends on Eigen only.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <Eigen/Dense>

namespace ppk::kgm {

// The delta kernel k(x, y) = [x = y] for discrete variables (values compared exactly): its
// feature map is the indicator vector of the value, so mean maps are probability vectors and
// the estimates of this file tend to counting estimates as lambda -> 0 (derivation in kgm.cpp).
class DeltaKernel {
 public:
  double evaluate(const Eigen::VectorXd& x, const Eigen::VectorXd& y) const;
};

// The Gaussian RBF kernel on R^d, k(x, y) = exp(-|x - y|^2 / (2 sigma^2)), or, when
// density_normalised, the Gaussian density N(x - y; 0, sigma^2 I) = that times
// (2 pi sigma^2)^(-d/2). The normalised form makes <mu_X, phi(x)> = E k(X, x) the density of
// X + sigma eps (eps ~ N(0, I)) at x, a kernel density estimate with bandwidth sigma (lecture
// section 3.2), so estimates are comparable across sigma and d; the plain form has k(x, x) = 1.
// Scaling k by c is the same as dividing lambda by c in (K + lambda N I)^-1 K, and scales an
// end point's estimate by c.
class GaussianRbfKernel {
 public:
  GaussianRbfKernel(double sigma, bool density_normalised);  // throws std::invalid_argument unless sigma > 0
  double evaluate(const Eigen::VectorXd& x, const Eigen::VectorXd& y) const;
  double sigma() const { return sigma_; }
  bool density_normalised() const { return density_normalised_; }

 private:
  double sigma_;
  bool density_normalised_;
};

using BaseKernel = std::variant<DeltaKernel, GaussianRbfKernel>;

double evaluate(const BaseKernel& kernel, const Eigen::VectorXd& x, const Eigen::VectorXd& y);

// The matrix G(i, j) = k(row i of xs, row j of ys): with xs = the samples and ys = query points,
// its columns are the vectors k_X(y_j); with ys = xs it is the Gram matrix K_X.
Eigen::MatrixXd cross_gram(const BaseKernel& kernel, const Eigen::MatrixXd& xs, const Eigen::MatrixXd& ys);

// One variable of the model: a name, its N samples (one row each, d columns) and its kernel.
struct Variable {
  std::string name;
  Eigen::MatrixXd samples;
  BaseKernel kernel;
};

// A directed edge parent -> child of the tree.
struct Edge {
  std::string parent;
  std::string child;
};

// One node of a query path and the power m of its factor K (K + lambda N I)^-1 in the path
// estimate (see KernelGraphicalModel::path_estimates).
struct PathNode {
  std::string variable;
  int factor_power = 0;
};

// The path from `from` to `to` in the directed tree `edges` (every node has at most one parent,
// no cycles; throws std::invalid_argument otherwise or if there is no such path). The path goes
// up from `from` to the nearest common ancestor r and down to `to`; factor_power counts the path
// edges that leave the node as a parent: 2 at r when r is strictly inside the path, 1 at every
// other node it leaves from (so 1 at r when r is an end point), 0 at the other nodes.
std::vector<PathNode> tree_path(const std::vector<Edge>& edges, const std::string& from, const std::string& to);

// The directed chain names[0] -> names[1] -> ... -> names.back() (at least two, distinct) as a
// query path (section 4.3).
std::vector<PathNode> chain_path(const std::vector<std::string>& names);

// The model: N joint samples of named variables and lambda. Every query function answers a batch
// of query points at once: it factors each (K + lambda N I) it needs once (LDLT; symmetric
// positive definite for lambda > 0 since K is PSD) and then needs solves and products only.
// Query points have the variable's dimension (std::invalid_argument otherwise).
class KernelGraphicalModel {
 public:
  // Throws std::invalid_argument unless lambda > 0, there is at least one sample, every variable
  // has the same number N of samples and names are distinct.
  KernelGraphicalModel(std::vector<Variable> variables, double lambda);

  long sample_count() const { return sample_count_; }
  double lambda() const { return lambda_; }
  const Variable& variable(const std::string& name) const;  // throws std::invalid_argument if unknown

  // <mu_X, phi(x)> = (1/N) sum_i k(x_i, x) for every row x of `points` (section 4.1).
  Eigen::VectorXd mean_map(const std::string& x, const Eigen::MatrixXd& points) const;

  // E(i, j) = <phi(y_i), C_YX phi(x_j)> = (1/N) k_Y(y_i)' k_X(x_j) (section 4.1).
  Eigen::MatrixXd cross_covariance(const std::string& y, const std::string& x, const Eigen::MatrixXd& y_points,
                                   const Eigen::MatrixXd& x_points) const;

  // E(i, j) = <phi(y_i), C_{Y|X} phi(x_j)> = k_Y(y_i)' (K_X + lambda N I)^-1 k_X(x_j) (section 4.1).
  Eigen::MatrixXd conditional_embedding(const std::string& y, const std::string& x, const Eigen::MatrixXd& y_points,
                                        const Eigen::MatrixXd& x_points) const;

  // The estimates E(i, j) = phi(u_i)' C_{UV} phi(v_j) for the path V_0 = U, ..., V_k = V:
  //   E = (1/N) k_U(u)' prod_{j=0..k} (K_j (K_j + lambda N I)^-1)^{m_j} k_V(v)
  // (m_j = path[j].factor_power; section 4.3 for a chain, derived for trees in kgm.cpp), for
  // every row u_i of u_points and v_j of v_points.
  Eigen::MatrixXd path_estimates(const std::vector<PathNode>& path, const Eigen::MatrixXd& u_points,
                                 const Eigen::MatrixXd& v_points) const;
  // The same for the pairs (u_q, v_q) only: e(q) = E(q, q) without the other entries.
  Eigen::VectorXd paired_path_estimates(const std::vector<PathNode>& path, const Eigen::MatrixXd& u_points,
                                        const Eigen::MatrixXd& v_points) const;

 private:
  // k_X(x) for every row x of `points`: an N x (rows of points) matrix.
  Eigen::MatrixXd kernel_columns(const Variable& x, const Eigen::MatrixXd& points) const;
  // prod_j (K_j (K_j + lambda N I)^-1)^{m_j} k_V(v) for every row v of v_points (N x rows).
  Eigen::MatrixXd apply_path(const std::vector<PathNode>& path, const Eigen::MatrixXd& v_points) const;
  // (K_X + lambda N I), factored.
  Eigen::LDLT<Eigen::MatrixXd> regularised_gram(const Eigen::MatrixXd& gram) const;

  std::vector<Variable> variables_;
  double lambda_;
  long sample_count_;
};

}  // namespace ppk::kgm
