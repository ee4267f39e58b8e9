// The family `mi` (mi.hpp): rows g = (+)_s exp(lw_s) b_s whose rho = 1 kernel is the inner product
// sum_s exp(lw_s + lw'_s) integral b_s b'_s, checked against that sum with each integral by
// quadrature; the Gaussian likelihood's blocks (gaussian_mi_block) against quadrature of
// Q(x1, x2) = integral N(x1 | theta, Sigma) N(x2 | theta, Sigma) N(theta | m, V) dtheta (Seeger 2001
// eq. 2) in 1-D and 2-D; round trips, rejected rows and JSON, the rho = 1 domain, Gram matrices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

#include "error_message.hpp"
#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "oracles.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/dirichlet.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/mi.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using checks::mentions;
using checks::relative_error;

std::unique_ptr<GaussianModel> gaussian_1d(double mean, double var) {
  return GaussianModel::isotropic(Eigen::VectorXd::Constant(1, mean), var);
}

// An mi row of 1-D Gaussian blocks N(mean_s, var_s) with log weights lw_s.
struct GaussianBlocks {
  std::vector<double> lw, mean, var;
};
std::unique_ptr<MiModel> mi_row(const GaussianBlocks& spec) {
  std::vector<std::unique_ptr<Model>> blocks;
  for (std::size_t s = 0; s < spec.lw.size(); ++s) blocks.push_back(gaussian_1d(spec.mean[s], spec.var[s]));
  return std::make_unique<MiModel>(spec.lw, std::move(blocks));
}

double mi_kernel(std::unique_ptr<Model> a, std::unique_ptr<Model> b, KernelKind kind = KernelKind::ppk) {
  const PreparedModel pa(std::move(a), with_rho(1.0)), pb(std::move(b), with_rho(1.0));
  check_compatible(pa.model(), pb.model());
  return evaluate(kind, pa, pb);
}

TEST(MiFamily, KernelIsTheSumOverBlocksOfWeightedBlockIntegrals) {
  const GaussianBlocks a{{0.3, -1.2, 2.0}, {0.0, 1.0, -2.0}, {0.5, 2.0, 1.0}};
  const GaussianBlocks b{{-0.4, 0.7, 0.0}, {0.5, 3.0, -1.0}, {1.5, 0.3, 0.8}};
  // sum_s exp(lw_s + lw'_s) integral N(t; m_s, v_s) N(t; m'_s, v'_s) dt, each integral by quadrature.
  double expected = 0.0;
  for (std::size_t s = 0; s < 3; ++s)
    expected += std::exp(a.lw[s] + b.lw[s]) * oracle::gaussian_ppk_1d(a.mean[s], a.var[s], b.mean[s], b.var[s], 1.0);
  EXPECT_LT(relative_error(mi_kernel(mi_row(a), mi_row(b)), expected), 1e-10);
}

TEST(MiFamily, DirichletBlocksAndMixedBlockFamilies) {
  // Block 0 a Dirichlet over the 2-simplex (a Beta), block 1 a 1-D Gaussian.
  auto row = [](double lw0, std::vector<double> alpha, double lw1, double mean) {
    std::vector<std::unique_ptr<Model>> blocks;
    blocks.push_back(std::make_unique<DirichletModel>(std::move(alpha)));
    blocks.push_back(gaussian_1d(mean, 0.7));
    return std::make_unique<MiModel>(std::vector<double>{lw0, lw1}, std::move(blocks));
  };
  // integral_0^1 Beta(t; a) Beta(t; a') dt by quadrature, the Beta densities written out.
  auto beta_pdf = [](double t, double a, double b) {
    return std::pow(t, a - 1) * std::pow(1 - t, b - 1) * std::tgamma(a + b) / (std::tgamma(a) * std::tgamma(b));
  };
  const double beta_integral =
      oracle::integrate([&](double t) { return beta_pdf(t, 2.5, 1.5) * beta_pdf(t, 3.0, 2.0); }, 0.0, 1.0);
  const double expected =
      std::exp(0.5 + 1.0) * beta_integral + std::exp(-1.0 + 0.25) * oracle::gaussian_ppk_1d(0.2, 0.7, -0.3, 0.7, 1.0);
  EXPECT_LT(relative_error(mi_kernel(row(0.5, {2.5, 1.5}, -1.0, 0.2), row(1.0, {3.0, 2.0}, 0.25, -0.3)), expected),
            1e-10);
}

TEST(MiFamily, DefinedOnlyAtRhoOne) {
  for (double rho : {0.5, 2.0})
    EXPECT_TRUE(mentions(
        checks::domain_error(mi_row({{0.0}, {0.0}, {1.0}}), rho),
        {"mi kernel", "only at rho = 1", "rho = 1 inner product", rho == 0.5 ? "got rho = 0.5" : "got rho = 2"}));
  EXPECT_EQ(checks::domain_error(mi_row({{0.0}, {0.0}, {1.0}}), 1.0), "");
}

TEST(MiFamily, RowsWithDifferentBlocksHaveNoKernel) {
  const PreparedModel one(mi_row({{0.0}, {0.0}, {1.0}}), with_rho(1.0));
  const PreparedModel two(mi_row({{0.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}}), with_rho(1.0));
  std::vector<std::unique_ptr<Model>> blocks;
  blocks.push_back(GaussianModel::isotropic(Eigen::Vector2d(0.0, 1.0), 1.0));
  const PreparedModel other_space(std::make_unique<MiModel>(std::vector<double>{0.0}, std::move(blocks)), with_rho(1.0));
  auto error = [](const PreparedModel& a, const PreparedModel& b) {
    return checks::error_message<KernelDomainError>([&] { check_compatible(a.model(), b.model()); });
  };
  EXPECT_TRUE(mentions(error(one, two), {"mi over MI functions on blocks [real vectors of dimension 1] of dimension 1",
                                         "vs mi over MI functions on blocks [real vectors of dimension 1, real "
                                         "vectors of dimension 1] of dimension 2"}));
  EXPECT_TRUE(mentions(error(one, other_space), {"[real vectors of dimension 1]", "[real vectors of dimension 2]"}));
  EXPECT_EQ(error(two, two), "");
}

std::unique_ptr<MiModel> random_mi_row(std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0.3, 3.0);
  std::vector<std::unique_ptr<Model>> blocks;
  blocks.push_back(GaussianModel::isotropic(Eigen::Vector2d(normal(rng), normal(rng)), uniform(rng)));
  // alpha_d >= 1: the Dirichlet kernel exists at rho = 1 (below 1/2 it would not).
  std::uniform_real_distribution<double> alpha(1.0, 3.0);
  blocks.push_back(std::make_unique<DirichletModel>(std::vector<double>{alpha(rng), alpha(rng), alpha(rng)}));
  return std::make_unique<MiModel>(std::vector<double>{normal(rng), normal(rng)}, std::move(blocks));
}

TEST(MiFamily, GramMatricesArePositiveSemidefinite) {
  std::mt19937_64 rng(23);
  std::vector<PreparedModel> models;
  for (int i = 0; i < 12; ++i) models.emplace_back(random_mi_row(rng), with_rho(1.0));
  expect_positive_semidefinite(models, "mi rows");
}

TEST(MiFamily, RowAndJsonRoundTrips) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 5; ++i) checks::expect_round_trips(*random_mi_row(rng));
  checks::expect_round_trips(*mi_row({{0.0, 1.5}, {0.0, -2.0}, {1.0, 0.5}}));  // a log weight of 0 is omitted
  const nlohmann::json json = model_to_json(*mi_row({{0.5}, {1.0}, {2.0}}));
  EXPECT_EQ(json.dump(),
            R"({"blocks":[{"family":"gaussian","mean":[1.0],"var":2.0}],"family":"mi","log_weights":[0.5]})");
}

// The row of {lw 0.5: N(1, 2), lw -1: N(-1, 1)}: 3: K, 4..5: log weights, 6: length of block 0,
// 7: its family code, 8: D, 9: form, 10: mean, 11: variance, 12: length of block 1, 13..17 block 1.
Row two_block_row() { return encode_row(*mi_row({{0.5, -1.0}, {1.0, -1.0}, {2.0, 1.0}})); }

TEST(MiFamily, RejectsMalformedRows) {
  const Row row = two_block_row();
  ASSERT_EQ(checks::row_error(row), "");
  EXPECT_TRUE(mentions(checks::row_error(checks::with_value(row, 3, 0.0)), {"mi field \"K\" (index 3)"}));
  EXPECT_TRUE(mentions(checks::row_error(checks::with_value(row, 3, 2.5)), {"mi field \"K\" (index 3)", "2.5"}));
  EXPECT_TRUE(mentions(checks::row_error(checks::with_value(row, 5, HUGE_VAL)),
                       {"mi field \"log_weights\" (index 5)", "a finite number", "inf"}));
  EXPECT_TRUE(mentions(checks::row_error(checks::with_value(row, 11, -2.0)),
                       {"mi field \"blocks\" (indices 6..11)", "gaussian field \"var\" (index 11)", "-2"}));
  // Block 1's length 5 -> 7 runs past the row's end: bad nesting.
  EXPECT_TRUE(mentions(checks::row_error(checks::with_value(row, 12, 3.0)), {"mi field \"blocks\" (indices 12..15)"}));
  // Block 1 a mixture of one N(0, 1): 12: length 9; 13: code 8; 14: M = 1; 15: weight 1; 16: length 5;
  // 17: code 1; 18: D; 19: form; 20: mean (omitted); 21: variance.
  Row nested(row.begin(), std::find_if(row.begin(), row.end(), [](const RowEntry& e) { return e.index >= 12; }));
  ASSERT_EQ(nested.back().index, 11);
  nested.insert(nested.end(), {{12, 9}, {13, 8}, {14, 1}, {15, 1}, {16, 5}, {17, 1}, {18, 1}, {19, 1}, {21, 1}});
  EXPECT_TRUE(mentions(checks::row_error(nested), {"mi field \"blocks\" (indices 12..21)",
                                                   "other than mixture, montecarlo and mi", "a mixture model"}));
}

TEST(MiFamily, RejectsMalformedJson) {
  const std::string gaussian = R"({"family":"gaussian","mean":[0],"var":1})";
  EXPECT_EQ(checks::json_error(R"({"family":"mi","log_weights":[0,1],"blocks":[)" + gaussian + "," + gaussian + "]}"),
            "");
  EXPECT_TRUE(
      mentions(checks::json_error(R"({"family":"mi","log_weights":[0],"blocks":[)" + gaussian + "," + gaussian + "]}"),
               {"mi field \"log_weights\"", "one log weight per block (2)", "1 log weights"}));
  EXPECT_TRUE(mentions(checks::json_error(R"({"family":"mi","log_weights":[0],"blocks":[]})"),
                       {"mi field \"blocks\"", "non-empty array"}));
  EXPECT_TRUE(mentions(
      checks::json_error(R"({"family":"mi","log_weights":[0],"blocks":[{"family":"gaussian","mean":[0],"var":-1}]})"),
      {"mi field \"blocks\"[0]", "gaussian field \"var\""}));
  EXPECT_TRUE(mentions(
      checks::json_error(R"({"family":"mi","log_weights":[0],"blocks":[{"family":"mi","log_weights":[0],"blocks":[)" +
                         gaussian + "]}]}"),
      {"mi field \"blocks\"[0]", "a mi model"}));
}

// ---- The Gaussian likelihood's blocks ----------------------------------------------------------

// The mi row of datum x under likelihood N(x | theta, Sigma) and mediator N(theta | m, V).
std::unique_ptr<Model> gaussian_mi_row(const Eigen::VectorXd& x, const Eigen::MatrixXd& Sigma, const Eigen::VectorXd& m,
                                       const Eigen::MatrixXd& V) {
  MiBlock block = gaussian_mi_block(x, Sigma, m, V);
  std::vector<std::unique_ptr<Model>> blocks;
  blocks.push_back(std::move(block.block));
  return std::make_unique<MiModel>(std::vector<double>{block.log_weight}, std::move(blocks));
}

Eigen::VectorXd vec1(double v) { return Eigen::VectorXd::Constant(1, v); }
Eigen::MatrixXd mat1(double v) { return Eigen::MatrixXd::Constant(1, 1, v); }

TEST(MiGaussian, OneDimensionalQMatchesQuadratureAndKIsTheRbf) {
  for (const auto& [s_value, a_value, m_value] :
       {std::tuple{0.5, 2.0, 0.3}, std::tuple{2.0, 0.25, -1.0}, std::tuple{1.0, 1.0, 0.0}}) {
    const double s = s_value, a = a_value, m = m_value;  // (a lambda may not capture a structured binding in C++17)
    const double x1 = 0.7, x2 = -0.4;
    // Q = integral N(x1; t, s) N(x2; t, s) N(t; m, a) dt.
    const double half = 40.0 * std::sqrt(std::max(s, a)) + 5.0;
    const double q = oracle::integrate(
        [&](double t) {
          return oracle::normal_density(x1, t, s) * oracle::normal_density(x2, t, s) * oracle::normal_density(t, m, a);
        },
        m - half, m + half);
    EXPECT_LT(relative_error(mi_kernel(gaussian_mi_row(vec1(x1), mat1(s), vec1(m), mat1(a)),
                                       gaussian_mi_row(vec1(x2), mat1(s), vec1(m), mat1(a))),
                             q),
              1e-9)
        << s << " " << a;
    const double rbf = std::exp(-a * (x1 - x2) * (x1 - x2) / (2.0 * s * (s + 2.0 * a)));
    EXPECT_LT(relative_error(mi_kernel(gaussian_mi_row(vec1(x1), mat1(s), vec1(m), mat1(a)),
                                       gaussian_mi_row(vec1(x2), mat1(s), vec1(m), mat1(a)), KernelKind::ppk_norm),
                             rbf),
              1e-12);
  }
}

TEST(MiGaussian, IsotropicRowsInTwoDimensionsGiveTheRbf) {
  const double s = 0.8, a = 1.7;
  const Eigen::Vector2d x1(0.5, -1.0), x2(2.0, 0.25), m(0.1, 0.2);
  const Eigen::MatrixXd I = Eigen::Matrix2d::Identity();
  const double rbf = std::exp(-a * (x1 - x2).squaredNorm() / (2.0 * s * (s + 2.0 * a)));
  EXPECT_LT(relative_error(mi_kernel(gaussian_mi_row(x1, s * I, m, a * I), gaussian_mi_row(x2, s * I, m, a * I),
                                     KernelKind::ppk_norm),
                           rbf),
            1e-12);
  EXPECT_EQ(
      dynamic_cast<const GaussianModel&>(dynamic_cast<const MiModel&>(*gaussian_mi_row(x1, s * I, m, a * I)).block(0))
          .form(),
      CovarianceForm::isotropic);
}

TEST(MiGaussian, FullCovariancesMatchTwoDimensionalQuadrature) {
  const oracle::Gaussian2 mediator{0.3, -0.2, 1.2, 0.4, 0.9};  // N(theta | m, V)
  const double s11 = 0.6, s12 = -0.2, s22 = 0.5;               // Sigma
  const Eigen::Vector2d x1(0.4, 0.1), x2(-0.5, 0.8);
  // Q = integral N(x1 | theta, Sigma) N(x2 | theta, Sigma) N(theta | m, V) dtheta over R^2, by nested
  // quadrature; N(x | theta, Sigma) written as the density of N(theta, Sigma) at x.
  auto likelihood = [&](const Eigen::Vector2d& x, double t1, double t2) {
    return oracle::Gaussian2{t1, t2, s11, s12, s22}.density(x(0), x(1));
  };
  const double half = 12.0;
  const double q = oracle::integrate(
      [&](double t1) {
        return oracle::integrate(
            [&](double t2) { return likelihood(x1, t1, t2) * likelihood(x2, t1, t2) * mediator.density(t1, t2); }, -half,
            half, 1e-12, 12);
      },
      -half, half, 1e-11, 12);
  Eigen::Matrix2d Sigma, V;
  Sigma << s11, s12, s12, s22;
  V << mediator.s11, mediator.s12, mediator.s12, mediator.s22;
  const Eigen::Vector2d m(mediator.m1, mediator.m2);
  EXPECT_LT(relative_error(mi_kernel(gaussian_mi_row(x1, Sigma, m, V), gaussian_mi_row(x2, Sigma, m, V)), q), 1e-8);
}

TEST(MiGaussian, RejectsMismatchedOrIndefiniteMatrices) {
  const Eigen::MatrixXd I = Eigen::Matrix2d::Identity();
  const Eigen::VectorXd x = Eigen::Vector2d(0.0, 1.0);
  EXPECT_TRUE(mentions(checks::constructor_error([&] { gaussian_mi_block(x, I, vec1(0.0), I); }),
                       {"mediator mean (dimension 1)"}));
  EXPECT_TRUE(
      mentions(checks::constructor_error([&] { gaussian_mi_block(x, mat1(1.0), x, I); }), {"Sigma must be 2 x 2"}));
  EXPECT_TRUE(
      mentions(checks::constructor_error([&] { gaussian_mi_block(x, I, x, -I); }), {"V must be", "positive definite"}));
}

}  // namespace
}  // namespace ppk
