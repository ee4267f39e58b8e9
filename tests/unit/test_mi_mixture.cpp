// The diagonal mixture MI kernel (mi_mixture.hpp; Seeger NIPS 2001, 2.1-2.2): the mediator's
// formulas against sums written out in the test from given responsibilities, E_med[pi_s] against
// quadrature of the Dirichlet's Beta marginal, the mediator fitted by EM, its JSON form and
// rejected mediators; the rows' Q against Boost.Math quadrature over the component means (1-D, and
// 2-D with full covariances by nested quadrature), Gram matrices, and the cluster property.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include <boost/math/distributions/beta.hpp>
#include <nlohmann/json.hpp>

#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "oracles.hpp"
#include "positive_family_checks.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/estimate/mi_mixture.hpp"

namespace ppk {
namespace {

using checks::constructor_error;
using checks::mentions;

// n random 2-D vectors, responsibilities over K components (rows summing to 1) and K covariances.
struct Responsibilities {
  Eigen::MatrixXd x, r;
  std::vector<Eigen::MatrixXd> covariances;
};
Responsibilities random_responsibilities(int n, int k, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  Responsibilities out{Eigen::MatrixXd(n, 2), Eigen::MatrixXd(n, k), {}};
  for (int i = 0; i < n; ++i) {
    out.x(i, 0) = 3.0 * normal(rng);
    out.x(i, 1) = normal(rng) - 1.0;
    double total = 0.0;
    for (int s = 0; s < k; ++s) total += out.r(i, s) = uniform(rng);
    out.r.row(i) /= total;
  }
  for (int s = 0; s < k; ++s) {
    Eigen::Matrix2d a;
    a << uniform(rng), normal(rng), 0.0, uniform(rng);
    out.covariances.push_back(a * a.transpose() + 0.1 * Eigen::Matrix2d::Identity());
  }
  return out;
}

TEST(MiMixtureMediator, FormulasFromResponsibilitiesMatchSumsWrittenOut) {
  const int n = 9, k = 3;
  const Responsibilities given = random_responsibilities(n, k, 5);
  for (double lambda : {0.1, 1.0, 9.0, 50.0}) {
    for (double alpha0 : {0.5, 1.0, 3.0}) {
      const MixtureMediator mediator =
          MixtureMediator::from_responsibilities(given.x, given.r, given.covariances, lambda, alpha0);
      ASSERT_EQ(mediator.size(), 3u);
      ASSERT_EQ(mediator.dim(), 2);
      for (int s = 0; s < k; ++s) {
        double size = 0.0, m0 = 0.0, m1 = 0.0;
        for (int i = 0; i < n; ++i) {
          size += given.r(i, s);
          m0 += given.r(i, s) * given.x(i, 0);
          m1 += given.r(i, s) * given.x(i, 1);
        }
        const MixtureMediatorComponent& c = mediator.component(s);
        EXPECT_NEAR(c.size, size, 1e-12);
        EXPECT_NEAR(c.mean(0), m0 / size, 1e-12);
        EXPECT_NEAR(c.mean(1), m1 / size, 1e-12);
        // V_s = Sigma_s n / (lambda N_s); E[pi_s] = (alpha0 + lambda N_s / n) / (K alpha0 + lambda).
        const Eigen::MatrixXd v = mediator.mean_covariance(s);
        for (int a = 0; a < 2; ++a)
          for (int b = 0; b < 2; ++b)
            EXPECT_NEAR(v(a, b), given.covariances[s](a, b) * n / (lambda * size), 1e-12 * std::fabs(v(a, a)));
        EXPECT_NEAR(mediator.expected_weight(s), (alpha0 + lambda * size / n) / (k * alpha0 + lambda), 1e-14);
      }
    }
  }
}

// E_med[pi_s] is the mean of the Beta(a_s, sum a - a_s) marginal of Dirichlet(a), a_s = alpha0 +
// lambda N_s / n: integral of p times the Beta density (Boost) over [0, 1].
TEST(MiMixtureMediator, ExpectedWeightIsTheDirichletMeanByQuadrature) {
  const Responsibilities given = random_responsibilities(12, 3, 8);
  for (double lambda : {0.3, 2.0, 12.0}) {
    for (double alpha0 : {1.0, 2.5}) {
      const MixtureMediator mediator =
          MixtureMediator::from_responsibilities(given.x, given.r, given.covariances, lambda, alpha0);
      double total = 0.0, sum_a = 0.0;
      for (std::size_t s = 0; s < 3; ++s) sum_a += alpha0 + lambda * given.r.col(s).sum() / 12.0;
      for (std::size_t s = 0; s < 3; ++s) {
        const double a = alpha0 + lambda * given.r.col(s).sum() / 12.0;
        const boost::math::beta_distribution<double> marginal(a, sum_a - a);
        const double mean =
            oracle::integrate([&](double p) { return p * boost::math::pdf(marginal, p); }, 0.0, 1.0, 1e-12);
        EXPECT_NEAR(mediator.expected_weight(s), mean, 1e-9) << "lambda " << lambda << " alpha0 " << alpha0;
        total += mediator.expected_weight(s);
      }
      EXPECT_NEAR(total, 1.0, 1e-14);
    }
  }
}

// Two clusters of 200 points each: the EM mediator has one component per cluster, sizes summing to
// n, means at the clusters' centres and V_s = Sigma_s n / (lambda N_s).
TEST(MiMixtureMediator, FittedByEmOnTwoClusters) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(400, 2);
  for (int i = 0; i < 400; ++i) {
    const double centre = i < 200 ? -5.0 : 5.0;
    x(i, 0) = centre + normal(rng);
    x(i, 1) = 0.5 * normal(rng);
  }
  MixtureFitOptions options;
  options.components = 2;
  std::vector<Eigen::VectorXd> points;
  for (int i = 0; i < 400; ++i) points.push_back(x.row(i).transpose());
  const MixtureMediator mediator = MixtureMediator::fit(2, options, points, 4.0, 1.0);
  ASSERT_EQ(mediator.size(), 2u);
  const std::size_t left = mediator.component(0).mean(0) < 0.0 ? 0 : 1;
  EXPECT_NEAR(mediator.component(left).mean(0), x.col(0).head(200).mean(), 1e-6);
  EXPECT_NEAR(mediator.component(1 - left).mean(0), x.col(0).tail(200).mean(), 1e-6);
  EXPECT_NEAR(mediator.component(0).size + mediator.component(1).size, 400.0, 1e-9);
  EXPECT_NEAR(mediator.component(left).size, 200.0, 1e-4);
  EXPECT_NEAR(mediator.expected_weight(left), (1.0 + 4.0 * 0.5) / (2.0 + 4.0), 1e-8);
  EXPECT_NEAR(mediator.mean_covariance(left)(0, 0), mediator.component(left).covariance(0, 0) * 400.0 / (4.0 * 200.0),
              1e-8);
}

TEST(MiMixtureMediator, JsonRoundTrip) {
  const Responsibilities given = random_responsibilities(6, 2, 11);
  const MixtureMediator mediator = MixtureMediator::from_responsibilities(given.x, given.r, given.covariances, 2.5, 0.7);
  const nlohmann::json json = mediator.to_json();
  EXPECT_EQ(json.at("mediator"), "mixture");
  EXPECT_EQ(json.at("dim"), 2);
  const MixtureMediator back = MixtureMediator::from_json(nlohmann::json::parse(json.dump()));
  EXPECT_EQ(back.to_json().dump(), json.dump());
  EXPECT_EQ(back.lambda(), 2.5);
  EXPECT_EQ(back.prior_alpha(), 0.7);
  for (std::size_t s = 0; s < 2; ++s) EXPECT_EQ(back.expected_weight(s), mediator.expected_weight(s));
}

TEST(MiMixtureMediator, RejectsBadMediators) {
  const Responsibilities given = random_responsibilities(6, 2, 13);
  const auto mediator = [&](double lambda, double alpha0) {
    return [=] { MixtureMediator::from_responsibilities(given.x, given.r, given.covariances, lambda, alpha0); };
  };
  EXPECT_TRUE(mentions(constructor_error(mediator(0.0, 1.0)), {"\"lambda\"", "> 0", "flat"}));
  EXPECT_TRUE(mentions(constructor_error(mediator(-1.0, 1.0)), {"\"lambda\""}));
  EXPECT_TRUE(mentions(constructor_error(mediator(1.0, 0.0)), {"\"prior_alpha\""}));
  Eigen::MatrixXd empty = given.r;
  empty.col(0).setZero();
  EXPECT_TRUE(mentions(
      constructor_error([&] { MixtureMediator::from_responsibilities(given.x, empty, given.covariances, 1, 1); }),
      {"components[0]", "size"}));
  std::vector<Eigen::MatrixXd> singular = given.covariances;
  singular[1] = Eigen::Matrix2d::Ones();
  EXPECT_TRUE(
      mentions(constructor_error([&] { MixtureMediator::from_responsibilities(given.x, given.r, singular, 1, 1); }),
               {"components[1]", "positive definite"}));

  const nlohmann::json json =
      MixtureMediator::from_responsibilities(given.x, given.r, given.covariances, 1.0, 1.0).to_json();
  nlohmann::json other = json;
  other["mediator"] = "gaussian";
  EXPECT_TRUE(mentions(constructor_error([&] { MixtureMediator::from_json(other); }), {"\"mediator\"", "mixture"}));
  other = json;
  other["dim"] = 3;
  EXPECT_TRUE(mentions(constructor_error([&] { MixtureMediator::from_json(other); }), {"\"mean\"", "3"}));
  other = json;
  other["components"][1].erase("covariance");
  EXPECT_TRUE(mentions(constructor_error([&] { MixtureMediator::from_json(other); }), {"components[1]", "covariance"}));
  other = json;
  other["extra"] = 1;
  EXPECT_TRUE(mentions(constructor_error([&] { MixtureMediator::from_json(other); }), {"\"extra\""}));
}

// ---------------------------------------------------------------------------------------------
// Rows (MixtureMediator::row): Q = the rho = 1 kernel between two rows, against quadrature of
//   sum_s w_s integral N(x1 | mu, Sigma_s) N(x2 | mu, Sigma_s) N(mu | m_s, V_s) dmu,
// with w_s = (alpha0 + lambda N_s / n) / (K alpha0 + lambda) and V_s = Sigma_s n / (lambda N_s)
// written out here from the components' sizes, means and covariances.

double q_of_rows(const Eigen::VectorXd& x1, const Eigen::VectorXd& x2, const MixtureMediator& mediator,
                 KernelKind kind = KernelKind::ppk) {
  const PreparedModel a(mediator.row(x1), with_rho(1.0)), b(mediator.row(x2), with_rho(1.0));
  return evaluate(kind, a, b);
}

struct Component1d {
  double size, mean, var;
};

TEST(MiMixtureRows, OneDimensionalQMatchesQuadrature) {
  const std::vector<std::vector<Component1d>> mixtures = {{{30.0, -2.0, 0.8}, {10.0, 1.5, 2.0}},
                                                          {{5.0, -1.0, 0.5}, {12.0, 0.3, 1.2}, {3.0, 4.0, 0.2}}};
  for (const auto& given : mixtures) {
    std::vector<MixtureMediatorComponent> components;
    double n = 0.0;
    for (const Component1d& c : given) {
      components.push_back({c.size, Eigen::VectorXd::Constant(1, c.mean), Eigen::MatrixXd::Constant(1, 1, c.var)});
      n += c.size;
    }
    const double k = static_cast<double>(given.size());
    for (double lambda : {0.2, 1.0, 10.0, 40.0}) {
      const double alpha0 = 1.5;
      const MixtureMediator mediator(components, lambda, alpha0);
      for (const auto& pair : std::vector<std::pair<double, double>>{{-2.0, -1.0}, {0.5, 3.0}, {4.0, 4.2}, {-3.0, 2.5}}) {
        const double x1 = pair.first, x2 = pair.second;  // (a lambda captures no structured binding in C++17)
        double expected = 0.0;
        for (const Component1d& c : given) {
          const double w = (alpha0 + lambda * c.size / n) / (k * alpha0 + lambda);
          const double v = c.var * n / (lambda * c.size);
          const double reach =
              std::max({std::fabs(x1 - c.mean), std::fabs(x2 - c.mean)}) + 40.0 * std::sqrt(std::max(v, c.var));
          expected += w * oracle::integrate(
                              [&](double mu) {
                                return oracle::normal_density(x1, mu, c.var) * oracle::normal_density(x2, mu, c.var) *
                                       oracle::normal_density(mu, c.mean, v);
                              },
                              c.mean - reach, c.mean + reach, 1e-12);
        }
        const double q = q_of_rows(Eigen::VectorXd::Constant(1, x1), Eigen::VectorXd::Constant(1, x2), mediator);
        EXPECT_LT(checks::relative_error(q, expected), 1e-8) << "lambda " << lambda << " x " << x1 << ", " << x2;
      }
    }
  }
}

// 2-D, full covariances, by nested quadrature over the mean mu = (mu1, mu2).
TEST(MiMixtureRows, TwoDimensionalFullCovarianceQMatchesNestedQuadrature) {
  const std::vector<oracle::Gaussian2> likelihoods = {{0.0, 0.0, 1.0, 0.6, 0.9}, {0.0, 0.0, 0.5, -0.2, 1.5}};
  const std::vector<double> sizes = {14.0, 6.0}, m1 = {-1.0, 2.0}, m2 = {0.5, -1.0};
  std::vector<MixtureMediatorComponent> components;
  for (std::size_t s = 0; s < 2; ++s) {
    Eigen::Matrix2d sigma;
    sigma << likelihoods[s].s11, likelihoods[s].s12, likelihoods[s].s12, likelihoods[s].s22;
    components.push_back({sizes[s], Eigen::Vector2d(m1[s], m2[s]), sigma});
  }
  const double n = 20.0, alpha0 = 1.0;
  for (double lambda : {0.5, 5.0, 20.0}) {
    const MixtureMediator mediator(components, lambda, alpha0);
    for (const auto& pair : std::vector<std::pair<Eigen::Vector2d, Eigen::Vector2d>>{{{-1.0, 0.0}, {0.5, 1.0}},
                                                                                     {{2.0, -1.5}, {1.0, -0.5}}}) {
      const Eigen::Vector2d &x1 = pair.first, &x2 = pair.second;  // (a lambda captures no structured binding in C++17)
      double expected = 0.0;
      for (std::size_t s = 0; s < 2; ++s) {
        const double w = (alpha0 + lambda * sizes[s] / n) / (2.0 * alpha0 + lambda);
        const double scale = n / (lambda * sizes[s]);
        const oracle::Gaussian2& l = likelihoods[s];
        const oracle::Gaussian2 mean_prior{m1[s], m2[s], l.s11 * scale, l.s12 * scale, l.s22 * scale};
        const double sd = std::sqrt(std::max({l.s11, l.s22, mean_prior.s11, mean_prior.s22}));
        const double half =
            std::max({(x1 - Eigen::Vector2d(m1[s], m2[s])).norm(), (x2 - Eigen::Vector2d(m1[s], m2[s])).norm()}) +
            20.0 * sd;
        const auto at = [&](double mu1, double mu2) {
          const oracle::Gaussian2 likelihood{mu1, mu2, l.s11, l.s12, l.s22};
          return likelihood.density(x1(0), x1(1)) * likelihood.density(x2(0), x2(1)) * mean_prior.density(mu1, mu2);
        };
        expected += w * oracle::integrate(
                            [&](double mu1) {
                              return oracle::integrate([&](double mu2) { return at(mu1, mu2); }, m2[s] - half,
                                                       m2[s] + half, 1e-11);
                            },
                            m1[s] - half, m1[s] + half, 1e-11);
      }
      EXPECT_LT(checks::relative_error(q_of_rows(x1, x2, mediator), expected), 1e-7) << "lambda " << lambda;
    }
  }
}

TEST(MiMixtureRows, GramOnRandomPointsIsPositiveSemidefinite) {
  const Responsibilities given = random_responsibilities(10, 3, 17);
  const MixtureMediator mediator = MixtureMediator::from_responsibilities(given.x, given.r, given.covariances, 3.0, 1.0);
  std::mt19937_64 rng(23);
  std::normal_distribution<double> normal(0.0, 2.0);
  std::vector<PreparedModel> rows;
  for (int i = 0; i < 12; ++i) rows.emplace_back(mediator.row(Eigen::Vector2d(normal(rng), normal(rng))), with_rho(1.0));
  expect_positive_semidefinite(rows, "mixture MI rows");
}

// Seeger's cluster property: two well-separated clusters (centres -8 and 8 on the first axis).
// Pairs at the same distance 3: within a cluster the MI kernel is large, across the gap between
// the clusters small; an RBF kernel with the same within-cluster value gives both pairs that value.
TEST(MiMixtureRows, ClusterProperty) {
  std::mt19937_64 rng(29);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(400, 2);
  for (int i = 0; i < 400; ++i) {
    x(i, 0) = (i < 200 ? -8.0 : 8.0) + 2.0 * normal(rng);
    x(i, 1) = normal(rng);
  }
  MixtureFitOptions options;
  options.components = 2;
  std::vector<Eigen::VectorXd> points;
  for (int i = 0; i < 400; ++i) points.push_back(x.row(i).transpose());
  const MixtureMediator mediator = MixtureMediator::fit(2, options, points, 40.0, 1.0);
  const Eigen::Vector2d within1(-9.5, 0.0), within2(-6.5, 0.0), across1(-1.5, 0.0), across2(1.5, 0.0);
  const double within = q_of_rows(within1, within2, mediator, KernelKind::ppk_norm);
  const double across = q_of_rows(across1, across2, mediator, KernelKind::ppk_norm);
  // The RBF exp(-gamma |d|^2) with exp(-gamma 9) = within is `within` for both pairs.
  EXPECT_GT(within, 0.5);
  EXPECT_LT(across, 0.1 * within);
}

}  // namespace
}  // namespace ppk
