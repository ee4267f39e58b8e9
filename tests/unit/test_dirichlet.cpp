// Dirichlet models (dirichlet.hpp): the kernel against quadrature of p(x)^rho p'(x)^rho over the simplex
// (Beta models with Boost's densities; D = 3 by nested quadrature with the density written out), alphas
// below 1 included (singular integrands), the generic exponential-family path, the domain and its
// bound on rho, Gram matrices, round trips and rejected models.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include <boost/math/distributions/beta.hpp>

#include "kernel_params.hpp"
#include "gram_checks.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/dirichlet.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk {
namespace {

using checks::mentions;

PreparedModel prepared(std::vector<double> alpha, double rho) {
  return PreparedModel(std::make_unique<DirichletModel>(std::move(alpha)), with_rho(rho));
}

// Whether every kernel of a model with these alphas exists at rho: prod_d x_d^(a+_d - 1) for the model
// paired with itself is integrable over the simplex iff a+_d = rho (2 a_d - 2) + 1 > 0 for every d.
bool in_domain(const std::vector<double>& alpha, double rho) {
  for (double a : alpha)
    if (rho * (2.0 * a - 2.0) + 1.0 <= 0.0) return false;
  return true;
}

// D = 2: integral over (0, 1) of Beta(x; a_0, a_1)^rho Beta(x; a'_0, a'_1)^rho dx with Boost's densities.
// On the half x > 1/2 the density is read as Beta(1 - x; a_1, a_0), so that 1 - x stays exact.
double beta_quadrature_kernel(const std::vector<double>& a, const std::vector<double>& b, double rho) {
  using boost::math::beta_distribution;
  const beta_distribution<double> p(a[0], a[1]), q(b[0], b[1]), p_mirrored(a[1], a[0]), q_mirrored(b[1], b[0]);
  return checks::integrate_unit_interval([&](double x, double one_minus_x) {
    const bool left = x <= 0.5;
    const double p_x = left ? boost::math::pdf(p, x) : boost::math::pdf(p_mirrored, one_minus_x);
    const double q_x = left ? boost::math::pdf(q, x) : boost::math::pdf(q_mirrored, one_minus_x);
    return std::pow(p_x, rho) * std::pow(q_x, rho);
  });
}

// log of the Dirichlet density Gamma(sum a) / prod Gamma(a_d) prod x_d^(a_d - 1), written out.
double log_dirichlet_density(const std::vector<double>& a, const double (&x)[3]) {
  double log_p = std::lgamma(a[0] + a[1] + a[2]);
  for (int d = 0; d < 3; ++d) log_p += (a[d] - 1.0) * std::log(x[d]) - std::lgamma(a[d]);
  return log_p;
}

// D = 3: the integral over the simplex of p(x)^rho p'(x)^rho, as
//   integral over x_0 in (0, 1) of s integral over u in (0, 1) of f(x_0, s u, s (1 - u)) du dx_0,  s = 1 - x_0,
// each one-dimensional integral by quadrature with both complements exact.
double dirichlet3_quadrature_kernel(const std::vector<double>& a, const std::vector<double>& b, double rho) {
  return checks::integrate_unit_interval(
      [&](double x0, double s) {
        return s * checks::integrate_unit_interval([&](double u, double one_minus_u) {
                 const double x[3] = {x0, s * u, s * one_minus_u};
                 // Within ~1e-308 of an edge x_d underflows to 0; the integrable x_d^(a+ - 1) has no mass there.
                 if (x[1] == 0.0 || x[2] == 0.0) return 0.0;
                 return std::exp(rho * (log_dirichlet_density(a, x) + log_dirichlet_density(b, x)));
               });
      },
      1e-13);
}

double quadrature_kernel(const std::vector<double>& a, const std::vector<double>& b, double rho) {
  return a.size() == 2 ? beta_quadrature_kernel(a, b, rho) : dirichlet3_quadrature_kernel(a, b, rho);
}

const std::pair<std::vector<double>, std::vector<double>> kPairs[] = {
    {{2.0, 3.0}, {2.0, 3.0}},
    {{0.6, 1.5}, {2.5, 0.7}},  // Beta models with singular densities at both ends
    {{0.3, 2.0}, {4.0, 0.8}},  // alpha 0.3: rho < 0.714
    {{5.0, 1.0}, {1.2, 9.0}},
    {{1.0, 1.0, 1.0}, {2.0, 3.0, 4.0}},
    {{0.7, 2.5, 1.2}, {3.0, 0.9, 0.6}},  // singular at every edge of the simplex
    {{4.0, 0.85, 2.0}, {1.5, 6.0, 0.95}},
};

TEST(DirichletKernel, MatchesQuadrature) {
  // Pairs where a model's kernel with itself diverges at rho are skipped here (prepare() rejects them:
  // see KernelDomainErrorNamesTheBound); every rho still checks several pairs.
  for (double rho : kRhos) {
    int checked = 0;
    for (const auto& [a, b] : kPairs) {
      if (!in_domain(a, rho) || !in_domain(b, rho)) continue;
      const double expected = quadrature_kernel(a, b, rho);
      EXPECT_LT(checks::relative_error(kernel(prepared(a, rho), prepared(b, rho)), expected), 1e-8)
          << "rho " << rho << ", D " << a.size() << ", a_0 " << a[0] << ", a'_0 " << b[0];
      ++checked;
    }
    EXPECT_GE(checked, 4) << "rho " << rho;
  }
}

TEST(DirichletKernel, EqualsTheGenericExponentialFamilyKernel) {
  for (double rho : kRhos)
    for (const auto& [alpha_a, alpha_b] : kPairs) {
      if (!in_domain(alpha_a, rho) || !in_domain(alpha_b, rho)) continue;
      DirichletModel a(alpha_a), b(alpha_b);
      a.prepare(with_rho(rho));
      b.prepare(with_rho(rho));
      const double closed_form = a.log_kernel(b);
      const double generic = log_kernel_from_log_partition(a, b, rho);
      // Relative to max(1, |log k|): log k is 0 for a Bhattacharyya kernel of a model with itself.
      EXPECT_LE(std::fabs(generic - closed_form), 1e-12 * std::max(1.0, std::fabs(closed_form)))
          << "rho " << rho << ", a_0 " << alpha_a[0] << ", a'_0 " << alpha_b[0];
    }
}

TEST(DirichletKernel, NaturalForm) {
  const DirichletModel model({2.0, 0.5, 3.0});
  EXPECT_EQ(model.natural_parameters(), Eigen::Vector3d(1.0, -0.5, 2.0));
  // K(theta) = log B(a) = sum_d log Gamma(a_d) - log Gamma(sum_d a_d).
  const double expected = std::lgamma(2.0) + std::lgamma(0.5) + std::lgamma(3.0) - std::lgamma(5.5);
  EXPECT_NEAR(model.log_partition(model.natural_parameters()), expected, 1e-14);
  EXPECT_TRUE(model.in_natural_domain(Eigen::Vector3d(-0.999, 0.0, 7.0)));
  EXPECT_FALSE(model.in_natural_domain(Eigen::Vector3d(-1.0, 0.0, 7.0)));
  EXPECT_FALSE(model.in_natural_domain(Eigen::Vector3d(0.0, 0.0, std::numeric_limits<double>::infinity())));
  EXPECT_FALSE(model.in_natural_domain(Eigen::Vector2d(0.0, 0.0)));
  ASSERT_TRUE(model.measure_scaling(0.25).has_value());
  EXPECT_EQ(model.measure_scaling(0.25)->eta, 1.0);
  EXPECT_EQ(model.measure_scaling(0.25)->log_factor, 0.0);
  EXPECT_EQ(model.sample_space(), (SampleSpace{"probability vectors", 3}));
}

TEST(DirichletKernel, KernelDomainErrorNamesTheBound) {
  // alpha 0.4 at rho = 1: a+ = (0.4 + 0.4 - 2) + 1 = -0.2; the bound is 1 / (2 (1 - 0.4)) = 1 / 1.2.
  const std::string message =
      checks::domain_error(std::make_unique<DirichletModel>(std::vector<double>{2.0, 0.4, 3.0}), 1.0);
  EXPECT_TRUE(mentions(message, {"dirichlet kernel at rho = 1", "\"alpha\"[1] = 0.4", "-0.2", "paired with itself",
                                 "rho < 0.833333333", "1 / (2 (1 - 0.4))"}));
  // A Beta model with alpha 0.3 at rho = 2 (the bound 1 / 1.4).
  EXPECT_TRUE(mentions(checks::domain_error(std::make_unique<DirichletModel>(std::vector<double>{0.3, 2.0}), 2.0),
                       {"\"alpha\"[0] = 0.3", "-1.8", "rho < 0.714285714"}));
}

TEST(DirichletKernel, RhoJustBelowTheBoundGivesFiniteKernels) {
  const double rho = 0.8333333;  // just below 1 / 1.2 = 0.833333333...
  const PreparedModel edge = prepared({2.0, 0.4, 3.0}, rho);
  const PreparedModel other = prepared({0.7, 1.0, 5.0}, rho);
  EXPECT_TRUE(std::isfinite(edge.log_self_kernel()));
  EXPECT_TRUE(std::isfinite(log_kernel(edge, other)));
  EXPECT_GT(kernel(edge, other), 0.0);
  EXPECT_TRUE(std::isfinite(normalized_kernel(edge, other)));
}

TEST(DirichletKernel, GramMatricesArePositiveSemidefinite) {
  std::mt19937 rng(71);
  // alpha >= 0.8 keeps every model inside the domain up to rho = 2.
  std::uniform_real_distribution<double> alpha(0.8, 5.0);
  for (double rho : kRhos) {
    std::vector<PreparedModel> models;
    for (int i = 0; i < 30; ++i) models.push_back(prepared({alpha(rng), alpha(rng), alpha(rng)}, rho));
    expect_positive_semidefinite(models, "dirichlet rho " + std::to_string(rho));
  }
}

TEST(DirichletKernel, OtherSampleSpacesHaveNoKernel) {
  const DirichletModel three({1.0, 2.0, 3.0}), two({1.0, 2.0});
  EXPECT_THROW(check_compatible(three, two), KernelDomainError);
}

TEST(DirichletModelTest, RowsAndJsonRoundTripBitForBit) {
  const DirichletModel model({0.1, 1.0 / 3.0, 1e-300, 1e300, 2.0});
  checks::expect_round_trips(model);
  const Row row = encode_row(model);
  EXPECT_EQ(row[1].value, 7.0);  // family code 7 at index 2
  const auto decoded = decode_row(row);
  EXPECT_EQ(static_cast<const DirichletModel&>(*decoded).alpha(), model.alpha());
  const auto reparsed = model_from_json(nlohmann::json::parse(model_to_json(model).dump()));
  EXPECT_EQ(static_cast<const DirichletModel&>(*reparsed).alpha(), model.alpha());
}

TEST(DirichletModelTest, RejectsMalformedRows) {
  // 1: version, 2: family 7, 3: D (>= 2), 4..3+D: alpha.
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 7}, {3, 2}, {4, 1.5}, {5, -2}}),
                       {"dirichlet field \"alpha\" (index 5)", "expected a finite number > 0, got -2"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 7}, {3, 3}, {4, 1.5}, {6, 2}}),
                       {"dirichlet field \"alpha\" (index 5)", "got 0"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 7}, {3, 2}, {4, std::numeric_limits<double>::quiet_NaN()}}),
                       {"dirichlet field \"alpha\" (index 4)", "expected a finite number, got nan"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 7}, {3, 1}, {4, 1.0}}),
                       {"dirichlet field \"dim\" (index 3)", "expected a whole number in [2, 100000000], got 1"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 7}}), {"dirichlet field \"dim\" (index 3)", "got 0"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 7}, {3, 2}, {4, 1.0}, {5, 1.0}, {9, 1.0}}),
                       {"dirichlet row: index 9 lies beyond the last field", "\"alpha\" (indices 4..5)"}));
}

TEST(DirichletModelTest, RejectsMalformedJson) {
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"dirichlet","alpha":[1,0,2]})"),
                       {"dirichlet field \"alpha\"[1]", "expected a finite number > 0, got 0"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"dirichlet","alpha":[2]})"),
                       {"dirichlet field \"alpha\"", "at least 2 numbers", "got [2"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"dirichlet"})"), {"dirichlet field \"alpha\": missing"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"dirichlet","alpha":[1,1],"p":[0.5,0.5]})"),
                       {"dirichlet field \"p\": not a field of this family", "\"alpha\""}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"dirichlet","alpha":[1,"x"]})"),
                       {"dirichlet field \"alpha\"[1]", "a finite number"}));
  EXPECT_TRUE(mentions(checks::constructor_error([] { DirichletModel({1.0}); }),
                       {"dirichlet field \"dim\"", "[2, 100000000], got 1"}));
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  EXPECT_TRUE(mentions(checks::constructor_error([&] {
                         DirichletModel({1.0, minus_infinity});
                       }),
                       {"dirichlet field \"alpha\"[1]", "got -inf"}));
}

}  // namespace
}  // namespace ppk
