// The kernel at every T of a grid from one pass (Model::log_kernel_over_lengths, kernel.hpp
// log_kernels_over_lengths and kernel_value): for hmm (discrete and Gaussian emissions, the linear and the
// log-space recursion) and lds (covariance and square-root filters), the values at each T equal those of
// models prepared separately for that T, the existing and independently tested route, to 1e-12 (log k to
// 1e-12 absolute, k to 1e-12 relative), and so do the self-kernels and the ppk and ppk_norm Gram entries
// assembled from them; against oracles that share no code with the recursion too (a brute-force sum over
// pairs of hidden paths, the dense joint Gaussians). slds, fhmm, other families and pairs of two families
// give false; lengths out of order or beyond the prepared T are refused; the kernel work is unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "emission_models.hpp"
#include "kernel_params.hpp"
#include "lds_sampling.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/exponential.hpp"
#include "ppk/families/fhmm.hpp"
#include "ppk/families/gamma.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/families/slds.hpp"

namespace ppk {
namespace {

const std::vector<int> kLengths = {0, 1, 2, 5, 9};
constexpr int kLongest = 9;
constexpr double kRhosHere[] = {0.5, 1.0};

// A sequence model of some family, its stored length T: what a test builds at each T.
using SequenceModel = std::function<std::unique_ptr<Model>(long length)>;

// An HMM in plain numbers; `emission` builds each state's model from its numbers.
struct Hmm {
  std::vector<double> start;
  std::vector<std::vector<double>> trans;
  std::vector<std::vector<double>> emissions;  // discrete: p(symbol); Gaussian: {mean, variance}
};

SequenceModel hmm(const Hmm& h, std::unique_ptr<Model> (*emission)(const std::vector<double>&)) {
  return [h, emission](long length) -> std::unique_ptr<Model> {
    const Eigen::Index m = static_cast<Eigen::Index>(h.start.size());
    Eigen::MatrixXd trans(m, m);
    for (Eigen::Index p = 0; p < m; ++p)
      for (Eigen::Index q = 0; q < m; ++q) trans(p, q) = h.trans[p][q];
    std::vector<std::unique_ptr<Model>> emissions;
    for (const auto& e : h.emissions) emissions.push_back(emission(e));
    return std::make_unique<HmmModel>(Eigen::Map<const Eigen::VectorXd>(h.start.data(), m), trans, std::move(emissions),
                                      length);
  };
}

SequenceModel lds(Lds s) {
  return [s](long length) -> std::unique_ptr<Model> {
    Lds copy = s;
    copy.length = length;
    return lds_model(copy);
  };
}

const Hmm kDiscreteA{{0.6, 0.4}, {{0.7, 0.3}, {0.2, 0.8}}, {{0.5, 0.3, 0.2}, {0.1, 0.1, 0.8}}};
const Hmm kDiscreteB{{0.2, 0.5, 0.3},
                     {{0.5, 0.25, 0.25}, {0.1, 0.8, 0.1}, {0.3, 0.3, 0.4}},
                     {{0.6, 0.2, 0.2}, {0.2, 0.2, 0.6}, {1.0 / 3, 1.0 / 3, 1.0 / 3}}};
const Hmm kGaussianA{{0.5, 0.5}, {{0.9, 0.1}, {0.3, 0.7}}, {{0.0, 1.0}, {1.5, 0.5}}};
const Hmm kGaussianB{{0.3, 0.7}, {{0.6, 0.4}, {0.2, 0.8}}, {{0.5, 2.0}, {-1.0, 0.8}}};
// Emission kernels between these and kGaussianA span thousands of nats (means 60 apart, variances 0.1):
// the log-space recursion (hmm.cpp kLinearRange).
const Hmm kFarGaussian{{0.5, 0.5}, {{0.5, 0.5}, {0.5, 0.5}}, {{60.0, 0.1}, {0.2, 1.0}}};

// An LDS whose covariance-form filter gives up at step 1 (lds_state_space.hpp kMaxInnovationToNoise): the
// unobserved second state component enters the observed first with gain 10^5, so F_1 is about 10^10 R.
Lds covariance_form_gives_up() {
  Lds s;
  s.mean0 = Eigen::Vector2d(0.5, -0.5);
  s.cov0 = Eigen::Matrix2d::Identity();
  s.A = (Eigen::Matrix2d() << 0.0, 1e5, 0.0, 0.5).finished();
  s.Q = Eigen::Matrix2d::Identity();
  s.C = (Eigen::MatrixXd(1, 2) << 1.0, 0.0).finished();
  s.R = Eigen::MatrixXd::Identity(1, 1);
  return s;
}

std::unique_ptr<PreparedModel> prepared(const SequenceModel& build, double rho, int length) {
  return std::make_unique<PreparedModel>(build(length), with_rho_and_length(rho, length));
}

// The logs from one pass of models prepared for the longest T against models prepared separately at each
// T (stored length T, prepared with -d T: at T = 0, "each model's own length" is 0), for the pair and both
// self-kernels, and the Gram entries that kernel_value assembles against evaluate() at each T.
void expect_one_pass_equals_separate_kernels(const SequenceModel& build_a, const SequenceModel& build_b) {
  for (double rho : kRhosHere) {
    SCOPED_TRACE("rho = " + std::to_string(rho));
    const auto a = prepared(build_a, rho, kLongest), b = prepared(build_b, rho, kLongest);
    std::vector<double> pair(kLengths.size()), self_a(kLengths.size()), self_b(kLengths.size());
    ASSERT_TRUE(log_kernels_over_lengths(*a, *b, kLengths, pair.data()));
    ASSERT_TRUE(log_kernels_over_lengths(*a, *a, kLengths, self_a.data()));
    ASSERT_TRUE(log_kernels_over_lengths(*b, *b, kLengths, self_b.data()));
    std::vector<double> reversed(kLengths.size());
    ASSERT_TRUE(log_kernels_over_lengths(*b, *a, kLengths, reversed.data()));
    for (std::size_t k = 0; k < kLengths.size(); ++k) {
      SCOPED_TRACE("T = " + std::to_string(kLengths[k]));
      const auto a_t = prepared(build_a, rho, kLengths[k]), b_t = prepared(build_b, rho, kLengths[k]);
      ASSERT_TRUE(std::isfinite(pair[k]));
      EXPECT_NEAR(pair[k], log_kernel(*a_t, *b_t), 1e-12);
      EXPECT_NEAR(reversed[k], log_kernel(*b_t, *a_t), 1e-12);
      EXPECT_NEAR(self_a[k], a_t->log_self_kernel(), 1e-12);
      EXPECT_NEAR(self_b[k], b_t->log_self_kernel(), 1e-12);
      for (KernelKind kind : {KernelKind::ppk, KernelKind::ppk_norm}) {
        const double expected = evaluate(kind, *a_t, *b_t);
        ASSERT_GT(expected, 0.0);
        EXPECT_NEAR(kernel_value(kind, pair[k], self_a[k], self_b[k]), expected, 1e-12 * expected);
        EXPECT_NEAR(kernel_value(kind, self_a[k], self_a[k], self_a[k]), evaluate(kind, *a_t, *a_t),
                    1e-12 * evaluate(kind, *a_t, *a_t));
      }
    }
    // The values at the prepared T are the kernel at that T.
    EXPECT_NEAR(pair.back(), log_kernel(*a, *b), 1e-12);
  }
}

TEST(KernelOverLengths, HmmWithDiscreteEmissionsEqualsSeparateKernelsAtEachT) {
  expect_one_pass_equals_separate_kernels(hmm(kDiscreteA, one_event_multinomial), hmm(kDiscreteB, one_event_multinomial));
}

TEST(KernelOverLengths, HmmWithGaussianEmissionsEqualsSeparateKernelsAtEachT) {
  expect_one_pass_equals_separate_kernels(hmm(kGaussianA, gaussian_1d), hmm(kGaussianB, gaussian_1d));
}

TEST(KernelOverLengths, HmmInLogSpaceEqualsSeparateKernelsAtEachT) {
  expect_one_pass_equals_separate_kernels(hmm(kGaussianA, gaussian_1d), hmm(kFarGaussian, gaussian_1d));
}

// k~ at T by brute force over every pair of hidden paths (JMLR 2004 section 4.2: given both paths the
// integral over X factorises into prod_t psi(s_t, s'_t)), psi from the discrete emissions written out:
//     k~ = sum_{s, s'} prod_t [(pi_{s_0} pi'_{s'_0}) prod_{t>=1} (A_{s_{t-1} s_t} A'_{s'_{t-1} s'_t})]^rho
//          prod_{t=0..T} sum_x (e_{s_t}(x) e'_{s'_t}(x))^rho.
double brute_force_log_kernel(const Hmm& a, const Hmm& b, double rho, int steps) {
  const std::size_t m = a.start.size(), n = b.start.size(), length = static_cast<std::size_t>(steps) + 1;
  const auto psi = [&](std::size_t q, std::size_t r) {
    double sum = 0.0;
    for (std::size_t x = 0; x < a.emissions[q].size(); ++x) sum += std::pow(a.emissions[q][x] * b.emissions[r][x], rho);
    return sum;
  };
  std::vector<std::size_t> s(length, 0), r(length, 0);
  double total = 0.0;
  const auto next = [length](std::vector<std::size_t>& path, std::size_t base) {
    for (std::size_t t = 0; t < length; ++t) {
      if (++path[t] < base) return true;
      path[t] = 0;
    }
    return false;
  };
  do {
    do {
      double term = std::pow(a.start[s[0]] * b.start[r[0]], rho) * psi(s[0], r[0]);
      for (std::size_t t = 1; t < length; ++t)
        term *= std::pow(a.trans[s[t - 1]][s[t]] * b.trans[r[t - 1]][r[t]], rho) * psi(s[t], r[t]);
      total += term;
    } while (next(r, n));
  } while (next(s, m));
  return std::log(total);
}

TEST(KernelOverLengths, HmmValuesAtEachTEqualBruteForceOverHiddenPaths) {
  const std::vector<int> lengths = {0, 1, 2, 5};
  for (double rho : kRhosHere) {
    const auto a = prepared(hmm(kDiscreteA, one_event_multinomial), rho, 5);
    const auto b = prepared(hmm(kDiscreteB, one_event_multinomial), rho, 5);
    std::vector<double> out(lengths.size());
    ASSERT_TRUE(log_kernels_over_lengths(*a, *b, lengths, out.data()));
    for (std::size_t k = 0; k < lengths.size(); ++k)
      EXPECT_NEAR(out[k], brute_force_log_kernel(kDiscreteA, kDiscreteB, rho, lengths[k]), 1e-12)
          << "rho = " << rho << ", T = " << lengths[k];
  }
}

TEST(KernelOverLengths, LdsEqualsSeparateKernelsAtEachT) {
  std::mt19937 rng(11);
  const Lds a = random_lds(rng, 2, 2, 0), b = random_lds(rng, 3, 2, 0);
  expect_one_pass_equals_separate_kernels(lds(a), lds(b));
}

// T = 0 from the covariance-form filter, T >= 1 from the square-root form, in the one pass as separately.
TEST(KernelOverLengths, LdsWhoseCovarianceFormGivesUpEqualsSeparateKernelsAtEachT) {
  std::mt19937 rng(12);
  Lds other = random_lds(rng, 1, 1, 0);
  expect_one_pass_equals_separate_kernels(lds(covariance_form_gives_up()), lds(other));
}

// The dense joint Gaussians of x_0..x_T (lds.hpp dense_log_kernel, JMLR 2004 eq. 5 on (T + 1)d dimensions)
// share no code with the filters.
TEST(KernelOverLengths, LdsValuesAtEachTEqualTheDenseJointGaussians) {
  std::mt19937 rng(13);
  const Lds a = random_lds(rng, 2, 2, 0), b = random_lds(rng, 3, 2, 0);
  for (double rho : kRhosHere) {
    const auto pa = prepared(lds(a), rho, kLongest), pb = prepared(lds(b), rho, kLongest);
    std::vector<double> out(kLengths.size());
    ASSERT_TRUE(log_kernels_over_lengths(*pa, *pb, kLengths, out.data()));
    for (std::size_t k = 0; k < kLengths.size(); ++k) {
      const auto a_t = lds(a)(kLengths[k]), b_t = lds(b)(kLengths[k]);
      a_t->prepare(with_rho_and_length(rho, kLengths[k]));
      b_t->prepare(with_rho_and_length(rho, kLengths[k]));
      const double dense = dense_log_kernel(static_cast<const LdsModel&>(*a_t), static_cast<const LdsModel&>(*b_t));
      EXPECT_NEAR(out[k], dense, 1e-9 * std::max(1.0, std::fabs(dense))) << "rho = " << rho << ", T = " << kLengths[k];
    }
  }
}

// The SLDS's paths are drawn for the prepared T, fhmm's mean field is optimised over the whole sequence
// (slds.hpp, fhmm.hpp): neither gives every T from one pass, nor a family without time steps, nor a pair of
// two families; nothing is written.
TEST(KernelOverLengths, FamiliesWhoseKernelAtTIsNotAPrefixGiveFalse) {
  std::mt19937 rng(14);
  SldsParameters switching = one_regime(random_lds(rng, 2, 1, kLongest));
  switching.start = Eigen::Vector2d(0.5, 0.5);
  switching.transitions = (Eigen::Matrix2d() << 0.9, 0.1, 0.2, 0.8).finished();
  switching.state_transitions.push_back(-0.5 * Eigen::MatrixXd::Identity(2, 2));
  switching.state_noises.push_back(Eigen::MatrixXd::Identity(2, 2));
  switching.paths = 3;
  FhmmChain chain;
  chain.start = Eigen::Vector2d(0.5, 0.5);
  chain.trans = (Eigen::Matrix2d() << 0.8, 0.2, 0.3, 0.7).finished();
  chain.means = (Eigen::MatrixXd(1, 2) << -1.0, 1.0).finished();
  const KernelParams params = with_rho_and_length(0.5, kLongest);
  const PreparedModel slds(std::make_unique<SldsModel>(switching), params);
  const PreparedModel fhmm(
      std::make_unique<FhmmModel>(std::vector<FhmmChain>{chain}, Eigen::MatrixXd::Identity(1, 1), kLongest), params);
  const PreparedModel gaussian(gaussian_1d({0.0, 1.0}), params);
  const PreparedModel exponential(std::make_unique<ExponentialModel>(std::vector<double>{2.0}), params);
  const PreparedModel gamma(std::make_unique<GammaModel>(std::vector<double>{2.0}, std::vector<double>{0.5}), params);
  const std::vector<std::pair<const PreparedModel*, const PreparedModel*>> pairs = {
      {&slds, &slds}, {&fhmm, &fhmm}, {&gaussian, &gaussian}, {&gamma, &exponential}};
  for (const auto& [a, b] : pairs) {
    std::vector<double> out(kLengths.size(), 42.0);
    EXPECT_FALSE(log_kernels_over_lengths(*a, *b, kLengths, out.data())) << a->family().name;
    EXPECT_EQ(out, std::vector<double>(kLengths.size(), 42.0)) << a->family().name;
  }
}

// An HMM whose emissions are LDSs: each emission kernel depends on T itself and was prepared for the
// largest T, so only that T comes from the pass; a grid of T gives false, and the prepared T alone is
// the HMM kernel.
TEST(KernelOverLengths, HmmsWithSequenceModelEmissionsGiveFalse) {
  std::mt19937 rng(15);
  std::vector<std::unique_ptr<Model>> emissions;
  for (int q = 0; q < 2; ++q) emissions.push_back(lds_model(random_lds(rng, 1, 1, kLongest)));
  const PreparedModel timed(
      std::make_unique<HmmModel>(Eigen::Vector2d(0.4, 0.6), (Eigen::Matrix2d() << 0.7, 0.3, 0.4, 0.6).finished(),
                                 std::move(emissions), kLongest),
      with_rho_and_length(0.5, kLongest));
  std::vector<double> out(kLengths.size(), 42.0);
  EXPECT_FALSE(log_kernels_over_lengths(timed, timed, kLengths, out.data()));
  EXPECT_EQ(out, std::vector<double>(kLengths.size(), 42.0));
  double at_prepared_t = 0;
  ASSERT_TRUE(log_kernels_over_lengths(timed, timed, {kLongest}, &at_prepared_t));
  EXPECT_EQ(at_prepared_t, timed.log_self_kernel());
}

TEST(KernelOverLengths, LengthsOutOfOrderOrBeyondThePreparedTAreRefused) {
  std::mt19937 rng(15);
  const std::vector<std::pair<SequenceModel, SequenceModel>> pairs = {
      {hmm(kDiscreteA, one_event_multinomial), hmm(kDiscreteB, one_event_multinomial)},
      {lds(random_lds(rng, 2, 1, 0)), lds(random_lds(rng, 1, 1, 0))}};
  for (const auto& [build_a, build_b] : pairs) {
    const auto a = prepared(build_a, 0.5, 5), b = prepared(build_b, 0.5, 5);
    double out[3];
    for (const std::vector<int>& lengths : std::vector<std::vector<int>>{{}, {0, 6}, {-1, 2}, {2, 1}, {1, 1, 3}}) {
      EXPECT_THROW(log_kernels_over_lengths(*a, *b, lengths, out), std::invalid_argument) << a->family().name;
      EXPECT_THROW(log_kernels_over_lengths(*a, *a, lengths, out), std::invalid_argument) << a->family().name;
    }
    EXPECT_TRUE(log_kernels_over_lengths(*a, *b, {0, 5}, out));  // the prepared T itself is in range
  }
}

// The work a row claims (kernel_work(), held to kMaxKernelWork at prepare) is that of the kernel at the
// prepared T, written out here from docs/families.md "Limits": hmm (T + 1) M^3 + M (M + W) (W = 0 for
// one-event multinomial emissions), lds (T + 1)(2n + d)^3; a one-pass evaluation does not change it.
TEST(KernelOverLengths, KernelWorkIsThatOfThePreparedT) {
  std::mt19937 rng(16);
  const auto a = prepared(hmm(kDiscreteB, one_event_multinomial), 1.0, kLongest);
  const auto b = prepared(lds(random_lds(rng, 3, 2, 0)), 1.0, kLongest);
  std::vector<double> out(kLengths.size());
  ASSERT_TRUE(log_kernels_over_lengths(*a, *a, kLengths, out.data()));
  ASSERT_TRUE(log_kernels_over_lengths(*b, *b, kLengths, out.data()));
  EXPECT_DOUBLE_EQ(a->model().kernel_work(), (kLongest + 1) * 27.0 + 3.0 * 3.0);
  EXPECT_DOUBLE_EQ(b->model().kernel_work(), (kLongest + 1) * 512.0);
}

}  // namespace
}  // namespace ppk
