// Explicit feature maps (see feature_map.hpp): the exact and sparse maps of mappable families, the
// Nystrom map of any family, and their file format.
#include "ppk/maps/feature_map.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <limits>
#include <numeric>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <Eigen/Eigenvalues>

#include "ppk/core/model_fields.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/exact_map.hpp"
#include "ppk/core/family.hpp"
#include "ppk/core/sampling.hpp"
#include "ppk/core/thread_pool.hpp"

namespace ppk {

namespace {

constexpr const char* kMapHeader = "ppk feature map 1";

const char* kind_name(KernelKind kind) { return kind == KernelKind::ppk ? "ppk" : "ppk_norm"; }

// Appends (d + 1, value) unless value is 0: the 1-based sparse entries of a feature vector.
void push_feature(Row& out, long d, double value) {
  if (value != 0.0) out.push_back({static_cast<int>(d + 1), value});
}

// Divides every feature by the vector's norm: the map of the normalised kernel
// k(p,p') / sqrt(k(p,p) k(p',p')) = <phi / |phi|, phi' / |phi'|>.
void normalize(Row& features) {
  double norm2 = 0.0;
  for (const RowEntry& entry : features) norm2 += entry.value * entry.value;
  const double norm = std::sqrt(norm2);
  for (RowEntry& entry : features) entry.value /= norm;
}

void check_finite(const Row& features, const MapDomain& domain) {
  for (const RowEntry& entry : features)
    if (!std::isfinite(entry.value))
      throw KernelDomainError("feature " + std::to_string(entry.index) + " is " + detail::format_number(entry.value) +
                              " under the map of " + domain.describe());
}

// The exact and sparse routes (feature_map.hpp) from a mappable model's phi = c beta + u.
class ExactMap : public FeatureMap {
 public:
  ExactMap(MapDomain domain, MapRoute route, long dimension)
      : FeatureMap(std::move(domain)), route_(route), dimension_(dimension) {}
  MapRoute route() const override { return route_; }
  long dimension() const override { return dimension_; }

  void features(const PreparedModel& model, Row& out) const override {
    check_domain(model);
    model_features(model.model(), out);
  }

  // features() of a model of this map's domain, prepared with its parameters: a combined row's part.
  void model_features(const Model& model, Row& out) const {
    const ExactFeatures phi = mappable(model, domain().family).exact_features();
    if (phi.dim + (route_ == MapRoute::sparse ? 1 : 0) != dimension_)
      throw KernelDomainError("a row with " + std::to_string(phi.dim) + " features, but the map of " +
                              domain().describe() + " has " + std::to_string(dimension_));
    out.clear();
    if (route_ == MapRoute::sparse || phi.shared == 0.0) {
      for (std::size_t i = 0; i < phi.index.size(); ++i) push_feature(out, phi.index[i], phi.value[i]);
      if (route_ == MapRoute::sparse && phi.shared_norm2 > 0.0) {
        // psi's last feature c |beta| + <beta, u> / |beta|: see feature_map.hpp.
        const double norm = std::sqrt(phi.shared_norm2);
        push_feature(out, phi.dim, phi.shared * norm + phi.shared_dot / norm);
      }
    } else {
      if (!phi.shared_is_uniform)
        throw KernelDomainError(
            domain().family +
            " rows over a leveled base: the exact map is dense over every word, and a row "
            "does not say the level of the words it does not list; use the sparse or the Nystrom map");
      out.reserve(static_cast<std::size_t>(phi.dim));
      std::size_t i = 0;
      for (long d = 0; d < phi.dim; ++d) {
        const bool listed = i < phi.index.size() && phi.index[i] == d;
        push_feature(out, d, phi.shared + (listed ? phi.value[i] : 0.0));
        i += listed;
      }
    }
    if (domain().kind == KernelKind::ppk_norm) normalize(out);
    check_finite(out, domain());
  }

  void save(std::ostream& out) const override;

  static const MappableModel& mappable(const Model& model, const std::string& family) {
    const auto* mappable = dynamic_cast<const MappableModel*>(&model);
    if (mappable == nullptr)
      throw KernelDomainError("the " + family +
                              " kernel is not an inner product of finitely many features the family writes out: "
                              "no exact or sparse map; use the Nystrom map");
    return *mappable;
  }

 private:
  MapRoute route_;
  long dimension_;
};

// The header that every map file starts with: the route, the kernel and the domain.
void save_header(std::ostream& out, MapRoute route, const MapDomain& domain, long dimension) {
  out << kMapHeader << "\n"
      << "route " << route_name(route) << "\n"
      << "kernel " << kind_name(domain.kind) << "\n"
      << "rho " << detail::format_number(domain.params.rho) << "\n"
      << "length " << domain.params.length << "\n"
      << "family " << domain.family << "\n"
      << "space " << domain.space.dim << " " << domain.space.kind << "\n"
      << "dimension " << dimension << "\n";
}

void ExactMap::save(std::ostream& out) const { save_header(out, route_, domain(), dimension_); }

// The exact or sparse map of combined rows (families/combined.hpp): each part's map of the normalized
// kernel (its features over its norm), part i's scaled by sqrt(w_i) and placed after the features of the
// parts before it, so that
//     <phi(a), phi(b)> = sum_i w_i <phi_i(a_i), phi_i(b_i)> / (|phi_i(a_i)| |phi_i(b_i)|) = K(a, b),
// the combined kernel; its ppk_norm map is that over its norm, sqrt(sum_i w_i). Each part's route is
// its own (a smoothed multinomial part sparse, a bernoulli part exact).
class CombinedMap : public FeatureMap {
 public:
  CombinedMap(MapDomain domain, MapRoute route, std::vector<std::unique_ptr<ExactMap>> parts)
      : FeatureMap(std::move(domain)), route_(route), parts_(std::move(parts)) {
    for (const auto& part : parts_) {
      offsets_.push_back(dimension_);
      dimension_ += part->dimension();
    }
    if (dimension_ > std::numeric_limits<int>::max())
      throw KernelDomainError("the map of " + this->domain().describe() + " would have " + std::to_string(dimension_) +
                              " features, more than a LIBSVM row's indices reach (2^31 - 1)");
  }
  MapRoute route() const override { return route_; }
  long dimension() const override { return dimension_; }

  void features(const PreparedModel& model, Row& out) const override {
    check_domain(model);  // the same parts' families and spaces, and the same weights
    const Model& rows = model.model();
    const std::vector<double>& weights = *rows.part_weights();
    thread_local Row part_features;
    out.clear();
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      const double weight = weights[i];
      if (weight == 0.0) continue;
      parts_[i]->model_features(rows.part(i), part_features);
      const double scale = std::sqrt(weight);
      for (const RowEntry& entry : part_features)
        out.push_back({entry.index + static_cast<int>(offsets_[i]), scale * entry.value});
    }
    if (domain().kind == KernelKind::ppk_norm) normalize(out);
    check_finite(out, domain());
  }

  // The header, then "parts P" and one line per part: "part ROUTE DIMENSION FAMILY SPACE_DIM SPACE_KIND".
  void save(std::ostream& out) const override {
    save_header(out, route_, domain(), dimension_);
    out << "parts " << parts_.size() << "\n";
    for (const auto& part : parts_)
      out << "part " << route_name(part->route()) << " " << part->dimension() << " " << part->domain().family << " "
          << part->domain().space.dim << " " << part->domain().space.kind << "\n";
  }

 private:
  MapRoute route_;
  std::vector<std::unique_ptr<ExactMap>> parts_;
  std::vector<long> offsets_;
  long dimension_ = 0;
};

// `error` of part i of combined rows, `part`, restated for the combined rows.
KernelDomainError part_error(std::size_t i, const Model& part, const KernelDomainError& error) {
  return KernelDomainError("combined part " + std::to_string(i + 1) + " (" + part.family().name + " over " +
                           part.sample_space().describe() + "): " + error.what() +
                           " of the combined rows (it maps every part's kernel)");
}

// The domain of part i of combined rows under the combined map `domain`: the normalized kernel at its
// parameters, on the part's family and sample space.
MapDomain part_domain(const MapDomain& domain, const Model& part) {
  return {KernelKind::ppk_norm, domain.params, part.family().name, part.sample_space()};
}

std::unique_ptr<PreparedModel> prepared_row(const Row& row, KernelKind kind, const KernelParams& params) {
  auto model = std::make_unique<PreparedModel>(decode_row(row), params);
  check_finite_kernel_values(kind, *model);
  return model;
}

}  // namespace

const char* route_name(MapRoute route) {
  switch (route) {
    case MapRoute::exact: return "exact";
    case MapRoute::sparse: return "sparse";
    case MapRoute::nystrom: break;
  }
  return "nystrom";
}

std::string MapDomain::describe() const {
  std::string text = std::string(kind_name(kind)) + " (rho " + detail::format_number(params.rho);
  if (params.length != 0) text += ", T " + std::to_string(params.length);
  return text + ") on " + family + " rows over " + space.describe();
}

MapDomain domain_of(const PreparedModel& model, KernelKind kind) {
  return {kind, model.params(), model.family().name, model.model().sample_space()};
}

void FeatureMap::check_domain(const PreparedModel& model) const {
  const MapDomain rows = domain_of(model, domain_.kind);
  if (rows.family != domain_.family || rows.space != domain_.space)
    throw KernelDomainError("a " + rows.family + " row over " + rows.space.describe() + ", but the map is of " +
                            domain_.describe());
}

std::unique_ptr<FeatureMap> make_exact_map(const PreparedModel& first, KernelKind kind, MapRoute route,
                                           const std::vector<MapRoute>& part_routes) {
  if (route == MapRoute::nystrom) throw std::invalid_argument("make_exact_map: the route must be exact or sparse");
  MapDomain domain = domain_of(first, kind);
  const Model& rows = first.model();
  if (const std::vector<double>* weights = rows.part_weights()) {
    std::vector<std::unique_ptr<ExactMap>> parts;
    for (std::size_t i = 0; i < weights->size(); ++i) {
      const MapRoute part_route = part_routes.empty() ? route : part_routes.at(i);
      if (part_route == MapRoute::nystrom) throw std::invalid_argument("make_exact_map: a part's route is nystrom");
      MapDomain part = part_domain(domain, rows.part(i));
      long dim = 0;
      try {
        dim = ExactMap::mappable(rows.part(i), part.family).exact_features().dim;
      } catch (const KernelDomainError& e) {
        throw part_error(i, rows.part(i), e);
      }
      parts.push_back(
          std::make_unique<ExactMap>(std::move(part), part_route, dim + (part_route == MapRoute::sparse ? 1 : 0)));
    }
    return std::make_unique<CombinedMap>(std::move(domain), route, std::move(parts));
  }
  const long dim = ExactMap::mappable(first.model(), domain.family).exact_features().dim;
  return std::make_unique<ExactMap>(std::move(domain), route, dim + (route == MapRoute::sparse ? 1 : 0));
}

namespace {
// `value` in 3 significant digits, for the note of choose_exact_or_sparse.
std::string three_digits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}
}  // namespace

namespace {

// choose_exact_or_sparse for prepared models of one family (the rows, or the parts i of combined rows).
RouteChoice choose_for_models(const std::vector<const Model*>& sample, KernelKind kind) {
  struct Domain {
    std::string family;
    SampleSpace space;
  };
  const Domain domain{sample.front()->family().name, sample.front()->sample_space()};
  const ExactFeatures first = ExactMap::mappable(*sample.front(), domain.family).exact_features();
  if (first.shared == 0.0)
    return {MapRoute::exact,
            domain.family +
                " rows without a part shared by every feature (phi = u): their exact map, k to "
                "rounding, writes no more features than the sparse map",
            {}};
  if (!first.shared_is_uniform)
    return {MapRoute::sparse,
            domain.family +
                " rows over a leveled base, whose dense exact map the rows do not determine; the "
                "sparse map's inner products are k + g g' (docs/feature-maps.md)",
            {}};
  // Features written by each route over the sample: D a row dense, the listed words + 1 sparse.
  double dense = 0.0, sparse = 0.0, listed = 0.0;
  long rows = 0;
  for (const Model* model : sample) {
    if (model->family().name != domain.family || model->sample_space() != domain.space) continue;
    const ExactFeatures phi = ExactMap::mappable(*model, domain.family).exact_features();
    dense += static_cast<double>(phi.dim);
    sparse += static_cast<double>(phi.index.size() + 1);
    listed += static_cast<double>(phi.index.size());
    ++rows;
  }
  const double ratio = dense / sparse;
  const MapRoute route = ratio >= kSparseFromRatio ? MapRoute::sparse : MapRoute::exact;
  std::string reason = "the exact map of these smoothed " + domain.family + " rows is dense, " +
                       std::to_string(first.dim) + " features a row, " + three_digits(ratio) +
                       " times the sparse map's " + three_digits(sparse / static_cast<double>(rows)) +
                       " (the mean over the first " + std::to_string(rows) + " rows; sparse from " +
                       three_digits(kSparseFromRatio) + " times)";
  if (route == MapRoute::sparse) {
    const double share = listed / dense;  // the mean f = L / D
    reason += "; the sparse map's inner products are k + g g', within " +
              std::string(kind == KernelKind::ppk ? "sqrt(f f') sqrt(k(p,p) k(p',p'))" : "(f + f') / 2") +
              " of k for f = L / D, the share of the words a row lists (" + three_digits(share) +
              " on average here; docs/feature-maps.md)";
  }
  return {route, reason, {}};
}

}  // namespace

RouteChoice choose_exact_or_sparse(const std::vector<const PreparedModel*>& sample, KernelKind kind) {
  if (sample.empty()) throw std::invalid_argument("choose_exact_or_sparse: no rows");
  const Model& first = sample.front()->model();
  const std::vector<double>* weights = first.part_weights();
  if (weights == nullptr) {
    std::vector<const Model*> models;
    for (const PreparedModel* model : sample) models.push_back(&model->model());
    return choose_for_models(models, kind);
  }
  // Combined rows: each part's route, chosen on the parts i of the rows of the first row's domain.
  const MapDomain domain = domain_of(*sample.front(), kind);
  RouteChoice choice{MapRoute::exact, "", {}};
  for (std::size_t i = 0; i < weights->size(); ++i) {
    std::vector<const Model*> parts;
    for (const PreparedModel* model : sample)
      if (domain_of(*model, kind).space == domain.space) parts.push_back(&model->model().part(i));
    RouteChoice part;
    try {
      part = choose_for_models(parts, KernelKind::ppk_norm);
    } catch (const KernelDomainError& e) {
      throw part_error(i, first.part(i), e);
    }
    choice.part_routes.push_back(part.route);
    if (part.route == MapRoute::sparse) choice.route = MapRoute::sparse;
    choice.reason += (i == 0 ? "" : "; ") + std::string("part ") + std::to_string(i + 1) + " " + route_name(part.route) +
                     ": " + part.reason;
  }
  return choice;
}

// --- Nystrom -------------------------------------------------------------------------------------

namespace {

// K_mm = (k(L_i, L_j)), column i from the diagonal down in one batch, mirrored above.
Eigen::MatrixXd landmark_gram(const std::vector<const PreparedModel*>& landmarks, KernelKind kind, unsigned threads) {
  const auto m = static_cast<Eigen::Index>(landmarks.size());
  Eigen::MatrixXd gram(m, m);
  for_each_range(landmarks.size(), threads, 1, 1e-3, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const auto column = static_cast<Eigen::Index>(i);
      evaluate_many(kind, *landmarks[i], landmarks.data() + i, landmarks.size() - i, &gram(column, column));
    }
  });
  gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();
  return gram;
}

struct Whitening {
  std::vector<double> eigenvalues;  // decreasing
  Eigen::MatrixXd matrix;           // V_r Lambda_r^(-1/2)
};

Whitening whitening_of(const Eigen::MatrixXd& gram, double eigen_floor) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(gram);
  if (solver.info() != Eigen::Success) throw KernelDomainError("the landmarks' kernel matrix has no eigendecomposition");
  const auto m = gram.rows();
  Whitening whitening;
  for (Eigen::Index i = m - 1; i >= 0; --i) whitening.eigenvalues.push_back(solver.eigenvalues()[i]);
  const double largest = whitening.eigenvalues.front();
  if (!(largest > 0.0) || !std::isfinite(largest))
    throw KernelDomainError("the landmarks' kernel matrix has no positive eigenvalue (largest " +
                            detail::format_number(largest) + ")");
  Eigen::Index rank = 0;
  while (rank < m && whitening.eigenvalues[static_cast<std::size_t>(rank)] > eigen_floor * largest) ++rank;
  whitening.matrix.resize(m, rank);
  for (Eigen::Index k = 0; k < rank; ++k)
    whitening.matrix.col(k) =
        solver.eigenvectors().col(m - 1 - k) / std::sqrt(whitening.eigenvalues[static_cast<std::size_t>(k)]);
  return whitening;
}

}  // namespace

namespace {
MapDomain landmarks_domain(const std::vector<Row>& rows, KernelKind kind, const KernelParams& params) {
  if (rows.empty()) throw KernelDomainError("a Nystrom map needs at least one landmark");
  return domain_of(*prepared_row(rows.front(), kind, params), kind);
}
}  // namespace

NystromMap::NystromMap(std::vector<Row> landmark_rows, KernelKind kind, const KernelParams& params, double eigen_floor,
                       unsigned threads)
    : FeatureMap(landmarks_domain(landmark_rows, kind, params)),
      rows_(std::move(landmark_rows)),
      eigen_floor_(eigen_floor) {
  prepare_landmarks();
  Whitening whitening = whitening_of(landmark_gram(landmark_pointers_, kind, threads), eigen_floor);
  eigenvalues_ = std::move(whitening.eigenvalues);
  whitening_ = std::move(whitening.matrix);
}

NystromMap::NystromMap(std::vector<Row> landmark_rows, KernelKind kind, const KernelParams& params, double eigen_floor,
                       std::vector<double> eigenvalues, Eigen::MatrixXd whitening)
    : FeatureMap(landmarks_domain(landmark_rows, kind, params)),
      rows_(std::move(landmark_rows)),
      eigen_floor_(eigen_floor),
      eigenvalues_(std::move(eigenvalues)),
      whitening_(std::move(whitening)) {
  prepare_landmarks();
  if (static_cast<std::size_t>(whitening_.rows()) != rows_.size() || eigenvalues_.size() != rows_.size() ||
      whitening_.cols() < 1 || whitening_.cols() > whitening_.rows())
    throw KernelDomainError("a Nystrom map of " + std::to_string(rows_.size()) + " landmarks needs " +
                            std::to_string(rows_.size()) + " eigenvalues and a whitening matrix of " +
                            std::to_string(rows_.size()) + " rows and 1 to " + std::to_string(rows_.size()) + " columns");
}

void NystromMap::prepare_landmarks() {
  for (const Row& row : rows_) {
    landmarks_.push_back(prepared_row(row, domain().kind, domain().params));
    check_domain(*landmarks_.back());
    landmark_pointers_.push_back(landmarks_.back().get());
  }
}

NystromMap::~NystromMap() = default;

void NystromMap::features(const PreparedModel& model, Row& out) const {
  check_domain(model);
  thread_local Eigen::VectorXd kernels, phi;
  kernels.resize(static_cast<Eigen::Index>(landmark_pointers_.size()));
  evaluate_many(domain().kind, model, landmark_pointers_.data(), landmark_pointers_.size(), kernels.data());
  phi.noalias() = whitening_.transpose() * kernels;
  out.clear();
  for (Eigen::Index k = 0; k < phi.size(); ++k) push_feature(out, k, phi[k]);
  check_finite(out, domain());
}

void NystromMap::save(std::ostream& out) const {
  save_header(out, MapRoute::nystrom, domain(), dimension());
  out << "eigen-floor " << detail::format_number(eigen_floor_) << "\n"
      << "landmarks " << rows_.size() << "\n";
  for (const Row& row : rows_) out << format_row_line(0, row) << "\n";
  out << "eigenvalues";
  for (double value : eigenvalues_) out << " " << detail::format_number(value);
  out << "\n"
      << "whitening " << whitening_.rows() << " " << whitening_.cols() << "\n";
  for (Eigen::Index i = 0; i < whitening_.rows(); ++i) {
    for (Eigen::Index k = 0; k < whitening_.cols(); ++k)
      out << (k == 0 ? "" : " ") << detail::format_number(whitening_(i, k));
    out << "\n";
  }
}

namespace {

// min(m, n) indices of [0, n), increasing: the first m entries of a Fisher-Yates shuffle.
std::vector<std::size_t> uniform_landmarks(std::size_t n, std::size_t m, SampleGenerator& generator) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  m = std::min(m, n);
  for (std::size_t i = 0; i < m; ++i) {
    const auto j = i + std::min(n - i - 1, static_cast<std::size_t>(generator.uniform() * static_cast<double>(n - i)));
    std::swap(order[i], order[j]);
  }
  order.resize(m);
  std::sort(order.begin(), order.end());
  return order;
}

// k-means++ seeding in the kernel's feature space (feature_map.hpp), increasing indices. Stops early
// when every candidate coincides with a landmark (no distance left to sample by), so a row and its
// copies are never both landmarks.
std::vector<std::size_t> kmeans_plus_plus_landmarks(const std::vector<Row>& candidates, KernelKind kind,
                                                    const KernelParams& params, std::size_t m, SampleGenerator& generator,
                                                    unsigned threads) {
  const std::size_t n = candidates.size();
  std::vector<std::unique_ptr<PreparedModel>> models;
  std::vector<const PreparedModel*> pointers;
  std::vector<double> self(n);  // k(x, x)
  for (std::size_t i = 0; i < n; ++i) {
    models.push_back(prepared_row(candidates[i], kind, params));
    if (i > 0) check_compatible(models.front()->model(), models.back()->model());
    pointers.push_back(models.back().get());
    self[i] = kind == KernelKind::ppk_norm ? 1.0 : std::exp(models.back()->log_self_kernel());
  }
  std::vector<std::size_t> chosen{static_cast<std::size_t>(generator.uniform() * static_cast<double>(n))};
  std::vector<double> distance(n, std::numeric_limits<double>::infinity()), to_new(n), cumulative(n);
  while (chosen.size() < std::min(m, n)) {
    const std::size_t c = chosen.back();
    for_each_range(n, threads, 64, 1e-3, [&](std::size_t begin, std::size_t end) {
      evaluate_many(kind, *pointers[c], pointers.data() + begin, end - begin, to_new.data() + begin);
    });
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      // A squared distance within rounding of k(x,x) + k(c,c) is a copy of c: 0, never drawn.
      const double squared = self[i] + self[c] - 2.0 * to_new[i];
      distance[i] = std::min(distance[i], squared > 1e-12 * (self[i] + self[c]) ? squared : 0.0);
      total += distance[i];
      cumulative[i] = total;
    }
    if (!(total > 0.0)) break;
    chosen.push_back(generator.categorical(cumulative.data(), n));
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace

std::unique_ptr<NystromMap> fit_nystrom_map(const std::vector<Row>& candidates, KernelKind kind,
                                            const KernelParams& params, const NystromOptions& options) {
  if (candidates.empty()) throw KernelDomainError("a Nystrom map needs at least one row to choose landmarks from");
  if (options.landmarks < 1) throw std::invalid_argument("a Nystrom map needs at least one landmark");
  SampleGenerator generator(options.seed);
  const std::vector<std::size_t> chosen =
      options.choice == LandmarkChoice::uniform
          ? uniform_landmarks(candidates.size(), options.landmarks, generator)
          : kmeans_plus_plus_landmarks(candidates, kind, params, options.landmarks, generator, options.threads);
  std::vector<Row> rows;
  for (std::size_t i : chosen) rows.push_back(candidates[i]);
  return std::make_unique<NystromMap>(std::move(rows), kind, params, options.eigen_floor, options.threads);
}

// --- The map file --------------------------------------------------------------------------------

namespace {

// The lines of a map file, each read as "KEY VALUE..." with errors naming the file and line.
class MapFileReader {
 public:
  MapFileReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(source_ + ":" + std::to_string(line_) + ": " + what);
  }
  std::string line(const std::string& expected) {
    std::string text;
    if (!std::getline(in_, text)) {
      ++line_;
      fail("the file ends; expected " + expected);
    }
    ++line_;
    return text;
  }
  // The rest of the line after "KEY ".
  std::string field(const std::string& key) {
    const std::string text = line("'" + key + " ...'");
    if (text.rfind(key + " ", 0) != 0 || text.size() == key.size() + 1)
      fail("expected '" + key + " ...', got '" + text.substr(0, 60) + "'");
    return text.substr(key.size() + 1);
  }
  double number(const std::string& key, const std::string& text) const {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(value))
      fail(key + ": expected a finite number, got '" + text.substr(0, 40) + "'");
    return value;
  }
  long whole(const std::string& key, const std::string& text, long low, long high) const {
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || errno == ERANGE || value < low || value > high)
      fail(key + ": expected a whole number in [" + std::to_string(low) + ", " + std::to_string(high) + "], got '" +
           text.substr(0, 40) + "'");
    return value;
  }
  // The whitespace-separated numbers of `text`, exactly `count` of them.
  std::vector<double> numbers(const std::string& key, const std::string& text, std::size_t count) const {
    std::istringstream words(text);
    std::vector<double> values;
    std::string word;
    while (words >> word) values.push_back(number(key, word));
    if (values.size() != count)
      fail(key + ": expected " + std::to_string(count) + " numbers, got " + std::to_string(values.size()));
    return values;
  }
  long line_number() const { return line_; }
  const std::string& source() const { return source_; }

 private:
  std::istream& in_;
  std::string source_;
  long line_ = 0;
};

}  // namespace

std::unique_ptr<FeatureMap> load_feature_map(std::istream& in, const std::string& source) {
  constexpr long kMaxLandmarks = 1000000;
  MapFileReader file(in, source);
  if (file.line("'" + std::string(kMapHeader) + "'") != kMapHeader)
    file.fail("not a ppk feature map: expected the first line '" + std::string(kMapHeader) + "'");
  const std::string route_text = file.field("route");
  MapRoute route = MapRoute::exact;
  if (route_text == "sparse")
    route = MapRoute::sparse;
  else if (route_text == "nystrom")
    route = MapRoute::nystrom;
  else if (route_text != "exact")
    file.fail("route: expected exact, sparse or nystrom, got '" + route_text + "'");
  MapDomain domain;
  const std::string kind = file.field("kernel");
  if (kind != "ppk" && kind != "ppk_norm") file.fail("kernel: expected ppk or ppk_norm, got '" + kind + "'");
  domain.kind = kind == "ppk" ? KernelKind::ppk : KernelKind::ppk_norm;
  domain.params.rho = file.number("rho", file.field("rho"));
  if (!(domain.params.rho > 0.0)) file.fail("rho: expected a number > 0");
  domain.params.length = static_cast<int>(file.whole("length", file.field("length"), 0, 1000000000));
  domain.family = file.field("family");
  if (find_family(domain.family) == nullptr) file.fail("family: no family named '" + domain.family + "'");
  const std::string space = file.field("space");
  const std::size_t gap = space.find(' ');
  if (gap == std::string::npos) file.fail("space: expected 'space DIM KIND'");
  domain.space = {space.substr(gap + 1), file.whole("space", space.substr(0, gap), 0, 1000000000000L)};
  const long dimension = file.whole("dimension", file.field("dimension"), 1, 1000000000000L);
  if (route != MapRoute::nystrom && find_family(domain.family)->weighted_parts) {
    // "parts P", then "part ROUTE DIMENSION FAMILY SPACE_DIM SPACE_KIND" per part (CombinedMap::save).
    const long count = file.whole("parts", file.field("parts"), 1, domain.space.dim);
    if (count != domain.space.dim) file.fail("parts: expected " + std::to_string(domain.space.dim) + ", the rows' parts");
    std::vector<std::unique_ptr<ExactMap>> parts;
    long total = 0;
    for (long i = 0; i < count; ++i) {
      std::istringstream words(file.field("part"));
      std::string part_route, part_dimension, family, space_dim, kind;
      words >> part_route >> part_dimension >> family >> space_dim >> std::ws;
      std::getline(words, kind);
      if (part_route != "exact" && part_route != "sparse")
        file.fail("part: expected the route exact or sparse, got '" + part_route + "'");
      if (find_family(family) == nullptr) file.fail("part: no family named '" + family + "'");
      if (kind.empty()) file.fail("part: expected 'part ROUTE DIMENSION FAMILY SPACE_DIM SPACE_KIND'");
      MapDomain part{
          KernelKind::ppk_norm, domain.params, family, {kind, file.whole("part", space_dim, 0, 1000000000000L)}};
      const long dim = file.whole("part", part_dimension, 1, 1000000000000L);
      total += dim;
      parts.push_back(
          std::make_unique<ExactMap>(std::move(part), part_route == "exact" ? MapRoute::exact : MapRoute::sparse, dim));
    }
    if (total != dimension) file.fail("dimension: the parts' dimensions sum to " + std::to_string(total));
    return std::make_unique<CombinedMap>(std::move(domain), route, std::move(parts));
  }
  if (route != MapRoute::nystrom) return std::make_unique<ExactMap>(std::move(domain), route, dimension);

  const double floor = file.number("eigen-floor", file.field("eigen-floor"));
  const long m = file.whole("landmarks", file.field("landmarks"), 1, kMaxLandmarks);
  if (dimension > m) file.fail("dimension: a Nystrom map has at most as many features as landmarks");
  std::vector<Row> rows;
  for (long i = 0; i < m; ++i) {
    std::istringstream text(file.line("landmark row " + std::to_string(i + 1)));
    try {
      std::vector<LabeledRow> row = read_rows(text, "landmark");
      if (row.size() != 1) file.fail("expected landmark row " + std::to_string(i + 1));
      rows.push_back(std::move(row.front().row));
    } catch (const InputError& e) {
      file.fail(std::string("landmark row ") + std::to_string(i + 1) + ": " + e.what());
    }
  }
  const long landmarks_end = file.line_number();
  const std::string eigenvalue_text = file.line("'eigenvalues ...'");
  if (eigenvalue_text.rfind("eigenvalues", 0) != 0) file.fail("expected 'eigenvalues ...'");
  std::vector<double> eigenvalues = file.numbers("eigenvalues", eigenvalue_text.substr(11), static_cast<std::size_t>(m));
  const std::string shape = file.field("whitening");
  if (shape != std::to_string(m) + " " + std::to_string(dimension))
    file.fail("whitening: expected '" + std::to_string(m) + " " + std::to_string(dimension) + "', got '" + shape + "'");
  // The m x dimension matrix is built from the numbers read, never from the claimed shape: a header
  // may claim 10^6 x 10^6 (8 TB) in a few bytes, the file cannot hold its numbers.
  std::vector<double> whitening_rows;
  for (long i = 0; i < m; ++i) {
    const std::vector<double> values =
        file.numbers("whitening row " + std::to_string(i + 1), file.line("whitening row " + std::to_string(i + 1)),
                     static_cast<std::size_t>(dimension));
    whitening_rows.insert(whitening_rows.end(), values.begin(), values.end());
  }
  Eigen::MatrixXd whitening = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      whitening_rows.data(), m, dimension);
  try {
    auto map = std::make_unique<NystromMap>(std::move(rows), domain.kind, domain.params, floor, std::move(eigenvalues),
                                            std::move(whitening));
    if (map->domain().family != domain.family || map->domain().space != domain.space)
      throw KernelDomainError("the landmarks are " + map->domain().describe() + ", but the header says " +
                              domain.describe());
    return map;
  } catch (const std::exception& e) {
    throw InputError(source + ": lines " + std::to_string(landmarks_end - m + 1) + "-" + std::to_string(landmarks_end) +
                     " (the landmarks): " + e.what());
  }
}

}  // namespace ppk
