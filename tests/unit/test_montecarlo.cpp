// The Monte Carlo kernel (montecarlo.hpp, JMLR 2004 section 5) and the samplers behind it
// (sampling.hpp): the generator against the C++ standard's mt19937_64 value and the moments of its
// draws; each family's tilted sampler p^rho / Z against moments and frequencies written out here
// (Gaussian covariance S / rho, multinomial a^rho / sum a^rho, Bernoulli, mixture moments, HMM
// sequence frequencies and the forward algorithm against enumeration over hidden paths) and Z(rho)
// against quadrature and enumeration; convergence of the estimate to the closed forms (error ~
// 1/sqrt(N), unbiased at the largest N) for Gaussian, multinomial, Bernoulli, mixture and HMM rows;
// the Gram matrix of montecarlo rows converging to the exact (PSD) one, its eigenvalues within the
// estimate's error of the exact ones (and negative where that error exceeds them); determinism, bit-for-bit symmetry and
// row-order independence of the Gram matrix; round trips and rejected models.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "emission_models.hpp"
#include "kernel_params.hpp"
#include "montecarlo_checks.hpp"
#include "oracles.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/families/montecarlo.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/families/poisson.hpp"
#include "ppk/core/row.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {
namespace {

using checks::clone;
using checks::draws_of;
using checks::expect_converges;
using checks::expect_frequencies;
using checks::json_error;
using checks::mentions;
using checks::monte_carlo;
using checks::normal;
using checks::pairs_of;
using checks::row_error;
using checks::uniform;

// ---- The generator ----

TEST(SampleGenerator, UsesTheStandardMersenneTwister) {
  // The C++ standard ([rand.predef]) fixes the 10000th output of a default-constructed mt19937_64;
  // uniform() keeps its top 53 bits.
  SampleGenerator generator(5489u);
  for (int i = 1; i < 10000; ++i) generator.uniform();
  EXPECT_EQ(generator.uniform(), (static_cast<double>(9981545732273789042ULL >> 11) + 0.5) * 0x1p-53);
}

TEST(SampleGenerator, DrawsHaveTheirDistributionsMoments) {
  SampleGenerator generator(42);
  constexpr int kDraws = 200000;
  double u_sum = 0.0, u_square = 0.0, z_sum = 0.0, z_square = 0.0, z_fourth = 0.0;
  for (int i = 0; i < kDraws; ++i) {
    const double u = generator.uniform(), z = generator.normal();
    ASSERT_TRUE(u > 0.0 && u < 1.0);
    u_sum += u;
    u_square += u * u;
    z_sum += z;
    z_square += z * z;
    z_fourth += z * z * z * z;
  }
  // Uniform: mean 1/2, E u^2 = 1/3. Normal: mean 0, variance 1, E z^4 = 3. Bounds: 5 standard errors.
  const double n = kDraws;
  EXPECT_NEAR(u_sum / n, 0.5, 5.0 * std::sqrt(1.0 / 12.0 / n));
  EXPECT_NEAR(u_square / n, 1.0 / 3.0, 5.0 * std::sqrt(4.0 / 45.0 / n));
  EXPECT_NEAR(z_sum / n, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(z_square / n, 1.0, 5.0 * std::sqrt(2.0 / n));
  EXPECT_NEAR(z_fourth / n, 3.0, 5.0 * std::sqrt(96.0 / n));
  // categorical: weights 1, 0, 3 (cumulative 1, 1, 4).
  const double cumulative[] = {1.0, 1.0, 4.0};
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < kDraws; ++i) ++counts[generator.categorical(cumulative, 3)];
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[0] / n, 0.25, 5.0 * std::sqrt(0.25 * 0.75 / n));
}

// ---- The tilted samplers p^rho / Z and Z(rho) ----

TEST(MonteCarloSampling, GaussianDrawsHaveMeanMuAndCovarianceSigmaOverRho) {
  Eigen::Vector2d mean(1.0, -2.0);
  Eigen::Matrix2d sigma;
  sigma << 2.0, 0.6, 0.6, 0.5;
  const std::unique_ptr<Model> models[] = {GaussianModel::full(mean, sigma),
                                           GaussianModel::diagonal(mean, sigma.diagonal()),
                                           GaussianModel::isotropic(mean, 0.7)};
  const Eigen::Matrix2d expected_sigma[] = {sigma, Eigen::Matrix2d(sigma.diagonal().asDiagonal()),
                                            0.7 * Eigen::Matrix2d::Identity()};
  constexpr long kDraws = 100000;
  for (int form = 0; form < 3; ++form)
    for (double rho : {0.5, 1.0, 2.0}) {
      const Eigen::MatrixXd x = draws_of(*models[form], rho, kDraws);
      const Eigen::Vector2d sample_mean = x.rowwise().mean();
      const Eigen::MatrixXd centered = x.colwise() - sample_mean;
      const Eigen::Matrix2d sample_cov = centered * centered.transpose() / (kDraws - 1.0);
      const Eigen::Matrix2d tilted = expected_sigma[form] / rho;
      for (int i = 0; i < 2; ++i) {
        EXPECT_NEAR(sample_mean[i], mean[i], 5.0 * std::sqrt(tilted(i, i) / kDraws)) << form << " rho " << rho;
        for (int j = 0; j < 2; ++j)  // var of a sample covariance entry: (S_ii S_jj + S_ij^2) / N
          EXPECT_NEAR(sample_cov(i, j), tilted(i, j),
                      5.0 * std::sqrt((tilted(i, i) * tilted(j, j) + tilted(i, j) * tilted(i, j)) / kDraws))
              << form << " rho " << rho << " entry " << i << j;
      }
    }
}

TEST(MonteCarloSampling, GaussianNormalizerIsTheIntegralOfPToTheRho) {
  const std::unique_ptr<GaussianModel> model = GaussianModel::isotropic(Eigen::VectorXd::Constant(1, 0.3), 1.7);
  for (double rho : kRhos) {
    const double z =
        oracle::integrate([&](double x) { return std::pow(oracle::normal_density(x, 0.3, 1.7), rho); }, -60.0, 60.0);
    EXPECT_NEAR(model->log_tilted_normalizer(rho), std::log(z), 1e-10) << rho;
  }
  // 2-D full covariance: Z(rho) against nested quadrature of N^rho.
  const oracle::Gaussian2 g{0.5, -1.0, 1.2, 0.4, 0.8};
  Eigen::Matrix2d cov;
  cov << g.s11, g.s12, g.s12, g.s22;
  const std::unique_ptr<GaussianModel> full = GaussianModel::full(Eigen::Vector2d(g.m1, g.m2), cov);
  for (double rho : {0.5, 2.0}) {
    const double z = oracle::integrate(
        [&](double x1) {
          return oracle::integrate([&](double x2) { return std::pow(g.density(x1, x2), rho); }, -30.0, 30.0, 1e-11, 10);
        },
        -30.0, 30.0, 1e-11, 10);
    EXPECT_NEAR(full->log_tilted_normalizer(rho), std::log(z), 1e-8) << rho;
  }
}

TEST(MonteCarloSampling, MultinomialDrawsCategoriesWithProbabilitiesAToTheRhoOverTheirSum) {
  // The base 0.1 covers categories 0, 1, 2, 4 and 6 (the unlisted block); 3 and 5 are listed.
  const std::vector<double> a = {0.1, 0.1, 0.1, 0.25, 0.1, 0.25, 0.1};
  const std::unique_ptr<Model> model = one_event_multinomial(a);
  ASSERT_EQ(static_cast<const MultinomialModel&>(*model).probabilities().listed(), 2u);
  for (double rho : {0.5, 1.0, 2.0}) {
    double z = 0.0;
    for (double p : a) z += std::pow(p, rho);
    std::map<std::vector<double>, double> expected;
    for (std::size_t d = 0; d < a.size(); ++d) expected[{static_cast<double>(d)}] = std::pow(a[d], rho) / z;
    expect_frequencies(expected, draws_of(*model, rho, 100000), "rho " + std::to_string(rho));
    EXPECT_NEAR(as_samplable(*model)->log_tilted_normalizer(rho), std::log(z), 1e-14);
  }
  // A zero-probability category is never drawn; log p there is -inf.
  const std::unique_ptr<Model> with_zero = one_event_multinomial({0.5, 0.0, 0.5});
  const Eigen::MatrixXd draws = draws_of(*with_zero, 1.0, 10000);
  EXPECT_TRUE((draws.array() != 1.0).all());
  EXPECT_EQ(as_samplable(*with_zero)->log_probability(Eigen::VectorXd::Constant(1, 1.0)),
            -std::numeric_limits<double>::infinity());
}

TEST(MonteCarloSampling, BernoulliDrawsEachCoordinateTilted) {
  const std::vector<double> g = {0.2, 0.7, 0.2};
  const BernoulliModel model(SparseProbabilities::from_dense(g));
  for (double rho : {0.5, 1.0, 2.0}) {
    // Enumeration over {0,1}^3: p^rho / Z with Z = sum_x p(x)^rho.
    std::map<std::vector<double>, double> expected;
    double z = 0.0;
    for (int bits = 0; bits < 8; ++bits) {
      std::vector<double> x(3);
      double p = 1.0;
      for (int d = 0; d < 3; ++d) {
        x[d] = (bits >> d) & 1;
        p *= x[d] == 1.0 ? g[d] : 1.0 - g[d];
      }
      expected[x] = std::pow(p, rho);
      z += std::pow(p, rho);
      EXPECT_NEAR(model.log_probability(Eigen::Map<const Eigen::VectorXd>(x.data(), 3)), std::log(p), 1e-14);
    }
    for (auto& [x, p] : expected) p /= z;
    expect_frequencies(expected, draws_of(model, rho, 100000), "rho " + std::to_string(rho));
    EXPECT_NEAR(model.log_tilted_normalizer(rho), std::log(z), 1e-14);
  }
}

std::unique_ptr<Model> mixture_of(std::vector<double> weights, std::vector<std::unique_ptr<Model>> components) {
  return std::make_unique<MixtureModel>(std::move(weights), std::move(components));
}

TEST(MonteCarloSampling, MixtureDrawsHaveTheMixtureMoments) {
  std::vector<std::unique_ptr<Model>> components;
  components.push_back(gaussian_1d({-2.0, 0.5}));
  components.push_back(gaussian_1d({3.0, 2.0}));
  const std::unique_ptr<Model> mixture = mixture_of({0.3, 0.7}, std::move(components));
  // mean = sum w m, E x^2 = sum w (v + m^2).
  const double mean = 0.3 * -2.0 + 0.7 * 3.0, second = 0.3 * (0.5 + 4.0) + 0.7 * (2.0 + 9.0);
  constexpr long kDraws = 100000;
  const Eigen::MatrixXd x = draws_of(*mixture, 1.0, kDraws);
  const double variance = second - mean * mean;
  EXPECT_NEAR(x.mean(), mean, 5.0 * std::sqrt(variance / kDraws));
  EXPECT_NEAR(x.array().square().mean(), second, 0.05 * second);
  // log p(x) against the written-out density.
  for (double at : {-3.0, 0.0, 2.5})
    EXPECT_NEAR(as_samplable(*mixture)->log_probability(Eigen::VectorXd::Constant(1, at)),
                std::log(0.3 * oracle::normal_density(at, -2.0, 0.5) + 0.7 * oracle::normal_density(at, 3.0, 2.0)),
                1e-13);
  EXPECT_EQ(as_samplable(*mixture)->log_tilted_normalizer(1.0), 0.0);
}

// A 2-state HMM with one-event multinomial emissions over 3 symbols, T = 2, written out.
struct DiscreteHmm {
  Eigen::Vector2d start{0.6, 0.4};
  Eigen::Matrix2d trans = (Eigen::Matrix2d() << 0.7, 0.3, 0.2, 0.8).finished();
  std::vector<std::vector<double>> emit = {{0.5, 0.4, 0.1}, {0.1, 0.3, 0.6}};
  // p(X) = sum over hidden paths s of pi_s0 e_s0(x0) prod_t A_{s(t-1) s(t)} e_st(xt).
  double probability(const std::vector<int>& x) const {
    double total = 0.0;
    const int paths = 1 << x.size();
    for (int path = 0; path < paths; ++path) {
      int previous = path & 1;
      double p = start[previous] * emit[previous][x[0]];
      for (std::size_t t = 1; t < x.size(); ++t) {
        const int state = (path >> t) & 1;
        p *= trans(previous, state) * emit[state][x[t]];
        previous = state;
      }
      total += p;
    }
    return total;
  }
  std::unique_ptr<HmmModel> model(long length) const {
    std::vector<std::unique_ptr<Model>> emissions;
    for (const auto& e : emit) emissions.push_back(one_event_multinomial(e));
    return std::make_unique<HmmModel>(start, trans, std::move(emissions), length);
  }
};

TEST(MonteCarloSampling, HmmDrawsSequencesWithTheirProbabilitiesAndTheForwardAlgorithmIsExact) {
  const DiscreteHmm hmm;
  std::unique_ptr<HmmModel> model = hmm.model(2);
  model->prepare(with_rho(1.0));
  std::map<std::vector<double>, double> expected;
  double total = 0.0;
  for (int x0 = 0; x0 < 3; ++x0)
    for (int x1 = 0; x1 < 3; ++x1)
      for (int x2 = 0; x2 < 3; ++x2) {
        const double p = hmm.probability({x0, x1, x2});
        expected[{double(x0), double(x1), double(x2)}] = p;
        total += p;
        EXPECT_NEAR(model->log_probability(Eigen::Vector3d(x0, x1, x2)), std::log(p), 1e-13);
      }
  EXPECT_NEAR(total, 1.0, 1e-14);
  expect_frequencies(expected, draws_of(*model, 1.0, 100000), "hmm T = 2");
  // -d 5 makes the samples sequences of 6.
  model->prepare(with_rho_and_length(1.0, 5));
  EXPECT_EQ(model->sample_size(), 6);
  // The forward algorithm stays finite where p(X) underflows: a sequence of 2001 rare symbols.
  model->prepare(with_rho_and_length(1.0, 2000));
  const double log_p = model->log_probability(Eigen::VectorXd::Constant(2001, 0.0));
  EXPECT_TRUE(std::isfinite(log_p));
  EXPECT_LT(log_p, -1000.0);
}

// ---- Convergence to the closed forms ----

std::unique_ptr<Model> random_full_gaussian(std::mt19937& rng) {
  Eigen::Matrix2d b;
  b << normal(rng, 1.0), normal(rng, 1.0), normal(rng, 1.0), normal(rng, 1.0);
  return GaussianModel::full(Eigen::Vector2d(normal(rng, 0.5), normal(rng, 0.5)),
                             b * b.transpose() / 2.0 + 0.5 * Eigen::Matrix2d::Identity());
}

std::unique_ptr<Model> random_diagonal_gaussian(std::mt19937& rng, long dim = 3) {
  Eigen::VectorXd mean(dim), variances(dim);
  for (long d = 0; d < dim; ++d) {
    mean[d] = normal(rng, 0.5);
    variances[d] = uniform(rng, 0.5, 2.0);
  }
  return GaussianModel::diagonal(mean, variances);
}

std::vector<double> random_probabilities(std::mt19937& rng, int size) {
  std::vector<double> p(size);
  double sum = 0.0;
  for (double& v : p) sum += v = uniform(rng, 0.05, 1.0);
  for (double& v : p) v /= sum;
  return p;
}

std::unique_ptr<Model> random_mixture(std::mt19937& rng) {
  std::vector<std::unique_ptr<Model>> components;
  components.push_back(random_diagonal_gaussian(rng, 2));
  components.push_back(random_diagonal_gaussian(rng, 2));
  const double w = uniform(rng, 0.2, 0.8);
  return mixture_of({w, 1.0 - w}, std::move(components));
}

// A 2-state HMM over 1-D Gaussians (or one-event multinomials over 3 symbols), T = 3.
std::unique_ptr<Model> random_hmm(std::mt19937& rng, bool gaussian_emissions) {
  const std::vector<double> start = random_probabilities(rng, 2), row0 = random_probabilities(rng, 2),
                            row1 = random_probabilities(rng, 2);
  Eigen::Matrix2d trans;
  trans << row0[0], row0[1], row1[0], row1[1];
  std::vector<std::unique_ptr<Model>> emissions;
  for (int q = 0; q < 2; ++q)
    emissions.push_back(gaussian_emissions ? gaussian_1d({normal(rng, 1.0), uniform(rng, 0.5, 1.5)})
                                           : one_event_multinomial(random_probabilities(rng, 3)));
  return std::make_unique<HmmModel>(Eigen::Vector2d(start[0], start[1]), trans, std::move(emissions), 3);
}

TEST(MonteCarloKernel, GaussianEstimatesConvergeToTheClosedForm) {
  for (double rho : {0.5, 1.0, 2.0}) {
    expect_converges("full rho " + std::to_string(rho), pairs_of(random_full_gaussian), with_rho(rho));
    expect_converges("diagonal rho " + std::to_string(rho),
                     pairs_of([](std::mt19937& rng) { return random_diagonal_gaussian(rng); }), with_rho(rho));
  }
}

TEST(MonteCarloKernel, MultinomialAndBernoulliEstimatesConvergeToTheClosedForm) {
  for (double rho : {0.5, 1.0, 2.0}) {
    expect_converges("multinomial rho " + std::to_string(rho),
                     pairs_of([](std::mt19937& rng) { return one_event_multinomial(random_probabilities(rng, 6)); }),
                     with_rho(rho));
    expect_converges("bernoulli rho " + std::to_string(rho), pairs_of([](std::mt19937& rng) -> std::unique_ptr<Model> {
                       std::vector<double> g(4);
                       for (double& v : g) v = uniform(rng, 0.1, 0.9);
                       return std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(g));
                     }),
                     with_rho(rho));
  }
}

TEST(MonteCarloKernel, MixtureAndHmmEstimatesConvergeToTheClosedFormAtRho1) {
  expect_converges("mixture", pairs_of(random_mixture), with_rho(1.0));
  expect_converges("hmm, Gaussian emissions", pairs_of([](std::mt19937& rng) { return random_hmm(rng, true); }),
                   with_rho(1.0));
  expect_converges("hmm, multinomial emissions", pairs_of([](std::mt19937& rng) { return random_hmm(rng, false); }),
                   with_rho(1.0));
  // -d 5: sequences of 6 instead of the stored 4.
  expect_converges("hmm -d 5", pairs_of([](std::mt19937& rng) { return random_hmm(rng, false); }),
                   with_rho_and_length(1.0, 5));
  // Across families: a Gaussian against a mixture of Gaussians (the closed form: mixture vs plain).
  expect_converges(
      "gaussian vs mixture",
      [](std::mt19937& rng) {
        std::unique_ptr<Model> plain = random_diagonal_gaussian(rng, 2);
        return std::make_pair(std::move(plain), random_mixture(rng));
      },
      with_rho(1.0));
}

TEST(MonteCarloKernel, EqualWeightsAlsoConverge) {
  // beta = 1/2 with N and 4N samples on the two sides, against the Gaussian closed form.
  std::mt19937 rng(5);
  const KernelParams params = with_rho(1.0);
  for (int k = 0; k < 5; ++k) {
    const std::unique_ptr<Model> p = random_full_gaussian(rng), q = random_full_gaussian(rng);
    const double exact = log_kernel(PreparedModel(clone(*p), params), PreparedModel(clone(*q), params));
    const PreparedModel a(monte_carlo(*p, 20000, BetaRule::equal), params), b(monte_carlo(*q, 80000), params);
    EXPECT_NEAR(log_kernel(a, b), exact, 0.05);
    EXPECT_EQ(log_kernel(a, b), log_kernel(b, a));
  }
}

// ---- Gram matrices ----

// The ppk Gram matrix of rows (rho = 1).
Eigen::MatrixXd gram_of(const std::vector<PreparedModel>& rows) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd gram(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      gram(i, j) = evaluate(KernelKind::ppk, rows[static_cast<std::size_t>(i)], rows[static_cast<std::size_t>(j)]);
  return gram;
}
std::vector<PreparedModel> prepared(const std::vector<std::unique_ptr<Model>>& models, long samples) {
  std::vector<PreparedModel> rows;
  for (const auto& m : models) rows.emplace_back(samples > 0 ? monte_carlo(*m, samples) : clone(*m), with_rho(1.0));
  return rows;
}
Eigen::VectorXd eigenvalues_of(const Eigen::MatrixXd& symmetric) {
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric).eigenvalues();
}

// The Gram matrix K_N of montecarlo rows of N draws estimates the Gram matrix K of their inner models,
// which is positive semidefinite; K_N itself need not be (JMLR 2004 section 5). What holds: K_N is
// symmetric, its error E = K_N - K shrinks like N^-1/2 (||E||_F / ||K||_F over N = 100, 400, 1600,
// 6400: fitted slope of its log against log N within [-0.7, -0.3], below 5% at 6400), and each
// eigenvalue of K_N lies within ||E||_2 of K's (Weyl's inequality for symmetric matrices), so its
// smallest is at least lambda_min(K) - ||E||_2 >= -||E||_2. Ten rows: diagonal Gaussians and
// mixtures of Gaussians in 2-D.
TEST(MonteCarloGram, ConvergesToTheExactPositiveSemidefiniteGram) {
  std::mt19937 rng(31);
  std::vector<std::unique_ptr<Model>> models;
  for (int i = 0; i < 5; ++i) {
    models.push_back(random_diagonal_gaussian(rng, 2));
    models.push_back(random_mixture(rng));
  }
  const Eigen::MatrixXd exact = gram_of(prepared(models, 0));
  const Eigen::VectorXd exact_eigenvalues = eigenvalues_of(exact);
  ASSERT_GE(exact_eigenvalues.minCoeff(), -1e-9 * exact_eigenvalues.maxCoeff());
  const long kSampleCounts[] = {100, 400, 1600, 6400};
  std::vector<double> log_errors;
  for (long n : kSampleCounts) {
    const Eigen::MatrixXd estimate = gram_of(prepared(models, n));
    ASSERT_TRUE(estimate.allFinite()) << n;
    EXPECT_EQ(estimate, estimate.transpose()) << n;
    const Eigen::MatrixXd error = estimate - exact;
    const double spectral_error = eigenvalues_of(error).cwiseAbs().maxCoeff();
    const Eigen::VectorXd estimate_eigenvalues = eigenvalues_of(estimate);
    for (Eigen::Index k = 0; k < exact.rows(); ++k)
      EXPECT_LE(std::fabs(estimate_eigenvalues(k) - exact_eigenvalues(k)), spectral_error * (1 + 1e-12) + 1e-15)
          << "N " << n << ", eigenvalue " << k;
    EXPECT_GE(estimate_eigenvalues.minCoeff(), -spectral_error * (1 + 1e-12) - 1e-15) << n;
    log_errors.push_back(std::log(error.norm() / exact.norm()));
  }
  double x_mean = 0.0, y_mean = 0.0, sxy = 0.0, sxx = 0.0;
  for (int i = 0; i < 4; ++i) {
    x_mean += std::log(static_cast<double>(kSampleCounts[i])) / 4.0;
    y_mean += log_errors[i] / 4.0;
  }
  for (int i = 0; i < 4; ++i) {
    const double dx = std::log(static_cast<double>(kSampleCounts[i])) - x_mean;
    sxy += dx * (log_errors[i] - y_mean);
    sxx += dx * dx;
  }
  EXPECT_GE(sxy / sxx, -0.7);
  EXPECT_LE(sxy / sxx, -0.3);
  EXPECT_LT(std::exp(log_errors[3]), 0.05);
}

// Rows of nearly equal models: K (six isotropic Gaussians N((0.01 i, 0), I)) is nearly singular, its
// smallest eigenvalues below 1e-6 of its largest, and the estimate's errors at N = 100 make its
// smallest eigenvalue negative, within the bound -||K_N - K||_2 above; at N = 6400 that bound and
// the negative eigenvalue are smaller.
TEST(MonteCarloGram, NearlyEqualRowsHaveANegativeEigenvalueWithinTheEstimatesError) {
  std::vector<std::unique_ptr<Model>> models;
  for (int i = 0; i < 6; ++i) models.push_back(GaussianModel::isotropic(Eigen::Vector2d(0.01 * i, 0.0), 1.0));
  const Eigen::MatrixXd exact = gram_of(prepared(models, 0));
  const Eigen::VectorXd exact_eigenvalues = eigenvalues_of(exact);
  ASSERT_GE(exact_eigenvalues.minCoeff(), -1e-9 * exact_eigenvalues.maxCoeff());
  ASSERT_LT(exact_eigenvalues(1), 1e-6 * exact_eigenvalues.maxCoeff());
  std::vector<double> smallest, bound;
  for (long n : {100L, 6400L}) {
    const Eigen::MatrixXd estimate = gram_of(prepared(models, n));
    smallest.push_back(eigenvalues_of(estimate).minCoeff());
    bound.push_back(-eigenvalues_of(estimate - exact).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(smallest[0], 0.0);
  EXPECT_GE(smallest[0], bound[0] * (1 + 1e-12));
  EXPECT_GT(bound[1], bound[0]);
  EXPECT_GT(smallest[1], smallest[0]);
}

// ---- Determinism and symmetry ----

std::vector<std::unique_ptr<Model>> assorted_rows() {
  std::mt19937 rng(11);
  std::vector<std::unique_ptr<Model>> rows;
  rows.push_back(monte_carlo(*random_diagonal_gaussian(rng, 2), 300));
  rows.push_back(monte_carlo(*random_diagonal_gaussian(rng, 2), 500, BetaRule::equal));
  rows.push_back(monte_carlo(*random_mixture(rng), 200));
  rows.push_back(monte_carlo(*random_mixture(rng), 700));
  std::unique_ptr<Model> full = random_full_gaussian(rng);
  rows.push_back(monte_carlo(*full, 400));
  return rows;
}

TEST(MonteCarloKernel, TheSameRowDrawsTheSameSamples) {
  std::mt19937 rng(3);
  const std::unique_ptr<Model> inner = random_mixture(rng);
  const PreparedModel a(monte_carlo(*inner, 250), with_rho(1.0)), b(monte_carlo(*inner, 250), with_rho(1.0));
  const auto& draws_a = static_cast<const MonteCarloModel&>(a.model()).draws();
  const auto& draws_b = static_cast<const MonteCarloModel&>(b.model()).draws();
  ASSERT_EQ(draws_a.cols(), 250);
  EXPECT_TRUE((draws_a.array() == draws_b.array()).all());
  // Decoded from its row, the same samples again; another N gives other samples.
  const PreparedModel decoded(decode_row(encode_row(a.model())), with_rho(1.0));
  EXPECT_TRUE((static_cast<const MonteCarloModel&>(decoded.model()).draws().array() == draws_a.array()).all());
  const PreparedModel other_n(monte_carlo(*inner, 251), with_rho(1.0));
  EXPECT_NE(static_cast<const MonteCarloModel&>(other_n.model()).draws()(0, 0), draws_a(0, 0));
  EXPECT_EQ(log_kernel(a, b), log_kernel(b, a));
}

TEST(MonteCarloKernel, GramIsSymmetricBitForBitAndIndependentOfRowOrder) {
  for (double rho : {1.0}) {
    std::vector<PreparedModel> forward, backward;
    for (auto& row : assorted_rows()) forward.emplace_back(std::move(row), with_rho(rho));
    std::vector<std::unique_ptr<Model>> reversed = assorted_rows();
    for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) backward.emplace_back(std::move(*it), with_rho(rho));
    const std::size_t n = forward.size();
    for (KernelKind kind : {KernelKind::ppk, KernelKind::ppk_norm})
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          const double value = evaluate(kind, forward[i], forward[j]);
          EXPECT_TRUE(std::isfinite(value) && value > 0.0);
          EXPECT_EQ(value, evaluate(kind, forward[j], forward[i])) << i << " " << j;
          EXPECT_EQ(value, evaluate(kind, backward[n - 1 - i], backward[n - 1 - j])) << i << " " << j;
        }
  }
}

// ---- Rows, JSON and errors ----

// A pair evaluates each row's log p at the other's draws, N c' + N' c multiply-adds with N, N' <= 10^5:
// prepare() refuses a row with 10^5 c > kMaxKernelWork = 10^12 before drawing. c of an HMM of M states over
// T + 1 steps of 1-D Gaussians: (T + 1)(M^2 + M), so T + 1 <= 990 at M = 100; of a full Gaussian: D^2.
TEST(MonteCarloRows, KernelWorkPerEvaluationIsBounded) {
  const auto hmm_of = [](long states, long length) {
    std::vector<std::unique_ptr<Model>> emissions;
    for (long q = 0; q < states; ++q) emissions.push_back(gaussian_1d({static_cast<double>(q), 1.0}));
    return std::make_unique<HmmModel>(Eigen::VectorXd::Constant(states, 1.0 / static_cast<double>(states)),
                                      Eigen::MatrixXd::Identity(states, states), std::move(emissions), length);
  };
  MonteCarloModel large_inner(MonteCarloParameters{hmm_of(100, 1000), 10, BetaRule::pooled});
  EXPECT_TRUE(mentions(checks::prepare_error(large_inner, with_rho(1.0)),
                       {"montecarlo kernel: the most samples of a row (100000) x c (10110100 multiply-adds of the "
                        "inner model's log p(x)) = 1.01101e+12 multiply-adds per kernel evaluation, more than the 1e+12",
                        "give a smaller inner model or a smaller -d T"}));
  EXPECT_EQ(checks::prepare_error(large_inner, with_rho_and_length(1.0, 989)), "");  // c = 990 (10^4 + 100)
  EXPECT_TRUE(mentions(checks::prepare_error(large_inner, with_rho_and_length(1.0, 990)), {"c (10009100 multiply-adds"}));
  EXPECT_EQ(as_samplable(*GaussianModel::full(Eigen::VectorXd::Zero(100), Eigen::MatrixXd::Identity(100, 100)))
                ->log_probability_work(),
            1e4);
  EXPECT_TRUE(
      mentions(json_error(R"({"family":"montecarlo","samples":100001,"model":{"family":"gaussian","mean":[1],"var":1}})"),
               {"montecarlo field \"samples\"", "[1, 100000]", "got 100001"}));
}

TEST(MonteCarloRows, RoundTripThroughRowsAndJson) {
  for (const auto& row : assorted_rows()) {
    const Row encoded = encode_row(*row);
    EXPECT_EQ(encoded[1].index, 2);
    EXPECT_EQ(encoded[1].value, 14.0);
    checks::expect_round_trips(*row);
  }
  const std::unique_ptr<Model> from_json = model_from_json(nlohmann::json::parse(
      R"({"family":"montecarlo","samples":40,"beta":"equal","model":{"family":"gaussian","mean":[1,2],"var":0.5}})"));
  const auto& model = static_cast<const MonteCarloModel&>(*from_json);
  EXPECT_EQ(model.samples(), 40);
  EXPECT_EQ(model.beta(), BetaRule::equal);
  EXPECT_EQ(model.sample_space(), (SampleSpace{"real vectors", 2}));
  // Row layout: 3: N, 4: beta rule, 5: the inner model's length, 6...: its row from the family code.
  const Row row = encode_row(model);
  EXPECT_EQ(format_entries(row), "1:1 2:14 3:40 4:1 5:6 6:1 7:2 8:1 9:1 10:2 11:0.5");
}

TEST(MonteCarloRows, RejectsUnsamplableModelsAndSampleCountsBelow1) {
  const Row gaussian_row = encode_row(*model_from_json(nlohmann::json::parse(
      R"({"family":"montecarlo","samples":40,"model":{"family":"gaussian","mean":[1,2],"var":0.5}})")));
  // samples = 0 (dropped from the row like every zero).
  Row no_samples;
  for (const RowEntry& e : gaussian_row)
    if (e.index != 3) no_samples.push_back(e);
  EXPECT_TRUE(mentions(row_error(no_samples), {"montecarlo field \"samples\" (index 3)", "[1, 100000]", "got 0"}));
  EXPECT_TRUE(mentions(row_error(checks::with_value(gaussian_row, 3, -5)), {"field \"samples\" (index 3)", "got -5"}));
  Row beta_2 = gaussian_row;  // index 4 (beta 0, pooled) is absent: insert a 2
  beta_2.insert(beta_2.begin() + 3, RowEntry{4, 2.0});
  EXPECT_TRUE(mentions(row_error(beta_2), {"field \"beta\" (index 4)", "got 2"}));
  EXPECT_TRUE(
      mentions(json_error(R"({"family":"montecarlo","samples":0,"model":{"family":"gaussian","mean":[1],"var":1}})"),
               {"montecarlo field \"samples\"", "[1, 100000]"}));
  EXPECT_TRUE(mentions(
      json_error(R"({"family":"montecarlo","samples":5,"beta":"half","model":{"family":"gaussian","mean":[1],"var":1}})"),
      {"montecarlo field \"beta\"", "\"pooled\"", "\"equal\""}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"montecarlo","samples":5,"model":{"family":"gaussian","mean":[1]}})"),
                       {"montecarlo field \"model\": gaussian"}));
  // Unsamplable inner models: a multinomial over all trial counts, a mixture of those, a montecarlo
  // row inside another.
  const char* const unsamplable[] = {
      R"({"family":"multinomial","p":[0.5,0.5],"trials":"all","decay":0.5})",
      R"({"family":"mixture","weights":[0.5,0.5],"components":[{"family":"multinomial","p":[0.5,0.5],"trials":"all","decay":0.5},{"family":"multinomial","p":[0.2,0.8],"trials":"all","decay":0.5}]})",
      R"({"family":"montecarlo","samples":3,"model":{"family":"gaussian","mean":[1],"var":1}})"};
  for (const char* inner : unsamplable) {
    const std::string text = std::string(R"({"family":"montecarlo","samples":10,"model":)") + inner + "}";
    EXPECT_TRUE(mentions(json_error(text), {"montecarlo field \"model\"", "a model that can be sampled"})) << inner;
    const nlohmann::json inner_json = nlohmann::json::parse(inner);
    // The montecarlo row around the unsamplable model's row: family 14, N = 10, beta 0, the model.
    RowWriter writer;
    writer.real(14);
    writer.real(10);
    writer.real(0);
    writer.model(*model_from_json(inner_json));
    const Row row = writer.take();
    EXPECT_TRUE(mentions(row_error(row), {"montecarlo field \"model\" (indices 5..", "a model that can be sampled",
                                          inner_json["family"].get<std::string>().c_str()}))
        << row_error(row);
  }
}

TEST(MonteCarloRows, MixturesAndHmmsNeedRho1AndPlainRowsHaveNoKernelWithMonteCarloRows) {
  std::mt19937 rng(9);
  for (double rho : {0.5, 2.0}) {
    EXPECT_TRUE(mentions(checks::domain_error(monte_carlo(*random_mixture(rng), 10), rho),
                         {"montecarlo row: mixture", "only at rho = 1", "got rho = "}));
    EXPECT_TRUE(mentions(checks::domain_error(monte_carlo(*random_hmm(rng, true), 10), rho),
                         {"montecarlo row: hmm", "only at rho = 1", "got rho = "}));
  }
  const PreparedModel mc(monte_carlo(*random_mixture(rng), 10), with_rho(1.0));
  const PreparedModel plain(random_diagonal_gaussian(rng, 2), with_rho(1.0));
  const PreparedModel mixture(random_mixture(rng), with_rho(1.0));
  for (const PreparedModel* other : {&plain, &mixture}) {
    EXPECT_THROW(check_compatible(mc.model(), other->model()), KernelDomainError);
    EXPECT_THROW(check_compatible(other->model(), mc.model()), KernelDomainError);
  }
  const PreparedModel wider(monte_carlo(*random_diagonal_gaussian(rng, 3), 10), with_rho(1.0));
  EXPECT_THROW(check_compatible(mc.model(), wider.model()), KernelDomainError);
}

}  // namespace
}  // namespace ppk
