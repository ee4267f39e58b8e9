// Feature maps (maps/feature_map.hpp): the exact maps against features written out from the
// probabilities by enumeration, the Nystrom map against the Gram matrix, and the map file.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "kernel_params.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/maps/feature_map.hpp"

namespace ppk {
namespace {

// The dense vector of 1-based sparse entries, `dim` long.
std::vector<double> dense(const Row& features, long dim) {
  std::vector<double> out(static_cast<std::size_t>(dim), 0.0);
  for (const RowEntry& entry : features) out.at(static_cast<std::size_t>(entry.index - 1)) = entry.value;
  return out;
}

std::unique_ptr<PreparedModel> prepared(std::unique_ptr<Model> model, double rho) {
  return std::make_unique<PreparedModel>(std::move(model), with_rho(rho));
}

// A smoothed multinomial over D words: a few listed words, the rest at the base.
SparseProbabilities smoothed(long dim, std::mt19937& random) {
  std::vector<double> p(static_cast<std::size_t>(dim), 1.0);
  std::uniform_int_distribution<long> word(0, dim - 1);
  for (int k = 0; k < 5; ++k)
    p[static_cast<std::size_t>(word(random))] += 10.0 * std::generate_canonical<double, 53>(random);
  double total = 0;
  for (double x : p) total += x;
  for (double& x : p) x /= total;
  return SparseProbabilities::from_dense(p);
}

TEST(ExactFeatureMap, MultinomialFeaturesArePowersOfTheProbabilities) {
  std::mt19937 random(3);
  for (double rho : kRhos) {
    const SparseProbabilities a = smoothed(40, random);
    const auto model = prepared(std::make_unique<MultinomialModel>(a, Trials{}), rho);
    const auto map = make_exact_map(*model, KernelKind::ppk, MapRoute::exact);
    ASSERT_EQ(map->dimension(), 40);
    Row features;
    map->features(*model, features);
    const std::vector<double> phi = dense(features, 40);
    const std::vector<double> p = a.dense();
    for (std::size_t d = 0; d < p.size(); ++d)
      EXPECT_NEAR(phi[d], std::pow(p[d], rho), 1e-15 * std::pow(p[d], rho)) << "rho " << rho << ", word " << d;
  }
}

// A multinomial over `dim` words with `listed` of them at 5 times the base's probability (base > 0),
// or, at base 0, the listed words alone (maximum likelihood).
std::unique_ptr<PreparedModel> documents_row(long dim, long listed, double base_weight) {
  std::vector<double> p(static_cast<std::size_t>(dim), base_weight);
  for (long d = 0; d < listed; ++d) p[static_cast<std::size_t>(d)] = 5.0;
  double total = 0;
  for (double x : p) total += x;
  for (double& x : p) x /= total;
  return prepared(std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(p), Trials{}), 0.5);
}

// The rule of feature_map.hpp, by counts written out here: smoothed rows over 8 words take the sparse
// route when their 8 dense features a row are at least 4 times the sparse map's L + 1, so at L = 1
// (8 / 2 = 4) and not at L = 2 (8 / 3); the counts are summed over the sample; rows without a base
// are exact.
TEST(DefaultMapRoute, SparseFromFourTimesTheSparseMapsFeatures) {
  const auto one = documents_row(8, 1, 1.0), two = documents_row(8, 2, 1.0);
  const auto maximum_likelihood = documents_row(8, 1, 0.0);
  EXPECT_EQ(choose_exact_or_sparse({one.get()}, KernelKind::ppk).route, MapRoute::sparse);
  EXPECT_EQ(choose_exact_or_sparse({two.get()}, KernelKind::ppk).route, MapRoute::exact);
  // 32 dense features against 2 + 2 + 2 + 3 = 9 sparse: 3.6 times, though three rows of four are at 4.
  EXPECT_EQ(choose_exact_or_sparse({one.get(), one.get(), one.get(), two.get()}, KernelKind::ppk).route, MapRoute::exact);
  EXPECT_EQ(choose_exact_or_sparse({one.get(), one.get()}, KernelKind::ppk_norm).route, MapRoute::sparse);
  EXPECT_EQ(choose_exact_or_sparse({maximum_likelihood.get()}, KernelKind::ppk).route, MapRoute::exact);
  // The note states the bound of the kernel asked for.
  EXPECT_NE(choose_exact_or_sparse({one.get()}, KernelKind::ppk).reason.find("sqrt(f f') sqrt(k(p,p) k(p',p'))"),
            std::string::npos);
  EXPECT_NE(choose_exact_or_sparse({one.get()}, KernelKind::ppk_norm).reason.find("(f + f') / 2"), std::string::npos);
}

TEST(ExactFeatureMap, BernoulliFeaturesAreTheProbabilitiesOfEveryBinaryVector) {
  const std::vector<double> g = {0.1, 0.5, 0.9, 0.5, 0.25};
  for (double rho : kRhos) {
    const auto model = prepared(std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(g)), rho);
    const auto map = make_exact_map(*model, KernelKind::ppk, MapRoute::exact);
    ASSERT_EQ(map->dimension(), 32);
    Row features;
    map->features(*model, features);
    const std::vector<double> phi = dense(features, 32);
    for (long x = 0; x < 32; ++x) {
      double p = 1.0;  // p(x), bit d of x the value of x_d
      for (std::size_t d = 0; d < g.size(); ++d) p *= (x >> d) & 1 ? g[d] : 1.0 - g[d];
      EXPECT_NEAR(phi[static_cast<std::size_t>(x)], std::pow(p, rho), 1e-15) << "rho " << rho << ", x " << x;
    }
  }
}

TEST(ExactFeatureMap, RefusesWhatHasNoExactMap) {
  const auto wide =
      prepared(std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(std::vector<double>(21, 0.3))), 1.0);
  EXPECT_THROW(make_exact_map(*wide, KernelKind::ppk, MapRoute::exact), KernelDomainError);
  SparseProbabilities a = SparseProbabilities::from_dense({0.5, 0.25, 0.25});
  const auto counts = prepared(std::make_unique<MultinomialModel>(a, Trials{Trials::fixed, 3, 1.0}), 0.5);
  EXPECT_THROW(make_exact_map(*counts, KernelKind::ppk, MapRoute::exact), KernelDomainError);
}

// Rows of smoothed multinomials over 30 words, as a file would hold them.
std::vector<Row> multinomial_rows(int n, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<Row> rows;
  for (int i = 0; i < n; ++i) rows.push_back(encode_row(MultinomialModel(smoothed(30, random), Trials{})));
  return rows;
}

Eigen::MatrixXd gram(const std::vector<Row>& rows, KernelKind kind, double rho) {
  std::vector<std::unique_ptr<PreparedModel>> models;
  for (const Row& row : rows) models.push_back(prepared(decode_row(row), rho));
  Eigen::MatrixXd k(rows.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows.size(); ++j) k(i, j) = evaluate(kind, *models[i], *models[j]);
  return k;
}

Eigen::MatrixXd features_of(const FeatureMap& map, const std::vector<Row>& rows, double rho) {
  Eigen::MatrixXd phi = Eigen::MatrixXd::Zero(rows.size(), map.dimension());
  Row features;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    map.features(*prepared(decode_row(rows[i]), rho), features);
    for (const RowEntry& entry : features) phi(i, entry.index - 1) = entry.value;
  }
  return phi;
}

TEST(NystromMap, AllRowsAsLandmarksGiveBackTheGramMatrix) {
  const std::vector<Row> rows = multinomial_rows(25, 1);
  for (KernelKind kind : {KernelKind::ppk, KernelKind::ppk_norm}) {
    NystromOptions options;
    options.landmarks = rows.size();
    options.eigen_floor = 0.0;
    const auto map = fit_nystrom_map(rows, kind, with_rho(0.5), options);
    EXPECT_EQ(map->landmark_count(), rows.size());
    const Eigen::MatrixXd k = gram(rows, kind, 0.5);
    const Eigen::MatrixXd phi = features_of(*map, rows, 0.5);
    EXPECT_LT((phi * phi.transpose() - k).cwiseAbs().maxCoeff(), 1e-8 * k.cwiseAbs().maxCoeff());
  }
}

TEST(NystromMap, DuplicateLandmarksLowerTheEffectiveRankAndKmeansPlusPlusSkipsThem) {
  std::vector<Row> rows = multinomial_rows(6, 2);
  rows.push_back(rows[0]);
  rows.push_back(rows[3]);
  NystromOptions options;
  options.landmarks = rows.size();
  const auto uniform = fit_nystrom_map(rows, KernelKind::ppk, with_rho(1.0), options);
  EXPECT_EQ(uniform->landmark_count(), 8u);
  EXPECT_EQ(uniform->dimension(), 6);  // two eigenvalues are rounding
  options.choice = LandmarkChoice::kmeans_plus_plus;
  const auto seeded = fit_nystrom_map(rows, KernelKind::ppk, with_rho(1.0), options);
  EXPECT_EQ(seeded->landmark_count(), 6u);  // the copies are at distance 0: never drawn
}

TEST(NystromMap, SavedAndLoadedMapsGiveTheSameFeaturesBitForBit) {
  const std::vector<Row> rows = multinomial_rows(40, 3);
  NystromOptions options;
  options.landmarks = 12;
  options.choice = LandmarkChoice::kmeans_plus_plus;
  options.seed = 9;
  const auto map = fit_nystrom_map(rows, KernelKind::ppk_norm, with_rho(0.5), options);
  std::stringstream file;
  map->save(file);
  const auto loaded = load_feature_map(file, "map");
  EXPECT_EQ(loaded->route(), MapRoute::nystrom);
  EXPECT_EQ(loaded->dimension(), map->dimension());
  EXPECT_TRUE(features_of(*loaded, rows, 0.5) == features_of(*map, rows, 0.5));
  // The same seed draws the same landmarks; another seed others.
  std::stringstream again, other;
  fit_nystrom_map(rows, KernelKind::ppk_norm, with_rho(0.5), options)->save(again);
  options.seed = 10;
  fit_nystrom_map(rows, KernelKind::ppk_norm, with_rho(0.5), options)->save(other);
  EXPECT_EQ(again.str(), file.str());
  EXPECT_NE(other.str(), file.str());
}

TEST(FeatureMapFile, DamagedFilesAreRefusedWithTheirLine) {
  const auto model = prepared(decode_row(multinomial_rows(1, 4)[0]), 0.5);
  std::stringstream file;
  make_exact_map(*model, KernelKind::ppk, MapRoute::sparse)->save(file);
  const std::string text = file.str();
  auto refused = [](const std::string& damaged, const std::string& fragment) {
    std::istringstream in(damaged);
    try {
      load_feature_map(in, "m.map");
      ADD_FAILURE() << "accepted: " << damaged;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  refused("", "m.map:1: the file ends");
  refused("ppk feature map 2\n", "m.map:1: not a ppk feature map");
  refused(text.substr(0, text.find("family")), "m.map:6: the file ends");
  std::string wrong_family = text;
  wrong_family.replace(wrong_family.find("multinomial"), 11, "multinomials");
  refused(wrong_family, "m.map:6: family: no family named 'multinomials'");
  std::string zero_dimension = text;
  zero_dimension.replace(zero_dimension.find("dimension 31"), 12, "dimension 0");
  refused(zero_dimension, "m.map:8: dimension");
}

}  // namespace
}  // namespace ppk
