// Poisson kernels (JMLR 2004 section 3; docs/design.md "Mathematics") against brute-force summation
// over the counts, the closed forms against the series, the generic exponential-family path,
// Gram matrices, and the row and JSON forms.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <boost/math/special_functions/bessel.hpp>
#include <nlohmann/json.hpp>

#include "error_message.hpp"
#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "positive_family_checks.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/poisson.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using nlohmann::json;

PreparedModel prepared(std::vector<double> rates, double rho) {
  return PreparedModel(std::make_unique<PoissonModel>(std::move(rates)), with_rho(rho));
}

// log of the Poisson probability of x, l^x exp(-l) / x!, written out in long double (0^0 = 1).
long double log_poisson_pmf(long x, long double rate) {
  if (rate == 0) return x == 0 ? 0.0L : -std::numeric_limits<long double>::infinity();
  const long double count = static_cast<long double>(x);
  return count * std::log(rate) - rate - std::lgamma(count + 1.0L);
}

// Brute force, from the definition (JMLR 2004 eq. 2): log sum_{x >= 0} pmf(x; l)^rho pmf(x; l')^rho,
// one dimension, summed from x = 0 in long double. Where it stops: past x = 2 max(l, l') every
// next term is the previous one times (l l' / (x+1)^2)^rho <= q = 2^(-2 rho) <= 2^(-1/2) (rho >= 1/4),
// so the neglected terms sum to at most (term) q / (1 - q) < 2.5 (term); it stops once the last
// term is below 1e-30 of the sum, leaving a remainder below 2.5e-30 of it.
long double brute_force_log_kernel_1d(double l, double l_prime, double rho) {
  long double sum = 0.0L;
  for (long x = 0;; ++x) {
    const long double term = std::exp(rho * (log_poisson_pmf(x, l) + log_poisson_pmf(x, l_prime)));
    sum += term;
    if (x > 2.0 * std::max(l, l_prime) && term < 1e-30L * sum) break;
  }
  return std::log(sum);
}

// The kernel of independent dimensions is the product of theirs.
double brute_force_log_kernel(const std::vector<double>& a, const std::vector<double>& b, double rho) {
  long double log_k = 0.0L;
  for (std::size_t d = 0; d < a.size(); ++d) log_k += brute_force_log_kernel_1d(a[d], b[d], rho);
  return static_cast<double>(log_k);
}

// |k / k_expected - 1| from the two logarithms (k itself may leave the range of a double).
double relative_error_from_logs(double log_k, double log_expected) { return std::fabs(std::expm1(log_k - log_expected)); }

// Every rho the series is checked at: the issue's four, and two that have no closed form.
const double kSeriesRhos[] = {0.25, 0.5, 0.7, 1.0, 2.0, 3.0};

TEST(PoissonKernel, MatchesBruteForceSummation) {
  const std::pair<std::vector<double>, std::vector<double>> pairs[] = {
      {{0.0}, {0.0}},
      {{0.0}, {3.0}},
      {{0.01}, {0.01}},
      {{0.01}, {7.5}},
      {{3.0}, {7.5}},
      {{7.5}, {7.5}},
      {{0.5}, {1.5}},
      {{1e-3}, {200.0}},
      {{200.0}, {250.0}},
      {{250.0}, {250.0}},
      {{0.0, 0.01, 3.0, 200.0, 1.0}, {7.5, 0.01, 0.0, 250.0, 0.3}},
  };
  for (double rho : kSeriesRhos)
    for (const auto& [a, b] : pairs) {
      const double expected = brute_force_log_kernel(a, b, rho);
      EXPECT_LT(relative_error_from_logs(log_kernel(prepared(a, rho), prepared(b, rho)), expected), 1e-12)
          << "rho " << rho << ", rates " << a[0] << " and " << b[0] << " (" << a.size() << " dimensions)";
    }
}

TEST(PoissonKernel, LargeRatesMatchBruteForceSummation) {
  // About 2 sqrt(60 z / rho) series terms; the long double oracle loses about 1e-14 to lgamma(1e4).
  for (double rho : kSeriesRhos) {
    const double expected = brute_force_log_kernel({1e4}, {1.02e4}, rho);
    EXPECT_LT(relative_error_from_logs(log_kernel(prepared({1e4}, rho), prepared({1.02e4}, rho)), expected), 1e-11)
        << "rho " << rho;
  }
}

// rho = 1, l = l': log k = log(exp(-2l) I0(2l)), compared with Boost's I0 in long double (64-bit
// mantissa: log I0 at 10^4 to about 1e-15 absolute), on both sides of the switch to the
// asymptotic series at 2l = 100 and far beyond where I0 overflows a double (2l > 713).
TEST(PoissonKernel, ExpectedLikelihoodMatchesTheBesselFunctionAtLargeArguments) {
  for (double argument : {1.0, 50.0, 99.9, 100.0, 100.1, 150.0, 700.0, 713.0, 800.0, 5000.0, 10000.0}) {
    const double rate = argument / 2.0;
    const long double z = argument;
    const long double expected = std::log(boost::math::cyl_bessel_i(0, z)) - z;
    const double got = log_kernel(prepared({rate}, 1.0), prepared({rate}, 1.0));
    EXPECT_LT(std::fabs(got - static_cast<double>(expected)), 2e-15 * (1.0 + std::fabs(got))) << "2l = " << argument;
  }
  // Different rates with 2 sqrt(l l') = 700: log k = -(l + l') + log I0(700).
  const double l = 300.0, l_prime = 122500.0 / 300.0;
  const long double z = 2.0L * std::sqrt(static_cast<long double>(l) * l_prime);
  const long double expected = std::log(boost::math::cyl_bessel_i(0, z)) - (static_cast<long double>(l) + l_prime);
  const double got = log_kernel(prepared({l}, 1.0), prepared({l_prime}, 1.0));
  EXPECT_LT(relative_error_from_logs(got, static_cast<double>(expected)), 1e-13);
}

TEST(PoissonKernel, ClosedFormsAtHugeRates) {
  // rho = 1/2: exp(-(sqrt(l) - sqrt(l'))^2 / 2) at any rate, in long double.
  const double l = 1e12, l_prime = 1.000002e12;
  const long double gap = std::sqrt(static_cast<long double>(l_prime)) - std::sqrt(static_cast<long double>(l));
  EXPECT_LT(relative_error_from_logs(log_kernel(prepared({l}, 0.5), prepared({l_prime}, 0.5)),
                                     static_cast<double>(-gap * gap / 2.0L)),
            1e-12);
  // rho = 1, l = l': log(exp(-2l) I0(2l)) = -log(2 pi 2l) / 2 + 1/(16 l) + O(l^-2) (DLMF 10.40.1).
  const double expected = -0.5 * std::log(2.0 * 3.14159265358979323846 * 2.0 * l) + 1.0 / (16.0 * l);
  EXPECT_NEAR(log_kernel(prepared({l}, 1.0), prepared({l}, 1.0)), expected, 1e-14);
}

// The series (any rho other than 1/2 and 1) against the closed forms at 1/2 and 1: log k is a smooth
// function f of rho, and the mean of f(rho - h) and f(rho + h) is f(rho) + h^2 f''/2 + O(h^4). With
// f'' = 4 Var(log pmf(x; z)) under the weights pmf(x; z)^(2 rho) (z = sqrt(l l')), about 1/(2 rho^2) per
// dimension at large rates and less at small ones, h = 1e-5 leaves a gap of about 1e-10.
TEST(PoissonKernel, SeriesAgreesWithTheClosedForms) {
  const std::pair<std::vector<double>, std::vector<double>> pairs[] = {
      {{0.01}, {7.5}}, {{3.0}, {7.5}}, {{200.0}, {250.0}}, {{1e6}, {1.001e6}}, {{0.0, 5.0, 40.0}, {2.0, 5.5, 0.3}}};
  const double h = 1e-5;
  for (double rho : {0.5, 1.0})
    for (const auto& [a, b] : pairs) {
      const double closed = log_kernel(prepared(a, rho), prepared(b, rho));
      const double below = log_kernel(prepared(a, rho - h), prepared(b, rho - h));
      const double above = log_kernel(prepared(a, rho + h), prepared(b, rho + h));
      EXPECT_NEAR(0.5 * (below + above), closed, 1e-9) << "rho " << rho << ", rates " << a[0] << " and " << b[0];
    }
}

TEST(PoissonKernel, ZeroRatesArePointMassesAtZero) {
  // pmf(x; 0) = [x = 0]: k = pmf(0; l')^rho = exp(-rho l') for every rho.
  for (double rho : kSeriesRhos) {
    EXPECT_EQ(log_kernel(prepared({0.0, 0.0}, rho), prepared({0.0, 0.0}, rho)), 0.0);
    EXPECT_NEAR(log_kernel(prepared({0.0, 2.0}, rho), prepared({4.0, 0.0}, rho)), -rho * 6.0, 1e-14);
  }
}

TEST(PoissonKernel, SelfKernels) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> uniform(0.0, 20.0);
  for (double rho : kSeriesRhos)
    for (int i = 0; i < 10; ++i) {
      const PreparedModel model = prepared({uniform(rng), 0.0, uniform(rng), 1e3 * uniform(rng)}, rho);
      EXPECT_TRUE(std::isfinite(model.log_self_kernel())) << "rho " << rho;
      EXPECT_NEAR(normalized_kernel(model, model), 1.0, 1e-12) << "rho " << rho;
      if (rho == 0.5) {
        EXPECT_EQ(kernel(model, model), 1.0);  // the Bhattacharyya coefficient of p with itself
      }
    }
}

TEST(PoissonKernel, LogPartitionPathAgreesAtOneHalf) {
  // JMLR 2004 section 3: k = exp(K((theta + theta')/2) - K(theta)/2 - K(theta')/2), theta = log rate.
  const PoissonModel a({0.5, 3.0, 20.0, 1e-4}), b({2.0, 0.01, 7.5, 1e-4});
  const double expected = log_kernel(prepared(a.rates(), 0.5), prepared(b.rates(), 0.5));
  const double generic = log_kernel_from_log_partition(a, b, 0.5);
  EXPECT_LT(std::fabs(generic - expected), 1e-12 * std::fabs(expected));
  // The measure 1/x! scales only at rho = 1/2; a rate of 0 (theta = -inf) is outside Theta.
  EXPECT_THROW(log_kernel_from_log_partition(a, b, 1.0), KernelDomainError);
  EXPECT_THROW(log_kernel_from_log_partition(PoissonModel({0.0}), PoissonModel({1.0}), 0.5), KernelDomainError);
  EXPECT_EQ(a.natural_parameters()[1], std::log(3.0));
  EXPECT_EQ(PoissonModel({0.0}).natural_parameters()[0], -std::numeric_limits<double>::infinity());
}

TEST(PoissonKernel, PrepareChecksRho) {
  EXPECT_THROW(prepared({1.0}, 0.0), KernelDomainError);
  EXPECT_THROW(prepared({1.0}, -1.0), KernelDomainError);
  EXPECT_THROW(prepared({1.0}, std::numeric_limits<double>::infinity()), KernelDomainError);
  // The series stops at rates of 10^9; the closed forms have no limit.
  try {
    prepared({1.0, 2e9}, 0.7);
    ADD_FAILURE() << "no error";
  } catch (const KernelDomainError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("rate 2e+09 (coordinate 1)"), std::string::npos) << message;
    EXPECT_NE(message.find("rho = 0.5 or 1"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(prepared({1e9}, 0.7));
  EXPECT_NO_THROW(prepared({2e9}, 0.5));
  EXPECT_NO_THROW(prepared({2e9}, 1.0));
}

TEST(PoissonGramMatrix, RandomModelsArePositiveSemidefinite) {
  std::mt19937 rng(14);
  std::uniform_real_distribution<double> uniform(0.0, 20.0);
  for (double rho : kRhos) {
    std::vector<PreparedModel> models;
    for (int i = 0; i < 30; ++i) {
      std::vector<double> rates(3);
      for (double& rate : rates) rate = uniform(rng) < 4.0 ? 0.0 : uniform(rng);  // a fifth are 0
      models.emplace_back(std::make_unique<PoissonModel>(rates), with_rho(rho));
    }
    expect_positive_semidefinite(models, "poisson rho " + std::to_string(rho));
  }
}

bool same_rows(const Row& a, const Row& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].index != b[i].index || a[i].value != b[i].value) return false;
  return true;
}

const PoissonModel& as_poisson(const Model& model) { return dynamic_cast<const PoissonModel&>(model); }

TEST(PoissonCodec, RowsAndJsonKeepTheRatesBitForBit) {
  const std::vector<double> rates = {0.1, 0.0, 3.0000000000000004, 1e-300, 12345.678, 0.0};
  const PoissonModel model(rates);
  EXPECT_EQ(model.sample_space(), (SampleSpace{"count vectors", 6}));
  const Row row = encode_row(model);
  // Version 1, family 4, D = 6 at index 3, rate_d at 4 + d, zeros omitted.
  EXPECT_TRUE(same_rows(row, {{1, 1}, {2, 4}, {3, 6}, {4, 0.1}, {6, 3.0000000000000004}, {7, 1e-300}, {8, 12345.678}}))
      << format_entries(row);
  const auto decoded = decode_row(row);
  EXPECT_EQ(as_poisson(*decoded).rates(), rates);
  const json object = model_to_json(model);
  EXPECT_EQ(object, json::parse(R"({"family":"poisson","rate":[0.1,0.0,3.0000000000000004,1e-300,12345.678,0.0]})"));
  EXPECT_EQ(as_poisson(*model_from_json(object)).rates(), rates);
  EXPECT_EQ(as_poisson(*model_from_json(json::parse(object.dump()))).rates(), rates);
  // An explicit 0 means the same as an omitted entry.
  EXPECT_EQ(as_poisson(*decode_row({{1, 1}, {2, 4}, {3, 3}, {4, 0.0}, {5, 2.5}, {6, 0.0}})).rates(),
            (std::vector<double>{0.0, 2.5, 0.0}));
  EXPECT_EQ(as_poisson(*decode_row({{1, 1}, {2, 4}, {3, 2}})).rates(), (std::vector<double>{0.0, 0.0}));
}

TEST(PoissonCodec, FamilyIsRegistered) {
  ASSERT_NE(find_family(4), nullptr);
  EXPECT_EQ(find_family(4)->name, "poisson");
  EXPECT_EQ(find_family("poisson"), &poisson_family());
}

// The message of the ModelError thrown by `f` ("" if none).
template <class F>
std::string model_error(F f) {
  return checks::error_message<ModelError>(f);
}

using checks::json_error;
using checks::mentions;
using checks::row_error;

TEST(PoissonErrors, Rows) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // D = 3: rates at indices 4..6.
  EXPECT_TRUE(mentions(row_error({{1, 1}, {2, 4}, {3, 3}, {4, 1.0}, {5, -2.0}}),
                       {"poisson field \"rate\" (index 5): expected a finite number >= 0, got -2"}));
  EXPECT_TRUE(mentions(row_error({{1, 1}, {2, 4}, {3, 3}, {6, nan}}), {"poisson field \"rate\" (index 6)", "got nan"}));
  EXPECT_TRUE(mentions(row_error({{1, 1}, {2, 4}, {3, 3}, {4, std::numeric_limits<double>::infinity()}}),
                       {"poisson field \"rate\" (index 4)", "got inf"}));
  EXPECT_TRUE(mentions(row_error({{1, 1}, {2, 4}}), {"poisson field \"dim\" (index 3)", "[1, 100000000]", "got 0"}));
  EXPECT_TRUE(mentions(row_error({{1, 1}, {2, 4}, {3, 2.5}}), {"poisson field \"dim\" (index 3)", "got 2.5"}));
  EXPECT_TRUE(mentions(row_error({{1, 1}, {2, 4}, {3, -1}}), {"poisson field \"dim\" (index 3)", "got -1"}));
  EXPECT_TRUE(mentions(row_error({{1, 1}, {2, 4}, {3, 2}, {4, 1.0}, {7, 1.0}}),
                       {"poisson row: index 7 lies beyond", "\"rate\" (indices 4..5)"}));
}

TEST(PoissonErrors, Json) {
  EXPECT_TRUE(mentions(json_error(R"({"family":"poisson"})"), {"poisson field \"rate\": missing"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"poisson","rate":[1,-2]})"),
                       {"poisson field \"rate\"[1]: expected a finite number >= 0, got -2"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"poisson","rate":[]})"), {"poisson field \"rate\"", "non-empty"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"poisson","rate":2})"), {"poisson field \"rate\"", "array", "got 2"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"poisson","rate":[1,"x"]})"), {"poisson field \"rate\"[1]", "got \"x\""}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"poisson","rate":[1],"scale":[2]})"),
                       {"poisson field \"scale\"", "not a field", "\"rate\""}));
}

TEST(PoissonErrors, Constructor) {
  EXPECT_TRUE(mentions(model_error([] { PoissonModel(std::vector<double>{}); }),
                       {"poisson field \"rate\"", "between 1 and 100000000 rates", "got 0"}));
  EXPECT_TRUE(mentions(model_error([] {
                         PoissonModel({2.0, std::numeric_limits<double>::quiet_NaN()});
                       }),
                       {"poisson field \"rate\"[1]", "got nan"}));
}

}  // namespace
}  // namespace ppk
