#include "ppk/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include <Eigen/Eigenvalues>

namespace ppk {
namespace {

std::string number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

std::string vector_count(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " vector" : " vectors");
}

void check_coordinates(const std::vector<SparseVector>& vectors, long dim) {
  for (std::size_t i = 0; i < vectors.size(); ++i)
    if (!vectors[i].empty() && vectors[i].back().coord >= dim)
      throw EstimationError("index " + std::to_string(vectors[i].back().coord + 1) +
                            (vectors.size() > 1 ? " (in vector " + std::to_string(i + 1) + ")" : "") +
                            " is larger than the dimension " + std::to_string(dim) + " (--dim)");
}

void check_alpha(double alpha) {
  if (!(alpha >= 0) || !std::isfinite(alpha))
    throw EstimationError("the smoothing alpha must be a finite number >= 0, got " + number(alpha));
}

// The example's vectors as the rows of a dense n x D matrix.
Eigen::MatrixXd dense_matrix(const std::vector<SparseVector>& vectors, long dim) {
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(vectors.size()), dim);
  for (std::size_t i = 0; i < vectors.size(); ++i)
    for (const Feature& f : vectors[i]) x(static_cast<Eigen::Index>(i), f.coord) = f.value;
  return x;
}

// The sample mean of the rows of x. A coordinate that is constant across the
// rows gets that constant exactly (not sum/n, which may round), so that its
// centred values and its ML variance are exactly 0.
Eigen::VectorXd sample_mean(const Eigen::MatrixXd& x) {
  Eigen::VectorXd mean = x.colwise().mean().transpose();
  for (Eigen::Index d = 0; d < x.cols(); ++d)
    if (x.col(d).minCoeff() == x.col(d).maxCoeff()) mean(d) = x(0, d);
  return mean;
}

const char* const kGaussianRemedy =
    "give --ridge R (added to the covariance diagonal) or --var V (a fixed isotropic variance)";

// Builds the model; a ModelError from the model's own validation becomes an EstimationError.
template <class Build>
auto build_model(Build build) -> decltype(build()) {
  try {
    return build();
  } catch (const ModelError& e) {
    throw EstimationError(std::string("the estimate is not a valid model: ") + e.what());
  }
}

// A diagonal or isotropic ML variance needs two vectors (one has variance 0) unless a ridge is added.
void require_two_vectors(long n, double ridge, const char* form) {
  if (ridge == 0 && n < 2)
    throw EstimationError(std::string("the example has 1 vector, whose maximum-likelihood variance "
                                      "is 0; ") + form + " covariance needs at least 2; " +
                          kGaussianRemedy);
}

std::unique_ptr<GaussianModel> fit_full(const Eigen::MatrixXd& centred, Eigen::VectorXd mean,
                                        double ridge) {
  const long n = centred.rows(), dim = centred.cols();
  if (ridge == 0 && n < dim + 1)
    throw EstimationError("the example has " + vector_count(n) + "; a full covariance in " +
                          std::to_string(dim) + " dimensions needs at least " +
                          std::to_string(dim + 1) + " for maximum likelihood; " + kGaussianRemedy +
                          (n >= 2 ? ", or use --cov diag|iso" : ""));
  // Sigma = (1/n) sum_i (x_i - mu)(x_i - mu)' + ridge I.
  Eigen::MatrixXd cov = (centred.transpose() * centred) / static_cast<double>(n);
  cov.diagonal().array() += ridge;
  // Numerical rank: Sigma is singular when lambda_min <= D eps lambda_max.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(cov, Eigen::EigenvaluesOnly);
  const double smallest = eigen.eigenvalues()(0), largest = eigen.eigenvalues()(dim - 1);
  if (!(smallest > dim * std::numeric_limits<double>::epsilon() * largest)) {
    std::string why = "the covariance of the " + vector_count(n) + " is singular (eigenvalues " +
                      number(smallest) + " to " + number(largest) + ")";
    if (ridge == 0)
      throw EstimationError(why + ": they do not span R^" + std::to_string(dim) + "; " +
                            kGaussianRemedy + ", or use --cov diag|iso");
    throw EstimationError(why + " even with --ridge " + number(ridge) + "; increase the ridge");
  }
  return build_model([&] { return GaussianModel::full(std::move(mean), std::move(cov)); });
}

std::unique_ptr<GaussianModel> fit_diagonal(const Eigen::MatrixXd& centred, Eigen::VectorXd mean,
                                            double ridge) {
  const long n = centred.rows();
  require_two_vectors(n, ridge, "a diagonal");
  // Sigma_dd = (1/n) sum_i (x_id - mu_d)^2 + ridge.
  Eigen::VectorXd variances = centred.colwise().squaredNorm().transpose() / static_cast<double>(n);
  variances.array() += ridge;
  for (Eigen::Index d = 0; d < variances.size(); ++d)
    if (!(variances(d) > 0))
      throw EstimationError("feature " + std::to_string(d + 1) + " is constant (= " +
                            number(mean(d)) + ") across the " + vector_count(n) +
                            ", so its maximum-likelihood variance is 0; " + kGaussianRemedy);
  return build_model([&] { return GaussianModel::diagonal(std::move(mean), std::move(variances)); });
}

std::unique_ptr<GaussianModel> fit_isotropic(const Eigen::MatrixXd& centred, Eigen::VectorXd mean,
                                             double ridge) {
  const long n = centred.rows(), dim = centred.cols();
  require_two_vectors(n, ridge, "an isotropic");
  // sigma^2 = (1/(n D)) sum_i |x_i - mu|^2 + ridge.
  const double variance = centred.squaredNorm() / (static_cast<double>(n) * dim) + ridge;
  if (!(variance > 0))
    throw EstimationError("the " + vector_count(n) + " are identical, so the maximum-likelihood "
                          "variance is 0; " + kGaussianRemedy);
  return build_model([&] { return GaussianModel::isotropic(std::move(mean), variance); });
}

// The example's non-zero entries as (coordinate, value) pairs sorted by coordinate
// (stable, so a coordinate's values keep their vector order).
std::vector<Feature> pooled_entries(const std::vector<SparseVector>& vectors) {
  std::vector<Feature> pooled;
  for (const SparseVector& v : vectors)
    for (const Feature& f : v)
      if (f.value != 0) pooled.push_back(f);
  if (vectors.size() > 1)
    std::stable_sort(pooled.begin(), pooled.end(),
                     [](const Feature& a, const Feature& b) { return a.coord < b.coord; });
  return pooled;
}

// Sparse probabilities p_d = (t_d + alpha) / denominator, where t_d is the total of
// the pooled values of coordinate d (0 for absent ones) and `transform` maps each
// pooled value to its contribution to t_d. Only coordinates with t_d > 0 are listed.
template <class Transform>
SparseProbabilities smoothed_probabilities(const std::vector<Feature>& pooled, long dim,
                                           double alpha, double denominator, Transform transform) {
  SparseProbabilities p;
  p.dim = dim;
  p.base = alpha / denominator;
  for (std::size_t i = 0; i < pooled.size();) {
    const long coord = pooled[i].coord;
    double total = 0;
    for (; i < pooled.size() && pooled[i].coord == coord; ++i) total += transform(pooled[i].value);
    const double probability = (total + alpha) / denominator;
    if (total > 0 && probability != p.base) {
      p.index.push_back(coord);
      p.value.push_back(probability);
    }
  }
  return p;
}

}  // namespace

std::unique_ptr<GaussianModel> fit_gaussian(const std::vector<SparseVector>& vectors, long dim,
                                            const GaussianFitOptions& options) {
  if (vectors.empty()) throw EstimationError("the example has no vectors");
  if (dim < 1) throw EstimationError("the dimension must be at least 1");
  check_coordinates(vectors, dim);
  if (!(options.ridge >= 0) || !std::isfinite(options.ridge))
    throw EstimationError("the ridge must be a finite number >= 0, got " + number(options.ridge));

  const Eigen::MatrixXd x = dense_matrix(vectors, dim);
  Eigen::VectorXd mean = sample_mean(x);
  if (!mean.allFinite()) throw EstimationError("the mean overflows: the values are too large");

  if (options.variance) {
    const double variance = *options.variance;
    if (!(variance > 0) || !std::isfinite(variance))
      throw EstimationError("the fixed variance must be a finite number > 0, got " +
                            number(variance));
    if (options.covariance != CovarianceForm::isotropic || options.ridge != 0)
      throw EstimationError("a fixed variance is an isotropic covariance with no ridge");
    return build_model([&] { return GaussianModel::isotropic(std::move(mean), variance); });
  }

  const Eigen::MatrixXd centred = x.rowwise() - mean.transpose();
  switch (options.covariance) {
    case CovarianceForm::full:
      return fit_full(centred, std::move(mean), options.ridge);
    case CovarianceForm::diagonal:
      return fit_diagonal(centred, std::move(mean), options.ridge);
    case CovarianceForm::isotropic:
      return fit_isotropic(centred, std::move(mean), options.ridge);
  }
  throw EstimationError("unknown covariance form");
}

std::unique_ptr<BernoulliModel> fit_bernoulli(const std::vector<SparseVector>& vectors, long dim,
                                              double alpha) {
  if (vectors.empty()) throw EstimationError("the example has no vectors");
  if (dim < 1) throw EstimationError("the dimension must be at least 1");
  check_coordinates(vectors, dim);
  check_alpha(alpha);
  // g_d = (k_d + alpha) / (n + 2 alpha), k_d = #vectors with x_d != 0.
  const double n = static_cast<double>(vectors.size());
  SparseProbabilities g = smoothed_probabilities(pooled_entries(vectors), dim, alpha,
                                                 n + 2 * alpha, [](double) { return 1.0; });
  return build_model([&] { return std::make_unique<BernoulliModel>(std::move(g)); });
}

std::unique_ptr<MultinomialModel> fit_multinomial(const std::vector<SparseVector>& vectors,
                                                  long dim, const MultinomialFitOptions& options) {
  if (vectors.empty()) throw EstimationError("the example has no vectors");
  if (dim < 1) throw EstimationError("the dimension must be at least 1");
  check_coordinates(vectors, dim);
  check_alpha(options.alpha);
  const std::vector<Feature> pooled = pooled_entries(vectors);
  double total = 0;  // N = sum_d c_d
  for (const Feature& f : pooled) {
    if (f.value < 0)
      throw EstimationError("count " + number(f.value) + " at index " + std::to_string(f.coord + 1) +
                            " is negative; multinomial counts must be >= 0");
    total += f.value;
  }
  if (!std::isfinite(total)) throw EstimationError("the total count overflows");
  // a_d = (c_d + alpha) / (N + alpha D).
  const double denominator = total + options.alpha * static_cast<double>(dim);
  if (!(denominator > 0))
    throw EstimationError("the example has no counts, so with alpha = 0 its probabilities "
                          "are undefined; give --alpha > 0");
  SparseProbabilities a = smoothed_probabilities(pooled, dim, options.alpha, denominator,
                                                 [](double count) { return count; });
  return build_model(
      [&] { return std::make_unique<MultinomialModel>(std::move(a), options.trials); });
}

}  // namespace ppk
