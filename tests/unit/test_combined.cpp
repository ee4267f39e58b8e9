// Combined rows (combined.hpp): K(a, b) = sum_i w_i k_i(a_i, b_i) / sqrt(k_i(a_i, a_i) k_i(b_i, b_i)),
// checked against that sum with each part's kernel from an independent oracle (1-D Gaussians by
// quadrature, bernoulli rows by summing over {0,1}^D, one-event multinomials by the direct sum); K(a, a)
// = sum w; -d reaching the sequence parts only; PSD Gram matrices with HMM and Gaussian parts; the
// compatibility rules (parts, their number, the weights); round trips and rejected rows.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "emission_models.hpp"
#include "error_message.hpp"
#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "oracles.hpp"
#include "positive_family_checks.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/families/combined.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/montecarlo.hpp"

namespace ppk {
namespace {

using checks::mentions;
using checks::relative_error;

// A row of three parts: a 1-D Gaussian N(mean, var), a bernoulli over 3 bits and a one-event
// multinomial over 3 categories.
struct Parts {
  double mean, var;
  std::vector<double> bits, categories;
};

std::unique_ptr<CombinedModel> combined_row(const std::vector<double>& weights, const Parts& p) {
  std::vector<std::unique_ptr<Model>> parts;
  parts.push_back(gaussian_1d({p.mean, p.var}));
  parts.push_back(std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(p.bits)));
  parts.push_back(one_event_multinomial(p.categories));
  return std::make_unique<CombinedModel>(weights, std::move(parts));
}

double multinomial_ppk(const std::vector<double>& a, const std::vector<double>& b, double rho) {
  double sum = 0.0;
  for (std::size_t d = 0; d < a.size(); ++d) sum += std::pow(a[d] * b[d], rho);
  return sum;
}

// sum_i w_i k_i(a_i, b_i) / sqrt(k_i(a_i, a_i) k_i(b_i, b_i)), every k_i from the oracles.
double oracle_kernel(const std::vector<double>& w, const Parts& a, const Parts& b, double rho) {
  const double gaussian = oracle::gaussian_ppk_1d(a.mean, a.var, b.mean, b.var, rho) /
                          std::sqrt(oracle::gaussian_ppk_1d(a.mean, a.var, a.mean, a.var, rho) *
                                    oracle::gaussian_ppk_1d(b.mean, b.var, b.mean, b.var, rho));
  const double bernoulli =
      oracle::bernoulli_ppk(a.bits, b.bits, rho) /
      std::sqrt(oracle::bernoulli_ppk(a.bits, a.bits, rho) * oracle::bernoulli_ppk(b.bits, b.bits, rho));
  const double multinomial =
      multinomial_ppk(a.categories, b.categories, rho) /
      std::sqrt(multinomial_ppk(a.categories, a.categories, rho) * multinomial_ppk(b.categories, b.categories, rho));
  return w[0] * gaussian + w[1] * bernoulli + w[2] * multinomial;
}

const Parts kA{0.3, 0.8, {0.2, 0.7, 0.5}, {0.5, 0.3, 0.2}};
const Parts kB{-1.1, 2.5, {0.9, 0.1, 0.4}, {0.1, 0.2, 0.7}};

TEST(CombinedFamily, KernelIsTheWeightedSumOfThePartsNormalizedKernels) {
  for (double rho : kRhos)
    for (const std::vector<double>& w : {std::vector<double>{1, 1, 1}, {0.5, 2, 0.25}, {0, 1, 3}, {1, 0, 0}}) {
      const PreparedModel a(combined_row(w, kA), with_rho(rho)), b(combined_row(w, kB), with_rho(rho));
      check_compatible(a.model(), b.model());
      const double expected = oracle_kernel(w, kA, kB, rho);
      const double sum = w[0] + w[1] + w[2];
      EXPECT_LT(relative_error(kernel(a, b), expected), 1e-10) << "rho " << rho << " weights " << format_weights(w);
      EXPECT_LT(relative_error(normalized_kernel(a, b), expected / sum), 1e-10) << "rho " << rho;
      // K(a, a) = sum_i w_i: every normalized self term is 1.
      EXPECT_LT(relative_error(kernel(a, a), sum), 1e-15);
      EXPECT_LT(relative_error(std::exp(a.log_self_kernel()), sum), 1e-15);
    }
}

// A 2-state HMM over 2 symbols with the stored length T.
std::unique_ptr<HmmModel> two_state_hmm(double stay, double p, long length) {
  std::vector<std::unique_ptr<Model>> emissions;
  emissions.push_back(one_event_multinomial({p, 1 - p}));
  emissions.push_back(one_event_multinomial({1 - p, p}));
  Eigen::Matrix2d trans;
  trans << stay, 1 - stay, 1 - stay, stay;
  return std::make_unique<HmmModel>(Eigen::Vector2d(0.5, 0.5), trans, std::move(emissions), length);
}

std::unique_ptr<CombinedModel> hmm_and_gaussian(double stay, long length, double mean) {
  std::vector<std::unique_ptr<Model>> parts;
  parts.push_back(two_state_hmm(stay, 0.8, length));
  parts.push_back(gaussian_1d({mean, 1.0}));
  return std::make_unique<CombinedModel>(std::vector<double>{0.7, 0.3}, std::move(parts));
}

TEST(CombinedFamily, LengthReachesTheSequenceParts) {
  // -d T prepares the HMM part at T, and K is its normalized HMM kernel at T plus the Gaussian part's.
  for (int steps : {1, 4}) {
    const KernelParams params = with_rho_and_length(0.5, steps);
    const PreparedModel a(hmm_and_gaussian(0.9, 6, 0.0), params), b(hmm_and_gaussian(0.3, 9, 1.0), params);
    check_compatible(a.model(), b.model());
    const PreparedModel hmm_a(two_state_hmm(0.9, 0.8, 6), params), hmm_b(two_state_hmm(0.3, 0.8, 9), params);
    const double gaussian = oracle::gaussian_ppk_1d(0.0, 1.0, 1.0, 1.0, 0.5) / oracle::gaussian_ppk_1d(0, 1, 0, 1, 0.5);
    EXPECT_LT(relative_error(kernel(a, b), 0.7 * normalized_kernel(hmm_a, hmm_b) + 0.3 * gaussian), 1e-10);
  }
  // The T of a combined row is its shortest sequence part's; without -d rows of other T have no kernel.
  EXPECT_EQ(hmm_and_gaussian(0.9, 6, 0.0)->sequence_steps(), 6);
  EXPECT_EQ(combined_row({1, 1, 1}, kA)->sequence_steps(), std::nullopt);
  const PreparedModel six(hmm_and_gaussian(0.9, 6, 0.0), with_rho(0.5)),
      nine(hmm_and_gaussian(0.3, 9, 1.0), with_rho(0.5));
  try {
    check_compatible(six.model(), nine.model());
    ADD_FAILURE() << "rows of T = 6 and 9 without -d";
  } catch (const KernelDomainError& e) {
    EXPECT_TRUE(mentions(e.what(), {"combined part 1: ", "different lengths T = 6 and 9", "-d 6"}));
  }
}

std::string compatibility_error(const Model& a, const Model& b) {
  return checks::error_message<KernelDomainError>([&] { check_compatible(a, b); });
}

TEST(CombinedFamily, RowsPairPartByPartUnderOneWeighting) {
  const auto row = combined_row({1, 1, 1}, kA);
  EXPECT_EQ(compatibility_error(*row, *combined_row({1, 1, 1}, kB)), "");
  EXPECT_TRUE(mentions(compatibility_error(*row, *combined_row({1, 2, 1}, kB)),
                       {"combined rows with the weights 1,1,1 and 1,2,1", "the same weights"}));
  std::vector<std::unique_ptr<Model>> two;
  two.push_back(gaussian_1d({0, 1}));
  two.push_back(std::make_unique<BernoulliModel>(SparseProbabilities::from_dense({0.5, 0.5, 0.5})));
  const CombinedModel fewer(std::vector<double>{1, 1}, std::move(two));
  EXPECT_TRUE(mentions(compatibility_error(*row, fewer), {"combined rows of 3 and 2 parts"}));
  EXPECT_TRUE(mentions(compatibility_error(*row, *gaussian_1d({0, 1})), {"a combined row and a gaussian row"}));
  EXPECT_TRUE(mentions(compatibility_error(*gaussian_1d({0, 1}), *row), {"a combined row and a gaussian row"}));
  Parts wider = kB;
  wider.bits.push_back(0.5);
  EXPECT_TRUE(mentions(compatibility_error(*row, *combined_row({1, 1, 1}, wider)),
                       {"combined part 2: ", "bernoulli over binary vectors of dimension 3", "dimension 4"}));
  // The sample spaces name the weights, so that the prepared models' check (equal spaces) sees them too.
  const PreparedModel a(combined_row({1, 1, 1}, kA), with_rho(1.0)), b(combined_row({1, 2, 1}, kB), with_rho(1.0));
  EXPECT_THROW(check_compatible(a, b), KernelDomainError);
  EXPECT_THROW(log_kernel(a.model(), b.model()), KernelDomainError);
}

std::unique_ptr<CombinedModel> random_row(std::mt19937_64& rng, const std::vector<double>& weights) {
  std::uniform_real_distribution<double> unit(0.05, 0.95), mean(-2, 2), var(0.3, 3);
  std::vector<std::unique_ptr<Model>> parts;
  parts.push_back(two_state_hmm(unit(rng), unit(rng), 5));
  parts.push_back(gaussian_1d({mean(rng), var(rng)}));
  const double p = unit(rng), q = unit(rng) * (1 - p);
  parts.push_back(one_event_multinomial({p, q, 1 - p - q}));
  return std::make_unique<CombinedModel>(weights, std::move(parts));
}

TEST(CombinedFamily, GramMatricesArePositiveSemidefinite) {
  std::mt19937_64 rng(19);
  for (const std::vector<double>& w : {std::vector<double>{1, 1, 1}, {0.2, 0, 5}})
    for (double rho : {0.5, 1.0}) {
      std::vector<PreparedModel> models;
      for (int i = 0; i < 14; ++i) models.emplace_back(random_row(rng, w), with_rho_and_length(rho, 3));
      expect_positive_semidefinite(models, "combined rows, weights " + format_weights(w));
    }
}

TEST(CombinedFamily, RowAndJsonRoundTrips) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 4; ++i) checks::expect_round_trips(*random_row(rng, {0.25, 0, 2}));
  std::vector<std::unique_ptr<Model>> parts;
  parts.push_back(gaussian_1d({1, 2}));
  parts.push_back(one_event_multinomial({0.5, 0.5}));
  const CombinedModel row(std::vector<double>{1, 0.5}, std::move(parts));
  // 3: P, 4..5: the weights, then each part as its length and its row from its family code on.
  EXPECT_EQ(format_entries(encode_row(row)), "1:1 2:19 3:2 4:1 5:0.5 6:5 7:1 8:1 9:1 10:1 11:2 12:5 13:3 14:2 17:0.5");
  EXPECT_EQ(model_to_json(row).dump(), R"({"family":"combined","parts":[{"family":"gaussian","mean":[1.0],"var":2.0},)"
                                       R"({"family":"multinomial","p":[0.5,0.5]}],"weights":[1.0,0.5]})");
}

TEST(CombinedFamily, RejectsBadWeightsAndParts) {
  const std::string gaussian = R"({"family":"gaussian","mean":[0],"var":1})";
  auto json = [&](const std::string& weights, const std::string& parts) {
    return checks::json_error(R"({"family":"combined","weights":)" + weights + R"(,"parts":[)" + parts + "]}");
  };
  EXPECT_TRUE(mentions(json("[1,-1]", gaussian + "," + gaussian), {"\"weights\"[1]", "a finite weight >= 0", "got -1"}));
  EXPECT_TRUE(mentions(json("[0,0]", gaussian + "," + gaussian), {"\"weights\"", "summing to more than 0"}));
  EXPECT_TRUE(mentions(json("[1]", gaussian + "," + gaussian), {"one weight per part (2)"}));
  EXPECT_TRUE(mentions(json("[1]", R"({"family":"combined","weights":[1],"parts":[)" + gaussian + "]}"),
                       {"\"parts\"[0]", "other than combined", "got a combined model"}));
  EXPECT_TRUE(mentions(json("[]", ""), {"\"weights\"", "a non-empty array"}));
  // A part whose kernel is an estimate would leave the Gram matrix without its PSD guarantee.
  const std::string montecarlo =
      checks::json_error(R"({"family":"combined","weights":[1],"parts":[{"family":"montecarlo","samples":10,)"
                         R"("model":)" +
                         gaussian + "}]}");
  EXPECT_TRUE(mentions(montecarlo, {"\"parts\"[0]", "exact kernel", "got a montecarlo model"}));
  // In a row, the weight's index.
  const Row row = encode_row(*combined_row({1, 1, 1}, kA));
  EXPECT_TRUE(mentions(checks::row_error(checks::with_value(row, 5, -2)),
                       {"combined field \"weights\" (index 5)", "a finite weight >= 0", "got -2"}));
}

}  // namespace
}  // namespace ppk
