// Gamma models (gamma.hpp): the kernel against quadrature of p(x)^rho p'(x)^rho with Boost's densities
// (shapes below 1 included: singular integrands), the generic exponential-family path, the domain
// and its bound on rho, the exponential-gamma kernel, Gram matrices, round trips and rejected models.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include <boost/math/distributions/gamma.hpp>

#include "kernel_params.hpp"
#include "gram_checks.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/exponential.hpp"
#include "ppk/families/gamma.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk {
namespace {

using checks::mentions;

struct Gamma {
  std::vector<double> shapes, scales;
};

std::unique_ptr<GammaModel> gamma_model(const Gamma& g) { return std::make_unique<GammaModel>(g.shapes, g.scales); }

PreparedModel prepared(const Gamma& g, double rho) { return PreparedModel(gamma_model(g), with_rho(rho)); }

// Whether every kernel of a model with these shapes exists at rho: the integrand x^(a+ - 1) e^(-x/b+) of
// the model paired with itself is integrable at 0 iff a+ = rho (2a - 2) + 1 > 0 for every shape a.
bool in_domain(const Gamma& g, double rho) {
  for (double a : g.shapes)
    if (rho * (2.0 * a - 2.0) + 1.0 <= 0.0) return false;
  return true;
}

// k_rho = prod_d integral over x > 0 of p_d(x)^rho p'_d(x)^rho dx with Boost's gamma densities,
// each factor by quadrature.
double quadrature_kernel(const Gamma& g, const Gamma& h, double rho) {
  double k = 1.0;
  for (std::size_t d = 0; d < g.shapes.size(); ++d) {
    const boost::math::gamma_distribution<double> p(g.shapes[d], g.scales[d]), q(h.shapes[d], h.scales[d]);
    k *= checks::integrate_positive_reals(
        [&](double x) { return std::pow(boost::math::pdf(p, x), rho) * std::pow(boost::math::pdf(q, x), rho); });
  }
  return k;
}

const std::pair<Gamma, Gamma> kPairs[] = {
    {{{2.0}, {1.0}}, {{2.0}, {1.0}}},
    {{{0.6}, {1.5}}, {{2.5}, {0.7}}},  // shape 0.6: a singular density, rho < 1.25
    {{{0.3}, {2.0}}, {{0.8}, {0.5}}},  // shape 0.3: rho < 0.714
    {{{1.7}, {4.0}}, {{4.2}, {0.3}}},
    {{{1.0}, {0.5}}, {{12.0}, {0.1}}},
    {{{0.6, 2.5, 1.0}, {1.5, 0.7, 3.0}}, {{1.2, 0.9, 4.0}, {0.4, 2.0, 1.0}}},
    {{{3.0, 0.8, 1.1, 2.0}, {1.0, 1.0, 0.2, 6.0}}, {{0.9, 5.0, 1.1, 0.85}, {2.0, 0.3, 0.2, 1.0}}},
};

TEST(GammaKernel, MatchesQuadrature) {
  // Pairs where a model's kernel with itself diverges at rho are skipped here (prepare() rejects them:
  // see KernelDomainErrorNamesTheBound); every rho still checks several pairs.
  for (double rho : kRhos) {
    int checked = 0;
    for (const auto& [g, h] : kPairs) {
      if (!in_domain(g, rho) || !in_domain(h, rho)) continue;
      const double expected = quadrature_kernel(g, h, rho);
      EXPECT_LT(checks::relative_error(kernel(prepared(g, rho), prepared(h, rho)), expected), 1e-8)
          << "rho " << rho << ", D " << g.shapes.size() << ", a_0 " << g.shapes[0] << ", a'_0 " << h.shapes[0];
      ++checked;
    }
    EXPECT_GE(checked, 4) << "rho " << rho;
  }
}

TEST(GammaKernel, EqualsTheGenericExponentialFamilyKernel) {
  for (double rho : kRhos)
    for (const auto& [g, h] : kPairs) {
      if (!in_domain(g, rho) || !in_domain(h, rho)) continue;
      GammaModel a(g.shapes, g.scales), b(h.shapes, h.scales);
      a.prepare(with_rho(rho));
      b.prepare(with_rho(rho));
      const double closed_form = a.log_kernel(b);
      const double generic = log_kernel_from_log_partition(a, b, rho);
      // Relative to max(1, |log k|): log k is 0 for a Bhattacharyya kernel of a model with itself.
      EXPECT_LE(std::fabs(generic - closed_form), 1e-12 * std::max(1.0, std::fabs(closed_form)))
          << "rho " << rho << ", a_0 " << g.shapes[0] << ", a'_0 " << h.shapes[0];
    }
}

TEST(GammaKernel, NaturalForm) {
  const GammaModel model({2.0, 0.5}, {4.0, 0.25});
  EXPECT_EQ(model.natural_parameters(), Eigen::Vector4d(1.0, -0.5, -0.25, -4.0));
  // K(theta) = sum_d log Gamma(a_d) + a_d log b_d.
  const double expected = std::lgamma(2.0) + 2.0 * std::log(4.0) + std::lgamma(0.5) + 0.5 * std::log(0.25);
  EXPECT_NEAR(model.log_partition(model.natural_parameters()), expected, 1e-15);
  EXPECT_TRUE(model.in_natural_domain(Eigen::Vector4d(-0.999, 5.0, -1.0, -1e-3)));
  EXPECT_FALSE(model.in_natural_domain(Eigen::Vector4d(-1.0, 5.0, -1.0, -1e-3)));  // a shape of 0
  EXPECT_FALSE(model.in_natural_domain(Eigen::Vector4d(0.0, 5.0, -1.0, 0.0)));     // a rate of 0
  EXPECT_FALSE(model.in_natural_domain(Eigen::Vector2d(0.0, -1.0)));
  ASSERT_TRUE(model.measure_scaling(2.0).has_value());
  EXPECT_EQ(model.measure_scaling(2.0)->eta, 1.0);
  EXPECT_EQ(model.measure_scaling(2.0)->log_factor, 0.0);
  EXPECT_EQ(model.sample_space(), (SampleSpace{"positive real vectors", 2}));
}

TEST(GammaKernel, KernelDomainErrorNamesTheBound) {
  // Shape 0.3 at rho = 2: a+ = 2 (0.3 + 0.3 - 2) + 1 = -1.8; the bound is 1 / (2 (1 - 0.3)) = 1 / 1.4.
  const std::string message = checks::domain_error(gamma_model({{2.0, 0.3}, {1.0, 1.0}}), 2.0);
  EXPECT_TRUE(mentions(message, {"gamma kernel at rho = 2", "\"shape\"[1] = 0.3", "-1.8", "paired with itself",
                                 "rho < 0.714285714", "1 / (2 (1 - 0.3))"}));
  // Several shapes outside: the smallest one sets the bound (1 / (2 (1 - 0.1)) = 0.555...).
  EXPECT_TRUE(mentions(checks::domain_error(gamma_model({{0.4, 0.1, 0.2}, {1.0, 1.0, 1.0}}), 1.0),
                       {"\"shape\"[1] = 0.1", "rho < 0.555555556"}));
  // On the boundary, a+ = 0: shape 0.5 at rho = 1.
  EXPECT_TRUE(mentions(checks::domain_error(gamma_model({{0.5}, {2.0}}), 1.0), {"= 0 <= 0", "rho < 1 "}));
  // prepare() itself throws, whoever calls it.
  GammaModel model({0.3}, {1.0});
  EXPECT_THROW(model.prepare(with_rho(2.0)), KernelDomainError);
}

TEST(GammaKernel, RhoJustBelowTheBoundGivesFiniteKernels) {
  const double rho = 0.7142857;  // just below 1 / 1.4 = 0.714285714...
  const PreparedModel edge = prepared({{2.0, 0.3}, {1.0, 1.0}}, rho);
  const PreparedModel other = prepared({{0.9, 3.0}, {0.5, 2.0}}, rho);
  EXPECT_TRUE(std::isfinite(edge.log_self_kernel()));
  EXPECT_TRUE(std::isfinite(log_kernel(edge, other)));
  EXPECT_GT(kernel(edge, other), 0.0);
  EXPECT_TRUE(std::isfinite(normalized_kernel(edge, other)));
}

TEST(GammaKernel, ExponentialModelsAreGammaModelsOfShapeOne) {
  const std::vector<double> scales = {0.5, 2.0, 1.3};
  const Gamma gammas[] = {{{0.7, 3.0, 1.0}, {1.0, 0.25, 4.0}}, {{2.0, 2.0, 0.9}, {0.3, 5.0, 1.0}}};
  for (double rho : kRhos)
    for (const Gamma& g : gammas) {
      if (!in_domain(g, rho)) continue;
      const PreparedModel exponential(std::make_unique<ExponentialModel>(scales), with_rho(rho));
      const PreparedModel shape_one = prepared({{1.0, 1.0, 1.0}, scales}, rho);
      const PreparedModel gamma = prepared(g, rho);
      EXPECT_NO_THROW(check_compatible(exponential.model(), gamma.model()));
      EXPECT_NO_THROW(check_compatible(gamma.model(), exponential.model()));
      const double expected = log_kernel(shape_one, gamma);
      EXPECT_LT(checks::relative_error(log_kernel(exponential, gamma), expected), 1e-12) << "rho " << rho;
      EXPECT_LT(checks::relative_error(log_kernel(gamma, exponential), expected), 1e-12) << "rho " << rho;
      EXPECT_LT(checks::relative_error(normalized_kernel(exponential, gamma), normalized_kernel(shape_one, gamma)),
                1e-12);
    }
  // Other dimensions, or different rho: no kernel.
  const PreparedModel two(std::make_unique<ExponentialModel>(std::vector<double>{1.0, 1.0}), with_rho(1.0));
  const PreparedModel three = prepared(gammas[1], 1.0);
  EXPECT_THROW(check_compatible(two.model(), three.model()), KernelDomainError);
  const PreparedModel three_at_half(std::make_unique<ExponentialModel>(scales), with_rho(0.5));
  EXPECT_THROW(log_kernel(three_at_half, three), KernelDomainError);
}

TEST(GammaKernel, GramMatricesArePositiveSemidefinite) {
  std::mt19937 rng(61);
  // Shapes >= 0.8 keep every model inside the domain up to rho = 2 (a+ = 2 (1.6 - 2) + 1 > 0).
  std::uniform_real_distribution<double> shape(0.8, 5.0), scale(0.5, 5.0);
  for (double rho : kRhos) {
    std::vector<PreparedModel> models, mixed;
    for (int i = 0; i < 30; ++i) {
      const Gamma g{{shape(rng), shape(rng), shape(rng)}, {scale(rng), scale(rng), scale(rng)}};
      models.push_back(prepared(g, rho));
      // Every third model an exponential: the exponential-gamma kernel is the same inner product.
      if (i % 3 == 0)
        mixed.emplace_back(std::make_unique<ExponentialModel>(g.scales), with_rho(rho));
      else
        mixed.push_back(prepared(g, rho));
    }
    expect_positive_semidefinite(models, "gamma rho " + std::to_string(rho));
    expect_positive_semidefinite(mixed, "gamma and exponential rho " + std::to_string(rho));
  }
}

TEST(GammaModelTest, RowsAndJsonRoundTripBitForBit) {
  const GammaModel model({0.1, 1.0 / 3.0, 1e-300, 7.0}, {1e300, 0.7, 2.0 / 3.0, 1.0});
  checks::expect_round_trips(model);
  const Row row = encode_row(model);
  EXPECT_EQ(row[1].value, 6.0);  // family code 6 at index 2
  const auto decoded = decode_row(row);
  EXPECT_EQ(static_cast<const GammaModel&>(*decoded).shapes(), model.shapes());
  EXPECT_EQ(static_cast<const GammaModel&>(*decoded).scales(), model.scales());
  const auto reparsed = model_from_json(nlohmann::json::parse(model_to_json(model).dump()));
  EXPECT_EQ(static_cast<const GammaModel&>(*reparsed).shapes(), model.shapes());
  EXPECT_EQ(static_cast<const GammaModel&>(*reparsed).scales(), model.scales());
}

TEST(GammaModelTest, RowLayoutIsTheDocumentedOne) {
  // 1: version, 2: family 6, 3: D, 4..3+D: shapes, 4+D..3+2D: scales.
  const Row row = encode_row(GammaModel({0.5, 2.0}, {3.0, 0.25}));
  const Row expected = {{1, 1}, {2, 6}, {3, 2}, {4, 0.5}, {5, 2.0}, {6, 3.0}, {7, 0.25}};
  EXPECT_EQ(format_entries(row), format_entries(expected));
}

TEST(GammaModelTest, RejectsMalformedRows) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 6}, {3, 2}, {4, 0.5}, {5, 2}, {6, 3}, {7, -1}}),
                       {"gamma field \"scale\" (index 7)", "expected a finite number > 0, got -1"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 6}, {3, 2}, {4, 0.5}, {6, 3}, {7, 1}}),
                       {"gamma field \"shape\" (index 5)", "expected a finite number > 0, got 0"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 6}, {3, 2}, {4, 0.5}, {5, 2}, {6, 3}}),
                       {"gamma field \"scale\" (index 7)", "got 0"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 6}, {3, 1}, {4, nan}, {5, 1}}),
                       {"gamma field \"shape\" (index 4)", "expected a finite number, got nan"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 6}, {4, 1}, {5, 1}}),
                       {"gamma field \"dim\" (index 3)", "expected a whole number in [1, 100000000], got 0"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 6}, {3, 1.5}, {4, 1}, {5, 1}}),
                       {"gamma field \"dim\" (index 3)", "got 1.5"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 6}, {3, 1}, {4, 1}, {5, 1}, {6, 1}}),
                       {"gamma row: index 6 lies beyond the last field", "\"scale\" (index 5)"}));
}

TEST(GammaModelTest, RejectsMalformedJson) {
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"gamma","shape":[1,-0.5],"scale":[1,1]})"),
                       {"gamma field \"shape\"[1]", "expected a finite number > 0, got -0.5"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"gamma","shape":[1,2],"scale":[1,0]})"),
                       {"gamma field \"scale\"[1]", "expected a finite number > 0, got 0"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"gamma","shape":[1,2],"scale":[1,2,3]})"),
                       {"gamma field \"scale\"", "as many values as \"shape\" (2)", "got 3 values"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"gamma","shape":[1,2,3],"scale":[1]})"),
                       {"gamma field \"scale\"", "as many values as \"shape\" (3)", "got 1 values"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"gamma","shape":[1]})"), {"gamma field \"scale\": missing"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"gamma","scale":[1]})"), {"gamma field \"shape\": missing"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"gamma","shape":[1],"scale":[1],"rate":[1]})"),
                       {"gamma field \"rate\": not a field of this family", "\"shape\", \"scale\""}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"gamma","shape":[],"scale":[]})"),
                       {"gamma field \"shape\"", "a non-empty array of numbers"}));
  EXPECT_TRUE(mentions(checks::constructor_error([] { GammaModel({std::nan("")}, {1.0}); }),
                       {"gamma field \"shape\"[0]", "got nan"}));
}

}  // namespace
}  // namespace ppk
