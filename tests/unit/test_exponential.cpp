// Exponential models (exponential.hpp): the kernel against quadrature of p(x)^rho p'(x)^rho with Boost's
// densities, the generic exponential-family path, Gram matrices, round trips and rejected models.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include <boost/math/distributions/exponential.hpp>

#include "kernel_params.hpp"
#include "gram_checks.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/exponential.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk {
namespace {

using checks::mentions;

PreparedModel prepared(std::vector<double> scales, double rho) {
  return PreparedModel(std::make_unique<ExponentialModel>(std::move(scales)), with_rho(rho));
}

// k_rho = prod_d integral over x > 0 of p_d(x)^rho p'_d(x)^rho dx, p_d the density of scale b_d
// (Boost's exponential_distribution takes the rate 1/b), each factor by quadrature.
double quadrature_kernel(const std::vector<double>& b, const std::vector<double>& b2, double rho) {
  double k = 1.0;
  for (std::size_t d = 0; d < b.size(); ++d) {
    const boost::math::exponential_distribution<double> p(1.0 / b[d]), q(1.0 / b2[d]);
    k *= checks::integrate_positive_reals(
        [&](double x) { return std::pow(boost::math::pdf(p, x), rho) * std::pow(boost::math::pdf(q, x), rho); });
  }
  return k;
}

TEST(ExponentialKernel, MatchesQuadrature) {
  const std::pair<std::vector<double>, std::vector<double>> pairs[] = {
      {{1.0}, {1.0}},
      {{0.5}, {2.0}},
      {{0.05}, {20.0}},
      {{3.0}, {0.7}},
      {{0.5, 1.0, 3.0}, {2.0, 0.25, 3.0}},
      {{1.5, 0.2, 8.0, 1.0}, {0.6, 0.9, 2.5, 4.0}},
  };
  for (double rho : kRhos)
    for (const auto& [b, b2] : pairs) {
      const double expected = quadrature_kernel(b, b2, rho);
      EXPECT_LT(checks::relative_error(kernel(prepared(b, rho), prepared(b2, rho)), expected), 1e-8)
          << "rho " << rho << ", D " << b.size() << ", b_0 " << b[0] << ", b'_0 " << b2[0];
    }
}

TEST(ExponentialKernel, EveryRhoIsInTheDomain) {
  // 1 / (rho (1/b + 1/b') (b b')^rho) is finite at every rho > 0.
  for (double rho : {1e-3, 0.1, 7.0, 50.0}) {
    const PreparedModel a = prepared({0.3, 4.0}, rho), b = prepared({2.0, 0.5}, rho);
    EXPECT_TRUE(std::isfinite(log_kernel(a, b))) << rho;
    EXPECT_TRUE(std::isfinite(a.log_self_kernel())) << rho;
  }
}

TEST(ExponentialKernel, EqualsTheGenericExponentialFamilyKernel) {
  for (double rho : kRhos) {
    ExponentialModel a({0.5, 1.0, 3.0}), b({2.0, 0.25, 3.0});
    a.prepare(with_rho(rho));
    b.prepare(with_rho(rho));
    const double closed_form = a.log_kernel(b);
    const double generic = log_kernel_from_log_partition(a, b, rho);
    // Relative to max(1, |log k|): log k is 0 for a Bhattacharyya kernel of a model with itself.
    EXPECT_LE(std::fabs(generic - closed_form), 1e-12 * std::max(1.0, std::fabs(closed_form))) << "rho " << rho;
  }
}

TEST(ExponentialKernel, NaturalForm) {
  const ExponentialModel model({0.5, 4.0});
  EXPECT_EQ(model.natural_parameters(), Eigen::Vector2d(-2.0, -0.25));
  // K(theta) = sum_d log b_d.
  EXPECT_NEAR(model.log_partition(model.natural_parameters()), std::log(0.5) + std::log(4.0), 1e-15);
  EXPECT_TRUE(model.in_natural_domain(Eigen::Vector2d(-1.0, -1e-300)));
  EXPECT_FALSE(model.in_natural_domain(Eigen::Vector2d(-1.0, 0.0)));
  EXPECT_FALSE(model.in_natural_domain(Eigen::Vector2d(-1.0, std::numeric_limits<double>::quiet_NaN())));
  EXPECT_FALSE(model.in_natural_domain(Eigen::Vector3d(-1.0, -1.0, -1.0)));
  for (double rho : {0.25, 3.0}) {
    ASSERT_TRUE(model.measure_scaling(rho).has_value());
    EXPECT_EQ(model.measure_scaling(rho)->eta, 1.0);
    EXPECT_EQ(model.measure_scaling(rho)->log_factor, 0.0);
  }
  EXPECT_EQ(model.sample_space(), (SampleSpace{"positive real vectors", 2}));
}

TEST(ExponentialKernel, GramMatricesArePositiveSemidefinite) {
  std::mt19937 rng(51);
  std::uniform_real_distribution<double> scale(0.5, 5.0);
  for (double rho : kRhos) {
    std::vector<PreparedModel> models;
    for (int i = 0; i < 30; ++i) models.push_back(prepared({scale(rng), scale(rng), scale(rng)}, rho));
    expect_positive_semidefinite(models, "exponential rho " + std::to_string(rho));
  }
}

TEST(ExponentialModelTest, RowsAndJsonRoundTripBitForBit) {
  const ExponentialModel model({0.1, 1.0 / 3.0, 1e-300, 1e300, 2.5});
  checks::expect_round_trips(model);
  EXPECT_EQ(encode_row(model)[1].value, 5.0);  // family code 5 at index 2
  const auto decoded = decode_row(encode_row(model));
  EXPECT_EQ(static_cast<const ExponentialModel&>(*decoded).scales(), model.scales());
  const auto reparsed = model_from_json(nlohmann::json::parse(model_to_json(model).dump()));
  EXPECT_EQ(static_cast<const ExponentialModel&>(*reparsed).scales(), model.scales());
}

TEST(ExponentialModelTest, RejectsMalformedRows) {
  // 1: version, 2: family 5, 3: D, 4..3+D: scales.
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 5}, {3, 2}, {4, 1.5}, {5, -2}}),
                       {"exponential field \"scale\" (index 5)", "expected a finite number > 0, got -2"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 5}, {3, 2}, {5, 1.5}}),
                       {"exponential field \"scale\" (index 4)", "expected a finite number > 0, got 0"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 5}, {3, 1}, {4, std::numeric_limits<double>::quiet_NaN()}}),
                       {"exponential field \"scale\" (index 4)", "expected a finite number, got nan"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 5}, {4, 1.0}}),
                       {"exponential field \"dim\" (index 3)", "expected a whole number in [1, 100000000], got 0"}));
  EXPECT_TRUE(mentions(checks::row_error({{1, 1}, {2, 5}, {3, 1}, {4, 1.0}, {5, 1.0}}),
                       {"exponential row: index 5 lies beyond the last field", "\"scale\" (index 4)"}));
}

TEST(ExponentialModelTest, RejectsMalformedJson) {
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"exponential","scale":[1,0]})"),
                       {"exponential field \"scale\"[1]", "expected a finite number > 0, got 0"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"exponential","scale":[-1]})"),
                       {"exponential field \"scale\"[0]", "got -1"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"exponential","scale":[]})"),
                       {"exponential field \"scale\"", "a non-empty array of numbers"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"exponential"})"), {"exponential field \"scale\": missing"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"exponential","scale":[1],"shape":[2]})"),
                       {"exponential field \"shape\": not a field of this family", "\"scale\""}));
  // C++ callers: NaN and an empty vector.
  EXPECT_TRUE(mentions(checks::constructor_error([] {
                         ExponentialModel({1.0, std::nan("")});
                       }),
                       {"exponential field \"scale\"[1]", "got nan"}));
  EXPECT_TRUE(mentions(checks::constructor_error([] { ExponentialModel(std::vector<double>{}); }),
                       {"exponential field \"dim\"", "got 0"}));
}

}  // namespace
}  // namespace ppk
