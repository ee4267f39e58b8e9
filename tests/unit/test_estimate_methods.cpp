// Estimators by method (ML, MAP, posterior predictive) and shrinkage (estimate.hpp), against
// values computed by hand from the formulas, and the ML/MAP stationarity equations of the gamma
// and Dirichlet, evaluated independently with Boost's digamma.
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/math/special_functions/digamma.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ppk/families/bernoulli.hpp"
#include "ppk/families/dirichlet.hpp"
#include "error_message.hpp"
#include "estimate_helpers.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_gaussian.hpp"
#include "ppk/estimate/estimate_bernoulli.hpp"
#include "ppk/estimate/estimate_multinomial.hpp"
#include "ppk/estimate/estimate_poisson.hpp"
#include "ppk/estimate/estimate_exponential.hpp"
#include "ppk/estimate/estimate_gamma.hpp"
#include "ppk/estimate/estimate_dirichlet.hpp"
#include "ppk/families/exponential.hpp"
#include "ppk/families/gamma.hpp"
#include "ppk/families/poisson.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using ::testing::HasSubstr;

// The estimate as its family's model class.
template <class M>
const M& as(const std::unique_ptr<Model>& model) {
  const M* typed = dynamic_cast<const M*>(model.get());
  if (typed == nullptr) throw std::logic_error("the estimate is not of the expected family");
  return *typed;
}

// ---- Gaussian ------------------------------------------------------------------------------

TEST(EstimateGaussianMap, OneDimensionAgreesAcrossForms) {
  // x = 0, 2: n = 2, x-bar = 1, S = 2. Prior m0 = 0, k0 = 1, nu0 = 1, s0 = 1:
  // mu = 2 * 1 / 3 = 2/3; B = 1 * 2 / 3 * 1^2 = 2/3; sigma^2 = (1 + 2 + 2/3) / 6 = 11/18 for every
  // form (D = 1: full nu0 + n + D + 2 = diagonal nu0 + n + 3 = isotropic nu0 + nD + D + 2 = 6).
  for (CovarianceForm form : {CovarianceForm::full, CovarianceForm::diagonal, CovarianceForm::isotropic}) {
    GaussianFitOptions options;
    options.covariance = form;
    options.method = Method::map;
    options.prior_strength = 1;
    const auto model = estimate(*gaussian_estimator(options), {sparse({0}), sparse({2})}, 1);
    const auto& g = as<GaussianModel>(model);
    EXPECT_NEAR(g.mean()(0), 2.0 / 3, 1e-15);
    EXPECT_NEAR(g.covariance()(0, 0), 11.0 / 18, 1e-15);
  }
}

TEST(EstimateGaussianMap, FullCovarianceOfTheTriangle) {
  // (0,0), (2,0), (0,2): x-bar = (2/3, 2/3), S = [[8/3, -4/3], [-4/3, 8/3]]; k0 = 0 (flat mean
  // prior), nu0 = 1, s0 = 1: Sigma = (I + S) / (1 + 3 + 2 + 2) = [[11/24, -1/6], [-1/6, 11/24]].
  GaussianFitOptions options;
  options.method = Method::map;
  const auto model = estimate(*gaussian_estimator(options), {sparse({0, 0}), sparse({2, 0}), sparse({0, 2})}, 2);
  const auto& g = as<GaussianModel>(model);
  EXPECT_NEAR(g.mean()(0), 2.0 / 3, 1e-15);
  EXPECT_NEAR(g.covariance()(0, 0), 11.0 / 24, 1e-15);
  EXPECT_NEAR(g.covariance()(0, 1), -1.0 / 6, 1e-15);
  EXPECT_NEAR(g.covariance()(1, 1), 11.0 / 24, 1e-15);
}

TEST(EstimateGaussianKnownVariance, MapAndPosteriorPredictive) {
  // One vector (3, 0, -1), V = 0.5, prior mean 0 with k0 = 1: m = (3, 0, -1) / 2;
  // the posterior predictive has variance V (1 + 1 / (n + k0)) = 0.75.
  GaussianFitOptions options;
  options.covariance = CovarianceForm::isotropic;
  options.variance = 0.5;
  options.prior_strength = 1;
  options.method = Method::map;
  const auto map = estimate(*gaussian_estimator(options), {sparse({3, 0, -1})}, 3);
  EXPECT_EQ(as<GaussianModel>(map).mean()(0), 1.5);
  EXPECT_EQ(as<GaussianModel>(map).mean()(2), -0.5);
  EXPECT_EQ(as<GaussianModel>(map).covariance()(1, 1), 0.5);
  options.method = Method::posterior;
  const auto posterior = estimate(*gaussian_estimator(options), {sparse({3, 0, -1})}, 3);
  EXPECT_EQ(as<GaussianModel>(posterior).mean()(0), 1.5);
  EXPECT_DOUBLE_EQ(as<GaussianModel>(posterior).covariance()(1, 1), 0.75);
}

TEST(EstimateGaussianKnownVariance, PosteriorNeedsAKnownVariance) {
  GaussianFitOptions options;
  options.method = Method::posterior;
  EXPECT_THAT(estimation_error([&] { gaussian_estimator(options); }), HasSubstr("Student t"));
}

TEST(EstimateShrinkage, GaussianPoolsCentredStatistics) {
  // A: x = 0, 2 (n 2, mean 1, S 2); B: x = 4. Pooled with weight 1/2: the points 0, 2 and half of
  // 4: n = 2.5, mean = 4 / 2.5 = 1.6, S = 1.6^2 + 0.4^2 + 0.5 * 2.4^2 = 5.6, ML variance 5.6 / 2.5.
  GaussianFitOptions options;
  options.covariance = CovarianceForm::diagonal;
  const auto estimator = gaussian_estimator(options);
  const Statistics b = estimator->statistics({sparse({4})}, 1);
  const auto model = estimate(*estimator, {sparse({0}), sparse({2})}, 1, &b, 0.5);
  EXPECT_DOUBLE_EQ(as<GaussianModel>(model).mean()(0), 1.6);
  EXPECT_DOUBLE_EQ(as<GaussianModel>(model).covariance()(0, 0), 5.6 / 2.5);
}

// ---- Bernoulli and multinomial -------------------------------------------------------------

TEST(EstimateBernoulliMethods, MapAndMaximumLikelihood) {
  // k = (2, 0, 1, 0) of n = 3. MAP with alpha = 2: (k + 1) / (3 + 2); ML: k / 3.
  const std::vector<SparseVector> vectors = {sparse({1, 0, 7, 0}), sparse({-2, 0, 0, 0}), sparse({})};
  const auto map = estimate(*bernoulli_estimator({Method::map, 2.0}), vectors, 4);
  EXPECT_DOUBLE_EQ(as<BernoulliModel>(map).probabilities().at(0), 3.0 / 5);
  EXPECT_DOUBLE_EQ(as<BernoulliModel>(map).probabilities().at(3), 1.0 / 5);
  const auto ml = estimate(*bernoulli_estimator({Method::ml, 2.0}), vectors, 4);
  EXPECT_DOUBLE_EQ(as<BernoulliModel>(ml).probabilities().at(0), 2.0 / 3);
  EXPECT_EQ(as<BernoulliModel>(ml).probabilities().at(1), 0.0);
  EXPECT_THAT(estimation_error([] { bernoulli_estimator({Method::map, 0.5}); }), HasSubstr("alpha >= 1"));
}

TEST(EstimateMultinomialMethods, MapAndShrinkage) {
  // c = (3, 0.5, 1, 0), N = 4.5. MAP with alpha = 3: (c + 2) / (4.5 + 8).
  const std::vector<SparseVector> document = {sparse({2, 0, 1, 0}), sparse({1, 0.5, 0, 0})};
  const auto map = estimate(*multinomial_estimator({Method::map, 3.0, {}, nullptr}), document, 4);
  EXPECT_DOUBLE_EQ(as<MultinomialModel>(map).probabilities().at(0), 5 / 12.5);
  EXPECT_DOUBLE_EQ(as<MultinomialModel>(map).probabilities().at(3), 2 / 12.5);
  // Shrinkage toward pooled counts (0, 0, 0, 4) with lambda = 1/4, ML: c + (0, 0, 0, 1), N = 5.5.
  const auto estimator = multinomial_estimator({Method::ml, 1.0, {}, nullptr});
  const Statistics pooled = estimator->statistics({sparse({0, 0, 0, 4})}, 4);
  const auto shrunk = estimate(*estimator, document, 4, &pooled, 0.25);
  EXPECT_DOUBLE_EQ(as<MultinomialModel>(shrunk).probabilities().at(0), 3 / 5.5);
  EXPECT_DOUBLE_EQ(as<MultinomialModel>(shrunk).probabilities().at(3), 1 / 5.5);
}

// ---- Poisson and exponential ---------------------------------------------------------------

TEST(EstimatePoisson, MaximumLikelihoodMapAndShrinkage) {
  // (2, 0), (4, 1): n = 2, sum = (6, 1). ML (3, 0.5); MAP Gamma(2, 1): (6 + 1, 1 + 1) / 3.
  const std::vector<SparseVector> counts = {sparse({2, 0}), sparse({4, 1})};
  const auto ml = estimate(*poisson_estimator({Method::ml, 2, 1, std::nullopt, false}), counts, 2);
  EXPECT_EQ(as<PoissonModel>(ml).rates(), (std::vector<double>{3, 0.5}));
  const auto map = estimate(*poisson_estimator({Method::map, 2, 1, std::nullopt, false}), counts, 2);
  EXPECT_DOUBLE_EQ(as<PoissonModel>(map).rates()[0], 7.0 / 3);
  EXPECT_DOUBLE_EQ(as<PoissonModel>(map).rates()[1], 2.0 / 3);
  // The mode is at 0 when sum x + A - 1 < 0.
  const auto boundary = estimate(*poisson_estimator({Method::map, 0.5, 0, std::nullopt, false}), {sparse({0, 3})}, 2);
  EXPECT_EQ(as<PoissonModel>(boundary).rates()[0], 0.0);
  EXPECT_EQ(as<PoissonModel>(boundary).rates()[1], 2.5);
  // Pool of the examples {(2,0), (4,1)} and {(0,3)}: n = 3, sum = (6, 4). The second example shrunk
  // with lambda = 1/2: ((0, 3) + (3, 2)) / (1 + 1.5) = (1.2, 2).
  const auto estimator = poisson_estimator({Method::ml, 2, 1, std::nullopt, false});
  const Statistics pooled =
      estimator->pool(estimator->statistics(counts, 2), estimator->statistics({sparse({0, 3})}, 2), 1);
  EXPECT_EQ(pooled.count, 3);
  const auto shrunk = estimate(*estimator, {sparse({0, 3})}, 2, &pooled, 0.5);
  EXPECT_DOUBLE_EQ(as<PoissonModel>(shrunk).rates()[0], 1.2);
  EXPECT_DOUBLE_EQ(as<PoissonModel>(shrunk).rates()[1], 2.0);
}

TEST(EstimatePoisson, Errors) {
  EXPECT_THAT(estimation_error([] { estimate(*poisson_estimator({}), {sparse({1.5})}, 1); }),
              HasSubstr("value 1.5 at index 1 is not a count"));
  EXPECT_THAT(estimation_error([] {
                poisson_estimator({Method::posterior, 2, 1, std::nullopt, false});
              }),
              HasSubstr("negative binomial"));
}

// An estimator of a family without hidden states or components (not a latent-variable fit) refuses to
// fit a pooled model or adapt one, saying why and where the families that do are described.
TEST(EstimatePoisson, RefusesPooledAndAdaptedFits) {
  const auto estimator = poisson_estimator({});
  const Statistics counts = estimator->statistics({sparse({2, 0})}, 2);
  const auto pooled = estimate(*estimator, {sparse({2, 0})}, 2);
  const std::vector<std::function<void()>> latent_fits = {
      [&] { estimator->fit_pooled({counts}, 1); }, [&] { estimator->adapt(*pooled, counts, AdaptationOptions{}); }};
  for (const auto& fit : latent_fits) {
    try {
      fit();
      ADD_FAILURE() << "no error";
    } catch (const OptionError& e) {
      EXPECT_EQ(e.fields(), (std::vector<std::string>{"pooled", "adapt_from"}));
      EXPECT_TRUE(checks::mentions(e.what(), {"a poisson fit has no hidden states or components to pool and adapt",
                                              "pooled and adapt_from take", "docs/latent-models.md"}));
    }
  }
}

TEST(EstimateExponential, MaximumLikelihoodAndMap) {
  // (1, 3), (3, 1): ML scale (2, 2); MAP with A = 2, B = 1: (4 + 1) / (2 + 1).
  const std::vector<SparseVector> values = {sparse({1, 3}), sparse({3, 1})};
  const auto ml = estimate(*exponential_estimator({}), values, 2);
  EXPECT_EQ(as<ExponentialModel>(ml).scales(), (std::vector<double>{2, 2}));
  const auto map = estimate(*exponential_estimator({Method::map, 2, 1, std::nullopt, false}), values, 2);
  EXPECT_DOUBLE_EQ(as<ExponentialModel>(map).scales()[1], 5.0 / 3);
  EXPECT_THAT(estimation_error([] {
                estimate(*exponential_estimator({}), {sparse({1, 0})}, 2);
              }),
              HasSubstr("index 2 is 0 in every vector"));
}

// ---- gamma and Dirichlet: the stationarity equations -----------------------------------------

TEST(EstimateGamma, MaximumLikelihoodSolvesTheLikelihoodEquations) {
  // The ML equations: b = mean / a and log a - digamma(a) = log(mean) - mean(log x).
  const std::vector<double> x = {0.5, 1.5, 2.0, 4.0, 0.25};
  std::vector<SparseVector> vectors;
  double sum = 0, sum_log = 0;
  for (double v : x) {
    vectors.push_back(sparse({v}));
    sum += v;
    sum_log += std::log(v);
  }
  const auto model = estimate(*gamma_estimator({}), vectors, 1);
  const double a = as<GammaModel>(model).shapes()[0], b = as<GammaModel>(model).scales()[0];
  const double n = static_cast<double>(x.size());
  EXPECT_NEAR(std::log(a) - boost::math::digamma(a), std::log(sum / n) - sum_log / n, 1e-13);
  EXPECT_NEAR(a * b, sum / n, 1e-13);
  // MAP: the same equations for the data plus nu0 = 2 pseudo-observations typical of Gamma(3, 0.5).
  const auto map = estimate(*gamma_estimator({Method::map, 3, 0.5, 2, {}}), vectors, 1);
  const double a_map = as<GammaModel>(map).shapes()[0], b_map = as<GammaModel>(map).scales()[0];
  const double sum_map = sum + 2 * 1.5, sum_log_map = sum_log + 2 * (boost::math::digamma(3.0) + std::log(0.5));
  EXPECT_NEAR(std::log(a_map) - boost::math::digamma(a_map), std::log(sum_map / (n + 2)) - sum_log_map / (n + 2), 1e-13);
  EXPECT_NEAR(a_map * b_map, sum_map / (n + 2), 1e-13);
}

TEST(EstimateGamma, Errors) {
  EXPECT_THAT(estimation_error([] {
                estimate(*gamma_estimator({}), {sparse({1, 2}), sparse({1, 3})}, 2);
              }),
              HasSubstr("the values at index 1 are all equal"));
  EXPECT_THAT(estimation_error([] {
                estimate(*gamma_estimator({}), {sparse({1, 2}), sparse({0, 3})}, 2);
              }),
              HasSubstr("value 0 at index 1 (vector 2) (absent) is not > 0"));
  // A single value has a MAP estimate.
  EXPECT_NO_THROW(estimate(*gamma_estimator({Method::map, 1, 1, 1, {}}), {sparse({2})}, 1));
}

TEST(EstimateDirichlet, MaximumLikelihoodSolvesTheLikelihoodEquations) {
  // digamma(alpha_d) - digamma(sum alpha) = mean_i log x_id.
  const std::vector<std::vector<double>> x = {{0.2, 0.3, 0.5}, {0.6, 0.1, 0.3}, {0.3, 0.4, 0.3}, {0.25, 0.25, 0.5}};
  std::vector<SparseVector> vectors;
  std::vector<double> mean_log(3, 0.0);
  for (const auto& v : x) {
    vectors.push_back(sparse(v));
    for (int d = 0; d < 3; ++d) mean_log[d] += std::log(v[d]) / 4;
  }
  const auto model = estimate(*dirichlet_estimator({}), vectors, 3);
  const std::vector<double>& alpha = as<DirichletModel>(model).alpha();
  const double total = alpha[0] + alpha[1] + alpha[2];
  for (int d = 0; d < 3; ++d)
    EXPECT_NEAR(boost::math::digamma(alpha[d]) - boost::math::digamma(total), mean_log[d], 1e-12) << d;
}

TEST(EstimateDirichlet, MapOfPseudoObservationsAloneIsThePrior) {
  // One data vector at the prior's typical statistics is not available, but with nu0 huge the
  // pseudo-observations dominate: the MAP tends to Dirichlet(A0).
  const auto model = estimate(*dirichlet_estimator({Method::map, 2.5, 1e9, {}}), {sparse({0.2, 0.8})}, 2);
  EXPECT_NEAR(as<DirichletModel>(model).alpha()[0], 2.5, 1e-5);
  EXPECT_NEAR(as<DirichletModel>(model).alpha()[1], 2.5, 1e-5);
}

TEST(EstimateDirichlet, Errors) {
  EXPECT_THAT(estimation_error([] {
                estimate(*dirichlet_estimator({}), {sparse({0.2, 0.8})}, 2);
              }),
              HasSubstr("vectors are all equal (or it has only one)"));
  EXPECT_THAT(estimation_error([] {
                estimate(*dirichlet_estimator({}), {sparse({0.2, 0.7})}, 2);
              }),
              HasSubstr("sum to 0.9"));
  EXPECT_THAT(estimation_error([] { estimate(*dirichlet_estimator({}), {sparse({1})}, 1); }),
              HasSubstr("dimension >= 2"));
}

// ---- the pooled statistics file ------------------------------------------------------------

TEST(PooledStatistics, JsonRoundTripIsExact) {
  GaussianFitOptions options;
  const auto estimator = gaussian_estimator(options);
  const Statistics statistics = estimator->statistics({sparse({0.1, 1}), sparse({0.3, -2}), sparse({1.7, 0.25})}, 2);
  nlohmann::json json;
  statistics_to_json(statistics, json);
  const Statistics back = statistics_from_json(nlohmann::json::parse(json.dump()));
  EXPECT_EQ(back.family, "gaussian");
  EXPECT_EQ(back.dim, 2);
  EXPECT_EQ(back.count, 3);
  ASSERT_EQ(back.sums.size(), statistics.sums.size());
  for (const auto& [name, sum] : statistics.sums) EXPECT_EQ(back.sums.at(name), sum) << name;
  EXPECT_THAT(estimation_error([] { statistics_from_json(nlohmann::json::parse(R"({"family":"poisson"})")); }),
              HasSubstr("lack \"dim\""));
  EXPECT_THAT(
      estimation_error([] {
        statistics_from_json(nlohmann::json::parse(R"({"family":"poisson","dim":2,"count":1,"statistics":{"x":[]}})"));
      }),
      HasSubstr("\"x\": expected a non-empty array"));
  EXPECT_THAT(estimation_error([] {
                statistics_from_json(
                    nlohmann::json::parse(R"({"family":"gaussian","dim":2,"count":1,"statistics":{"s":[[1,2],[3]]}})"));
              }),
              HasSubstr("\"s\"[1]: expected an array of 2 numbers"));
}

TEST(PooledStatistics, FamilyAndDimensionMustMatch) {
  const auto estimator = poisson_estimator({});
  const Statistics pooled = estimator->statistics({sparse({1, 2, 3})}, 3);
  EXPECT_THAT(estimation_error([&] { estimate(*estimator, {sparse({1})}, 2, &pooled, 0.5); }),
              HasSubstr("over dimension 3, but this fit is a poisson over dimension 2"));
  // A statistic read back from a pool file has the shape the file gave it: one of another shape is
  // refused before it is added to the example's.
  Statistics reshaped = estimator->statistics({sparse({1, 2})}, 2);
  reshaped.sums.begin()->second = Eigen::MatrixXd::Ones(3, 1);
  EXPECT_THAT(estimation_error([&] {
                estimate(*estimator, {sparse({1, 1})}, 2, &reshaped, 0.5);
              }),
              HasSubstr("is 3 x 1, this poisson fit's is 2 x 1"));
}

TEST(EstimateFamilies, FittingIsDeterministic) {
  const std::vector<SparseVector> values = {sparse({0.3, 1.7, 2}), sparse({1.1, 0.2, 0.5}), sparse({0.4, 0.9, 1.3})};
  for (const auto& estimator : {gamma_estimator({}), exponential_estimator({})}) {
    const Row first = encode_row(*estimate(*estimator, values, 3));
    const Row second = encode_row(*estimate(*estimator, values, 3));
    ASSERT_EQ(first.size(), second.size());
    for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].value, second[i].value);
  }
}

}  // namespace
}  // namespace ppk
