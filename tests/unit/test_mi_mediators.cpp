// The mediators of MI kernels (mi.hpp; Seeger, NIPS 2001, sections 2 and 2.1): Seeger's closed forms
// for the Gaussian likelihood (the RBF kernel with beta = 4/(p(4 + p/a)) under the prior N(0, a I),
// beta = 2/(p(2 + lambda)) under a flat prior with model-trust scaling), the Dirichlet-multinomial Q
// against quadrature over the simplex of the multinomial pmfs times the Dirichlet density, model-trust
// scaling of the Dirichlet, JSON round trips and rejected inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernel_params.hpp"
#include "oracles.hpp"
#include "positive_family_checks.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/mi.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using checks::mentions;
using checks::relative_error;

double kernel_of(const MiMediator& mediator, const Eigen::VectorXd& x1, const Eigen::VectorXd& x2, KernelKind kind) {
  const PreparedModel a(mediator.row(x1), with_rho(1.0)), b(mediator.row(x2), with_rho(1.0));
  return evaluate(kind, a, b);
}

std::vector<Eigen::VectorXd> random_points(long n, long dim, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.5, 2.0);
  std::vector<Eigen::VectorXd> points(static_cast<std::size_t>(n), Eigen::VectorXd(dim));
  for (auto& x : points)
    for (long d = 0; d < dim; ++d) x[d] = normal(rng);
  return points;
}

TEST(MiGaussianMediator, PriorMediatorGivesSeegersRbf) {
  // P(x | theta) = N(x | theta, (p/2) I), P_med = N(theta | 0, a I): beta = 4/(p(4 + p/a)).
  const Eigen::Vector3d x1(0.3, -1.0, 2.0), x2(1.1, 0.4, 1.5);
  for (const auto& [p, a] : {std::pair{1.0, 1.0}, std::pair{0.5, 3.0}, std::pair{4.0, 0.2}}) {
    GaussianMiPrior prior;
    prior.variance = a;
    const GaussianMiMediator mediator = GaussianMiMediator::fit(3, p / 2.0, prior, {}, 1.0);
    const double beta = 4.0 / (p * (4.0 + p / a));
    EXPECT_LT(relative_error(kernel_of(mediator, x1, x2, KernelKind::ppk_norm),
                             std::exp(-0.5 * beta * (x1 - x2).squaredNorm())),
              1e-12)
        << p << " " << a;
  }
}

TEST(MiGaussianMediator, FlatPriorWithModelTrustScalingGivesSeegersBeta) {
  const std::vector<Eigen::VectorXd> unlabeled = random_points(25, 2, 3);
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(2);
  for (const auto& x : unlabeled) mean += x / 25.0;
  const Eigen::Vector2d x1(0.3, -1.0), x2(1.7, 0.4);
  for (double p : {0.5, 1.0, 3.0})
    for (double lambda : {0.5, 1.0, 10.0, 25.0}) {
      const GaussianMiMediator mediator = GaussianMiMediator::fit(2, p / 2.0, GaussianMiPrior{}, unlabeled, lambda);
      // Seeger section 2.1: P_med = N(theta | x-bar, (p / (2 lambda)) I), K the RBF with beta = 2/(p(2 + lambda)).
      EXPECT_LT((mediator.mean() - mean).norm(), 1e-12);
      EXPECT_LT(relative_error(mediator.variance(), p / (2.0 * lambda)), 1e-14);
      const double beta = 2.0 / (p * (2.0 + lambda));
      EXPECT_LT(relative_error(kernel_of(mediator, x1, x2, KernelKind::ppk_norm),
                               std::exp(-0.5 * beta * (x1 - x2).squaredNorm())),
                1e-12)
          << p << " " << lambda;
    }
}

TEST(MiGaussianMediator, ProperPriorWithModelTrustScaling) {
  const std::vector<Eigen::VectorXd> unlabeled = random_points(10, 1, 4);
  double mean = 0.0;
  for (const auto& x : unlabeled) mean += x[0] / 10.0;
  GaussianMiPrior prior;
  prior.mean = -1.0;
  prior.variance = 2.0;
  const double s = 0.7, lambda = 3.0;
  const GaussianMiMediator mediator = GaussianMiMediator::fit(1, s, prior, unlabeled, lambda);
  const double precision = 1.0 / 2.0 + lambda / s;
  EXPECT_LT(relative_error(mediator.variance(), 1.0 / precision), 1e-14);
  EXPECT_LT(relative_error(mediator.mean()[0], (-1.0 / 2.0 + lambda * mean / s) / precision), 1e-13);
}

TEST(MiGaussianMediator, RejectsImproperMediatorsAndBadArguments) {
  const auto unlabeled = random_points(3, 2, 5);
  EXPECT_TRUE(mentions(checks::constructor_error([&] { GaussianMiMediator::fit(2, 1.0, GaussianMiPrior{}, {}, 1.0); }),
                       {"flat prior is not a distribution", "lambda > 0"}));
  EXPECT_TRUE(
      mentions(checks::constructor_error([&] { GaussianMiMediator::fit(2, 1.0, GaussianMiPrior{}, unlabeled, 0.0); }),
               {"flat prior"}));
  EXPECT_TRUE(
      mentions(checks::constructor_error([&] { GaussianMiMediator::fit(2, 1.0, GaussianMiPrior{}, unlabeled, -1.0); }),
               {"lambda must be a finite number >= 0", "-1"}));
  EXPECT_TRUE(
      mentions(checks::constructor_error([&] { GaussianMiMediator::fit(2, 0.0, GaussianMiPrior{}, unlabeled, 1.0); }),
               {"likelihood variance s", "got 0"}));
  EXPECT_TRUE(
      mentions(checks::constructor_error([&] { GaussianMiMediator::fit(3, 1.0, GaussianMiPrior{}, unlabeled, 1.0); }),
               {"unlabeled point 0 has dimension 2", "dimension is 3"}));
  const GaussianMiMediator mediator = GaussianMiMediator::fit(2, 1.0, GaussianMiPrior{}, unlabeled, 1.0);
  EXPECT_TRUE(mentions(checks::constructor_error([&] { mediator.row(Eigen::VectorXd::Zero(3)); }),
                       {"the datum has dimension 3", "dimension is 2"}));
}

TEST(MiMediatorJson, RoundTripsGiveTheSameRows) {
  const auto unlabeled = random_points(7, 2, 6);
  const GaussianMiMediator gaussian = GaussianMiMediator::fit(2, 0.37, GaussianMiPrior{}, unlabeled, 1.3);
  const GaussianMiMediator gaussian_back =
      GaussianMiMediator::from_json(nlohmann::json::parse(gaussian.to_json().dump()));
  const Eigen::Vector2d x(0.123456789, -2.5);
  EXPECT_EQ(format_entries(encode_row(*gaussian.row(x))), format_entries(encode_row(*gaussian_back.row(x))));
  const MultinomialMiMediator multinomial(Eigen::Vector3d(0.3, 1.0 / 3.0, 2.0));
  const MultinomialMiMediator multinomial_back =
      MultinomialMiMediator::from_json(nlohmann::json::parse(multinomial.to_json().dump()));
  const Eigen::Vector3d counts(2, 0, 5);
  EXPECT_EQ(format_entries(encode_row(*multinomial.row(counts))),
            format_entries(encode_row(*multinomial_back.row(counts))));
}

TEST(MiMediatorJson, RejectsMalformedMediators) {
  auto error = [](const std::string& text, bool gaussian) {
    return checks::constructor_error([&] {
      const nlohmann::json object = nlohmann::json::parse(text);
      if (gaussian)
        GaussianMiMediator::from_json(object);
      else
        MultinomialMiMediator::from_json(object);
    });
  };
  EXPECT_EQ(error(R"({"mediator":"gaussian","dim":1,"likelihood_variance":1,"mean":[0],"variance":2})", true), "");
  EXPECT_TRUE(mentions(error(R"({"mediator":"gaussian","dim":2,"likelihood_variance":1,"mean":[0],"variance":2})", true),
                       {"gaussian mediator field \"mean\"", "2 numbers"}));
  EXPECT_TRUE(mentions(error(R"({"mediator":"multinomial","dim":2,"alpha":[1,1]})", true),
                       {"gaussian mediator field \"alpha\": not a field"}));
  EXPECT_TRUE(
      mentions(error(R"({"mediator":"multinomial","dim":1,"likelihood_variance":1,"mean":[0],"variance":2})", true),
               {"gaussian mediator field \"mediator\"", "\"gaussian\""}));
  EXPECT_TRUE(mentions(error(R"({"mediator":"gaussian","dim":1,"mean":[0],"variance":2})", true),
                       {"gaussian mediator field \"likelihood_variance\": missing"}));
  EXPECT_TRUE(mentions(error(R"({"mediator":"multinomial","dim":2,"alpha":[1,-1]})", false), {"alpha[1]", "-1"}));
  EXPECT_TRUE(mentions(error(R"({"mediator":"multinomial","dim":1,"alpha":[1]})", false),
                       {"multinomial mediator field \"dim\"", "2"}));
}

// ---- Multinomial likelihood with a Dirichlet mediator -----------------------------------------

// log of the multinomial coefficient n! / prod_d x_d!, written out with tgamma.
double coefficient(const std::vector<int>& x) {
  int n = 0;
  double denominator = 1.0;
  for (int c : x) {
    n += c;
    denominator *= std::tgamma(c + 1.0);
  }
  return std::tgamma(n + 1.0) / denominator;
}

// P(x | theta) = C(x) prod_d theta_d^x_d.
double multinomial_pmf(const std::vector<int>& x, const std::vector<double>& theta) {
  double p = coefficient(x);
  for (std::size_t d = 0; d < x.size(); ++d) p *= std::pow(theta[d], x[d]);
  return p;
}

// Dirichlet(theta | alpha) = prod_d theta_d^(alpha_d - 1) Gamma(sum alpha) / prod_d Gamma(alpha_d).
double dirichlet_pdf(const std::vector<double>& theta, const std::vector<double>& alpha) {
  double p = 1.0, sum = 0.0;
  for (std::size_t d = 0; d < alpha.size(); ++d) {
    p *= std::pow(theta[d], alpha[d] - 1.0) / std::tgamma(alpha[d]);
    sum += alpha[d];
  }
  return p * std::tgamma(sum);
}

Eigen::VectorXd as_vector(const std::vector<int>& x) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(x.size()));
  for (std::size_t d = 0; d < x.size(); ++d) v[static_cast<Eigen::Index>(d)] = x[d];
  return v;
}

double q_of(const MultinomialMiMediator& mediator, const std::vector<int>& x1, const std::vector<int>& x2) {
  return kernel_of(mediator, as_vector(x1), as_vector(x2), KernelKind::ppk);
}

TEST(MiMultinomialMediator, TwoCategoriesMatchQuadratureOverTheSimplex) {
  const std::vector<double> alpha{1.5, 2.0};
  const MultinomialMiMediator mediator(Eigen::Vector2d(alpha[0], alpha[1]));
  for (const auto& counts : {std::pair{std::vector<int>{3, 1}, std::vector<int>{0, 4}},
                             std::pair{std::vector<int>{2, 2}, std::vector<int>{2, 2}},
                             std::pair{std::vector<int>{0, 0}, std::vector<int>{5, 1}}}) {
    const std::vector<int>&x1 = counts.first, &x2 = counts.second;  // (a lambda captures no structured binding in C++17)
    // Q = integral_0^1 P(x1 | t) P(x2 | t) Dirichlet(t | alpha) dt, theta = (t, 1 - t).
    const double q = oracle::integrate(
        [&](double t) {
          const std::vector<double> theta{t, 1.0 - t};
          return multinomial_pmf(x1, theta) * multinomial_pmf(x2, theta) * dirichlet_pdf(theta, alpha);
        },
        0.0, 1.0);
    EXPECT_LT(relative_error(q_of(mediator, x1, x2), q), 1e-10);
  }
}

TEST(MiMultinomialMediator, ThreeCategoriesMatchQuadratureOverTheSimplex) {
  const std::vector<double> alpha{1.0, 2.5, 1.2};
  const MultinomialMiMediator mediator(Eigen::Vector3d(alpha[0], alpha[1], alpha[2]));
  const std::vector<int> x1{2, 0, 3}, x2{1, 4, 1};
  // Q = integral over t1 in [0, 1], t2 in [0, 1 - t1] of the pmfs times the Dirichlet density.
  const double q = oracle::integrate(
      [&](double t1) {
        return oracle::integrate(
            [&](double t2) {
              const std::vector<double> theta{t1, t2, std::max(0.0, 1.0 - t1 - t2)};
              return multinomial_pmf(x1, theta) * multinomial_pmf(x2, theta) * dirichlet_pdf(theta, alpha);
            },
            0.0, 1.0 - t1, 1e-12, 12);
      },
      0.0, 1.0, 1e-11, 12);
  EXPECT_LT(relative_error(q_of(mediator, x1, x2), q), 1e-9);
}

TEST(MiMultinomialMediator, NormalizedKernelIsTheBetaFunctionRatio) {
  const std::vector<double> alpha{0.5, 1.0, 2.0, 0.25};
  const MultinomialMiMediator mediator(Eigen::Vector4d(alpha[0], alpha[1], alpha[2], alpha[3]));
  const std::vector<int> x1{3, 0, 1, 7}, x2{0, 2, 2, 1};
  // log Q(x, y) = log C(x) + log C(y) + log B(alpha + x + y) - log B(alpha).
  auto log_q = [&](const std::vector<int>& x, const std::vector<int>& y) {
    double log_beta_sum = 0.0, total = 0.0, log_beta_alpha = 0.0, alpha_total = 0.0;
    for (std::size_t d = 0; d < alpha.size(); ++d) {
      log_beta_sum += std::lgamma(alpha[d] + x[d] + y[d]);
      total += alpha[d] + x[d] + y[d];
      log_beta_alpha += std::lgamma(alpha[d]);
      alpha_total += alpha[d];
    }
    return std::log(coefficient(x)) + std::log(coefficient(y)) + log_beta_sum - std::lgamma(total) -
           (log_beta_alpha - std::lgamma(alpha_total));
  };
  EXPECT_LT(relative_error(q_of(mediator, x1, x2), std::exp(log_q(x1, x2))), 1e-12);
  const double k = std::exp(log_q(x1, x2) - 0.5 * (log_q(x1, x1) + log_q(x2, x2)));
  EXPECT_LT(relative_error(kernel_of(mediator, as_vector(x1), as_vector(x2), KernelKind::ppk_norm), k), 1e-12);
}

TEST(MiMultinomialMediator, ModelTrustScalingAddsLambdaTimesTheMeanCounts) {
  const std::vector<Eigen::VectorXd> unlabeled{Eigen::Vector3d(1, 0, 4), Eigen::Vector3d(2, 2, 0),
                                               Eigen::Vector3d(0, 1, 1)};
  EXPECT_LT(
      (MultinomialMiMediator::fit(3, 0.5, unlabeled, 1.5).alpha() - Eigen::Vector3d(0.5 + 1.5, 0.5 + 1.5, 0.5 + 2.5))
          .norm(),
      1e-14);
  EXPECT_EQ(MultinomialMiMediator::fit(3, 0.5, {}, 1.5).alpha(), Eigen::Vector3d::Constant(0.5));
  EXPECT_EQ(MultinomialMiMediator::fit(3, 0.5, unlabeled, 0.0).alpha(), Eigen::Vector3d::Constant(0.5));
}

TEST(MiMultinomialMediator, RejectsNonCounts) {
  const MultinomialMiMediator mediator(Eigen::Vector3d::Ones());
  EXPECT_TRUE(mentions(checks::constructor_error([&] { mediator.row(Eigen::Vector3d(1, -1, 0)); }),
                       {"coordinate 1 (index 2)", "a count", "-1"}));
  EXPECT_TRUE(mentions(checks::constructor_error([&] { mediator.row(Eigen::Vector3d(1, 0, 0.5)); }),
                       {"coordinate 2 (index 3)", "0.5"}));
  EXPECT_TRUE(mentions(checks::constructor_error([&] {
                         MultinomialMiMediator::fit(3, 1.0, {Eigen::Vector3d(1, 2, 3), Eigen::Vector3d(0, 1.5, 0)}, 1.0);
                       }),
                       {"unlabeled point 1", "coordinate 1", "1.5"}));
  EXPECT_TRUE(
      mentions(checks::constructor_error([&] { MultinomialMiMediator::fit(3, 0.0, {}, 1.0); }), {"alpha[0]", "got 0"}));
}

}  // namespace
}  // namespace ppk
