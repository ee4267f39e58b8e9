// The generic exponential-family kernel (exponential_family.hpp) on families written only through
// their natural form, as a new family file would write them, against the closed forms of the
// existing families where both apply (JMLR 2004 section 3):
//  * Gaussian mean with a known isotropic variance s: T(x) = x, theta = mu / s,
//    A(x) = -|x|^2/(2s) - (D/2) log(2 pi s), K(theta) = s |theta|^2 / 2. Its measure scales with
//    eta = sqrt(2 rho): exp(2 rho A(x)) = c exp(A(eta x)) with log c = (1/2 - rho) D log(2 pi s),
//    so every rho exercises the eta and c of the general formula.
//  * Bernoulli: theta_d = logit g_d, K = sum_d log(1 + e^theta_d), A = 0 (eta = 1 at every rho).
//  * one-event multinomial, overcomplete: theta_d = log a_d, K = log sum_d e^theta_d, A = 0.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "kernel_params.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/families/exponential_family.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk {
namespace {

constexpr double kPi = 3.14159265358979323846;

// What the three test families share: they live only in this test (no rows, no JSON).
class NaturalFormOnly : public ExponentialFamilyModel {
 public:
  NaturalFormOnly(Eigen::VectorXd theta, const FamilyInfo& family, SampleSpace space)
      : ExponentialFamilyModel(std::move(theta)), family_(family), space_(std::move(space)) {}
  const FamilyInfo& family() const override { return family_; }
  SampleSpace sample_space() const override { return space_; }

 private:
  const FamilyInfo& family_;
  SampleSpace space_;
};

class GaussianMean : public NaturalFormOnly {
 public:
  GaussianMean(const Eigen::VectorXd& mean, double variance)
      : NaturalFormOnly(mean / variance, gaussian_family(), {"real vectors", mean.size()}), variance_(variance) {}
  double log_partition(const Eigen::VectorXd& theta) const override { return variance_ * theta.squaredNorm() / 2; }
  bool in_natural_domain(const Eigen::VectorXd& theta) const override { return theta.allFinite(); }
  std::optional<MeasureScaling> measure_scaling(double rho) const override {
    const double dim = static_cast<double>(natural_parameters().size()), eta = std::sqrt(2 * rho);
    return MeasureScaling{eta, (0.5 - rho) * dim * std::log(2 * kPi * variance_) - dim * std::log(eta)};
  }

 private:
  double variance_;
};

Eigen::VectorXd logits(const std::vector<double>& g) {
  Eigen::VectorXd theta(static_cast<Eigen::Index>(g.size()));
  for (std::size_t d = 0; d < g.size(); ++d) theta[static_cast<Eigen::Index>(d)] = std::log(g[d] / (1 - g[d]));
  return theta;
}

class BernoulliNatural : public NaturalFormOnly {
 public:
  explicit BernoulliNatural(const std::vector<double>& g)
      : NaturalFormOnly(logits(g), bernoulli_family(), {"binary vectors", static_cast<long>(g.size())}) {}
  double log_partition(const Eigen::VectorXd& theta) const override { return theta.array().exp().log1p().sum(); }
  bool in_natural_domain(const Eigen::VectorXd& theta) const override { return theta.allFinite(); }
  std::optional<MeasureScaling> measure_scaling(double) const override { return MeasureScaling{}; }
};

class CategoricalNatural : public NaturalFormOnly {
 public:
  explicit CategoricalNatural(const std::vector<double>& a)
      : NaturalFormOnly(Eigen::Map<const Eigen::VectorXd>(a.data(), static_cast<Eigen::Index>(a.size())).array().log(),
                        multinomial_family(), {"categories", static_cast<long>(a.size())}) {}
  double log_partition(const Eigen::VectorXd& theta) const override {
    const double top = theta.maxCoeff();
    return top + std::log((theta.array() - top).exp().sum());
  }
  bool in_natural_domain(const Eigen::VectorXd& theta) const override { return theta.allFinite(); }
  std::optional<MeasureScaling> measure_scaling(double) const override { return MeasureScaling{}; }
};

// log k of the generic path (prepare + log_kernel of ExponentialFamilyModel) and of the family's
// own closed form agree to 1e-12 relative (absolute near log k = 0).
void expect_same_log_kernel(ExponentialFamilyModel& a, ExponentialFamilyModel& b, std::unique_ptr<Model> closed_a,
                            std::unique_ptr<Model> closed_b, double rho) {
  a.prepare(with_rho(rho));
  b.prepare(with_rho(rho));
  const double generic = a.log_kernel(b);
  EXPECT_EQ(generic, log_kernel_from_log_partition(a, b, rho));
  const PreparedModel left(std::move(closed_a), with_rho(rho)), right(std::move(closed_b), with_rho(rho));
  const double closed = log_kernel(left, right);
  EXPECT_NEAR(generic, closed, 1e-12 * std::max(1.0, std::fabs(closed))) << "rho " << rho;
}

TEST(ExponentialFamilyKernel, GaussianMeanFamilyAtEveryRhoMatchesTheGaussianClosedForm) {
  const Eigen::Vector3d mu(0.3, -1.2, 2.0), nu(1.1, 0.4, -0.5);
  for (double rho : kRhos) {
    GaussianMean a(mu, 0.7), b(nu, 0.7);
    expect_same_log_kernel(a, b, GaussianModel::isotropic(mu, 0.7), GaussianModel::isotropic(nu, 0.7), rho);
  }
}

TEST(ExponentialFamilyKernel, BernoulliAtEveryRhoMatchesItsClosedForm) {
  const std::vector<double> g = {0.1, 0.5, 0.93, 0.3}, h = {0.7, 0.25, 0.6, 0.3};
  for (double rho : kRhos) {
    BernoulliNatural a(g), b(h);
    expect_same_log_kernel(a, b, std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(g)),
                           std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(h)), rho);
  }
}

TEST(ExponentialFamilyKernel, OneEventMultinomialAtEveryRhoMatchesItsClosedForm) {
  const std::vector<double> a_p = {0.1, 0.2, 0.3, 0.4}, b_p = {0.25, 0.25, 0.4, 0.1};
  for (double rho : kRhos) {
    CategoricalNatural a(a_p), b(b_p);
    expect_same_log_kernel(a, b, std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(a_p), Trials{}),
                           std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(b_p), Trials{}), rho);
  }
}

// The default measure scaling knows only rho = 1/2, where every family has the closed form.
class OnlyAtOneHalf : public BernoulliNatural {
 public:
  using BernoulliNatural::BernoulliNatural;
  std::optional<MeasureScaling> measure_scaling(double rho) const override {
    return ExponentialFamilyModel::measure_scaling(rho);
  }
};

TEST(ExponentialFamilyKernel, WithoutAScalingMeasureOnlyRhoOneHalfIsDefined) {
  OnlyAtOneHalf a({0.2, 0.6}), b({0.5, 0.5});
  EXPECT_NO_THROW(a.prepare(with_rho(0.5)));
  EXPECT_NO_THROW(b.prepare(with_rho(0.5)));
  EXPECT_NEAR(a.log_kernel(b),
              std::log((std::sqrt(0.2 * 0.5) + std::sqrt(0.8 * 0.5)) * (std::sqrt(0.6 * 0.5) + std::sqrt(0.4 * 0.5))),
              1e-14);
  try {
    a.prepare(with_rho(1.0));
    ADD_FAILURE() << "rho = 1 accepted";
  } catch (const KernelDomainError& e) {
    EXPECT_NE(std::string(e.what()).find("only rho = 1/2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ppk
