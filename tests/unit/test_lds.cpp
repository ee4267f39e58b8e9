// Linear dynamical systems (lds.hpp): the linear-time kernel (a Kalman filter over the coupled pair
// of state chains) against the dense joint Gaussians through the Gaussian family's kernel; the dense
// joint against quadrature over densities written out here by the textbook formulas, against a Monte
// Carlo estimate of E_p[p'(X)] from sequences simulated by the LDS recursion, and its covariance
// against the sample covariance of simulated sequences; T = 0 against the Gaussian family; Gram
// matrices, T = 1000, -d, round trips and rejected models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/eigen.hpp>

#include "emission_models.hpp"
#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "lds_sampling.hpp"
#include "oracles.hpp"
#include "positive_family_checks.hpp"
#include "sample_moments.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using namespace checks;  // the messages of malformed rows and JSON
using oracle::Gaussian2;
using oracle::gaussian_ppk_1d;
using oracle::gaussian_ppk_2d;

// The joint of (x_0, x_1) of a d = 1 LDS, written out: x_0 = C s_0 + v_0, x_1 = C (A s_0 + w_1) + v_1,
// so var x_0 = C cov0 C' + R, cov(x_0, x_1) = C A cov0 C', var x_1 = C (A cov0 A' + Q) C' + R.
Gaussian2 two_step_joint(const Lds& s) {
  const Eigen::RowVectorXd c = s.C.row(0);
  const double r = s.R(0, 0);
  return {c.dot(s.mean0), c.dot(s.A * s.mean0), (c * s.cov0 * c.transpose())(0, 0) + r,
          (c * s.A * s.cov0 * c.transpose())(0, 0),
          (c * (s.A * s.cov0 * s.A.transpose() + s.Q) * c.transpose())(0, 0) + r};
}

double prepared_log_kernel(const Lds& a, const Lds& b, double rho, long steps, bool dense) {
  auto model_a = lds_model(a), model_b = lds_model(b);
  const KernelParams params = with_rho_and_length(rho, static_cast<int>(steps));
  model_a->prepare(params);
  model_b->prepare(params);
  return dense ? dense_log_kernel(*model_a, *model_b) : model_a->log_kernel(*model_b);
}

TEST(Lds, LinearTimeKernelEqualsTheDenseJointGaussians) {
  std::mt19937 rng(11);
  for (long d : {1, 2})
    for (long n_a = 1; n_a <= 3; ++n_a)
      for (long n_b = 1; n_b <= 3; ++n_b) {
        const Lds a = random_lds(rng, n_a, d, 3), b = random_lds(rng, n_b, d, 7);
        for (long steps : {0, 1, 5, 50})
          for (double rho : {0.5, 1.0, 2.0}) {
            // -d 0 is each model's own length: T = 0 is asked for with both stored lengths 0.
            Lds a_t = a, b_t = b;
            if (steps == 0) a_t.length = b_t.length = 0;
            const double dense = prepared_log_kernel(a_t, b_t, rho, steps, true);
            const double linear = prepared_log_kernel(a_t, b_t, rho, steps, false);
            EXPECT_NEAR(linear, dense, 1e-9 * std::max(1.0, std::fabs(dense)))
                << "n = " << n_a << ", " << n_b << ", d = " << d << ", T = " << steps << ", rho = " << rho;
            EXPECT_NEAR(prepared_log_kernel(b_t, a_t, rho, steps, false), linear, 1e-9 * std::max(1.0, std::fabs(dense)));
          }
      }
}

// Semidefinite cov0 and Q (a known start; noise in one direction only): the filter's state covariance
// is singular, the innovation covariances are not (R is positive definite).
TEST(Lds, LinearTimeKernelWithSingularStateCovariances) {
  std::mt19937 rng(20);
  Lds a = random_lds(rng, 3, 2, 0), b = random_lds(rng, 2, 2, 0);
  a.cov0.setZero();
  const Eigen::VectorXd direction = random_matrix(rng, 3, 1);
  a.Q = direction * direction.transpose();
  b.cov0 = Eigen::MatrixXd::Zero(2, 2);
  b.cov0(0, 0) = 1.0;
  for (long steps : {0, 1, 5, 50})
    for (double rho : {0.5, 1.0, 2.0}) {
      const double dense = prepared_log_kernel(a, b, rho, steps, true);
      EXPECT_NEAR(prepared_log_kernel(a, b, rho, steps, false), dense, 1e-9 * std::max(1.0, std::fabs(dense)))
          << "T = " << steps << ", rho = " << rho;
    }
}

// T = 0 (one observation) and T = 1 with d = 1: integral of p(x)^rho p'(x)^rho by quadrature over the
// densities written out above.
TEST(Lds, DenseKernelEqualsQuadrature) {
  std::mt19937 rng(12);
  for (long n_a = 1; n_a <= 2; ++n_a)
    for (long n_b = 1; n_b <= 2; ++n_b) {
      Lds a = random_lds(rng, n_a, 1, 0), b = random_lds(rng, n_b, 1, 0);
      for (double rho : {0.5, 1.0, 2.0}) {
        const Gaussian2 pa = two_step_joint(a), pb = two_step_joint(b);
        const double one_step = gaussian_ppk_1d(pa.m1, pa.s11, pb.m1, pb.s11, rho);
        EXPECT_LT(checks::relative_error(std::exp(prepared_log_kernel(a, b, rho, 0, true)), one_step), 1e-9);
        const double two_steps = gaussian_ppk_2d(pa, pb, rho);
        EXPECT_LT(checks::relative_error(std::exp(prepared_log_kernel(a, b, rho, 1, true)), two_steps), 1e-8)
            << "n = " << n_a << ", " << n_b << ", rho = " << rho;
      }
    }
}

// rho = 1: k = E_p[p'(X)], X drawn by simulating the first LDS, p' its two-step density written out.
TEST(Lds, ExpectedLikelihoodKernelEqualsMonteCarlo) {
  std::mt19937 rng(13);
  const Lds a = random_lds(rng, 2, 1, 1), b = random_lds(rng, 1, 1, 1);
  const Gaussian2 pb = two_step_joint(b);
  Simulator simulate(a);
  const long samples = 200000;
  double sum = 0.0, sum_squares = 0.0;
  for (long i = 0; i < samples; ++i) {
    const Eigen::VectorXd x = simulate.draw(rng, 1);
    const double value = pb.density(x[0], x[1]);
    sum += value;
    sum_squares += value * value;
  }
  const double mean = sum / samples;
  const double standard_error = std::sqrt((sum_squares / samples - mean * mean) / samples);
  const double exact = std::exp(prepared_log_kernel(a, b, 1.0, 1, true));
  EXPECT_NEAR(exact, mean, 4.0 * standard_error);
  EXPECT_NEAR(std::exp(prepared_log_kernel(a, b, 1.0, 1, false)), exact, 1e-12 * exact);
}

// The dense joint of X against the sample mean and covariance of simulated sequences (n = 2, d = 2,
// T = 3): each entry within 5 standard errors (var of a product of zero-mean Gaussians: S_ii S_jj + S_ij^2).
TEST(Lds, JointObservationsMatchSimulatedSequences) {
  std::mt19937 rng(14);
  const Lds s = random_lds(rng, 2, 2, 3);
  const auto joint = lds_model(s)->joint_observations();
  const Eigen::VectorXd mean = joint->mean();
  const Eigen::MatrixXd cov = joint->covariance();
  ASSERT_EQ(mean.size(), 8);
  Simulator simulate(s);
  checks::expect_sample_moments(mean, cov, 100000, [&]() -> Eigen::VectorXd { return simulate.draw(rng, 3); });
  // Not block diagonal: observations at different times are correlated.
  EXPECT_GT(cov.block(2, 0, 2, 2).cwiseAbs().maxCoeff(), 1e-3);
}

// One step: X = x_0 ~ N(C mean0, C cov0 C' + R), the Gaussian family's kernel between those rows.
TEST(Lds, OneStepEqualsTheGaussianKernel) {
  std::mt19937 rng(15);
  for (long n_a = 1; n_a <= 3; ++n_a)
    for (long n_b = 1; n_b <= 3; ++n_b) {
      const Lds a = random_lds(rng, n_a, 2, 0), b = random_lds(rng, n_b, 2, 0);
      for (double rho : kRhos) {
        auto ga = GaussianModel::full(a.C * a.mean0, a.C * a.cov0 * a.C.transpose() + a.R);
        auto gb = GaussianModel::full(b.C * b.mean0, b.C * b.cov0 * b.C.transpose() + b.R);
        ga->prepare(with_rho(rho));
        gb->prepare(with_rho(rho));
        const double expected = ga->log_kernel(*gb);
        EXPECT_NEAR(prepared_log_kernel(a, b, rho, 0, false), expected, 1e-10 * std::max(1.0, std::fabs(expected)));
      }
    }
}

TEST(Lds, GramMatricesArePositiveSemidefinite) {
  std::mt19937 rng(16);
  for (double rho : {0.5, 1.0, 2.0}) {
    std::vector<PreparedModel> models;
    for (long i = 0; i < 10; ++i) models.emplace_back(lds_model(random_lds(rng, 1 + i % 3, 2, 20)), with_rho(rho));
    expect_positive_semidefinite(models, "lds rho = " + std::to_string(rho));
  }
}

TEST(Lds, LongSequencesHaveFiniteNormalizedKernels) {
  std::mt19937 rng(17);
  const KernelParams params = with_rho_and_length(1.0, 1000);
  const PreparedModel a(lds_model(random_lds(rng, 3, 2, 5)), params), b(lds_model(random_lds(rng, 2, 2, 5)), params);
  const double normalized = normalized_kernel(a, b);
  EXPECT_TRUE(std::isfinite(normalized));
  EXPECT_GT(normalized, 0.0);
  EXPECT_LT(normalized, 1.0);
  EXPECT_NEAR(normalized_kernel(a, a), 1.0, 1e-12);
  EXPECT_TRUE(std::isfinite(log_kernel(a, b)));
  EXPECT_LT(log_kernel(a, b), -1000.0);  // k itself underflows: only its log is usable
}

// Finite kernels (lds.hpp, lds_state_space.hpp check_finite_moments): a stable LDS with a pole at the fit's
// bound 0.999 has finite kernels at T = 1000 and 100000; an explosive one (A = 1.5, whose state
// variance 1.5^(2t) overflows a double near t = 875) is refused at prepare with a KernelDomainError
// that names T, the step and the spectral radius, and is accepted at T = 10.
TEST(Lds, ExplosiveTransitionsAreRefusedWhereTheStateOverflows) {
  const auto scalar = [](double a) {
    Lds s;
    s.mean0 = Eigen::VectorXd::Constant(1, 0.5);
    s.cov0 = s.Q = s.C = s.R = Eigen::MatrixXd::Identity(1, 1);
    s.A = Eigen::MatrixXd::Constant(1, 1, a);
    return lds_model(s);
  };
  for (long length : {1000L, 100000L}) {
    const PreparedModel slow(scalar(0.999), with_rho_and_length(0.5, length));
    EXPECT_TRUE(std::isfinite(slow.log_self_kernel())) << length;
  }
  EXPECT_TRUE(std::isfinite(PreparedModel(scalar(1.5), with_rho_and_length(0.5, 10)).log_self_kernel()));
  try {
    PreparedModel explosive(scalar(1.5), with_rho_and_length(0.5, 1000));
    ADD_FAILURE() << "an explosive LDS was prepared at T = 1000";
  } catch (const KernelDomainError& e) {
    EXPECT_TRUE(mentions(e.what(), {"lds kernel at T = 1000", "overflows a double at step ",
                                    "spectral radius of the transitions A is 1.5"}))
        << e.what();
  }
}

// A scalar LDS (n = d = 1) for the ill-conditioned cases below.
struct ScalarLds {
  double a, q, r, mean0 = 0.5, cov0 = 1.0, c = 1.0;
};

std::unique_ptr<LdsModel> scalar_lds(const ScalarLds& s) {
  const auto one = [](double v) { return Eigen::MatrixXd::Constant(1, 1, v); };
  return std::make_unique<LdsModel>(Eigen::VectorXd::Constant(1, s.mean0), one(s.cov0), one(s.a), one(s.q), one(s.c),
                                    one(s.r), 0);
}

// The oracle: the normalised kernel between the dense joint Gaussians of x_0..x_T, written out in 50
// significant digits (Boost.Multiprecision through Eigen): var s_t = a^2 var s_{t-1} + q, cov(s_t, s_u) =
// a^(t-u) var s_u (t >= u), x_t = c s_t + v_t; log k_rho = (1-2rho)D/2 log 2pi - D/2 log rho +
// (1-rho)/2 (log|S| + log|S'|) - 1/2 log|S + S'| - rho/2 (m - m')' (S + S')^-1 (m - m').
double dense_normalized_kernel(const ScalarLds& pa, const ScalarLds& pb, double rho, long steps) {
  using Real = boost::multiprecision::cpp_bin_float_50;
  using Matrix = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
  using Vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;
  const long dim = steps + 1;
  const auto joint = [&](const ScalarLds& p, Matrix& cov, Vector& mean) {
    cov.resize(dim, dim);
    mean.resize(dim);
    std::vector<Real> variance(static_cast<std::size_t>(dim));
    Real v = p.cov0, m = p.mean0;
    for (long t = 0; t < dim; ++t) {
      if (t > 0) v = Real(p.a) * p.a * v + p.q, m *= p.a;
      variance[static_cast<std::size_t>(t)] = v;
      mean(t) = Real(p.c) * m;
    }
    for (long t = 0; t < dim; ++t)
      for (long u = 0; u <= t; ++u) {
        cov(t, u) = cov(u, t) =
            Real(p.c) * p.c * boost::multiprecision::pow(Real(p.a), t - u) * variance[static_cast<std::size_t>(u)];
        if (t == u) cov(t, t) += p.r;
      }
  };
  const auto log_det = [](const Matrix& m) {
    return Real(2) * Eigen::LLT<Matrix>(m).matrixLLT().diagonal().array().log().sum();
  };
  const auto log_kernel = [&](const Matrix& sa, const Vector& ma, const Matrix& sb, const Vector& mb) {
    const Matrix sum = sa + sb;
    const Vector difference = ma - mb;
    const Real quadratic = difference.dot(Eigen::LLT<Matrix>(sum).solve(difference));
    const Real d = dim;
    return (1 - 2 * Real(rho)) * d / 2 * log(2 * boost::math::constants::pi<Real>()) - d / 2 * log(Real(rho)) +
           (1 - Real(rho)) / 2 * (log_det(sa) + log_det(sb)) - log_det(sum) / 2 - Real(rho) / 2 * quadratic;
  };
  Matrix sa, sb;
  Vector ma, mb;
  joint(pa, sa, ma);
  joint(pb, sb, mb);
  const Real log_normalized = log_kernel(sa, ma, sb, mb) - (log_kernel(sa, ma, sa, ma) + log_kernel(sb, mb, sb, mb)) / 2;
  return static_cast<double>(exp(log_normalized));
}

// Observation noise far below the state's variance, noise-free or explosive dynamics: the filter's
// square-root form takes over where the covariance form alone lost positive definiteness or accuracy to
// rounding (NaN kernels; values 10^4 times too small at R = 1e-20), and the self-kernel comes from log|S|
// (lds_state_space.hpp log_self_kernel; by the stacked filter of (p, p) it was a factor 100 off at A = 1.5,
// R = 1e-6). Against the 50-digit dense oracle: within 1e-6 down to R = 1e-10
// (covariances 10^27 times R), within 1% in log down to R = 1e-20; finite and in [0, 1] beyond.
TEST(Lds, IllConditionedKernelsMatchTheHighPrecisionDenseJoint) {
  const long steps = 50;
  for (double r : {1e-6, 1e-10, 1e-20, 1e-300})
    for (double a : {1.0, 1.5})
      for (double q : {0.0, 1e-3})
        for (double rho : {1.0, 0.5}) {
          const ScalarLds pa{a, q, r}, pb{0.5, q, r, -0.25, 2.0, 1.5};
          const KernelParams params = with_rho_and_length(rho, static_cast<int>(steps));
          const PreparedModel ma(scalar_lds(pa), params), mb(scalar_lds(pb), params);
          const double value = normalized_kernel(ma, mb);
          std::ostringstream where;
          where << "R = " << r << ", A = " << a << ", Q = " << q << ", rho = " << rho;
          ASSERT_TRUE(value >= 0.0 && value <= 1.0) << where.str() << ": " << value;
          EXPECT_EQ(normalized_kernel(ma, ma), 1.0) << where.str();
          if (r < 1e-20) continue;  // beyond the oracle's 50 digits
          const double expected = dense_normalized_kernel(pa, pb, rho, steps);
          if (r >= 1e-10)
            EXPECT_NEAR(value / expected, 1.0, 1e-6) << where.str() << ": " << value << " vs " << expected;
          else
            EXPECT_NEAR(std::log(value) / std::log(expected), 1.0, 0.01)
                << where.str() << ": " << value << " vs " << expected;
        }
  // The case the fuzzer found (a transition of 1e17: state variances near 1e272 at T = 8): finite.
  const KernelParams params = with_rho_and_length(1.0, 8);
  const PreparedModel huge(scalar_lds({1e17, 1.0, 0.2, 0.0}), params), plain(scalar_lds({0.5, 1.0, 0.2, 0.0}), params);
  const double value = normalized_kernel(huge, plain);
  EXPECT_TRUE(value >= 0.0 && value <= 1.0) << value;
}

// -d T overrides the stored length, and the sample space says which T; LDSs of other T or d, and
// HMMs with Gaussian emissions, have no kernel with them.
// A pair's filter runs T + 1 steps of the stacked state, (n + n' + d)^3 <= max(2n + d, 2n' + d)^3 each:
// prepare() refuses a row with (T + 1)(2n + d)^3 > kMaxKernelWork = 10^12 before running its own filter.
// n = d = 200 (a few kB of row when its matrices are sparse): 600^3 per step, so T + 1 <= 4629.
TEST(Lds, KernelWorkPerEvaluationIsBounded) {
  const long n = 200;
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(n, n);
  LdsModel model(Eigen::VectorXd::Zero(n), identity, 0.5 * identity, identity, identity, identity, 1000000);
  EXPECT_TRUE(mentions(checks::prepare_error(model, with_rho(1.0)),
                       {"lds kernel: T + 1 (1000001, the length or -d T) x (2n + d)^3 (n = 200, d = 200) = "
                        "2.16000216e+14 multiply-adds per kernel evaluation, more than the 1e+12 one row may claim",
                        "Limits", "give a smaller -d T"}));
  EXPECT_TRUE(mentions(checks::prepare_error(model, with_rho_and_length(1.0, 4629)), {"T + 1 (4630,", "1.00008e+12"}));
  EXPECT_EQ(checks::prepare_error(model, with_rho_and_length(1.0, 3)), "");
}

TEST(Lds, LengthAndSampleSpace) {
  std::mt19937 rng(18);
  auto model = lds_model(random_lds(rng, 2, 1, 4));
  EXPECT_EQ(model->steps(), 4);
  EXPECT_EQ(model->sample_space().describe(), "linear-Gaussian sequences of 5 real vectors of dimension 1");
  model->prepare(with_rho_and_length(1.0, 9));
  EXPECT_EQ(model->steps(), 9);
  EXPECT_EQ(model->length(), 4);
  model->prepare(with_rho(1.0));
  EXPECT_EQ(model->steps(), 4);

  const auto other_length = lds_model(random_lds(rng, 2, 1, 5));
  EXPECT_THROW(check_compatible(*model, *other_length), KernelDomainError);
  const auto other_dim = lds_model(random_lds(rng, 2, 2, 4));
  EXPECT_THROW(check_compatible(*model, *other_dim), KernelDomainError);
  std::vector<std::unique_ptr<Model>> emissions;
  emissions.push_back(gaussian_1d({0.0, 1.0}));
  const HmmModel hmm(Eigen::VectorXd::Ones(1), Eigen::MatrixXd::Ones(1, 1), std::move(emissions), 4);
  EXPECT_THROW(check_compatible(*model, hmm), KernelDomainError);
  EXPECT_THROW(model->prepare(with_rho(0.0)), KernelDomainError);
}

TEST(Lds, RowAndJsonRoundTrips) {
  std::mt19937 rng(19);
  for (long n = 1; n <= 3; ++n) checks::expect_round_trips(*lds_model(random_lds(rng, n, 2, 6)));
  // Semidefinite cov0 and Q (a known start, no state noise): zeros dropped from the row.
  Lds s = random_lds(rng, 2, 1, 3);
  s.cov0.setZero();
  s.Q << 1.0, 1.0, 1.0, 1.0;
  checks::expect_round_trips(*lds_model(s));
  const std::string json = R"({"family":"lds","mean0":[1.0,-2.0],"cov0":[[1.0,0.5],[0.5,2.0]],"A":[[0.5,0.1],[0.0,0.8]],)"
                           R"("Q":[[0.1,0.0],[0.0,0.2]],"C":[[1.0,2.0]],"R":[[0.5]],"length":7})";
  const auto parsed = model_from_json(nlohmann::json::parse(json));
  EXPECT_EQ(format_entries(encode_row(*parsed)),
            "1:1 2:11 3:2 4:1 5:7 6:1 7:-2 8:1 9:0.5 10:2 11:0.5 12:0.1 14:0.8 "
            "15:0.1 17:0.2 18:1 19:2 20:0.5");
}

// The row of a 2-state, 1-dimensional LDS: 3 n, 4 d, 5 T, 6..7 mean0, 8..10 cov0, 11..14 A, 15..17 Q,
// 18..19 C, 20 R; every value non-zero, so each index is present.
Row sample_row() {
  Lds s;
  s.mean0 = Eigen::Vector2d(1.0, -2.0);
  s.cov0 = (Eigen::Matrix2d() << 1.0, 0.5, 0.5, 2.0).finished();
  s.A = (Eigen::Matrix2d() << 0.5, 0.1, 0.2, 0.8).finished();
  s.Q = (Eigen::Matrix2d() << 0.3, 0.1, 0.1, 0.2).finished();
  s.C = (Eigen::Matrix<double, 1, 2>() << 1.0, 2.0).finished();
  s.R = Eigen::Matrix<double, 1, 1>::Constant(0.5);
  s.length = 7;
  return encode_row(*lds_model(s));
}

TEST(Lds, RejectsMalformedRows) {
  const Row row = sample_row();
  EXPECT_EQ(row_error(row), "");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(mentions(row_error(with_value(row, 20, -0.5)), {"lds field \"R\" (index 20)", "positive definite"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 12, nan)), {"lds field \"A\" (index 12)", "finite", "nan"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 9, nan)), {"lds field \"cov0\" (index 9)", "finite"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 16, 5.0)), {"lds field \"Q\" (indices 15..17)", "positive semidefinite"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 6, nan)), {"lds field \"mean0\" (index 6)", "finite"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 3, 0.0)), {"lds field \"n\"", "[1, 1000]"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 5, -1.0)), {"lds field \"length\"", "whole number"}));
  Row extra = row;
  extra.push_back({21, 1.0});
  EXPECT_NE(row_error(extra), "");
}

TEST(Lds, RejectsMalformedJson) {
  const std::string json = R"({"family":"lds","mean0":[1.0,-2.0],"cov0":[[1.0,0.5],[0.5,2.0]],"A":[[0.5,0.1],[0.0,0.8]],)"
                           R"("Q":[[0.1,0.0],[0.0,0.2]],"C":[[1.0,2.0]],"R":[[0.5]],"length":7})";
  EXPECT_EQ(json_error(json), "");
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("A":[[0.5,0.1],[0.0,0.8]])", R"("A":[[0.5,0.1,1.0],[0.0,0.8,1.0]])")),
                       {"lds field \"A\"", "2 x 2", "2 x 3"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("Q":[[0.1,0.0],[0.0,0.2]])", R"("Q":[[0.1,0.05],[0.0,0.2]])")),
                       {"lds field \"Q\"[0][1]", "symmetric"}));
  EXPECT_TRUE(
      mentions(json_error(replaced(json, R"("R":[[0.5]])", R"("R":[[0.0]])")), {"lds field \"R\"", "positive definite"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("C":[[1.0,2.0]])", R"("C":[[1.0]])")),
                       {"lds field \"C\"", "1 x 2", "1 x 1"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("R":[[0.5]])", R"("R":[[0.5],[1.0,2.0]])")),
                       {"lds field \"R\"", "rows of one length"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("cov0":[[1.0,0.5],[0.5,2.0]])", R"("cov0":[[1.0,2.0],[2.0,1.0]])")),
                       {"lds field \"cov0\"", "positive semidefinite"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("length":7)", R"("length":1.5)")), {"lds field \"length\""}));
}

}  // namespace
}  // namespace ppk
