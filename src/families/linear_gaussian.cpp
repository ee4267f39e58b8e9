// Linear Gaussian DAGs and their kernel (see linear_gaussian.hpp).
//
// The joint of all nodes, in node order (a topological order: parents precede their children). With
// the parents u_1..u_P of node v and W_v = [B_{v,u_1} .. B_{v,u_P}],
//     m_v = b_v + sum_k B_{v,u_k} m_{u_k},
//     cov(x_v, x_w) = sum_k B_{v,u_k} cov(x_{u_k}, x_w)                      for every w < v,
//     cov(x_v, x_v) = sum_k cov(x_v, x_{u_k}) B_{v,u_k}' + S_v,
// since e_v is independent of every earlier node. Each node costs O(d_v D_v d_pa), D_v the coordinates
// before it and d_pa its parents' total; the whole joint O(D^2 max d_pa) at most. The observed nodes'
// block N(m, S) is the marginal (integrating a Gaussian over some coordinates drops them), kept as a
// full-covariance GaussianModel, and the kernel is that family's eq. 5 (gaussian.cpp), which needs no
// allocation per pair.
#include "ppk/families/linear_gaussian.hpp"

#include <cmath>
#include <string>
#include <utility>

#include <Eigen/Cholesky>
#include "ppk/core/matrix_fields.hpp"
#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"

namespace ppk {

namespace {

const char* const kFamily = "linear_gaussian";
constexpr long kMaxNodeDim = 1000;      // d_v: d_v^2 values must fit in a row
constexpr long kMaxCoordinates = 5000;  // sum of d_v: the joint covariance is dense (as a full Gaussian's)

// How errors address node i: `linear_gaussian nodes[i] field "cov"[0][1]` (JSON) or `... (index 12)` (rows).
std::string node_family(long i) { return detail::record_family(kFamily, "nodes", i); }

// Node i's dimension (counting `before` coordinates in the nodes before it) and parents: each a node
// before it, listed once. (Run twice per node read: its family's name is made only for an error.)
void check_header(const std::vector<LinearGaussianNode>& nodes, long i, long before) {
  const LinearGaussianNode& node = nodes[static_cast<std::size_t>(i)];
  if (node.dim < 1 || node.dim > kMaxNodeDim)
    throw detail::field_error(node_family(i), "dim", detail::whole_numbers(1, kMaxNodeDim), std::to_string(node.dim));
  if (before + node.dim > kMaxCoordinates)
    throw detail::field_error(node_family(i), "dim",
                              "at most " + std::to_string(kMaxCoordinates) + " coordinates in all nodes (nodes 0.." +
                                  std::to_string(i - 1) + " have " + std::to_string(before) + ")",
                              std::to_string(node.dim));
  for (std::size_t p = 0; p < node.parents.size(); ++p) {
    const long u = node.parents[p];
    const std::string path = "[" + std::to_string(p) + "]";
    if (u < 0 || u >= i)
      throw detail::FieldError(node_family(i), "parents", static_cast<long>(p), path,
                               (i == 0 ? std::string("no parents (node 0 is listed first")
                                       : "a node listed before this one (in [0, " + std::to_string(i - 1) + "]") +
                                   ": parents precede their children, so no cycle can form)",
                               std::to_string(u));
    for (std::size_t q = 0; q < p; ++q)
      if (node.parents[q] == u)
        throw detail::FieldError(node_family(i), "parents", static_cast<long>(p), path, "distinct parents",
                                 "node " + std::to_string(u) + " again (also parents[" + std::to_string(q) + "])");
  }
}

// Node i's offset, cov and weights (its header checked); cov symmetrised, weights d x 0 without parents.
void check_body(std::vector<LinearGaussianNode>& nodes, long i) {
  LinearGaussianNode& node = nodes[static_cast<std::size_t>(i)];
  const std::string family = node_family(i);
  if (node.offset.size() != node.dim)
    throw detail::field_error(family, "offset", std::to_string(node.dim) + " values (d = \"dim\")",
                              std::to_string(node.offset.size()) + " values");
  for (Eigen::Index k = 0; k < node.offset.size(); ++k)
    if (!std::isfinite(node.offset[k]))
      throw detail::element_error(family, "offset", k, "a finite number", node.offset[k]);
  detail::check_shape({family.c_str(), "cov", 0, ""}, node.cov, node.dim, node.dim, "d x d, d = \"dim\"");
  node.cov = detail::checked_semidefinite({family.c_str(), "cov", 0, ""}, node.cov);
  long parent_dims = 0;
  std::string columns;
  for (long u : node.parents) {
    const long d = nodes[static_cast<std::size_t>(u)].dim;
    parent_dims += d;
    columns += (columns.empty() ? "" : ", ") + std::to_string(d) + " for node " + std::to_string(u);
  }
  if (node.parents.empty() && node.weights.size() == 0) node.weights.resize(node.dim, 0);
  detail::check_shape({family.c_str(), "weights", 0, ""}, node.weights, node.dim, parent_dims,
                      node.parents.empty()
                          ? "no parents: no weights"
                          : "d = \"dim\" rows; columns: " + columns + ", the parents' blocks side by side");
  detail::check_finite({family.c_str(), "weights", 0, ""}, node.weights);
}

// Where each node's coordinates start in the joint.
std::vector<long> node_offsets(const std::vector<LinearGaussianNode>& nodes) {
  std::vector<long> first(nodes.size() + 1, 0);
  for (std::size_t v = 0; v < nodes.size(); ++v) first[v + 1] = first[v] + nodes[v].dim;
  return first;
}

// The joint mean and covariance of all nodes, by the recursion of the file comment.
std::pair<Eigen::VectorXd, Eigen::MatrixXd> joint_of_all_nodes(const std::vector<LinearGaussianNode>& nodes) {
  const std::vector<long> first = node_offsets(nodes);
  const Eigen::Index total = first.back();
  Eigen::VectorXd mean(total);
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(total, total);
  for (std::size_t v = 0; v < nodes.size(); ++v) {
    const LinearGaussianNode& node = nodes[v];
    const Eigen::Index at = first[v], d = node.dim;
    mean.segment(at, d) = node.offset;
    Eigen::MatrixXd cross = Eigen::MatrixXd::Zero(d, at);  // cov(x_v, x_w) for the coordinates w before v
    Eigen::Index column = 0;                               // B_{v,u} is W_v's block from this column
    for (long u : node.parents) {
      const Eigen::Index parent_at = first[static_cast<std::size_t>(u)],
                         parent_dim = nodes[static_cast<std::size_t>(u)].dim;
      const auto block = node.weights.middleCols(column, parent_dim);
      mean.segment(at, d).noalias() += block * mean.segment(parent_at, parent_dim);
      cross.noalias() += block * cov.block(parent_at, 0, parent_dim, at);
      column += parent_dim;
    }
    Eigen::MatrixXd own = node.cov;  // cov(x_v, x_v)
    column = 0;
    for (long u : node.parents) {
      const Eigen::Index parent_at = first[static_cast<std::size_t>(u)],
                         parent_dim = nodes[static_cast<std::size_t>(u)].dim;
      own.noalias() += cross.middleCols(parent_at, parent_dim) * node.weights.middleCols(column, parent_dim).transpose();
      column += parent_dim;
    }
    cov.block(at, 0, d, at) = cross;
    cov.block(0, at, at, d) = cross.transpose();
    cov.block(at, at, d, d) = 0.5 * (own + own.transpose());  // symmetric up to rounding
  }
  return {std::move(mean), std::move(cov)};
}

// N(m, S) of the observed nodes. Throws a FieldError on node_family(v)'s "cov" of the first observed node whose
// coordinates make S singular (depend linearly on those before them), a FieldError when none is observed.
std::unique_ptr<GaussianModel> observed_marginal_of(const std::vector<LinearGaussianNode>& nodes) {
  const auto [mean, cov] = joint_of_all_nodes(nodes);
  const std::vector<long> first = node_offsets(nodes);
  std::vector<Eigen::Index> coordinates;
  std::vector<long> observed_nodes;
  for (std::size_t v = 0; v < nodes.size(); ++v)
    if (nodes[v].observed) {
      observed_nodes.push_back(static_cast<long>(v));
      for (long k = first[v]; k < first[v + 1]; ++k) coordinates.push_back(k);
    }
  if (coordinates.empty()) throw detail::field_error(kFamily, "nodes", "at least one observed node", "none");
  const Eigen::Index dim = static_cast<Eigen::Index>(coordinates.size());
  Eigen::VectorXd observed_mean(dim);
  Eigen::MatrixXd observed_cov(dim, dim);
  for (Eigen::Index i = 0; i < dim; ++i) {
    observed_mean[i] = mean[coordinates[static_cast<std::size_t>(i)]];
    for (Eigen::Index j = 0; j < dim; ++j)
      observed_cov(i, j) = cov(coordinates[static_cast<std::size_t>(i)], coordinates[static_cast<std::size_t>(j)]);
  }
  // Positive definite, and no coordinate's variance given those before it (the squared pivot of the
  // Cholesky factorisation) below 1e-10 of its variance: a coordinate that depends linearly on the ones
  // before it leaves a rounding error there, not 0.
  const auto definite = [&](Eigen::Index size) {
    const Eigen::LLT<Eigen::MatrixXd> llt(observed_cov.topLeftCorner(size, size));
    return llt.info() == Eigen::Success &&
           (llt.matrixLLT().diagonal().array().square() > 1e-10 * observed_cov.diagonal().head(size).array()).all();
  };
  if (!definite(dim)) {
    // The leading blocks of S over the observed nodes 0..k: the first singular one names node k.
    Eigen::Index size = 0;
    for (long v : observed_nodes) {
      size += nodes[static_cast<std::size_t>(v)].dim;
      if (!definite(size))
        throw detail::field_error(node_family(v), "cov",
                                  "an observed node whose coordinates have a positive definite covariance given the "
                                  "observed nodes before it (the observed marginal must have a density)",
                                  "a singular marginal covariance of the observed nodes up to node " + std::to_string(v));
    }
  }
  return GaussianModel::full(std::move(observed_mean), std::move(observed_cov));
}

// The coordinates of nodes 0..i-1 (each node's dim checked when it was read).
long coordinates_before(const std::vector<LinearGaussianNode>& nodes, long i) {
  long before = 0;
  for (long v = 0; v < i; ++v) before += nodes[static_cast<std::size_t>(v)].dim;
  return before;
}

}  // namespace

// Node i's header (dim, observed, parents) is checked before its body is read: the weights' columns
// are the parents' dims.
template <class Archive>
void LinearGaussianNode::fields(Archive& archive, const std::vector<LinearGaussianNode>& nodes, long i) {
  archive.whole_number("dim", dim, 1, kMaxNodeDim);
  archive.boolean("observed", observed);
  archive.whole_numbers("parents", parents, i, 0, static_cast<long>(nodes.size()) - 1);
  archive.validate([&] { check_header(nodes, i, coordinates_before(nodes, i)); });
  long parent_dims = 0;
  for (long u : parents) parent_dims += nodes[static_cast<std::size_t>(u)].dim;
  const detail::Dimension rows{dim, 1, kMaxNodeDim, "dim"}, columns{parent_dims, 0, kMaxCoordinates, "parents"};
  archive.reals("offset", offset, rows);
  archive.symmetric_matrix("cov", cov, rows);
  if (archive.optional("weights", !parents.empty())) archive.matrix("weights", weights, rows, columns);
}

template <class Archive>
void LinearGaussianParameters::fields(Archive& archive) {
  const auto count = archive.dimension("nodes", static_cast<long>(nodes.size()), 1, kMaxCoordinates);
  archive.records("nodes", nodes, count, "node", nodes);
}

struct LinearGaussianModel::Impl {
  LinearGaussianParameters parameters;
  std::unique_ptr<GaussianModel> marginal;  // of the observed nodes; prepared with the kernel's rho
};

LinearGaussianModel::LinearGaussianModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  std::vector<LinearGaussianNode>& nodes = parameters.nodes;
  const long count = static_cast<long>(nodes.size());
  if (count < 1 || count > kMaxCoordinates)
    throw detail::field_error(kFamily, "nodes", "between 1 and " + std::to_string(kMaxCoordinates) + " nodes",
                              std::to_string(count) + " nodes");
  long before = 0;
  for (long i = 0; i < count; ++i) {
    check_header(nodes, i, before);
    check_body(nodes, i);
    before += nodes[static_cast<std::size_t>(i)].dim;
  }
  impl_->marginal = observed_marginal_of(nodes);
  impl_->parameters = std::move(parameters);
}

LinearGaussianModel::~LinearGaussianModel() = default;

const LinearGaussianParameters& LinearGaussianModel::parameters() const { return impl_->parameters; }
std::size_t LinearGaussianModel::size() const { return impl_->parameters.nodes.size(); }
const LinearGaussianNode& LinearGaussianModel::node(std::size_t i) const { return impl_->parameters.nodes.at(i); }
const GaussianModel& LinearGaussianModel::observed_marginal() const { return *impl_->marginal; }

const FamilyInfo& LinearGaussianModel::family() const { return linear_gaussian_family(); }

SampleSpace LinearGaussianModel::sample_space() const { return impl_->marginal->sample_space(); }

void LinearGaussianModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  impl_->marginal->prepare(params);
}

double LinearGaussianModel::kernel_work() const { return impl_->marginal->kernel_work(); }

double LinearGaussianModel::log_kernel(const Model& other) const {
  if (const auto* dag = dynamic_cast<const LinearGaussianModel*>(&other))
    return impl_->marginal->log_kernel(*dag->impl_->marginal);
  if (dynamic_cast<const GaussianModel*>(&other) == nullptr) detail::throw_unprepared_pair(kFamily);
  return impl_->marginal->log_kernel(other);
}

long LinearGaussianModel::sample_size() const { return impl_->marginal->sample_size(); }

double LinearGaussianModel::log_tilted_normalizer(double rho) const {
  return impl_->marginal->log_tilted_normalizer(rho);
}

void LinearGaussianModel::sample_tilted(double rho, SampleGenerator& generator,
                                        Eigen::Ref<Eigen::MatrixXd> samples) const {
  impl_->marginal->sample_tilted(rho, generator, samples);
}

double LinearGaussianModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return impl_->marginal->log_probability(x);
}

double LinearGaussianModel::log_probability_work() const { return impl_->marginal->log_probability_work(); }

const FamilyInfo& linear_gaussian_family() {
  static const FamilyInfo info = [] {
    FamilyInfo family = make_family<LinearGaussianModel>(kFamily, 12);
    // A linear Gaussian DAG's distribution is the Gaussian of its observed nodes (linear_gaussian.hpp), and
    // LinearGaussianModel::log_kernel takes a Gaussian as its other model.
    family.kernels_with = {"gaussian"};
    return family;
  }();
  return info;
}

}  // namespace ppk
