// Gaussian kernels (JMLR 2004 eq. 5) against numerical quadrature of the definition.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "oracles.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/kernel.hpp"
#include "kernel_params.hpp"

namespace ppk {
namespace {

const CovarianceForm kForms[] = {CovarianceForm::isotropic, CovarianceForm::diagonal, CovarianceForm::full};

double kernel_between(std::unique_ptr<Model> a, std::unique_ptr<Model> b, double rho) {
  const PreparedModel pa(std::move(a), with_rho(rho)), pb(std::move(b), with_rho(rho));
  return kernel(pa, pb);
}

// N(mean, var) over R in the given form (all three describe the same density).
std::unique_ptr<Model> gaussian_1d(CovarianceForm form, double mean, double var) {
  const Eigen::VectorXd m = Eigen::VectorXd::Constant(1, mean);
  switch (form) {
    case CovarianceForm::isotropic: return GaussianModel::isotropic(m, var);
    case CovarianceForm::diagonal: return GaussianModel::diagonal(m, Eigen::VectorXd::Constant(1, var));
    case CovarianceForm::full: break;
  }
  return GaussianModel::full(m, Eigen::MatrixXd::Constant(1, 1, var));
}

// The model of an oracle::Gaussian2 in its natural form: isotropic when s11 = s22 and s12 = 0,
// diagonal when s12 = 0, full otherwise.
std::unique_ptr<Model> gaussian_2d(const oracle::Gaussian2& g) {
  const Eigen::Vector2d mean(g.m1, g.m2);
  if (g.s12 == 0.0 && g.s11 == g.s22) return GaussianModel::isotropic(mean, g.s11);
  if (g.s12 == 0.0) return GaussianModel::diagonal(mean, Eigen::Vector2d(g.s11, g.s22));
  Eigen::Matrix2d cov;
  cov << g.s11, g.s12, g.s12, g.s22;
  return GaussianModel::full(mean, cov);
}

TEST(GaussianOracle, QuadratureReproducesTheGaussianProductIdentity) {
  // At rho = 1, integral N(x; a, A) N(x; b, B) dx = N(a; b, A + B): a check of the oracle itself.
  EXPECT_LT(
      oracle::relative_error(oracle::gaussian_ppk_1d(0.3, 0.5, -1.2, 2.0, 1.0), oracle::normal_density(0.3, -1.2, 2.5)),
      1e-12);
}

TEST(GaussianKernel, OneDimensionEveryFormPairMatchesQuadrature) {
  for (double rho : kRhos)
    for (CovarianceForm form_a : kForms)
      for (CovarianceForm form_b : kForms) {
        const double expected = oracle::gaussian_ppk_1d(0.3, 0.5, -1.2, 2.0, rho);
        const double got = kernel_between(gaussian_1d(form_a, 0.3, 0.5), gaussian_1d(form_b, -1.2, 2.0), rho);
        EXPECT_LT(oracle::relative_error(got, expected), 1e-8)
            << "rho " << rho << " forms " << int(form_a) << "," << int(form_b) << ": " << got << " vs " << expected;
      }
}

TEST(GaussianKernel, OneDimensionFarApartAndNarrow) {
  for (double rho : kRhos) {
    const double expected = oracle::gaussian_ppk_1d(2.5, 0.04, -1.0, 0.3, rho);
    const double got = kernel_between(gaussian_1d(CovarianceForm::full, 2.5, 0.04),
                                      gaussian_1d(CovarianceForm::diagonal, -1.0, 0.3), rho);
    EXPECT_LT(oracle::relative_error(got, expected), 1e-8) << "rho " << rho;
  }
}

TEST(GaussianKernel, TwoDimensionsEveryFormPairMatchesQuadrature) {
  const oracle::Gaussian2 iso_p{0.4, -0.3, 0.9, 0.0, 0.9}, iso_q{-0.5, 0.8, 1.6, 0.0, 1.6};
  const oracle::Gaussian2 diag_p{1.0, 0.2, 0.7, 0.0, 1.9}, diag_q{-0.6, -0.1, 2.2, 0.0, 0.4};
  const oracle::Gaussian2 full_p{0.4, -0.3, 1.2, 0.5, 0.8}, full_q{-0.5, 0.9, 0.6, -0.2, 1.5};
  const std::pair<oracle::Gaussian2, oracle::Gaussian2> pairs[] = {{iso_p, iso_q},   {iso_p, diag_p},  {diag_p, diag_q},
                                                                   {iso_q, full_p},  {diag_q, full_q}, {full_p, full_q},
                                                                   {full_p, full_p}, {full_q, iso_p}};
  for (double rho : kRhos)
    for (const auto& [p, q] : pairs) {
      const double expected = oracle::gaussian_ppk_2d(p, q, rho);
      const double got = kernel_between(gaussian_2d(p), gaussian_2d(q), rho);
      EXPECT_LT(oracle::relative_error(got, expected), 1e-8)
          << "rho " << rho << " means (" << p.m1 << "," << p.m2 << ") (" << q.m1 << "," << q.m2 << "): " << got << " vs "
          << expected;
    }
}

TEST(GaussianKernel, IsotropicEqualVarianceMatchesThePapersSimplification) {
  // JMLR 2004 section 3.1: S = S' = s I gives k = (2 rho)^(-D/2) (2 pi s)^((1-2rho)D/2) exp(-rho |mu-mu'|^2 / (4s)).
  const int dim = 5;
  const double s = 0.7;
  Eigen::VectorXd mu(dim), nu(dim);
  mu << 0.1, -0.4, 1.3, 0.0, 2.0;
  nu << -0.3, 0.2, 0.9, 0.5, 1.1;
  for (double rho : kRhos) {
    const double expected = std::pow(2.0 * rho, -dim / 2.0) *
                            std::pow(2.0 * oracle::kPi * s, (1.0 - 2.0 * rho) * dim / 2.0) *
                            std::exp(-rho * (mu - nu).squaredNorm() / (4.0 * s));
    EXPECT_LT(oracle::relative_error(
                  kernel_between(GaussianModel::isotropic(mu, s), GaussianModel::isotropic(nu, s), rho), expected),
              1e-12)
        << "rho " << rho;
  }
}

TEST(GaussianKernel, FullCovarianceIsInvariantUnderRotation) {
  // k depends on the densities only, and integrals over R^D do not change when both densities
  // are rotated: the full-covariance pair (Q mu, Q S Q') must equal the diagonal pair (mu, S).
  const int dim = 4;
  Eigen::VectorXd mu(dim), nu(dim), var_mu(dim), var_nu(dim);
  mu << 0.5, -1.0, 0.25, 2.0;
  nu << -0.5, 0.3, 1.0, 1.5;
  var_mu << 0.5, 1.5, 2.0, 0.8;
  var_nu << 1.1, 0.3, 0.9, 2.5;
  const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(Eigen::MatrixXd::Random(dim, dim)).householderQ();
  for (double rho : kRhos) {
    const double diagonal = kernel_between(GaussianModel::diagonal(mu, var_mu), GaussianModel::diagonal(nu, var_nu), rho);
    const double rotated = kernel_between(GaussianModel::full(q * mu, q * var_mu.asDiagonal() * q.transpose()),
                                          GaussianModel::full(q * nu, q * var_nu.asDiagonal() * q.transpose()), rho);
    EXPECT_LT(oracle::relative_error(rotated, diagonal), 1e-10) << "rho " << rho;
  }
}

TEST(GaussianKernel, TranslatingBothModelsFarFromTheOriginChangesNothing) {
  const oracle::Gaussian2 p{0.4, -0.3, 1.2, 0.5, 0.8}, q{-0.5, 0.9, 0.6, -0.2, 1.5};
  const double shift = 1e4;
  const oracle::Gaussian2 p_far{p.m1 + shift, p.m2 - shift, p.s11, p.s12, p.s22};
  const oracle::Gaussian2 q_far{q.m1 + shift, q.m2 - shift, q.s11, q.s12, q.s22};
  for (double rho : kRhos)
    EXPECT_LT(oracle::relative_error(kernel_between(gaussian_2d(p_far), gaussian_2d(q_far), rho),
                                     kernel_between(gaussian_2d(p), gaussian_2d(q), rho)),
              1e-8)
        << "rho " << rho;
}

TEST(GaussianKernel, BhattacharyyaSelfKernelIsOne) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Random(3, 3);
  const Eigen::Vector3d mean(1.0, -2.0, 0.5);
  std::vector<std::unique_ptr<Model>> models;
  models.push_back(GaussianModel::isotropic(mean, 0.3));
  models.push_back(GaussianModel::diagonal(mean, Eigen::Vector3d(0.2, 4.0, 1.0)));
  models.push_back(GaussianModel::full(mean, a * a.transpose() + 0.1 * Eigen::MatrixXd::Identity(3, 3)));
  for (auto& model : models) {
    const PreparedModel prepared(std::move(model), with_rho(0.5));
    EXPECT_NEAR(kernel(prepared, prepared), 1.0, 1e-12);
    EXPECT_NEAR(prepared.log_self_kernel(), 0.0, 1e-12);
    EXPECT_NEAR(normalized_kernel(prepared, prepared), 1.0, 1e-15);
  }
}

TEST(GaussianModelTest, LogDensityMatchesTheExplicitDensity) {
  const oracle::Gaussian2 full{0.4, -0.3, 1.2, 0.5, 0.8}, diag{1.0, 0.2, 0.7, 0.0, 1.9}, iso{-0.5, 0.8, 1.6, 0.0, 1.6};
  for (const auto& g : {full, diag, iso}) {
    const auto model = gaussian_2d(g);
    const auto& gaussian = static_cast<const GaussianModel&>(*model);
    const Eigen::Vector2d x(0.7, -1.1);
    EXPECT_LT(oracle::relative_error(std::exp(gaussian.log_density(x)), g.density(x[0], x[1])), 1e-13);
  }
}

TEST(GaussianModelTest, AccessorsDescribeTheModel) {
  Eigen::Matrix2d cov;
  cov << 2.0, 0.5, 0.5, 1.0;
  const auto full = GaussianModel::full(Eigen::Vector2d(1.0, 2.0), cov);
  EXPECT_EQ(full->form(), CovarianceForm::full);
  EXPECT_EQ(full->dim(), 2);
  EXPECT_EQ(full->covariance(), cov);
  EXPECT_EQ(full->sample_space(), (SampleSpace{"real vectors", 2}));
  const auto iso = GaussianModel::isotropic(Eigen::Vector3d(1.0, 2.0, 3.0), 0.5);
  EXPECT_EQ(iso->covariance(), 0.5 * Eigen::Matrix3d::Identity());
  EXPECT_EQ(iso->family().name, "gaussian");
  EXPECT_EQ(iso->family().code, 1);
}

// A full covariance within the symmetry tolerance is stored as (S + S')/2 exactly, computed here into
// a matrix of its own: symmetrising in place would read entries it had already overwritten.
TEST(GaussianModelTest, FullCovarianceIsSymmetrisedExactly) {
  Eigen::MatrixXd covariance(2, 2);
  covariance << 2.0, 0.3 + 1e-12, 0.3, 1.0;
  const Eigen::MatrixXd expected = 0.5 * (covariance + covariance.transpose());
  const auto model = GaussianModel::full(Eigen::Vector2d(0.0, 0.0), covariance);
  EXPECT_EQ(model->covariance()(0, 1), expected(0, 1));
  EXPECT_EQ(model->covariance()(1, 0), expected(1, 0));
  EXPECT_EQ(model->covariance()(0, 1), model->covariance()(1, 0));
}

}  // namespace
}  // namespace ppk
