// Kernel graphical models from Gram matrices (Xing 2014 lecture, sections 3-4.3; kgm.hpp).
//
// Path estimates. Write S_X = (K_X + lambda N I)^-1 and, for an edge X -> Y, the estimated
// conditional embedding C_{Y|X} = Phi_Y S_X Phi_X' (section 4.1).
// Chain A -> B -> C (section 4.3): C_AC = C_AA C_{B|A}' C_{C|B}'
//   = (1/N) Phi_A Phi_A' . Phi_A S_A Phi_B' . Phi_B S_B Phi_C' = (1/N) Phi_A K_A S_A K_B S_B Phi_C',
// so phi(a)' C_AC phi(c) = (1/N) k_A(a)' K_A S_A K_B S_B k_C(c).
// Tree A <- B -> C (P(a, c) = sum_b P(b) P(a|b) P(c|b)): C_AC = C_{A|B} C_BB C_{C|B}'
//   = Phi_A S_B Phi_B' . (1/N) Phi_B Phi_B' . Phi_B S_B Phi_C' = (1/N) Phi_A S_B K_B K_B S_B Phi_C',
// and since K_B and S_B commute, S_B K_B K_B S_B = (K_B S_B)^2.
// In general, on the tree path U = P_0, ..., P_L = V through the nearest common ancestor R, each
// edge contributes Phi_child S_parent Phi_parent' (or its transpose) and R contributes C_RR;
// neighbouring Phi' Phi become Gram matrices, so every node that is the parent of a path edge
// gets one factor K S per such edge (two at an inner R: one from C_RR, one from its second edge;
// one at R when R is an end point, from C_RR . S_R), and
//   phi(u)' C_UV phi(v) = (1/N) k_U(u)' prod_j (K_j S_j)^{m_j} k_V(v).
//
// Delta kernels, lambda -> 0. Let e_s be the indicator vector of the samples with X = s and n_s
// its count: K_X = sum_s e_s e_s', whose eigenvectors e_s / sqrt(n_s) have eigenvalues n_s, so
// K_X S_X = sum_s n_s / (n_s + lambda N) e_s e_s' / n_s -> P_X = sum_s e_s e_s' / n_s, the
// orthogonal projection onto span{e_s}. With k_A(a) = e_a, e_a' P_A = e_a and for the chain
//   (1/N) e_a' P_A P_B e_c = (1/N) sum_b n_ab n_bc / n_b = sum_b P^(a, b) P^(c | b),
// the counting estimate; P_B^2 = P_B gives the same for A <- B -> C, and longer paths give the
// products of the counted conditional tables.
#include "ppk/inference/kgm.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace ppk::kgm {

constexpr double kPi = 3.14159265358979323846;

double DeltaKernel::evaluate(const Eigen::VectorXd& x, const Eigen::VectorXd& y) const {
  return x.size() == y.size() && (x.array() == y.array()).all() ? 1.0 : 0.0;
}

GaussianRbfKernel::GaussianRbfKernel(double sigma, bool density_normalised)
    : sigma_(sigma), density_normalised_(density_normalised) {
  if (!(sigma > 0) || !std::isfinite(sigma))
    throw std::invalid_argument("RBF kernel: sigma must be a positive finite number");
}

double GaussianRbfKernel::evaluate(const Eigen::VectorXd& x, const Eigen::VectorXd& y) const {
  const double variance = sigma_ * sigma_;
  const double value = std::exp(-(x - y).squaredNorm() / (2 * variance));
  if (!density_normalised_) return value;
  return value * std::pow(2 * kPi * variance, -0.5 * static_cast<double>(x.size()));
}

double evaluate(const BaseKernel& kernel, const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  return std::visit([&](const auto& k) { return k.evaluate(x, y); }, kernel);
}

Eigen::MatrixXd cross_gram(const BaseKernel& kernel, const Eigen::MatrixXd& xs, const Eigen::MatrixXd& ys) {
  if (xs.cols() != ys.cols())
    throw std::invalid_argument("kernel matrix: points of dimension " + std::to_string(ys.cols()) +
                                " against samples of dimension " + std::to_string(xs.cols()));
  // Rows copied once into vectors, so evaluate() sees contiguous vectors without per-pair copies.
  const auto rows = [](const Eigen::MatrixXd& m) {
    std::vector<Eigen::VectorXd> out;
    out.reserve(static_cast<std::size_t>(m.rows()));
    for (Eigen::Index i = 0; i < m.rows(); ++i) out.emplace_back(m.row(i).transpose());
    return out;
  };
  const std::vector<Eigen::VectorXd> x_rows = rows(xs), y_rows = rows(ys);
  Eigen::MatrixXd gram(xs.rows(), ys.rows());
  for (Eigen::Index j = 0; j < ys.rows(); ++j)
    for (Eigen::Index i = 0; i < xs.rows(); ++i) gram(i, j) = evaluate(kernel, x_rows[i], y_rows[j]);
  return gram;
}

namespace {

// The chain of ancestors node, parent(node), ..., root.
std::vector<std::string> ancestors(const std::map<std::string, std::string>& parent_of, const std::string& node) {
  std::vector<std::string> chain{node};
  for (auto it = parent_of.find(node); it != parent_of.end(); it = parent_of.find(chain.back())) {
    if (chain.size() > parent_of.size()) throw std::invalid_argument("tree: the edges contain a cycle through " + node);
    chain.push_back(it->second);
  }
  return chain;
}

}  // namespace

std::vector<PathNode> tree_path(const std::vector<Edge>& edges, const std::string& from, const std::string& to) {
  std::map<std::string, std::string> parent_of;
  std::set<std::string> nodes;
  for (const Edge& edge : edges) {
    if (edge.parent == edge.child)
      throw std::invalid_argument("tree: edge " + edge.parent + "->" + edge.child + " is a loop");
    const auto [it, inserted] = parent_of.emplace(edge.child, edge.parent);
    if (!inserted)
      throw std::invalid_argument("tree: " + edge.child + " has two parents, " + it->second + " and " + edge.parent);
    nodes.insert(edge.parent);
    nodes.insert(edge.child);
  }
  for (const std::string& node : nodes) ancestors(parent_of, node);  // rejects cycles anywhere
  for (const std::string& end : {from, to})
    if (nodes.count(end) == 0) throw std::invalid_argument("tree: no node " + end);

  const std::vector<std::string> up = ancestors(parent_of, from), down = ancestors(parent_of, to);
  const std::set<std::string> down_set(down.begin(), down.end());
  std::size_t top = 0;  // the nearest common ancestor is up[top]
  while (top < up.size() && down_set.count(up[top]) == 0) ++top;
  if (top == up.size()) throw std::invalid_argument("tree: no path between " + from + " and " + to);

  std::vector<std::string> names(up.begin(), up.begin() + static_cast<long>(top) + 1);
  for (auto it = std::find(down.rbegin(), down.rend(), up[top]) + 1; it != down.rend(); ++it) names.push_back(*it);
  std::vector<PathNode> path;
  for (const std::string& name : names) path.push_back({name, 0});
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    const auto parent = parent_of.find(path[i].variable);
    ++path[parent != parent_of.end() && parent->second == path[i + 1].variable ? i + 1 : i].factor_power;
  }
  return path;
}

std::vector<PathNode> chain_path(const std::vector<std::string>& names) {
  if (names.size() < 2) throw std::invalid_argument("chain: needs at least two variables");
  std::vector<Edge> edges;
  for (std::size_t i = 0; i + 1 < names.size(); ++i) edges.push_back({names[i], names[i + 1]});
  return tree_path(edges, names.front(), names.back());
}

KernelGraphicalModel::KernelGraphicalModel(std::vector<Variable> variables, double lambda)
    : variables_(std::move(variables)), lambda_(lambda), sample_count_(0) {
  if (!(lambda > 0) || !std::isfinite(lambda)) throw std::invalid_argument("lambda must be a positive finite number");
  if (variables_.empty()) throw std::invalid_argument("no variables");
  sample_count_ = static_cast<long>(variables_.front().samples.rows());
  if (sample_count_ == 0) throw std::invalid_argument("no samples");
  std::set<std::string> names;
  for (const Variable& v : variables_) {
    if (v.samples.rows() != sample_count_)
      throw std::invalid_argument("variable " + v.name + " has " + std::to_string(v.samples.rows()) +
                                  " samples, expected " + std::to_string(sample_count_));
    if (!names.insert(v.name).second) throw std::invalid_argument("variable " + v.name + " is defined twice");
  }
}

const Variable& KernelGraphicalModel::variable(const std::string& name) const {
  for (const Variable& v : variables_)
    if (v.name == name) return v;
  throw std::invalid_argument("unknown variable " + name);
}

Eigen::MatrixXd KernelGraphicalModel::kernel_columns(const Variable& x, const Eigen::MatrixXd& points) const {
  return cross_gram(x.kernel, x.samples, points);
}

Eigen::LDLT<Eigen::MatrixXd> KernelGraphicalModel::regularised_gram(const Eigen::MatrixXd& gram) const {
  Eigen::MatrixXd regularised = gram;
  regularised.diagonal().array() += lambda_ * static_cast<double>(sample_count_);
  return Eigen::LDLT<Eigen::MatrixXd>(regularised);
}

Eigen::VectorXd KernelGraphicalModel::mean_map(const std::string& x, const Eigen::MatrixXd& points) const {
  return kernel_columns(variable(x), points).colwise().mean().transpose();
}

Eigen::MatrixXd KernelGraphicalModel::cross_covariance(const std::string& y, const std::string& x,
                                                       const Eigen::MatrixXd& y_points,
                                                       const Eigen::MatrixXd& x_points) const {
  return kernel_columns(variable(y), y_points).transpose() * kernel_columns(variable(x), x_points) /
         static_cast<double>(sample_count_);
}

Eigen::MatrixXd KernelGraphicalModel::conditional_embedding(const std::string& y, const std::string& x,
                                                            const Eigen::MatrixXd& y_points,
                                                            const Eigen::MatrixXd& x_points) const {
  const Variable& given = variable(x);
  const Eigen::MatrixXd weights =
      regularised_gram(kernel_columns(given, given.samples)).solve(kernel_columns(given, x_points));
  return kernel_columns(variable(y), y_points).transpose() * weights;
}

Eigen::MatrixXd KernelGraphicalModel::apply_path(const std::vector<PathNode>& path,
                                                 const Eigen::MatrixXd& v_points) const {
  if (path.empty()) throw std::invalid_argument("empty path");
  // Right to left: W = k_V(v), then W <- K_j S_j W (m_j times) for j = L, ..., 0, computed as
  // K S W = W - lambda N S W (K S = (K + lambda N I - lambda N I) S): the rounding error of the
  // solve, amplified by the condition number ~ |K| / (lambda N), is multiplied back by lambda N,
  // whereas K (S W) would keep it (it matters for lambda -> 0).
  const double shift = lambda_ * static_cast<double>(sample_count_);
  Eigen::MatrixXd w = kernel_columns(variable(path.back().variable), v_points);
  for (auto node = path.rbegin(); node != path.rend(); ++node) {
    if (node->factor_power == 0) continue;
    const Variable& v = variable(node->variable);
    const Eigen::LDLT<Eigen::MatrixXd> factored = regularised_gram(kernel_columns(v, v.samples));
    for (int power = 0; power < node->factor_power; ++power) w -= shift * factored.solve(w);
  }
  return w;
}

Eigen::MatrixXd KernelGraphicalModel::path_estimates(const std::vector<PathNode>& path, const Eigen::MatrixXd& u_points,
                                                     const Eigen::MatrixXd& v_points) const {
  const Eigen::MatrixXd w = apply_path(path, v_points);
  return kernel_columns(variable(path.front().variable), u_points).transpose() * w / static_cast<double>(sample_count_);
}

Eigen::VectorXd KernelGraphicalModel::paired_path_estimates(const std::vector<PathNode>& path,
                                                            const Eigen::MatrixXd& u_points,
                                                            const Eigen::MatrixXd& v_points) const {
  if (u_points.rows() != v_points.rows())
    throw std::invalid_argument("paired path estimates: " + std::to_string(u_points.rows()) + " points u but " +
                                std::to_string(v_points.rows()) + " points v");
  const Eigen::MatrixXd w = apply_path(path, v_points);
  return (kernel_columns(variable(path.front().variable), u_points).array() * w.array()).colwise().sum().transpose() /
         static_cast<double>(sample_count_);
}

}  // namespace ppk::kgm
