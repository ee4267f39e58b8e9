// Mixture models (mixture.hpp): k~ = sum_{m,n} (w_m w'_n)^rho k_rho(p_m, p'_n) (JMLR 2004 section 4.1)
// against double sums of component kernels written out in the test, against quadrature of
// p(x) p'(x) for 1-D Gaussian mixtures at rho = 1, the one-component mixture against its component,
// mixtures against plain models in both orders, Gram matrices, round trips and rejected models;
// the EM and kernel density estimators (estimate.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "oracles.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/families/poisson.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using checks::mentions;
using checks::relative_error;

// A 1-D Gaussian mixture written out: weights, means, variances.
struct Mixture1d {
  std::vector<double> w, mean, var;
  double density(double x) const {
    double p = 0.0;
    for (std::size_t m = 0; m < w.size(); ++m) p += w[m] * oracle::normal_density(x, mean[m], var[m]);
    return p;
  }
};

std::unique_ptr<GaussianModel> gaussian_1d(double mean, double var) {
  return GaussianModel::isotropic(Eigen::VectorXd::Constant(1, mean), var);
}

std::unique_ptr<MixtureModel> mixture_model(const Mixture1d& spec) {
  std::vector<std::unique_ptr<Model>> components;
  for (std::size_t m = 0; m < spec.w.size(); ++m) components.push_back(gaussian_1d(spec.mean[m], spec.var[m]));
  return std::make_unique<MixtureModel>(spec.w, std::move(components));
}

PreparedModel prepared(std::unique_ptr<Model> model, double rho) {
  return PreparedModel(std::move(model), with_rho(rho));
}

const Mixture1d kMixtureA{{0.3, 0.7}, {-1.0, 2.0}, {0.5, 1.5}};
const Mixture1d kMixtureB{{0.2, 0.5, 0.3}, {0.0, 1.0, 4.0}, {2.0, 0.3, 1.0}};

TEST(Mixture, GaussianMixturesAreDoubleSumsOfComponentKernels) {
  for (double rho : kRhos) {
    // sum_{m,n} (w_m w'_n)^rho k_rho(N_m, N'_n), each component kernel by quadrature.
    double expected = 0.0;
    for (std::size_t m = 0; m < kMixtureA.w.size(); ++m)
      for (std::size_t n = 0; n < kMixtureB.w.size(); ++n)
        expected +=
            std::pow(kMixtureA.w[m] * kMixtureB.w[n], rho) *
            oracle::gaussian_ppk_1d(kMixtureA.mean[m], kMixtureA.var[m], kMixtureB.mean[n], kMixtureB.var[n], rho);
    const double k = kernel(prepared(mixture_model(kMixtureA), rho), prepared(mixture_model(kMixtureB), rho));
    EXPECT_LT(relative_error(k, expected), 1e-10) << "rho " << rho;
  }
}

TEST(Mixture, AtRhoOneIsTheIntegralOfTheProductOfTheMixtureDensities) {
  const double expected =
      oracle::integrate([](double x) { return kMixtureA.density(x) * kMixtureB.density(x); }, -60.0, 60.0);
  const double k = kernel(prepared(mixture_model(kMixtureA), 1.0), prepared(mixture_model(kMixtureB), 1.0));
  EXPECT_LT(relative_error(k, expected), 1e-10);
}

// Bernoulli components: k_rho = prod_d [(g_d g'_d)^rho + ((1-g_d)(1-g'_d))^rho] (JMLR 2004 section 3.2).
double bernoulli_kernel(const std::vector<double>& g, const std::vector<double>& h, double rho) {
  double k = 1.0;
  for (std::size_t d = 0; d < g.size(); ++d) k *= std::pow(g[d] * h[d], rho) + std::pow((1 - g[d]) * (1 - h[d]), rho);
  return k;
}
// One-event multinomial components: k_rho = sum_d (a_d a'_d)^rho.
double multinomial_kernel(const std::vector<double>& a, const std::vector<double>& b, double rho) {
  double k = 0.0;
  for (std::size_t d = 0; d < a.size(); ++d) k += std::pow(a[d] * b[d], rho);
  return k;
}
// 1-D Poisson components, summed over x = 0..400 from the probabilities l^x e^-l / x!.
double poisson_kernel(double l, double l2, double rho) {
  double k = 0.0;
  for (int x = 0; x <= 400; ++x) {
    const double log_p = x * std::log(l) - l - std::lgamma(x + 1.0), log_q = x * std::log(l2) - l2 - std::lgamma(x + 1.0);
    k += std::exp(rho * (log_p + log_q));
  }
  return k;
}

// The mixtures {w, params} and {v, params2}, built with `make`, against the double sum of `component_kernel`.
template <class Param, class Make, class ComponentKernel>
void expect_double_sum(const std::vector<double>& w, const std::vector<Param>& params, const std::vector<double>& v,
                       const std::vector<Param>& params2, Make make, ComponentKernel component_kernel) {
  for (double rho : kRhos) {
    double expected = 0.0;
    for (std::size_t m = 0; m < w.size(); ++m)
      for (std::size_t n = 0; n < v.size(); ++n)
        expected += std::pow(w[m] * v[n], rho) * component_kernel(params[m], params2[n], rho);
    std::vector<std::unique_ptr<Model>> a, b;
    for (const Param& p : params) a.push_back(make(p));
    for (const Param& p : params2) b.push_back(make(p));
    const double k = kernel(prepared(std::make_unique<MixtureModel>(w, std::move(a)), rho),
                            prepared(std::make_unique<MixtureModel>(v, std::move(b)), rho));
    EXPECT_LT(relative_error(k, expected), 1e-12) << "rho " << rho;
  }
}

TEST(Mixture, BernoulliMultinomialAndPoissonComponents) {
  using Vec = std::vector<double>;
  expect_double_sum<Vec>(
      {0.4, 0.6}, {{0.1, 0.8, 0.5}, {0.9, 0.2, 0.3}}, {0.25, 0.25, 0.5},
      {{0.5, 0.5, 0.5}, {0.3, 0.7, 0.05}, {1.0, 0.0, 0.6}},
      [](const Vec& g) { return std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(g)); },
      bernoulli_kernel);
  expect_double_sum<Vec>(
      {0.5, 0.5}, {{0.2, 0.3, 0.5}, {0.6, 0.4, 0.0}}, {1.0}, {{0.1, 0.1, 0.8}},
      [](const Vec& a) { return std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(a), Trials{}); },
      multinomial_kernel);
  expect_double_sum<double>(
      {0.1, 0.9}, {0.5, 7.0}, {0.3, 0.3, 0.4}, {2.0, 3.5, 12.0},
      [](double l) { return std::make_unique<PoissonModel>(std::vector<double>{l}); }, poisson_kernel);
}

TEST(Mixture, OneComponentMixtureEqualsItsComponent) {
  const std::function<std::unique_ptr<Model>(int)> plain_models[] = {
      [](int i) { return gaussian_1d(0.5 * i, 1.0 + i); },
      [](int i) {
        return std::make_unique<BernoulliModel>(SparseProbabilities::from_dense({0.2 + 0.3 * i, 0.7}));
      },
      [](int i) {
        return std::make_unique<MultinomialModel>(SparseProbabilities::from_dense({0.1 + 0.2 * i, 0.9 - 0.2 * i}),
                                                  Trials{});
      },
      [](int i) {
        return std::make_unique<PoissonModel>(std::vector<double>{1.5 + 2.0 * i, 0.25});
      },
  };
  for (const auto& plain : plain_models)
    for (double rho : kRhos) {
      auto one_component = [&](int i) {
        std::vector<std::unique_ptr<Model>> components;
        components.push_back(plain(i));
        return std::make_unique<MixtureModel>(std::vector<double>{1.0}, std::move(components));
      };
      const double expected = kernel(prepared(plain(0), rho), prepared(plain(1), rho));
      const double k = kernel(prepared(one_component(0), rho), prepared(one_component(1), rho));
      EXPECT_LT(relative_error(k, expected), 1e-12) << plain(0)->family().name << " rho " << rho;
    }
}

TEST(Mixture, MixtureAgainstPlainModelInBothOrders) {
  for (double rho : kRhos) {
    const PreparedModel mixture = prepared(mixture_model(kMixtureA), rho);
    const PreparedModel plain = prepared(gaussian_1d(0.5, 0.8), rho);
    check_compatible(mixture.model(), plain.model());
    check_compatible(plain.model(), mixture.model());
    double expected = 0.0;
    for (std::size_t m = 0; m < kMixtureA.w.size(); ++m)
      expected +=
          std::pow(kMixtureA.w[m], rho) * oracle::gaussian_ppk_1d(kMixtureA.mean[m], kMixtureA.var[m], 0.5, 0.8, rho);
    for (KernelKind kind : {KernelKind::ppk, KernelKind::ppk_norm}) {
      const double forward = evaluate(kind, mixture, plain), backward = evaluate(kind, plain, mixture);
      EXPECT_EQ(forward, backward) << "rho " << rho;
      const double want = kind == KernelKind::ppk
                              ? expected
                              : expected / std::sqrt(std::exp(mixture.log_self_kernel() + plain.log_self_kernel()));
      EXPECT_LT(relative_error(forward, want), 1e-10) << "rho " << rho;
    }
    const PreparedModel* columns[] = {&plain, &mixture};
    double batch[2];
    evaluate_many(KernelKind::ppk, mixture, columns, 2, batch);
    EXPECT_EQ(batch[0], evaluate(KernelKind::ppk, mixture, plain));
    EXPECT_EQ(batch[1], evaluate(KernelKind::ppk, mixture, mixture));
  }
  const auto other_space = std::make_unique<PoissonModel>(std::vector<double>{1.0});
  EXPECT_THROW(check_compatible(*mixture_model(kMixtureA), *other_space), KernelDomainError);
}

// A random mixture of 1..3 Gaussians over R^2 with random weights, means and diagonal covariances.
std::unique_ptr<Model> random_mixture(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const int size = 1 + static_cast<int>(rng() % 3);
  std::vector<double> weights;
  std::vector<std::unique_ptr<Model>> components;
  double total = 0.0;
  for (int m = 0; m < size; ++m) {
    weights.push_back(0.1 + uniform(rng));
    total += weights.back();
    components.push_back(GaussianModel::diagonal(Eigen::Vector2d(4 * uniform(rng) - 2, 4 * uniform(rng) - 2),
                                                 Eigen::Vector2d(0.2 + uniform(rng), 0.2 + 2 * uniform(rng))));
  }
  for (double& w : weights) w /= total;
  return std::make_unique<MixtureModel>(std::move(weights), std::move(components));
}

TEST(Mixture, GramMatricesArePositiveSemidefinite) {
  for (double rho : kRhos) {
    std::mt19937_64 rng(17);
    std::vector<PreparedModel> models;
    for (int i = 0; i < 12; ++i) models.emplace_back(random_mixture(rng), with_rho(rho));
    models.emplace_back(GaussianModel::isotropic(Eigen::Vector2d(0.3, -0.4), 0.7), with_rho(rho));  // a plain model too
    expect_positive_semidefinite(models, "mixtures at rho " + std::to_string(rho));
  }
}

TEST(Mixture, RowAndJsonRoundTrips) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 5; ++i) checks::expect_round_trips(*random_mixture(rng));
  std::vector<std::unique_ptr<Model>> components;
  components.push_back(std::make_unique<BernoulliModel>(SparseProbabilities::from_dense({0.0, 0.5, 1.0})));
  components.push_back(std::make_unique<BernoulliModel>(SparseProbabilities::from_dense({0.25, 0.25, 0.75})));
  checks::expect_round_trips(MixtureModel({0.0, 1.0}, std::move(components)));  // a weight of 0 too
}

// The row of {0.3: N(0.5, 2), 0.7: N(-1, 1)}: 3: M, 4..5: weights, 6: length of component 0,
// 7: its family code, 8: D, 9: form, 10: mean, 11: variance, 12: length of component 1, ...
Row two_gaussian_row() {
  std::vector<std::unique_ptr<Model>> components;
  components.push_back(gaussian_1d(0.5, 2.0));
  components.push_back(gaussian_1d(-1.0, 1.0));
  return encode_row(MixtureModel({0.3, 0.7}, std::move(components)));
}

// `row` with component 1 (from index 12 on) replaced by `entries`.
Row with_component_1(Row row, const Row& entries) {
  row.erase(std::find_if(row.begin(), row.end(), [](const RowEntry& e) { return e.index >= 12; }), row.end());
  row.insert(row.end(), entries.begin(), entries.end());
  return row;
}

double& value_at(Row& row, int index) {
  for (RowEntry& entry : row)
    if (entry.index == index) return entry.value;
  throw std::logic_error("no entry at index " + std::to_string(index));
}

TEST(Mixture, RejectsMalformedRows) {
  Row row = two_gaussian_row();
  ASSERT_EQ(value_at(row, 11), 2.0);
  ASSERT_EQ(value_at(row, 12), 5.0);
  EXPECT_EQ(checks::row_error(row), "");

  Row bad_sum = row;
  value_at(bad_sum, 4) = 0.25;
  value_at(bad_sum, 5) = 0.5;
  EXPECT_TRUE(mentions(checks::row_error(bad_sum),
                       {"mixture field \"weights\" (indices 4..5)", "summing to 1", "a sum of 0.75"}));

  Row bad_variance = row;
  value_at(bad_variance, 11) = -2.0;
  EXPECT_TRUE(mentions(checks::row_error(bad_variance),
                       {"mixture field \"components\" (indices 6..11)", "gaussian field \"var\" (index 11)", "-2"}));

  // Component 1 the mixture of one N(0, 1): 12: length 9; 13: code 8; 14: M = 1; 15: weight 1;
  // 16: length 5; 17: code 1; 18: D; 19: form; 20: mean 0 (omitted); 21: variance.
  const Row nested =
      with_component_1(row, {{12, 9}, {13, 8}, {14, 1}, {15, 1}, {16, 5}, {17, 1}, {18, 1}, {19, 1}, {21, 1}});
  EXPECT_TRUE(mentions(checks::row_error(nested), {"mixture field \"components\" (indices 12..21)", "do not nest"}));

  // Component 1 a Poisson model of rate 1: 12: length 3; 13: code 4; 14: D = 1; 15: rate.
  const Row other_space = with_component_1(row, {{12, 3}, {13, 4}, {14, 1}, {15, 1}});
  EXPECT_TRUE(mentions(checks::row_error(other_space),
                       {"mixture field \"components\" (indices 12..15)", "real vectors of dimension 1",
                        "poisson model over count vectors of dimension 1"}));
}

TEST(Mixture, RejectsMalformedJson) {
  const std::string gaussian = R"({"family":"gaussian","mean":[0],"var":1})";
  EXPECT_EQ(
      checks::json_error(R"({"family":"mixture","weights":[0.5,0.5],"components":[)" + gaussian + "," + gaussian + "]}"),
      "");
  EXPECT_TRUE(mentions(
      checks::json_error(R"({"family":"mixture","weights":[0.5,0.6],"components":[)" + gaussian + "," + gaussian + "]}"),
      {"mixture field \"weights\"", "summing to 1", "a sum of 1.1"}));
  EXPECT_TRUE(
      mentions(checks::json_error(
                   R"({"family":"mixture","weights":[1],"components":[{"family":"gaussian","mean":[0],"var":-1}]})"),
               {"mixture field \"components\"[0]", "gaussian field \"var\"", "-1"}));
  EXPECT_TRUE(
      mentions(checks::json_error(
                   R"({"family":"mixture","weights":[1],"components":[{"family":"mixture","weights":[1],"components":[)" +
                   gaussian + "]}]}"),
               {"mixture field \"components\"[0]", "do not nest"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"mixture","weights":[0.5,0.5],"components":[)" + gaussian +
                                          R"(,{"family":"poisson","rate":[1]}]})"),
                       {"mixture field \"components\"[1]", "count vectors"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"mixture","weights":[1],"components":[]})"),
                       {"mixture field \"components\"", "non-empty array"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"mixture","weights":[0.5,0.5],"components":[)" + gaussian + "]}"),
                       {"mixture field \"weights\"", "one weight per component"}));
}

// n points from the 1-D mixture `spec`, drawn with std::normal_distribution.
Eigen::MatrixXd sample(const Mixture1d& spec, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::discrete_distribution<int> label(spec.w.begin(), spec.w.end());
  Eigen::MatrixXd x(n, 1);
  for (int i = 0; i < n; ++i) {
    const int m = label(rng);
    x(i, 0) = std::normal_distribution<double>(spec.mean[m], std::sqrt(spec.var[m]))(rng);
  }
  return x;
}

TEST(MixtureEstimate, EmNeverDecreasesTheObjective) {
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(300, 2);
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    x.row(i) = Eigen::RowVector2d(normal(rng) + (i % 3 == 0 ? 3.0 : 0.0), 0.5 * normal(rng) + (i % 3 == 1 ? -2.0 : 0.0));
  for (CovarianceForm form : {CovarianceForm::isotropic, CovarianceForm::diagonal, CovarianceForm::full}) {
    MixtureFitOptions options;
    options.components = 3;
    options.covariance = form;
    options.tolerance = 0;
    options.iterations = 60;
    const GaussianMixtureFit fit = fit_gaussian_mixture(x, options);
    ASSERT_EQ(fit.log_likelihoods.size(), 61u);  // the start and after each of the 60 M-steps
    for (std::size_t t = 1; t < fit.log_likelihoods.size(); ++t)
      EXPECT_GE(fit.log_likelihoods[t], fit.log_likelihoods[t - 1] - 1e-12 * std::fabs(fit.log_likelihoods[t - 1]))
          << "iteration " << t;
  }
}

TEST(MixtureEstimate, RecoversTwoSeparatedGaussians) {
  const Mixture1d truth{{0.3, 0.7}, {-5.0, 5.0}, {1.0, 2.25}};
  MixtureFitOptions options;
  options.covariance = CovarianceForm::isotropic;
  const GaussianMixtureFit fit = fit_gaussian_mixture(sample(truth, 2000, 4), options);
  const MixtureModel& model = *fit.model;
  ASSERT_EQ(model.size(), 2u);
  const auto& g0 = static_cast<const GaussianModel&>(model.component(0));
  const auto& g1 = static_cast<const GaussianModel&>(model.component(1));
  const bool swapped = g0.mean()(0) > g1.mean()(0);
  const GaussianModel* by_mean[] = {swapped ? &g1 : &g0, swapped ? &g0 : &g1};
  for (int m = 0; m < 2; ++m) {
    EXPECT_NEAR(model.weights()[swapped ? 1 - m : m], truth.w[m], 0.04) << m;
    EXPECT_NEAR(by_mean[m]->mean()(0), truth.mean[m], 0.15) << m;
    EXPECT_NEAR(by_mean[m]->covariance()(0, 0), truth.var[m], 0.2 * truth.var[m]) << m;
  }
}

TEST(MixtureEstimate, DeterministicGivenTheSeedAndRejectsTooFewVectors) {
  const Eigen::MatrixXd x = sample(kMixtureB, 200, 11);
  MixtureFitOptions options;
  options.components = 3;
  const std::string first = format_entries(encode_row(*fit_gaussian_mixture(x, options).model));
  EXPECT_EQ(format_entries(encode_row(*fit_gaussian_mixture(x, options).model)), first);
  options.components = 201;
  try {
    fit_gaussian_mixture(x, options);
    ADD_FAILURE() << "no error";
  } catch (const EstimationError& error) {
    EXPECT_TRUE(mentions(error.what(), {"201 components", "200 vectors", "lower components"}));
  }
  const auto estimator = mixture_estimator(MixtureFitOptions{});
  const Statistics own = estimator->statistics({{{0, 1.0}}, {{0, 2.0}}}, 1);
  EXPECT_THROW(estimator->pool(own, own, 1.0), EstimationError);
}

TEST(MixtureEstimate, KernelDensityEstimate) {
  const auto estimator = kde_estimator(KdeFitOptions{0.5});
  const auto model = estimate(*estimator, {{{0, 2.0}}, {}}, 1);  // the vectors 2 and 0
  const auto& kde = static_cast<const MixtureModel&>(*model);
  ASSERT_EQ(kde.size(), 2u);
  EXPECT_EQ(kde.weights(), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(static_cast<const GaussianModel&>(kde.component(0)).mean()(0), 2.0);
  EXPECT_EQ(static_cast<const GaussianModel&>(kde.component(1)).covariance()(0, 0), 0.5);
  // At rho = 1, k = 1/2 sum_i N(x_i - 1; 0, 0.5 + 0.5) against the estimate from the vector 1:
  // 1/2 (N(1; 0, 1) + N(-1; 0, 1)) = exp(-1/2) / sqrt(2 pi).
  const double k = kernel(PreparedModel(estimate(*estimator, {{{0, 2.0}}, {}}, 1), with_rho(1.0)),
                          PreparedModel(estimate(*estimator, {{{0, 1.0}}}, 1), with_rho(1.0)));
  EXPECT_NEAR(k, 0.24197072451914337, 1e-15);
}

// A mixture pairs each of its M components with each of the other's: M M' + M' W + M W' multiply-adds
// beyond the components' parameters (W their summed kernel_work()), M (M + W) this row's share, held to
// kMaxKernelWork = 10^12 at prepare(). Three full-covariance Gaussians in D = 50 (D^3 each): 3 (3 + 3 x
// 125000) = 1125009; diagonal ones (0 each): 3 x 3. Two HMMs of 10 states with one-event emissions,
// (T + 1) 10^3 + 10 x 10 each: 2 (2 + 2 ((T + 1) 10^3 + 100)) = 4000 (T + 1) + 404, within the bound at
// T + 1 = 249999999 and not at 250000000, where each HMM alone is a quarter of it (100 such components,
// a row of a few hundred kB, asked for hours per kernel value).
TEST(Mixture, ComponentKernelsCountTowardTheKernelWork) {
  for (const bool full : {true, false}) {
    std::vector<std::unique_ptr<Model>> gaussians;
    for (int m = 0; m < 3; ++m) {
      const Eigen::VectorXd mean = Eigen::VectorXd::Constant(50, m);
      gaussians.push_back(full ? GaussianModel::full(mean, Eigen::MatrixXd::Identity(50, 50))
                               : GaussianModel::diagonal(mean, Eigen::VectorXd::Ones(50)));
    }
    MixtureModel mixture({0.25, 0.25, 0.5}, std::move(gaussians));
    mixture.prepare(with_rho(1.0));
    EXPECT_EQ(mixture.kernel_work(), full ? 1125009.0 : 9.0);
  }

  std::vector<std::unique_ptr<Model>> hmms;
  for (int m = 0; m < 2; ++m) {
    std::vector<std::unique_ptr<Model>> emissions;
    for (int q = 0; q < 10; ++q)
      emissions.push_back(std::make_unique<MultinomialModel>(SparseProbabilities::from_dense({0.5, 0.5}), Trials{}));
    hmms.push_back(std::make_unique<HmmModel>(Eigen::VectorXd::Constant(10, 0.1), Eigen::MatrixXd::Constant(10, 10, 0.1),
                                              std::move(emissions), 1));
  }
  MixtureModel mixture({0.5, 0.5}, std::move(hmms));
  EXPECT_EQ(checks::prepare_error(mixture, with_rho_and_length(1.0, 249999998)), "");
  EXPECT_EQ(mixture.kernel_work(), 4000.0 * 249999999 + 404);
  EXPECT_TRUE(mentions(checks::prepare_error(mixture, with_rho_and_length(1.0, 249999999)),
                       {"mixture kernel: the M x M' component kernels (M = 2) = 1000000000404 multiply-adds per "
                        "kernel evaluation, more than the 1e+12 one row may claim",
                        "give fewer or smaller components, or a smaller -d T"}));
}

}  // namespace
}  // namespace ppk
