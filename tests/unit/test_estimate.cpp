// Estimators (estimate.hpp) against values computed by hand from their formulas.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ppk/families/bernoulli.hpp"
#include "estimate_helpers.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_gaussian.hpp"
#include "ppk/estimate/estimate_bernoulli.hpp"
#include "ppk/estimate/estimate_multinomial.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using ::testing::HasSubstr;

// The estimators of estimate.hpp as typed one-call fits.
template <class M>
std::unique_ptr<M> typed(std::unique_ptr<Model> model) {
  M* const typed_model = dynamic_cast<M*>(model.get());
  if (typed_model == nullptr) return nullptr;
  model.release();
  return std::unique_ptr<M>(typed_model);
}
std::unique_ptr<GaussianModel> fit_gaussian(const std::vector<SparseVector>& vectors, long dim,
                                            const GaussianFitOptions& options) {
  return typed<GaussianModel>(estimate(*gaussian_estimator(options), vectors, dim));
}
// The posterior mean under a Beta(alpha, alpha) prior (alpha = 0: maximum likelihood).
std::unique_ptr<BernoulliModel> fit_bernoulli(const std::vector<SparseVector>& vectors, long dim, double alpha) {
  return typed<BernoulliModel>(estimate(*bernoulli_estimator({Method::posterior, alpha}), vectors, dim));
}
std::unique_ptr<MultinomialModel> fit_multinomial(const std::vector<SparseVector>& vectors, long dim,
                                                  const MultinomialFitOptions& options) {
  return typed<MultinomialModel>(estimate(*multinomial_estimator(options), vectors, dim));
}

// Three points in the plane: (0,0), (2,0), (0,2).
// mu = (2/3, 2/3); deviations (-2/3,-2/3), (4/3,-2/3), (-2/3,4/3);
// S11 = S22 = (4/9 + 16/9 + 4/9) / 3 = 8/9;  S12 = (4/9 - 8/9 - 8/9) / 3 = -4/9.
const std::vector<SparseVector> kTriangle = {sparse({0, 0}), sparse({2, 0}), sparse({0, 2})};

TEST(EstimateGaussian, FullCovarianceIsTheMaximumLikelihoodEstimate) {
  const auto model = fit_gaussian(kTriangle, 2, GaussianFitOptions{});
  EXPECT_EQ(model->form(), CovarianceForm::full);
  EXPECT_NEAR(model->mean()(0), 2.0 / 3, 1e-15);
  EXPECT_NEAR(model->mean()(1), 2.0 / 3, 1e-15);
  const Eigen::MatrixXd cov = model->covariance();
  EXPECT_NEAR(cov(0, 0), 8.0 / 9, 1e-15);
  EXPECT_NEAR(cov(1, 1), 8.0 / 9, 1e-15);
  EXPECT_NEAR(cov(0, 1), -4.0 / 9, 1e-15);
  EXPECT_NEAR(cov(1, 0), -4.0 / 9, 1e-15);
}

TEST(EstimateGaussian, DiagonalAndIsotropicForms) {
  GaussianFitOptions diagonal;
  diagonal.covariance = CovarianceForm::diagonal;
  diagonal.ridge = 0.25;
  const auto d = fit_gaussian(kTriangle, 2, diagonal);
  EXPECT_EQ(d->form(), CovarianceForm::diagonal);
  EXPECT_NEAR(d->covariance()(0, 0), 8.0 / 9 + 0.25, 1e-15);
  EXPECT_NEAR(d->covariance()(1, 1), 8.0 / 9 + 0.25, 1e-15);
  EXPECT_EQ(d->covariance()(0, 1), 0);

  // Isotropic: sigma^2 = trace(S) / D; with unequal spreads (0,0), (4,0), (0,1), (0,3):
  // mu = (1, 1); |x - mu|^2 = 2, 10, 1, 5; sigma^2 = 18 / (4 * 2) = 9/4.
  GaussianFitOptions isotropic;
  isotropic.covariance = CovarianceForm::isotropic;
  const auto i = fit_gaussian({sparse({0, 0}), sparse({4, 0}), sparse({0, 1}), sparse({0, 3})}, 2, isotropic);
  EXPECT_EQ(i->form(), CovarianceForm::isotropic);
  EXPECT_NEAR(i->mean()(0), 1, 1e-15);
  EXPECT_NEAR(i->mean()(1), 1, 1e-15);
  EXPECT_NEAR(i->covariance()(0, 0), 9.0 / 4, 1e-15);
  EXPECT_NEAR(i->covariance()(1, 1), 9.0 / 4, 1e-15);
}

TEST(EstimateGaussian, FixedVarianceFitsOnlyTheMean) {
  GaussianFitOptions fixed;
  fixed.covariance = CovarianceForm::isotropic;
  fixed.variance = 0.5;
  // One vector x gives N(x, V I): the model whose kernels are RBF kernels in x.
  const auto single = fit_gaussian({sparse({3, 0, -1})}, 3, fixed);
  EXPECT_EQ(single->form(), CovarianceForm::isotropic);
  EXPECT_EQ(single->mean()(0), 3);
  EXPECT_EQ(single->mean()(1), 0);
  EXPECT_EQ(single->mean()(2), -1);
  EXPECT_EQ(single->covariance()(1, 1), 0.5);
  EXPECT_EQ(single->covariance()(0, 2), 0);
  // Several vectors: their mean, the same fixed variance.
  const auto several = fit_gaussian(kTriangle, 2, fixed);
  EXPECT_NEAR(several->mean()(0), 2.0 / 3, 1e-15);
  EXPECT_EQ(several->covariance()(0, 0), 0.5);
}

TEST(EstimateGaussian, RidgeMakesASingleVectorFit) {
  GaussianFitOptions ridge;
  ridge.ridge = 0.125;
  const auto model = fit_gaussian({sparse({1, 2})}, 2, ridge);
  EXPECT_EQ(model->covariance()(0, 0), 0.125);
  EXPECT_EQ(model->covariance()(1, 1), 0.125);
  EXPECT_EQ(model->covariance()(0, 1), 0);
}

TEST(EstimateGaussian, ConstantCoordinatesHaveExactlyZeroVariance) {
  // 0.1 three times: sum / n is not exactly 0.1 in floating point; the mean must be.
  GaussianFitOptions diagonal;
  diagonal.covariance = CovarianceForm::diagonal;
  diagonal.ridge = 1;
  const auto model = fit_gaussian({sparse({0.1, 1}), sparse({0.1, 2}), sparse({0.1, 3})}, 2, diagonal);
  EXPECT_EQ(model->mean()(0), 0.1);
  EXPECT_EQ(model->covariance()(0, 0), 1.0);
}

TEST(EstimateGaussian, TooFewVectorsOrASingularCovarianceIsAClearError) {
  EXPECT_THAT(estimation_error([] {
                fit_gaussian({sparse({1, 2}), sparse({2, 1})}, 2, {});
              }),
              HasSubstr("the example has 2 vectors; a full covariance in 2 dimensions needs at "
                        "least 3 for maximum likelihood; give ridge R"));
  GaussianFitOptions diagonal;
  diagonal.covariance = CovarianceForm::diagonal;
  EXPECT_THAT(estimation_error([&] {
                fit_gaussian({sparse({1, 2})}, 2, diagonal);
              }),
              HasSubstr("the example has 1 vector, whose maximum-likelihood variance is 0; a "
                        "diagonal covariance needs at least 2"));
  EXPECT_THAT(estimation_error([&] {
                fit_gaussian({sparse({1, 2}), sparse({3, 2})}, 2, diagonal);
              }),
              HasSubstr("feature 2 is constant (= 2) across the 2 vectors"));
  GaussianFitOptions isotropic;
  isotropic.covariance = CovarianceForm::isotropic;
  EXPECT_THAT(estimation_error([&] {
                fit_gaussian({sparse({1, 2}), sparse({1, 2})}, 2, isotropic);
              }),
              HasSubstr("the 2 vectors are identical"));
  // Collinear points do not span the plane.
  EXPECT_THAT(estimation_error([] {
                fit_gaussian({sparse({0, 0}), sparse({1, 1}), sparse({2, 2}), sparse({3, 3})}, 2, {});
              }),
              HasSubstr("do not span R^2"));
}

TEST(EstimateGaussian, DimensionIsFixedByTheCaller) {
  GaussianFitOptions fixed;
  fixed.covariance = CovarianceForm::isotropic;
  fixed.variance = 1;
  const auto model = fit_gaussian({sparse({1})}, 4, fixed);  // absent coordinates are 0
  EXPECT_EQ(model->dim(), 4);
  EXPECT_EQ(model->mean()(3), 0);
  EXPECT_THAT(estimation_error([&] {
                fit_gaussian({sparse({0, 0, 1})}, 2, fixed);
              }),
              HasSubstr("index 3 is larger than the dimension 2 (dim)"));
}

TEST(EstimateGaussian, FittingIsDeterministic) {
  const std::vector<SparseVector> points = {sparse({0.3, 1.7, -2}), sparse({1.1, 0.2, 0.5}), sparse({-0.4, 0.9, 1.3}),
                                            sparse({2.2, -1, 0.1}), sparse({0.7, 0.6, -0.8})};
  const Row first = encode_row(*fit_gaussian(points, 3, {}));
  const Row second = encode_row(*fit_gaussian(points, 3, {}));
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].index, second[i].index);
    EXPECT_EQ(first[i].value, second[i].value);
  }
}

TEST(EstimateBernoulli, LaplaceSmoothedFrequencies) {
  // n = 3 vectors over D = 4: features {1,3}, {1}, {} -> k = (2, 0, 1, 0).
  // alpha = 1: g = (k + 1) / (3 + 2) = (3/5, 1/5, 2/5, 1/5); unseen coordinates at base 1/5.
  const std::vector<SparseVector> vectors = {sparse({1, 0, 7, 0}), sparse({-2, 0, 0, 0}), sparse({})};
  const auto model = fit_bernoulli(vectors, 4, 1.0);
  const SparseProbabilities& g = model->probabilities();
  EXPECT_EQ(g.dim, 4);
  EXPECT_DOUBLE_EQ(g.base, 1.0 / 5);
  EXPECT_EQ(g.index, (std::vector<long>{0, 2}));
  EXPECT_DOUBLE_EQ(g.at(0), 3.0 / 5);
  EXPECT_DOUBLE_EQ(g.at(1), 1.0 / 5);
  EXPECT_DOUBLE_EQ(g.at(2), 2.0 / 5);
  EXPECT_DOUBLE_EQ(g.at(3), 1.0 / 5);

  // alpha = 1/2 (Jeffreys): g = (k + 1/2) / 4.
  const auto jeffreys = fit_bernoulli(vectors, 4, 0.5);
  EXPECT_DOUBLE_EQ(jeffreys->probabilities().at(0), 2.5 / 4);
  EXPECT_DOUBLE_EQ(jeffreys->probabilities().at(1), 0.5 / 4);
  // alpha = 0: maximum likelihood k / n.
  const auto ml = fit_bernoulli(vectors, 4, 0.0);
  EXPECT_EQ(ml->probabilities().base, 0);
  EXPECT_DOUBLE_EQ(ml->probabilities().at(0), 2.0 / 3);
  EXPECT_DOUBLE_EQ(ml->probabilities().at(2), 1.0 / 3);
}

TEST(EstimateBernoulli, SingleVector) {
  // n = 1: a set feature gets (1 + 1)/3, an unset one 1/3.
  const auto model = fit_bernoulli({sparse({0, 1, 0})}, 3, 1.0);
  EXPECT_DOUBLE_EQ(model->probabilities().at(1), 2.0 / 3);
  EXPECT_DOUBLE_EQ(model->probabilities().at(0), 1.0 / 3);
  EXPECT_EQ(model->probabilities().listed(), 1u);
}

TEST(EstimateMultinomial, SmoothedCountsSummedOverTheGroup) {
  // Counts {1:2, 3:1} + {1:1, 2:0.5} over D = 4: c = (3, 0.5, 1, 0), N = 4.5;
  // alpha = 1: a = (c + 1) / (4.5 + 4) = (4, 1.5, 2, 1) / 8.5.
  const auto model = fit_multinomial({sparse({2, 0, 1, 0}), sparse({1, 0.5, 0, 0})}, 4, {});
  const SparseProbabilities& a = model->probabilities();
  EXPECT_EQ(a.dim, 4);
  EXPECT_DOUBLE_EQ(a.base, 1 / 8.5);
  EXPECT_EQ(a.index, (std::vector<long>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(a.at(0), 4 / 8.5);
  EXPECT_DOUBLE_EQ(a.at(1), 1.5 / 8.5);
  EXPECT_DOUBLE_EQ(a.at(2), 2 / 8.5);
  EXPECT_DOUBLE_EQ(a.at(3), 1 / 8.5);
  EXPECT_NEAR(a.sum(), 1, 1e-15);
  EXPECT_EQ(model->trials().kind, Trials::one_event);

  // alpha = 0: maximum likelihood c / N.
  MultinomialFitOptions ml;
  ml.alpha = 0;
  const auto unsmoothed = fit_multinomial({sparse({2, 0, 1, 0}), sparse({1, 0.5, 0, 0})}, 4, ml);
  EXPECT_EQ(unsmoothed->probabilities().base, 0);
  EXPECT_DOUBLE_EQ(unsmoothed->probabilities().at(0), 3 / 4.5);
  EXPECT_DOUBLE_EQ(unsmoothed->probabilities().at(2), 1 / 4.5);
}

TEST(EstimateMultinomial, ShortDocumentOverALargeVocabularyStaysSparse) {
  // Three words (counts 1, 2, 1) over a 50,000-word vocabulary: N = 4, denominator 50004.
  SparseVector document = {{10, 1}, {2000, 2}, {49999, 1}};
  const auto model = fit_multinomial({document}, 50000, {});
  const SparseProbabilities& a = model->probabilities();
  EXPECT_EQ(a.listed(), 3u);
  EXPECT_DOUBLE_EQ(a.base, 1.0 / 50004);
  EXPECT_DOUBLE_EQ(a.at(2000), 3.0 / 50004);
  EXPECT_LE(encode_row(*model).size(), 12u);  // header, dimension, base, three words
}

TEST(EstimateMultinomial, TrialsAreStored) {
  MultinomialFitOptions options;
  options.trials.kind = Trials::fixed;
  options.trials.count = 5;
  EXPECT_EQ(fit_multinomial({sparse({1, 1})}, 2, options)->trials().count, 5);
  options.trials.kind = Trials::all;
  options.trials.decay = 0.5;
  const auto all = fit_multinomial({sparse({1, 1})}, 2, options);
  EXPECT_EQ(all->trials().kind, Trials::all);
  EXPECT_EQ(all->trials().decay, 0.5);
}

TEST(EstimateMultinomial, Errors) {
  EXPECT_THAT(estimation_error([] {
                fit_multinomial({sparse({1, -1})}, 2, {});
              }),
              HasSubstr("count -1 at index 2 is negative"));
  MultinomialFitOptions ml;
  ml.alpha = 0;
  EXPECT_THAT(estimation_error([&] { fit_multinomial({sparse({0, 0})}, 2, ml); }), HasSubstr("no counts"));
  EXPECT_THAT(estimation_error([] {
                fit_multinomial({sparse({1, 1, 1})}, 2, {});
              }),
              HasSubstr("index 3 is larger than the dimension 2"));
  EXPECT_THAT(estimation_error([] { fit_bernoulli({sparse({1})}, 1, -1); }),
              HasSubstr("alpha must be a finite number >= 0"));
}

}  // namespace
}  // namespace ppk
