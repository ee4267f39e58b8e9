// Explicit feature maps: model rows in, feature vectors out, so that a linear model (LIBLINEAR,
// svm-train -t 0, scikit-learn, Spark MLlib) trained on phi(p) stands in for the kernel SVM on
// k(p, p') = <phi(p), phi(p')> when there are too many examples for a kernel machine.
//
// Three routes (docs/feature-maps.md):
//   exact    phi_x(p) = p(x)^rho over a finite sample space (core/exact_map.hpp): <phi, phi'> = k to
//            rounding. Sparse for rows without a shared part (maximum-likelihood multinomials); dense
//            (every word) for smoothed rows, phi = c beta + u.
//   sparse   for smoothed rows: psi(p) = (u, c |beta| + <beta, u> / |beta|), the listed words plus one
//            feature. <psi, psi'> = k + g g' with g = <beta, u> / |beta|: the kernel plus a rank-one
//            positive semidefinite term (the component of u along beta counted twice), not k itself.
//   nystrom  any family: phi(p) = Lambda_r^(-1/2) V_r' k_m(p) for m landmark rows L, k_m(p) =
//            (k(p, L_1), ..., k(p, L_m)) and K_mm = V Lambda V' (Williams and Seeger, NIPS 2000), keeping
//            the r eigenvalues above floor * the largest: <phi(p), phi(p')> = k_m(p)' K_mm^+ k_m(p'),
//            which is k itself on the landmarks and approaches k as m grows.
// ppk_norm maps are the ppk map divided by its norm (unit vectors; for nystrom the map of the
// normalised kernel).
//
// A map is made once, on the training rows, saved (save) and loaded (load_feature_map) for the test
// rows, so that train and test share one map; it maps only rows of its domain (family, sample
// space), prepared with its kernel parameters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/data.hpp"  // InputError, thrown by load_feature_map
#include "ppk/core/kernel.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/row.hpp"

namespace ppk {

enum class MapRoute { exact, sparse, nystrom };
const char* route_name(MapRoute route);  // "exact", "sparse", "nystrom"

// What a map was made for: the kernel, and the family and sample space of the rows it maps.
struct MapDomain {
  KernelKind kind = KernelKind::ppk;
  KernelParams params;
  std::string family;  // FamilyInfo::name
  SampleSpace space;
  // "ppk_norm (rho 0.5, T 3) on hmm over <space>" for messages.
  std::string describe() const;
};

// The domain of rows like `model` under the kernel (kind, params).
MapDomain domain_of(const PreparedModel& model, KernelKind kind);

class FeatureMap {
 public:
  virtual ~FeatureMap() = default;
  const MapDomain& domain() const { return domain_; }
  virtual MapRoute route() const = 0;
  // The number of features: output indices are 1..dimension().
  virtual long dimension() const = 0;
  // phi(model) as (index, value) entries with 1-based increasing indices, zeros left out, in `out`
  // (cleared first). `model` is prepared with domain().params. Throws KernelDomainError when the
  // model is outside the domain (naming the model's and the map's) or the route cannot map it.
  // Safe to call from several threads at once.
  virtual void features(const PreparedModel& model, Row& out) const = 0;
  // The map in the text format of load_feature_map: every number written so that it reads back as
  // the same double, so a loaded map gives the same features bit for bit.
  virtual void save(std::ostream& out) const = 0;

 protected:
  explicit FeatureMap(MapDomain domain) : domain_(std::move(domain)) {}
  // KernelDomainError unless `model` is of this map's family and sample space.
  void check_domain(const PreparedModel& model) const;

 private:
  MapDomain domain_;
};

// The exact or sparse map (route exact or sparse) of rows of the domain of `first`, whose family
// must be mappable (core/exact_map.hpp); KernelDomainError naming the family otherwise. Combined rows
// (families/combined.hpp) map to the concatenation of their parts' maps of the normalized kernel, part i
// scaled by sqrt(w_i), so that <phi(a), phi(b)> is the combined kernel; every part must be mappable
// (the error names the part), and part i takes part_routes[i] when given (choose_exact_or_sparse's),
// else `route`.
std::unique_ptr<FeatureMap> make_exact_map(const PreparedModel& first, KernelKind kind, MapRoute route,
                                           const std::vector<MapRoute>& part_routes = {});

// The route between exact and sparse for rows like `sample` (their first rows; rows outside the
// domain of the first are left out), the default of `ppk map` and of PPKFeatures' method "auto":
//   exact   rows without a shared part (phi = u: maximum-likelihood multinomials, bernoulli rows),
//           whose exact map is k to rounding and no larger than the sparse one; and smoothed rows
//           whose dense exact map (D features a row) is less than kSparseFromRatio times the
//           sparse map's features over the sample (sum of listed words + 1);
//   sparse  smoothed rows from that ratio on, and rows over a leveled base (no dense exact map).
// The sparse map's <psi, psi'> - k = g g' is bounded for rows whose listed u_d are >= 0 (every row
// `ppk fit multinomial` writes): |g| <= sqrt(f) |u| <= sqrt(f k(p,p)) by Cauchy-Schwarz, f the share
// of |beta|^2 on the listed words (L / D for a uniform base), so
//   ppk       0 <= <psi, psi'> - k(p,p') <= sqrt(f f') sqrt(k(p,p) k(p',p')),
//   ppk_norm  |<psi, psi'> / (|psi| |psi'|) - k_norm(p,p')| <= (f + f') / 2.
// KernelDomainError, as make_exact_map, when the first row's family has no exact or sparse map.
constexpr double kSparseFromRatio = 4.0;
// For combined rows each part's route is chosen so, on the parts of the sample (in part_routes; route
// is sparse when a part's is).
struct RouteChoice {
  MapRoute route = MapRoute::exact;
  std::string reason;                 // why, in a sentence for the note of `ppk map`
  std::vector<MapRoute> part_routes;  // combined rows: each part's route; empty otherwise
};
RouteChoice choose_exact_or_sparse(const std::vector<const PreparedModel*>& sample, KernelKind kind);

enum class LandmarkChoice { uniform, kmeans_plus_plus };

struct NystromOptions {
  std::size_t landmarks = 256;  // m
  LandmarkChoice choice = LandmarkChoice::uniform;
  std::uint64_t seed = 1;
  double eigen_floor = 1e-10;  // eigenvalues <= floor * the largest are dropped
  unsigned threads = 1;        // for K_mm and the k-means++ distances
};

// The Nystrom map of the landmark rows (each decoded and prepared with `params`; row errors as
// ModelError and KernelDomainError): K_mm = V Lambda V' by Eigen's SelfAdjointEigenSolver, the
// whitening matrix W = V_r Lambda_r^(-1/2) of the r eigenvalues above floor * the largest, and
// phi(p) = W' k_m(p). Throws KernelDomainError when the landmarks are of different domains or K_mm has
// no positive eigenvalue.
class NystromMap : public FeatureMap {
 public:
  NystromMap(std::vector<Row> landmark_rows, KernelKind kind, const KernelParams& params, double eigen_floor,
             unsigned threads);
  // A saved map: the landmarks, the eigenvalues and W as they were computed (checked: W is m x r).
  NystromMap(std::vector<Row> landmark_rows, KernelKind kind, const KernelParams& params, double eigen_floor,
             std::vector<double> eigenvalues, Eigen::MatrixXd whitening);
  ~NystromMap() override;
  MapRoute route() const override { return MapRoute::nystrom; }
  long dimension() const override { return whitening_.cols(); }
  void features(const PreparedModel& model, Row& out) const override;
  void save(std::ostream& out) const override;
  std::size_t landmark_count() const { return rows_.size(); }
  double eigen_floor() const { return eigen_floor_; }
  // The eigenvalues of K_mm, decreasing; the first dimension() are kept.
  const std::vector<double>& eigenvalues() const { return eigenvalues_; }

 private:
  void prepare_landmarks();  // decodes and prepares rows_, each checked against the domain
  std::vector<Row> rows_;    // the landmarks as read, for save()
  std::vector<std::unique_ptr<PreparedModel>> landmarks_;
  std::vector<const PreparedModel*> landmark_pointers_;
  double eigen_floor_;
  std::vector<double> eigenvalues_;
  Eigen::MatrixXd whitening_;  // m x r
};

// Chooses min(m, candidates) landmarks among `candidates` (rows of one domain) and makes their
// NystromMap:
//   uniform   a uniform sample without replacement, drawn with the seed;
//   kmeans++  k-means++ seeding (Arthur and Vassilvitskii, SODA 2007) in the kernel's feature
//             space: the first uniformly, each next with probability proportional to its squared
//             distance k(x,x) + k(c,c) - 2 k(x,c) to the nearest landmark chosen so far.
// k-means++ stops early when every candidate left is a copy of a landmark (squared distance within
// rounding of 0), so a row and its copy are never both landmarks. Landmarks keep the candidates'
// order. The same candidates and seed give the same map.
std::unique_ptr<NystromMap> fit_nystrom_map(const std::vector<Row>& candidates, KernelKind kind,
                                            const KernelParams& params, const NystromOptions& options);

// Reads a map written by FeatureMap::save. Throws InputError "SOURCE:LINE: ..." naming what was
// expected (a header field, a landmark row, a matrix entry), for any file save did not write.
std::unique_ptr<FeatureMap> load_feature_map(std::istream& in, const std::string& source);

}  // namespace ppk
