// The tilted samplers of the exponential families (sampling.hpp, exponential_family.hpp) behind the
// Monte Carlo kernel (JMLR 2004 section 5): SampleGenerator's gamma variates against the Gamma(a, 1)
// moments and E log G = digamma(a); the exponential, gamma, Dirichlet and Poisson draws from p^rho / Z
// against the moments and frequencies of the tilted model written out here; log Z(rho) against
// quadrature (Boost exp_sinh / tanh_sinh), a direct series sum and enumeration; log p(x) against
// Boost's distributions; the multinomial over counts (the count form of the family) against
// enumeration of count vectors; the Monte Carlo estimates' convergence to each family's closed form
// (and a mixture's) at rho = 1/2, 1 and 2 (counts: 1/2, their kernel's only rho); rho outside the
// domain rejected.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/special_functions/digamma.hpp>

#include "kernel_params.hpp"
#include "montecarlo_checks.hpp"
#include "oracles.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/dirichlet.hpp"
#include "ppk/families/exponential.hpp"
#include "ppk/families/gamma.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/families/poisson.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {
namespace {

using checks::draws_of;
using checks::expect_converges;
using checks::expect_frequencies;
using checks::integrate_positive_reals;
using checks::integrate_unit_interval;
using checks::mentions;
using checks::monte_carlo;
using checks::pairs_of;
using checks::uniform;

// Sample mean and variance of `values` against `mean` and `variance` within 5 standard errors (the
// variance's from the fourth central moment `fourth`, E (x - mean)^4).
void expect_moments(const Eigen::ArrayXd& values, double mean, double variance, double fourth, const std::string& what) {
  const double n = static_cast<double>(values.size());
  const double sample_mean = values.mean();
  const double sample_variance = (values - sample_mean).square().sum() / (n - 1.0);
  EXPECT_NEAR(sample_mean, mean, 5.0 * std::sqrt(variance / n)) << what;
  EXPECT_NEAR(sample_variance, variance, 5.0 * std::sqrt((fourth - variance * variance) / n)) << what;
}

// The fourth central moment of Gamma(shape, rate): 3 shape (shape + 2) / rate^4.
double gamma_fourth_moment(double shape, double rate) { return 3.0 * shape * (shape + 2.0) / std::pow(rate, 4); }

// ---- The generator's gamma variates ----

TEST(SampleGeneratorGamma, DrawsHaveTheGammaMomentsAndMeanLogDigamma) {
  // Shapes below 1 (the u^(1/a) step), 1 and above (Marsaglia-Tsang).
  constexpr int kDraws = 100000;
  for (double shape : {0.05, 0.3, 1.0, 2.5, 40.0}) {
    SampleGenerator generator(17);
    Eigen::ArrayXd values(kDraws), logs(kDraws);
    for (int i = 0; i < kDraws; ++i) values[i] = std::exp(logs[i] = generator.log_gamma_variate(shape));
    ASSERT_TRUE((values > 0.0).all()) << shape;
    expect_moments(values, shape, shape, gamma_fourth_moment(shape, 1.0), "shape " + std::to_string(shape));
    // log G has mean digamma(a) and variance trigamma(a).
    const double log_sd = std::sqrt(boost::math::trigamma(shape));
    EXPECT_NEAR(logs.mean(), boost::math::digamma(shape), 5.0 * log_sd / std::sqrt(double(kDraws))) << shape;
  }
  // A tiny shape stays finite in logs where the variate itself underflows.
  SampleGenerator generator(3);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(std::isfinite(generator.log_gamma_variate(1e-3)));
}

// ---- The tilted samplers p^rho / Z ----

TEST(MonteCarloExponentialSampling, ExponentialDrawsHaveRateRhoOverScale) {
  const ExponentialModel model({0.5, 3.0});
  constexpr long kDraws = 100000;
  for (double rho : {0.5, 1.0, 2.0}) {
    const Eigen::MatrixXd x = draws_of(model, rho, kDraws);
    for (int d = 0; d < 2; ++d) {
      const double rate = rho / model.scales()[d];
      expect_moments(x.row(d).transpose().array(), 1.0 / rate, 1.0 / (rate * rate), gamma_fourth_moment(1.0, rate),
                     "rho " + std::to_string(rho) + " d " + std::to_string(d));
    }
  }
}

TEST(MonteCarloExponentialSampling, GammaDrawsHaveShapeRhoTimesAMinus1Plus1AndRateRhoOverScale) {
  const GammaModel model({0.6, 1.0, 4.0}, {2.0, 0.5, 1.5});
  constexpr long kDraws = 100000;
  for (double rho : {0.5, 1.0, 2.0}) {
    const Eigen::MatrixXd x = draws_of(model, rho, kDraws);
    for (int d = 0; d < 3; ++d) {
      const double shape = rho * (model.shapes()[d] - 1.0) + 1.0, rate = rho / model.scales()[d];
      const std::string what = "rho " + std::to_string(rho) + " d " + std::to_string(d);
      expect_moments(x.row(d).transpose().array(), shape / rate, shape / (rate * rate), gamma_fourth_moment(shape, rate),
                     what);
      const Eigen::ArrayXd logs = x.row(d).transpose().array().log();
      EXPECT_NEAR(logs.mean(), boost::math::digamma(shape) - std::log(rate),
                  5.0 * std::sqrt(boost::math::trigamma(shape) / kDraws))
          << what;
    }
  }
}

TEST(MonteCarloExponentialSampling, DirichletDrawsHaveAlphaRhoTimesAMinus1Plus1) {
  const DirichletModel model({0.7, 2.0, 5.0});
  constexpr long kDraws = 100000;
  for (double rho : {0.5, 1.0, 2.0}) {
    const Eigen::MatrixXd x = draws_of(model, rho, kDraws);
    EXPECT_LT((x.colwise().sum().array() - 1.0).abs().maxCoeff(), 1e-14);
    Eigen::Vector3d alpha;
    for (int d = 0; d < 3; ++d) alpha[d] = rho * (model.alpha()[d] - 1.0) + 1.0;
    const double total = alpha.sum();
    for (int d = 0; d < 3; ++d) {
      // Beta(alpha_d, total - alpha_d) marginal: mean m = alpha_d / total, variance m (1 - m) / (total + 1).
      const double m = alpha[d] / total, variance = m * (1.0 - m) / (total + 1.0);
      const double n = kDraws;
      EXPECT_NEAR(x.row(d).mean(), m, 5.0 * std::sqrt(variance / n)) << rho << " " << d;
      const Eigen::ArrayXd centered = x.row(d).transpose().array() - x.row(d).mean();
      // (a bound from the range: (x - m)^2 <= 1, so its variance is at most E (x - m)^2 = variance)
      EXPECT_NEAR(centered.square().mean(), variance, 5.0 * std::sqrt(variance / n)) << rho << " " << d;
    }
  }
}

// The tilted Poisson pmf pmf(x; l)^rho / sum_y pmf(y; l)^rho over x = 0..200, from Boost's pdf.
std::map<std::vector<double>, double> tilted_poisson(double rate, double rho) {
  std::map<std::vector<double>, double> tilted;
  double total = 0.0;
  for (int x = 0; x <= 200; ++x) {
    const double p = rate == 0.0 ? (x == 0 ? 1.0 : 0.0)
                                 : std::pow(boost::math::pdf(boost::math::poisson_distribution<>(rate), x), rho);
    if (p > 0.0) total += tilted[{double(x)}] = p;
  }
  for (auto& [x, p] : tilted) p /= total;
  return tilted;
}

TEST(MonteCarloExponentialSampling, PoissonDrawsHaveTheTiltedPmf) {
  const PoissonModel model({0.7, 0.0, 6.5});
  for (double rho : {0.3, 0.5, 1.0, 2.0}) {
    const Eigen::MatrixXd x = draws_of(model, rho, 100000);
    for (int d = 0; d < 3; ++d)
      expect_frequencies(tilted_poisson(model.rates()[d], rho), x.row(d),
                         "rho " + std::to_string(rho) + " d " + std::to_string(d));
  }
}

std::unique_ptr<MultinomialModel> counts_multinomial(const std::vector<double>& a, long trials) {
  return std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(a), Trials{Trials::fixed, trials, 1.0});
}

TEST(MonteCarloExponentialSampling, MultinomialCountDrawsHaveTheTiltedPmfAndZIsTheSumOverCountVectors) {
  // Probabilities with a zero (its count is always 0) and a sparse row's base; s = 4 trials.
  const std::vector<double> a = {0.2, 0.0, 0.3, 0.5};
  const std::unique_ptr<MultinomialModel> model = counts_multinomial(a, 4);
  for (double rho : {0.5, 1.0, 2.0}) {
    std::map<std::vector<double>, double> expected;
    double z = 0.0;
    oracle::for_each_count_vector(a.size(), 4, [&](const std::vector<long>& c) {
      const double p = oracle::multinomial_pmf(c, a);
      if (p == 0.0) return;
      z += expected[std::vector<double>(c.begin(), c.end())] = std::pow(p, rho);
      const std::vector<double> x(c.begin(), c.end());
      EXPECT_NEAR(model->log_probability(Eigen::Map<const Eigen::VectorXd>(x.data(), 4)), std::log(p), 1e-13);
    });
    for (auto& [c, p] : expected) p /= z;
    expect_frequencies(expected, draws_of(*model, rho, 100000), "rho " + std::to_string(rho));
    EXPECT_NEAR(model->log_tilted_normalizer(rho), std::log(z), 1e-13) << rho;
  }
  // Counts that do not sum to s, or fall on a zero probability: -inf.
  EXPECT_EQ(model->log_probability(Eigen::Vector4d(1.0, 0.0, 1.0, 1.0)), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(model->log_probability(Eigen::Vector4d(1.0, 1.0, 1.0, 1.0)), -std::numeric_limits<double>::infinity());
  // Z against enumeration for a larger s and D (35 * 4 = C(10, 3) * ... count vectors).
  const std::vector<double> b = {0.1, 0.4, 0.15, 0.35};
  double z = 0.0;
  oracle::for_each_count_vector(b.size(), 12,
                                [&](const std::vector<long>& c) { z += std::pow(oracle::multinomial_pmf(c, b), 0.5); });
  EXPECT_NEAR(counts_multinomial(b, 12)->log_tilted_normalizer(0.5), std::log(z), 1e-12);
}

// ---- log Z(rho) and log p(x) against independent oracles ----

TEST(MonteCarloExponentialSampling, LogNormalizersAreTheIntegralsOfPToTheRho) {
  for (double rho : kRhos) {
    // Exponential and gamma, one dimension each summed: exp_sinh quadrature of p^rho over (0, inf).
    const ExponentialModel exponential({0.4, 2.5});
    double log_z = 0.0;
    for (double b : exponential.scales())
      log_z += std::log(integrate_positive_reals([&](double x) { return std::pow(std::exp(-x / b) / b, rho); }));
    EXPECT_NEAR(exponential.log_tilted_normalizer(rho), log_z, 1e-10) << rho;
    const GammaModel gamma({0.8, 3.0}, {1.5, 0.3});
    log_z = 0.0;
    for (int d = 0; d < 2; ++d) {
      const boost::math::gamma_distribution<> g(gamma.shapes()[d], gamma.scales()[d]);
      log_z += std::log(integrate_positive_reals([&](double x) { return std::pow(boost::math::pdf(g, x), rho); }));
    }
    EXPECT_NEAR(gamma.log_tilted_normalizer(rho), log_z, 1e-9) << rho;
    // Dirichlet over 2 proportions: tanh_sinh quadrature over the unit interval.
    const DirichletModel beta({0.9, 2.5});
    const double log_beta = std::lgamma(0.9) + std::lgamma(2.5) - std::lgamma(3.4);
    const double z = integrate_unit_interval(
        [&](double x, double y) { return std::exp(rho * (-0.1 * std::log(x) + 1.5 * std::log(y) - log_beta)); });
    EXPECT_NEAR(beta.log_tilted_normalizer(rho), std::log(z), 1e-9) << rho;
    // Poisson: the series summed directly, x = 0..400, plus a rate of 0 (Z = 1).
    const PoissonModel poisson({3.5, 0.0, 40.0});
    log_z = 0.0;
    for (double l : {3.5, 40.0}) {
      double sum = 0.0;
      for (int x = 0; x <= 400; ++x) sum += std::exp(rho * (x * std::log(l) - l - std::lgamma(x + 1.0)));
      log_z += std::log(sum);
    }
    EXPECT_NEAR(poisson.log_tilted_normalizer(rho), log_z, 1e-12) << rho;
  }
}

TEST(MonteCarloExponentialSampling, LogProbabilitiesAreTheDensities) {
  const ExponentialModel exponential({0.4, 2.5});
  const GammaModel gamma({0.8, 3.0}, {1.5, 0.3});
  const DirichletModel dirichlet({0.7, 2.0, 5.0});
  const PoissonModel poisson({3.5, 0.0});
  const Eigen::Vector2d x(0.3, 1.7);
  const double exponential_density = std::exp(-0.3 / 0.4) / 0.4 * std::exp(-1.7 / 2.5) / 2.5;
  EXPECT_NEAR(exponential.log_probability(x), std::log(exponential_density), 1e-13);
  const double gamma_density = boost::math::pdf(boost::math::gamma_distribution<>(0.8, 1.5), 0.3) *
                               boost::math::pdf(boost::math::gamma_distribution<>(3.0, 0.3), 1.7);
  EXPECT_NEAR(gamma.log_probability(x), std::log(gamma_density), 1e-13);
  const Eigen::Vector3d p(0.2, 0.3, 0.5);
  const double log_b = std::lgamma(0.7) + std::lgamma(2.0) + std::lgamma(5.0) - std::lgamma(7.7);
  EXPECT_NEAR(dirichlet.log_probability(p), -0.3 * std::log(0.2) + std::log(0.3) + 4.0 * std::log(0.5) - log_b, 1e-13);
  EXPECT_NEAR(poisson.log_probability(Eigen::Vector2d(4.0, 0.0)),
              std::log(boost::math::pdf(boost::math::poisson_distribution<>(3.5), 4.0)), 1e-13);
  // Outside the support: -inf.
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(exponential.log_probability(Eigen::Vector2d(-1.0, 1.0)), minus_infinity);
  EXPECT_EQ(gamma.log_probability(Eigen::Vector2d(1.0, 0.0)), minus_infinity);
  EXPECT_EQ(dirichlet.log_probability(Eigen::Vector3d(0.0, 0.5, 0.5)), minus_infinity);
  EXPECT_EQ(poisson.log_probability(Eigen::Vector2d(1.0, 2.0)), minus_infinity);  // rate 0, count 2
}

// ---- Convergence to the closed forms ----

// Shapes and alphas of at least 1 keep the estimator's variance finite at rho = 2 (below 1 the
// integrand p^rho p'^(2 rho) of its second moment diverges at 0).
std::vector<double> uniform_vector(std::mt19937& rng, int size, double lo, double hi) {
  std::vector<double> values(size);
  for (double& v : values) v = uniform(rng, lo, hi);
  return values;
}

// expect_converges at rho = 1/2, 1 and 2 for pairs of models from `make`.
template <class Make>
void expect_converges_at_three_rhos(const std::string& what, Make make) {
  for (double rho : {0.5, 1.0, 2.0})
    expect_converges(what + " rho " + std::to_string(rho), pairs_of(make), with_rho(rho));
}

std::unique_ptr<Model> random_exponential(std::mt19937& rng) {
  return std::make_unique<ExponentialModel>(uniform_vector(rng, 2, 0.5, 2.0));
}

std::unique_ptr<Model> random_gamma(std::mt19937& rng) {
  std::vector<double> shapes = uniform_vector(rng, 2, 1.0, 4.0);
  return std::make_unique<GammaModel>(std::move(shapes), uniform_vector(rng, 2, 0.5, 2.0));
}

TEST(MonteCarloExponentialKernel, ExponentialAndGammaEstimatesConvergeToTheClosedForms) {
  expect_converges_at_three_rhos("exponential", random_exponential);
  expect_converges_at_three_rhos("gamma", random_gamma);
  // Across families: an exponential model against a gamma model (the exponential-gamma closed form).
  expect_converges(
      "exponential vs gamma",
      [](std::mt19937& rng) {
        std::unique_ptr<Model> exponential = random_exponential(rng);
        return std::make_pair(std::move(exponential), random_gamma(rng));
      },
      with_rho(1.0));
}

TEST(MonteCarloExponentialKernel, DirichletEstimatesConvergeToTheClosedForm) {
  expect_converges_at_three_rhos("dirichlet", [](std::mt19937& rng) -> std::unique_ptr<Model> {
    return std::make_unique<DirichletModel>(uniform_vector(rng, 3, 1.0, 4.0));
  });
}

TEST(MonteCarloExponentialKernel, PoissonEstimatesConvergeToTheClosedForm) {
  expect_converges_at_three_rhos("poisson", [](std::mt19937& rng) -> std::unique_ptr<Model> {
    return std::make_unique<PoissonModel>(uniform_vector(rng, 2, 0.5, 6.0));
  });
}

TEST(MonteCarloExponentialKernel, MultinomialCountEstimatesConvergeToTheBhattacharyyaKernel) {
  // rho = 1/2, the only rho of the kernel over counts (JMLR 2004 eq. 6); 5 categories, 6 trials.
  expect_converges("multinomial over counts", pairs_of([](std::mt19937& rng) -> std::unique_ptr<Model> {
                     std::vector<double> a = uniform_vector(rng, 5, 0.05, 1.0);
                     double total = 0.0;
                     for (double v : a) total += v;
                     for (double& v : a) v /= total;
                     return counts_multinomial(a, 6);
                   }),
                   with_rho(0.5));
}

TEST(MonteCarloExponentialKernel, MixturesOfGammasAndPoissonsConvergeAtRho1) {
  const auto mixture_of = [](std::mt19937& rng, auto make_component) -> std::unique_ptr<Model> {
    std::vector<std::unique_ptr<Model>> components;
    components.push_back(make_component(rng));
    components.push_back(make_component(rng));
    const double w = uniform(rng, 0.2, 0.8);
    return std::make_unique<MixtureModel>(std::vector<double>{w, 1.0 - w}, std::move(components));
  };
  expect_converges("mixture of gammas", pairs_of([&](std::mt19937& rng) {
                     return mixture_of(rng, [](std::mt19937& r) -> std::unique_ptr<Model> {
                       std::vector<double> shapes = uniform_vector(r, 1, 1.0, 4.0);
                       return std::make_unique<GammaModel>(std::move(shapes), uniform_vector(r, 1, 0.5, 2.0));
                     });
                   }),
                   with_rho(1.0));
  expect_converges("mixture of poissons", pairs_of([&](std::mt19937& rng) {
                     return mixture_of(rng, [](std::mt19937& r) -> std::unique_ptr<Model> {
                       return std::make_unique<PoissonModel>(uniform_vector(r, 2, 0.5, 6.0));
                     });
                   }),
                   with_rho(1.0));
}

// ---- The domain ----

TEST(MonteCarloExponentialRows, RhoOutsideTheTiltedDomainIsRejectedNamingTheModelAndRho) {
  // Gamma shape 0.5: p^rho / Z needs rho (0.5 - 1) + 1 > 0, rho < 2.
  const GammaModel gamma({2.0, 0.5}, {1.0, 1.0});
  EXPECT_NO_THROW(gamma.log_tilted_normalizer(1.9));
  for (double rho : {2.0, 3.0}) {
    try {
      gamma.log_tilted_normalizer(rho);
      ADD_FAILURE() << "no error at rho " << rho;
    } catch (const KernelDomainError& error) {
      EXPECT_TRUE(mentions(error.what(), {"gamma over positive real vectors of dimension 2", "p^rho / Z",
                                          ("rho = " + std::to_string(int(rho))).c_str(), "diverges"}));
    }
  }
  const DirichletModel dirichlet({0.25, 3.0});  // rho < 4/3
  EXPECT_NO_THROW(dirichlet.log_tilted_normalizer(1.3));
  try {
    dirichlet.log_tilted_normalizer(1.5);
    ADD_FAILURE() << "no error";
  } catch (const KernelDomainError& error) {
    EXPECT_TRUE(mentions(error.what(), {"dirichlet over probability vectors of dimension 2", "rho = 1.5", "diverges"}));
  }
  // A Poisson rate above 10^9: the tilted pmf is not tabulated.
  const PoissonModel poisson({1.0, 2e9});
  try {
    poisson.log_tilted_normalizer(1.0);
    ADD_FAILURE() << "no error";
  } catch (const KernelDomainError& error) {
    EXPECT_TRUE(mentions(error.what(), {"poisson over count vectors of dimension 2", "rho = 1", "coordinate 1", "10^9"}));
  }
  // Counts: D (s + 1)^2 / 2 = 10^4 * 101^2 / 2 steps of dynamic programming is above 10^7.
  try {
    counts_multinomial(std::vector<double>(10000, 1e-4), 100)->log_tilted_normalizer(0.5);
    ADD_FAILURE() << "no error";
  } catch (const KernelDomainError& error) {
    EXPECT_TRUE(mentions(error.what(), {"multinomial over counts with 100 trials of dimension 10000", "rho = 0.5",
                                        "dynamic programming", "10^7"}));
  }
  // Through a montecarlo row (the gamma kernel's own, stricter bound rho < 1 / (2 (1 - a)) comes first).
  EXPECT_TRUE(mentions(checks::domain_error(monte_carlo(gamma, 10), 3.0), {"gamma", "rho = 3"}));
}

}  // namespace
}  // namespace ppk
