// The dispatcher: compatibility rules, domain errors, normalisation, concurrent evaluation.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <thread>

#include <Eigen/Dense>

#include "error_message.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/multinomial.hpp"
#include "kernel_params.hpp"

namespace ppk {
namespace {

std::unique_ptr<Model> multinomial(std::vector<double> p, Trials::Kind kind = Trials::one_event, long count = 0,
                                   double decay = 1.0) {
  Trials trials;
  trials.kind = kind;
  trials.count = count;
  trials.decay = decay;
  return std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(p), trials);
}

std::string domain_error(const std::function<void()>& f) { return checks::error_message<KernelDomainError>(f); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CheckCompatible, NamesBothSampleSpaces) {
  const auto gaussian = GaussianModel::isotropic(Eigen::Vector2d(0, 1), 1.0);
  const BernoulliModel bernoulli(SparseProbabilities::from_dense({0.1, 0.2, 0.3, 0.4, 0.5}));
  EXPECT_EQ(domain_error([&] { check_compatible(*gaussian, bernoulli); }),
            "gaussian over real vectors of dimension 2 vs bernoulli over binary vectors of dimension 5: "
            "no kernel between different sample spaces");
  const auto gaussian3 = GaussianModel::isotropic(Eigen::Vector3d(0, 1, 2), 1.0);
  EXPECT_TRUE(contains(domain_error([&] { check_compatible(*gaussian, *gaussian3); }), "real vectors of dimension 3"));
  const auto five = multinomial({0.5, 0.5}, Trials::fixed, 5), six = multinomial({0.5, 0.5}, Trials::fixed, 6);
  EXPECT_TRUE(contains(domain_error([&] { check_compatible(*five, *six); }), "counts with 5 trials of dimension 2 vs"));
  const auto one_event = multinomial({0.5, 0.5}), one_trial = multinomial({0.5, 0.5}, Trials::fixed, 1);
  EXPECT_NE(domain_error([&] { check_compatible(*one_event, *one_trial); }), "");
  // Same family and sample space: compatible, whatever the decays.
  const auto slow = multinomial({0.5, 0.5}, Trials::all, 0, 0.3), fast = multinomial({0.2, 0.8}, Trials::all, 0, 0.9);
  EXPECT_NO_THROW(check_compatible(*slow, *fast));
  EXPECT_NO_THROW(check_compatible(*gaussian, *GaussianModel::diagonal(Eigen::Vector2d(1, 1), Eigen::Vector2d(1, 2))));
}

TEST(KernelDispatch, DifferentFamiliesAreRejectedNotMisread) {
  const PreparedModel gaussian(GaussianModel::isotropic(Eigen::Vector2d(0, 1), 1.0), with_rho(1.0));
  const PreparedModel bernoulli(std::make_unique<BernoulliModel>(SparseProbabilities::from_dense({0.1, 0.2})),
                                with_rho(1.0));
  EXPECT_TRUE(
      contains(domain_error([&] { log_kernel(gaussian, bernoulli); }), "no kernel between different sample spaces"));
  EXPECT_THROW(kernel(gaussian, bernoulli), KernelDomainError);
  EXPECT_THROW(evaluate(KernelKind::ppk_norm, bernoulli, gaussian), KernelDomainError);
}

TEST(KernelDispatch, RhoOutsideTheDomain) {
  for (double rho : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    const std::string message =
        domain_error([&] { PreparedModel(GaussianModel::isotropic(Eigen::Vector2d(0, 1), 1.0), with_rho(rho)); });
    EXPECT_TRUE(contains(message, "rho (-g) must be a positive finite number")) << message;
  }
  const std::string counts = domain_error([&] {
    PreparedModel(multinomial({0.5, 0.5}, Trials::fixed, 5), with_rho(1.0));
  });
  EXPECT_TRUE(contains(counts, "rho = 1/2")) << counts;
  EXPECT_TRUE(contains(counts, "got rho = 1")) << counts;
  EXPECT_NO_THROW(PreparedModel(multinomial({0.5, 0.5}), with_rho(3.0)));
}

TEST(KernelDispatch, AllTrialsWithoutDecayHaveAnInfiniteSelfKernel) {
  const std::string message = domain_error([&] {
    PreparedModel(multinomial({0.2, 0.3, 0.5}, Trials::all), with_rho(0.5));
  });
  EXPECT_TRUE(contains(message, "infinite")) << message;
  EXPECT_TRUE(contains(message, "set a decay < 1")) << message;
  EXPECT_NO_THROW(PreparedModel(multinomial({0.2, 0.3, 0.5}, Trials::all, 0, 0.99), with_rho(0.5)));
}

// Bernoulli at rho = 1/4 with g = 1/2 everywhere: each factor is 2 (1/4)^(1/4) = sqrt(2), so
// log k(p, p) = (D/2) log 2, which passes log(DBL_MAX) ~ 709.8 for D = 2100 but not D = 2000.
TEST(KernelDispatch, UnnormalizedKernelBeyondTheLargestDoubleIsRejected) {
  auto bernoulli = [](long dim) {
    SparseProbabilities g;
    g.dim = dim;
    g.base = 0.5;
    return std::make_unique<BernoulliModel>(g);
  };
  const PreparedModel small(bernoulli(2000), with_rho(0.25)), large(bernoulli(2100), with_rho(0.25));
  EXPECT_NEAR(small.log_self_kernel(), 1000 * std::log(2.0), 1e-9);
  EXPECT_NO_THROW(check_finite_kernel_values(KernelKind::ppk, small));
  EXPECT_TRUE(std::isfinite(evaluate(KernelKind::ppk, small, small)));
  const std::string message = domain_error([&] { check_finite_kernel_values(KernelKind::ppk, large); });
  EXPECT_NE(message.find("use ppk_norm"), std::string::npos) << message;
  EXPECT_NO_THROW(check_finite_kernel_values(KernelKind::ppk_norm, large));
  EXPECT_DOUBLE_EQ(evaluate(KernelKind::ppk_norm, large, large), 1.0);
}

TEST(KernelDispatch, NormalizedKernelIsTheCosineOfTheKernel) {
  Eigen::Matrix2d cov;
  cov << 1.0, 0.3, 0.3, 0.5;
  for (double rho : {0.25, 1.0, 2.0}) {
    const PreparedModel a(GaussianModel::full(Eigen::Vector2d(0.2, -0.1), cov), with_rho(rho));
    const PreparedModel b(GaussianModel::diagonal(Eigen::Vector2d(1.0, 0.5), Eigen::Vector2d(0.7, 2.0)), with_rho(rho));
    const double k_ab = kernel(a, b), k_aa = kernel(a, a), k_bb = kernel(b, b);
    EXPECT_DOUBLE_EQ(evaluate(KernelKind::ppk, a, b), k_ab);
    EXPECT_NEAR(evaluate(KernelKind::ppk_norm, a, b), k_ab / std::sqrt(k_aa * k_bb), 1e-14);
    EXPECT_NEAR(a.log_self_kernel(), std::log(k_aa), 1e-13);
    EXPECT_NEAR(std::exp(log_kernel(a, b)), k_ab, 1e-14 * k_ab);
    EXPECT_DOUBLE_EQ(kernel(a, b), kernel(b, a));
  }
}

TEST(KernelDispatch, ConcurrentEvaluationMatchesSerial) {
  // Full covariances of different dimensions share per-thread scratch space that grows with D.
  std::vector<std::vector<PreparedModel>> groups;
  for (int dim : {6, 2, 9, 4}) {
    std::vector<PreparedModel> group;
    for (int i = 0; i < 5; ++i) {
      const Eigen::MatrixXd a = Eigen::MatrixXd::Random(dim, dim);
      const Eigen::VectorXd mean = Eigen::VectorXd::Random(dim);
      std::unique_ptr<Model> model;
      if (i % 3 == 0)
        model = GaussianModel::full(mean, a * a.transpose() + 0.5 * Eigen::MatrixXd::Identity(dim, dim));
      else if (i % 3 == 1)
        model = GaussianModel::diagonal(mean, a.col(0).array().abs() + 0.1);
      else
        model = GaussianModel::isotropic(mean, 0.4 + i);
      group.emplace_back(std::move(model), with_rho(0.7));
    }
    groups.push_back(std::move(group));
  }
  auto all_kernels = [&](int start) {
    std::vector<double> values;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto& group = groups[(g + start) % groups.size()];
      for (const auto& a : group)
        for (const auto& b : group) values.push_back(evaluate(KernelKind::ppk_norm, a, b));
    }
    return values;
  };
  std::vector<std::vector<double>> serial;
  for (int start = 0; start < 4; ++start) serial.push_back(all_kernels(start));
  std::vector<std::vector<double>> parallel(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int repeat = 0; repeat < 50; ++repeat) parallel[t] = all_kernels(t);
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(parallel[t], serial[t]);
}

}  // namespace
}  // namespace ppk
