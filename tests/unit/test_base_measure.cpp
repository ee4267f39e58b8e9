// Multinomial rows under a leveled (pooled) base measure (docs/base-measure.md): the kernel
// sum_d (a_d a'_d)^rho against a direct sum over the D dense coordinates; the batch kernels equal the
// single-pair ones; the pooled base's quantisation; rows under different bases refused; leveled rows
// not sampled.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_multinomial.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/core/row.hpp"
#include "ppk/core/sampling.hpp"
#include "kernel_params.hpp"

namespace ppk {
namespace {

constexpr long kDim = 200;

// Pooled counts of a Zipf-like corpus with some words never seen.
std::vector<double> pooled_counts() {
  std::vector<double> counts(kDim, 0.0);
  for (long d = 0; d < kDim - 20; ++d) counts[d] = std::floor(1000.0 / (d + 1.0));
  return counts;
}

// A document's counts: a few words, seeded.
std::vector<double> document(unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<long> word(0, kDim - 1);
  std::vector<double> counts(kDim, 0.0);
  for (int i = 0; i < 12; ++i) counts[word(generator)] += 1.0;
  return counts;
}

// a_d = (c_d + A m_d) / (N + A), A = alpha D, dense: the oracle's model.
std::vector<double> dense_model(const std::vector<double>& counts, const LeveledBase& base, double alpha) {
  double total = 0.0;
  for (double c : counts) total += c;
  const double strength = alpha * static_cast<double>(kDim);
  std::vector<double> a(kDim);
  for (long d = 0; d < kDim; ++d)
    a[d] = (counts[d] + strength * base.levels.value[base.word_level[d]]) / (total + strength);
  return a;
}

std::unique_ptr<Model> fitted(const std::vector<double>& counts, const std::shared_ptr<const LeveledBase>& base,
                              double alpha, Trials trials = Trials()) {
  MultinomialFitOptions options;
  options.alpha = alpha;
  options.base = base;
  options.trials = trials;
  SparseVector vector;
  for (long d = 0; d < kDim; ++d)
    if (counts[d] != 0.0) vector.push_back({d, counts[d]});
  return estimate(*multinomial_estimator(options), {vector}, kDim);
}

TEST(BaseMeasure, PooledBaseIsQuantisedIntoAtMost32GeometricLevelsSummingToOne) {
  const std::vector<double> counts = pooled_counts();
  const LeveledBase base = quantised_pooled_base(counts);
  ASSERT_LE(base.levels.value.size(), BaseLevels::kMaxLevels);
  EXPECT_NEAR(base.levels.power_sum(1.0), 1.0, 1e-12);
  double total = 0.0;
  for (double c : counts) total += c;
  for (std::size_t k = 0; k < base.levels.value.size(); ++k) {
    double sum = 0.0, low = 1.0, high = 0.0;
    long members = 0;
    for (long d = 0; d < kDim; ++d) {
      if (base.word_level[d] != static_cast<int>(k)) continue;
      const double m = (counts[d] + 0.5) / (total + 0.5 * kDim);
      sum += m, ++members, low = std::min(low, m), high = std::max(high, m);
    }
    EXPECT_EQ(members, base.levels.count[k]);
    EXPECT_NEAR(base.levels.value[k], sum / members, 1e-15);
    EXPECT_LE(high / low, std::pow(1000.5 / 0.5, 1.0 / 32) * (1 + 1e-12)) << "one geometric bin";
  }
  EXPECT_EQ(base.word_level[kDim - 1], 0) << "a word never seen has the smallest level";
  EXPECT_THROW(quantised_pooled_base({1.0, -1.0}), std::invalid_argument);
}

TEST(BaseMeasure, KernelEqualsTheDenseSumAtEveryRhoAndTheBatchesAgree) {
  const auto base = std::make_shared<const LeveledBase>(quantised_pooled_base(pooled_counts()));
  for (double alpha : {0.01, 1.0}) {
    std::vector<std::vector<double>> dense;
    std::vector<std::unique_ptr<Model>> models;
    for (unsigned seed = 1; seed <= 6; ++seed) {
      dense.push_back(dense_model(document(seed), *base, alpha));
      models.push_back(fitted(document(seed), base, alpha));
    }
    for (double rho : kRhos) {
      std::vector<std::unique_ptr<PreparedModel>> prepared;
      std::vector<const PreparedModel*> pointers;
      for (const auto& m : models) {
        prepared.push_back(std::make_unique<PreparedModel>(model_from_json(model_to_json(*m)), with_rho(rho)));
        pointers.push_back(prepared.back().get());
      }
      std::vector<const Model*> raw;
      for (const auto& p : prepared) raw.push_back(&p->model());
      for (std::size_t i = 0; i < dense.size(); ++i) {
        std::vector<double> many(dense.size()), log_many(dense.size());
        raw[i]->kernel_many(raw.data(), raw.size(), many.data());
        raw[i]->log_kernel_many(raw.data(), raw.size(), log_many.data());
        for (std::size_t j = 0; j < dense.size(); ++j) {
          double expected = 0.0;
          for (long d = 0; d < kDim; ++d) expected += std::pow(dense[i][d] * dense[j][d], rho);
          const double k = raw[i]->kernel(*raw[j]);
          EXPECT_NEAR(k, expected, 1e-12 * expected) << "alpha " << alpha << " rho " << rho << " pair " << i << j;
          EXPECT_NEAR(raw[i]->log_kernel(*raw[j]), std::log(expected), 1e-12);
          EXPECT_EQ(many[j], k) << "kernel_many";
          EXPECT_EQ(log_many[j], raw[i]->log_kernel(*raw[j])) << "log_kernel_many";
        }
      }
    }
  }
}

TEST(BaseMeasure, CountKernelsUseTheSameBhattacharyyaSum) {
  const auto base = std::make_shared<const LeveledBase>(quantised_pooled_base(pooled_counts()));
  Trials three;
  three.kind = Trials::fixed;
  three.count = 3;
  Trials all;
  all.kind = Trials::all;
  all.decay = 0.5;
  const std::vector<double> a = dense_model(document(1), *base, 0.1), b = dense_model(document(2), *base, 0.1);
  double bhattacharyya = 0.0;
  for (long d = 0; d < kDim; ++d) bhattacharyya += std::sqrt(a[d] * b[d]);
  const PreparedModel a3(fitted(document(1), base, 0.1, three), with_rho(0.5));
  const PreparedModel b3(fitted(document(2), base, 0.1, three), with_rho(0.5));
  EXPECT_NEAR(kernel(a3, b3), std::pow(bhattacharyya, 3), 1e-13);
  const PreparedModel a_all(fitted(document(1), base, 0.1, all), with_rho(0.5));
  const PreparedModel b_all(fitted(document(2), base, 0.1, all), with_rho(0.5));
  EXPECT_NEAR(kernel(a_all, b_all), 1.0 / (1.0 - 0.5 * bhattacharyya), 1e-13);
}

TEST(BaseMeasure, RowsUnderDifferentBasesOrAUniformBaseAreRefused) {
  const auto base = std::make_shared<const LeveledBase>(quantised_pooled_base(pooled_counts()));
  std::vector<double> other_counts = pooled_counts();
  other_counts[0] = 7.0;
  const auto other = std::make_shared<const LeveledBase>(quantised_pooled_base(other_counts));
  const PreparedModel a(fitted(document(1), base, 0.1), with_rho(0.5));
  const PreparedModel b(fitted(document(2), other, 0.1), with_rho(0.5));
  const PreparedModel uniform(fitted(document(2), nullptr, 0.1), with_rho(0.5));
  try {
    check_compatible(a.model(), b.model());
    FAIL() << "rows under different bases compared";
  } catch (const KernelDomainError& e) {
    EXPECT_NE(std::string(e.what()).find("rows fitted with another pool file or base do not compare"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(check_compatible(a.model(), uniform.model()), KernelDomainError);
  EXPECT_THROW(a.model().kernel(b.model()), std::exception) << "the pair check also compares the tables";
}

TEST(BaseMeasure, LeveledRowsAreNotSampled) {
  const auto base = std::make_shared<const LeveledBase>(quantised_pooled_base(pooled_counts()));
  const auto model = fitted(document(1), base, 0.1);
  const auto& samplable = dynamic_cast<const SamplableModel&>(*model);
  EXPECT_FALSE(samplable.can_sample());
  EXPECT_THROW(samplable.log_tilted_normalizer(0.5), KernelDomainError);
  Eigen::VectorXd x(1);
  x[0] = 3;
  EXPECT_THROW(samplable.log_probability(x), KernelDomainError);
}

TEST(BaseMeasure, RowAndJsonRoundTripsAreExactAndBadJsonIsRefused) {
  const auto base = std::make_shared<const LeveledBase>(quantised_pooled_base(pooled_counts()));
  const auto model = fitted(document(3), base, 0.1);
  const Row row = encode_row(*model), again = encode_row(*decode_row(row));
  ASSERT_EQ(again.size(), row.size());
  for (std::size_t i = 0; i < row.size(); ++i) {
    EXPECT_EQ(again[i].index, row[i].index);
    EXPECT_EQ(again[i].value, row[i].value);
  }
  const nlohmann::json json = model_to_json(*model);
  EXPECT_EQ(model_to_json(*model_from_json(json)), json);
  nlohmann::json bad = json;
  bad["levels"]["count"][0] = bad["levels"]["count"][0].get<long>() + 1;
  EXPECT_THROW(model_from_json(bad), ModelError);
  bad = json;
  bad["listed"]["level"][0] = 40;
  EXPECT_THROW(model_from_json(bad), ModelError);
  bad = json;
  bad["share"] = 1.5;
  EXPECT_THROW(model_from_json(bad), ModelError);
}

}  // namespace
}  // namespace ppk
