// The batch kernels (evaluate_many, Model::kernel_many/log_kernel_many): the same values, bit for
// bit, as one evaluation per pair, for every family and both kernel kinds. LIBSVM relies on it:
// a column's values must not depend on how it is split between threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "ppk/families/bernoulli.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/multinomial.hpp"
#include "kernel_params.hpp"

namespace ppk {
namespace {

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

std::vector<const PreparedModel*> pointers(const std::vector<std::unique_ptr<PreparedModel>>& models) {
  std::vector<const PreparedModel*> out;
  for (const auto& m : models) out.push_back(m.get());
  return out;
}

// evaluate_many(a, b) equals evaluate(a, b[k]) for each k, for both kinds, for each a in `models`
// against all of them, and against parts of the array (as LIBSVM's chunks); the model-level batch
// equals kernel/log_kernel. Each a runs right after another a's batch in the same thread, so
// scratch space left dirty by a previous call would show.
void expect_batch_equals_pairs(const std::vector<std::unique_ptr<PreparedModel>>& models, const std::string& what) {
  const std::vector<const PreparedModel*> b = pointers(models);
  const std::size_t n = b.size();
  std::vector<const Model*> b_models;
  for (const PreparedModel* m : b) b_models.push_back(&m->model());
  std::vector<double> out(n), log_out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const PreparedModel& a = *b[i];
    for (KernelKind kind : {KernelKind::ppk, KernelKind::ppk_norm}) {
      const char* kind_name = kind == KernelKind::ppk ? "ppk" : "ppk_norm";
      evaluate_many(kind, a, b.data(), n, out.data());
      for (std::size_t k = 0; k < n; ++k)
        ASSERT_TRUE(same_bits(out[k], evaluate(kind, a, *b[k]))) << what << " " << kind_name << " a=" << i << " b=" << k
                                                                 << ": " << out[k] << " vs " << evaluate(kind, a, *b[k]);
      // a part of the array, as one of LIBSVM's chunks
      if (n > 2) {
        std::vector<double> part(n - 2);
        evaluate_many(kind, a, b.data() + 1, n - 2, part.data());
        for (std::size_t k = 0; k + 2 < n; ++k) ASSERT_TRUE(same_bits(part[k], out[k + 1])) << what << " part " << k;
      }
    }
    a.model().kernel_many(b_models.data(), n, out.data());
    a.model().log_kernel_many(b_models.data(), n, log_out.data());
    for (std::size_t k = 0; k < n; ++k) {
      ASSERT_TRUE(same_bits(out[k], a.model().kernel(*b_models[k]))) << what << " kernel_many a=" << i << " b=" << k;
      ASSERT_TRUE(same_bits(log_out[k], a.model().log_kernel(*b_models[k])))
          << what << " log_kernel_many a=" << i << " b=" << k;
    }
  }
  evaluate_many(KernelKind::ppk, *b[0], b.data(), 0, nullptr);  // n = 0: nothing to do
}

std::unique_ptr<PreparedModel> multinomial(const std::vector<double>& p, Trials trials, double rho) {
  return std::make_unique<PreparedModel>(std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(p), trials),
                                         with_rho(rho));
}

// Probability vectors over `dim` categories with mixed sparse patterns: uniform (nothing listed),
// one listed coordinate, overlapping and disjoint listed sets, everything listed.
std::vector<std::vector<double>> probability_vectors(long dim, std::mt19937& rng) {
  std::vector<std::vector<double>> out;
  out.emplace_back(dim, 1.0 / dim);  // uniform: no listed coordinates
  std::uniform_real_distribution<double> u(0.1, 1.0);
  for (int pattern = 0; pattern < 8; ++pattern) {
    std::vector<double> p(dim, 0.0);
    for (long d = 0; d < dim; ++d) {
      const bool listed = pattern == 0   ? d == 1
                          : pattern == 1 ? d < dim / 2
                          : pattern == 2 ? d >= dim / 3
                          : pattern == 3 ? d % 2 == 0
                          : pattern == 4 ? d % 3 == 1
                          : pattern == 5 ? true
                                         : (rng() % 3 == 0);
      p[d] = listed ? u(rng) : 0.2;  // 0.2: the unlisted base (before normalisation)
    }
    double sum = 0;
    for (double v : p) sum += v;
    for (double& v : p) v /= sum;
    out.push_back(p);
  }
  return out;
}

TEST(KernelBatch, MultinomialEqualsPairs) {
  std::mt19937 rng(7);
  const std::vector<std::vector<double>> ps = probability_vectors(12, rng);
  for (double rho : kRhos) {
    std::vector<std::unique_ptr<PreparedModel>> models;
    for (const auto& p : ps) models.push_back(multinomial(p, Trials(), rho));
    expect_batch_equals_pairs(models, "one event, rho " + std::to_string(rho));
  }
  Trials fixed;
  fixed.kind = Trials::fixed;
  fixed.count = 40;
  Trials all;
  all.kind = Trials::all;
  for (const Trials& trials : {fixed, all}) {
    std::vector<std::unique_ptr<PreparedModel>> models;
    double decay = 0.5;
    for (const auto& p : ps) {
      Trials t = trials;
      if (t.kind == Trials::all) t.decay = decay += 0.04;  // different decays
      models.push_back(multinomial(p, t, 0.5));
    }
    expect_batch_equals_pairs(models, trials.kind == Trials::all ? "all trials" : "40 trials");
  }
}

TEST(KernelBatch, MultinomialManyModelsAndHugeDimensions) {
  // More models than the dispatcher's block of 256, with random sparse patterns.
  std::mt19937 rng(11);
  std::vector<std::unique_ptr<PreparedModel>> models;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 300; ++i) {
    std::vector<double> p(500, 0.001);
    for (int k = 0; k < 20; ++k) p[rng() % 500] = u(rng);
    double sum = 0;
    for (double v : p) sum += v;
    for (double& v : p) v /= sum;
    models.push_back(multinomial(p, Trials(), 0.5));
  }
  const std::vector<const PreparedModel*> b = pointers(models);
  std::vector<double> out(b.size());
  for (std::size_t i : {std::size_t(0), std::size_t(299)}) {
    evaluate_many(KernelKind::ppk, *b[i], b.data(), b.size(), out.data());
    for (std::size_t k = 0; k < b.size(); ++k) ASSERT_TRUE(same_bits(out[k], evaluate(KernelKind::ppk, *b[i], *b[k])));
  }
  // Beyond the dense scatter array's limit (2^22 categories) the batch merges pair by pair.
  const long huge = (1L << 22) + 10;
  std::vector<std::unique_ptr<PreparedModel>> large;
  std::vector<double> p(huge, 0.0);
  p[3] = 0.5, p[huge - 1] = 0.5;
  large.push_back(multinomial(p, Trials(), 0.5));
  p[3] = 0.25, p[7] = 0.25;
  large.push_back(multinomial(p, Trials(), 0.5));
  expect_batch_equals_pairs(large, "D = 2^22 + 10");
}

TEST(KernelBatch, GaussianEqualsPairs) {
  const Eigen::Matrix3d r = (Eigen::Matrix3d() << 1, 0.2, 0, -0.3, 1, 0.1, 0.2, 0.4, 1).finished();
  for (double rho : kRhos) {
    std::vector<std::unique_ptr<PreparedModel>> models;
    const auto add = [&](std::unique_ptr<GaussianModel> m) {
      models.push_back(std::make_unique<PreparedModel>(std::move(m), with_rho(rho)));
    };
    add(GaussianModel::isotropic(Eigen::Vector3d(0.1, -0.2, 0.3), 0.5));
    add(GaussianModel::isotropic(Eigen::Vector3d(1.0, 0.5, -0.7), 0.5));   // equal variances
    add(GaussianModel::isotropic(Eigen::Vector3d(-0.4, 0.0, 2.0), 1.75));  // different variances
    add(GaussianModel::diagonal(Eigen::Vector3d(0.3, 0.3, 0.3), Eigen::Vector3d(0.2, 1.0, 3.0)));
    add(GaussianModel::full(Eigen::Vector3d(-1.0, 0.1, 0.2), r * r.transpose()));
    add(GaussianModel::isotropic(Eigen::Vector3d(0.0, 0.0, 0.0), 0.5));
    expect_batch_equals_pairs(models, "gaussian, rho " + std::to_string(rho));
  }
}

TEST(KernelBatch, BernoulliEqualsPairs) {
  std::mt19937 rng(3);
  for (double rho : kRhos) {
    std::vector<std::unique_ptr<PreparedModel>> models;
    for (const auto& g : probability_vectors(10, rng))  // any values in [0, 1] are Bernoulli parameters
      models.push_back(std::make_unique<PreparedModel>(
          std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(g)), with_rho(rho)));
    expect_batch_equals_pairs(models, "bernoulli, rho " + std::to_string(rho));
  }
}

// Pairs without a kernel throw from the batch as from evaluate (LIBSVM checks compatibility
// before; this is the library's own guard), and leave no scratch state behind.
TEST(KernelBatch, IncompatiblePairsThrowAndLeaveNothingBehind) {
  std::vector<double> p(8, 0.125), q(8, 0.0), r(9, 1.0 / 9);
  q[2] = 0.5, q[5] = 0.5;
  const auto a = multinomial(p, Trials(), 0.5), b = multinomial(q, Trials(), 0.5),
             other_dim = multinomial(r, Trials(), 0.5);
  const PreparedModel gaussian(GaussianModel::isotropic(Eigen::Vector2d(0, 1), 1.0), with_rho(0.5));
  EXPECT_THROW(check_compatible(b->model(), other_dim->model()), KernelDomainError);
  double out[3];
  for (KernelKind kind : {KernelKind::ppk, KernelKind::ppk_norm}) {
    const PreparedModel* wrong_dim[] = {a.get(), other_dim.get(), a.get()};
    EXPECT_THROW(evaluate_many(kind, *b, wrong_dim, 3, out), KernelDomainError);
    const PreparedModel* wrong_family[] = {a.get(), &gaussian, a.get()};
    EXPECT_THROW(evaluate_many(kind, *b, wrong_family, 3, out), KernelDomainError);
    const PreparedModel* fine[] = {a.get(), b.get(), a.get()};
    evaluate_many(kind, *b, fine, 3, out);
    for (int k = 0; k < 3; ++k) EXPECT_TRUE(same_bits(out[k], evaluate(kind, *b, *fine[k])));
  }
}

}  // namespace
}  // namespace ppk
