// Gram matrices of exact kernels on random models are positive semidefinite (JMLR 2004 eq. 2:
// k is an inner product in L2): smallest eigenvalue >= -1e-9 x largest.
#include <gtest/gtest.h>

#include <random>

#include <Eigen/Dense>

#include "ppk/families/bernoulli.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/multinomial.hpp"
#include "gram_checks.hpp"
#include "kernel_params.hpp"

namespace ppk {
namespace {

constexpr int kModels = 30;

TEST(GramMatrix, GaussiansOfEveryFormArePositiveSemidefinite) {
  std::mt19937 rng(11);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0.2, 2.0);
  const int dim = 3;
  for (double rho : {0.25, 0.5, 1.0, 2.0}) {
    std::vector<PreparedModel> models;
    for (int i = 0; i < kModels; ++i) {
      Eigen::VectorXd mean(dim);
      for (int d = 0; d < dim; ++d) mean[d] = normal(rng);
      std::unique_ptr<Model> model;
      if (i % 3 == 0) {
        model = GaussianModel::isotropic(mean, uniform(rng));
      } else if (i % 3 == 1) {
        model = GaussianModel::diagonal(mean, Eigen::Vector3d(uniform(rng), uniform(rng), uniform(rng)));
      } else {
        Eigen::MatrixXd a(dim, dim);
        for (int k = 0; k < dim * dim; ++k) a.data()[k] = normal(rng);
        model = GaussianModel::full(mean, a * a.transpose() / dim + 0.1 * Eigen::MatrixXd::Identity(dim, dim));
      }
      models.emplace_back(std::move(model), with_rho(rho));
    }
    expect_positive_semidefinite(models, "gaussian rho " + std::to_string(rho));
  }
}

// A random probability vector over `dim` coordinates; with `smoothed`, most coordinates share a base.
std::vector<double> random_probabilities(std::mt19937& rng, int dim, bool smoothed) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> p(dim);
  for (int d = 0; d < dim; ++d) p[d] = smoothed && uniform(rng) < 0.7 ? 0.05 : uniform(rng);
  return p;
}

TEST(GramMatrix, BernoulliModelsArePositiveSemidefinite) {
  std::mt19937 rng(12);
  for (double rho : {0.25, 0.5, 1.0, 2.0}) {
    std::vector<PreparedModel> models;
    for (int i = 0; i < kModels; ++i)
      models.emplace_back(
          std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(random_probabilities(rng, 12, i % 2 == 0))),
          with_rho(rho));
    expect_positive_semidefinite(models, "bernoulli rho " + std::to_string(rho));
  }
}

TEST(GramMatrix, MultinomialModelsArePositiveSemidefinite) {
  std::mt19937 rng(13);
  auto random_multinomial = [&](int i, const Trials& trials) {
    std::vector<double> p = random_probabilities(rng, 15, i % 2 == 0);
    double total = 0.0;
    for (double v : p) total += v;
    for (double& v : p) v /= total;
    return std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(p), trials);
  };
  for (double rho : {0.25, 0.5, 1.0, 2.0}) {
    std::vector<PreparedModel> models;
    for (int i = 0; i < kModels; ++i) models.emplace_back(random_multinomial(i, Trials{}), with_rho(rho));
    expect_positive_semidefinite(models, "multinomial one event rho " + std::to_string(rho));
  }
  Trials fixed;
  fixed.kind = Trials::fixed;
  fixed.count = 4;
  std::vector<PreparedModel> counts;
  for (int i = 0; i < kModels; ++i) counts.emplace_back(random_multinomial(i, fixed), with_rho(0.5));
  expect_positive_semidefinite(counts, "multinomial 4 trials");
  std::vector<PreparedModel> all_counts;
  for (int i = 0; i < kModels; ++i) {
    Trials all;
    all.kind = Trials::all;
    all.decay = 0.3 + 0.02 * i;  // different decays: the pair uses sqrt(decay decay')
    all_counts.emplace_back(random_multinomial(i, all), with_rho(0.5));
  }
  expect_positive_semidefinite(all_counts, "multinomial all trials");
}

}  // namespace
}  // namespace ppk
