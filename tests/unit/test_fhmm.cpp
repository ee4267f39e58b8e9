// Factorial HMMs (fhmm.hpp): the structured mean-field bound against the exact k~, computed two
// independent ways: the HMM family's kernel on the equivalent HMM over the product state space, and,
// for tiny models over R, brute-force enumeration of every pair of hidden paths with the 1-D Gaussian
// kernel written out per step. The bound is below k~ for random models, equal to it where the mean
// field is exact, never decreases over the iterations, converges, and is symmetric; row and JSON
// round trips; rejected models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "emission_models.hpp"
#include "fhmm_oracles.hpp"
#include "kernel_params.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/fhmm.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using namespace checks;  // the messages of malformed rows and JSON
using fhmm_oracles::bound_log_kernel;
using fhmm_oracles::exact_log_kernel;
using fhmm_oracles::Fhmm;
using fhmm_oracles::fhmm_model;
using fhmm_oracles::for_each_path;
using fhmm_oracles::path_probability;
using fhmm_oracles::product_hmm;
using fhmm_oracles::product_states;
using fhmm_oracles::random_fhmm;
using fhmm_oracles::random_probabilities;
using fhmm_oracles::state_tuple;

// d = 1: k~ = sum over pairs of paths of (p(path) p'(path'))^rho prod_t k_rho(N(mu_t, v), N(mu'_t, v')).
double brute_force_kernel(const Fhmm& a, const Fhmm& b, double rho) {
  const auto mean = [](const Fhmm& f, long s) {
    double m = 0.0;
    const std::vector<long> tuple = state_tuple(f, s);
    for (std::size_t c = 0; c < f.chains.size(); ++c) m += f.chains[c].means(0, tuple[c]);
    return m;
  };
  double k = 0.0;
  for_each_path(product_states(a), a.length, [&](const std::vector<long>& s) {
    for_each_path(product_states(b), b.length, [&](const std::vector<long>& r) {
      double term = std::pow(path_probability(a, s) * path_probability(b, r), rho);
      for (std::size_t t = 0; t < s.size(); ++t)
        term *= gaussian_1d_kernel({mean(a, s[t]), a.cov(0, 0)}, {mean(b, r[t]), b.cov(0, 0)}, rho);
      k += term;
    });
  });
  return k;
}

TEST(Fhmm, ProductHmmOracleEqualsBruteForceOverPathPairs) {
  std::mt19937 rng(1);
  for (double rho : {0.5, 1.0, 2.0})
    for (long steps : {0, 1, 2}) {
      const Fhmm a = random_fhmm(rng, {2, 2}, 1, steps, 1.0), b = random_fhmm(rng, {3}, 1, steps, 1.0);
      const double exact = brute_force_kernel(a, b, rho);
      EXPECT_NEAR(exact_log_kernel(a, b, rho), std::log(exact), 1e-10) << "rho " << rho << " T " << steps;
      EXPECT_LE(bound_log_kernel(a, b, rho), std::log(exact) + 1e-10) << "rho " << rho << " T " << steps;
    }
}

// The gap log k~ - log B on random pairs (C = 1..3 chains of 2 or 3 states, d = 1 and 2, T = 0..6,
// means N(0, 1) or N(0, 0.3^2) per coordinate): never negative, and within the figures of docs/tests.md.
TEST(Fhmm, BoundIsBelowTheExactKernelWithinTheDocumentedGap) {
  std::mt19937 rng(2);
  const std::vector<std::vector<long>> structures = {{2}, {3}, {2, 2}, {2, 3}, {2, 2, 2}};
  for (double spread : {0.3, 1.0})
    for (double rho : {0.5, 1.0, 2.0}) {
      double largest_gap = 0.0, total_gap = 0.0;
      int pairs = 0;
      for (const auto& sa : structures)
        for (const auto& sb : structures)
          for (long d : {1, 2}) {
            const long steps = static_cast<long>(rng() % 7);
            const Fhmm a = random_fhmm(rng, sa, d, steps, spread), b = random_fhmm(rng, sb, d, steps, spread);
            const double exact = exact_log_kernel(a, b, rho), bound = bound_log_kernel(a, b, rho);
            const double gap = exact - bound;
            EXPECT_GE(gap, -1e-9 * std::max(1.0, std::fabs(exact))) << "rho " << rho << " d " << d << " T " << steps;
            largest_gap = std::max(largest_gap, gap / static_cast<double>(steps + 1));
            total_gap += gap / static_cast<double>(steps + 1);
            ++pairs;
          }
      std::cout << "spread " << spread << " rho " << rho << ": gap per time step mean " << total_gap / pairs
                << ", largest " << largest_gap << "\n";
      EXPECT_LT(largest_gap, spread < 0.5 ? 1.0 : 6.0) << "spread " << spread << " rho " << rho;
    }
}

// With one chain (C = 1) the mean field still separates x from the states, so it is not exact: the
// gap is positive when the states' means differ.
TEST(Fhmm, OneChainIsNotExact) {
  std::mt19937 rng(3);
  for (double rho : {0.5, 1.0, 2.0}) {
    const Fhmm a = random_fhmm(rng, {2}, 1, 3, 1.0), b = random_fhmm(rng, {2}, 1, 3, 1.0);
    const double exact = exact_log_kernel(a, b, rho), bound = bound_log_kernel(a, b, rho);
    std::cout << "C = 1, rho " << rho << ": log k~ " << exact << ", log B " << bound << "\n";
    EXPECT_GT(exact - bound, 1e-3) << "rho " << rho;
  }
}

// Where the emission does not depend on the states (every chain's means equal across its states),
// Y = prior(q) prior'(q') N(X) N'(X) factorises like Q, and the bound is k~ itself:
// (sum_q prior^rho)(sum_q' prior'^rho) prod_t k_rho(N, N').
TEST(Fhmm, BoundIsExactWhenTheMeanFieldFactorisationIsExact) {
  std::mt19937 rng(4);
  for (double rho : {0.5, 1.0, 2.0})
    for (long d : {1, 3}) {
      Fhmm a = random_fhmm(rng, {2, 3}, d, 4, 1.0), b = random_fhmm(rng, {3}, d, 4, 1.0);
      for (Fhmm* f : {&a, &b})
        for (FhmmChain& chain : f->chains) chain.means = chain.means.col(0).replicate(1, chain.means.cols());
      const double exact = exact_log_kernel(a, b, rho);
      EXPECT_NEAR(bound_log_kernel(a, b, rho), exact, 1e-9 * std::max(1.0, std::fabs(exact))) << "rho " << rho;
    }
}

// Zero start and transition probabilities (impossible states and moves) contribute nothing to the
// entropies and expectations: the bound stays finite, below k~, and exact where the factorisation is.
TEST(Fhmm, ZeroProbabilitiesMakeStatesImpossible) {
  std::mt19937 rng(10);
  for (double rho : {0.5, 1.0, 2.0}) {
    Fhmm a = random_fhmm(rng, {2, 3}, 1, 3, 1.0), b = random_fhmm(rng, {2}, 1, 3, 1.0);
    a.chains[0].start << 1.0, 0.0;
    a.chains[0].trans << 0.5, 0.5, 0.0, 1.0;
    a.chains[1].trans.row(2) << 0.0, 0.0, 1.0;
    b.chains[0].start << 0.0, 1.0;
    const double exact = exact_log_kernel(a, b, rho), bound = bound_log_kernel(a, b, rho);
    EXPECT_TRUE(std::isfinite(bound));
    EXPECT_LE(bound, exact + 1e-10 * std::fabs(exact)) << "rho " << rho;
    for (Fhmm* f : {&a, &b})
      for (FhmmChain& chain : f->chains) chain.means = chain.means.col(0).replicate(1, chain.means.cols());
    const double factorised = exact_log_kernel(a, b, rho);
    EXPECT_NEAR(bound_log_kernel(a, b, rho), factorised, 1e-9 * std::max(1.0, std::fabs(factorised))) << "rho " << rho;
  }
}

// A chain that cannot leave state 0 (mean 0) against a model whose mean is 100: the mean field's
// potentials favour state 1 (mean 50) by ~10^5 nats, so exp of every reachable potential underflows
// to 0 in linear space and the kernel takes its log-space forward-backward. The only path is known,
// so the bound is k~ itself: (T + 1) log k_rho(N(0, 0.01), N(100, 0.01)) by the Gaussian family's
// closed form. (The product-HMM oracle cannot be used here: its emission kernels differ by e^-93750,
// beyond a double.)
TEST(Fhmm, UnreachableStatesThatFitBestKeepTheBoundExact) {
  Fhmm a, b;
  FhmmChain stuck;
  stuck.start = Eigen::Vector2d(1.0, 0.0);
  stuck.trans = Eigen::Matrix2d::Identity();
  stuck.means = Eigen::RowVector2d(0.0, 50.0);
  a.chains = {stuck};
  FhmmChain far;
  far.start = Eigen::VectorXd::Ones(1);
  far.trans = Eigen::MatrixXd::Ones(1, 1);
  far.means = Eigen::MatrixXd::Constant(1, 1, 100.0);
  b.chains = {far};
  a.cov = b.cov = Eigen::MatrixXd::Constant(1, 1, 0.01);
  for (long steps : {0, 5, 40}) {
    a.length = b.length = steps;
    for (double rho : {0.5, 1.0, 2.0}) {
      const PreparedModel near(GaussianModel::full(Eigen::VectorXd::Zero(1), a.cov), with_rho(rho)),
          away(GaussianModel::full(Eigen::VectorXd::Constant(1, 100.0), b.cov), with_rho(rho));
      const double exact = static_cast<double>(steps + 1) * log_kernel(near, away), bound = bound_log_kernel(a, b, rho);
      EXPECT_TRUE(std::isfinite(bound)) << "rho " << rho << " T " << steps;
      EXPECT_NEAR(bound, exact, 1e-9 * std::fabs(exact)) << "rho " << rho << " T " << steps;
    }
  }
}

TEST(Fhmm, BoundNeverDecreasesAndConverges) {
  std::mt19937 rng(5);
  for (double rho : {0.5, 1.0, 2.0})
    for (int pair = 0; pair < 6; ++pair) {
      const Fhmm a = random_fhmm(rng, {2, 3, 2}, 2, 20, 2.0), b = random_fhmm(rng, {3, 2}, 2, 20, 2.0);
      auto model_a = fhmm_model(a), model_b = fhmm_model(b);
      model_a->prepare(with_rho(rho));
      model_b->prepare(with_rho(rho));
      const MeanFieldTrace trace = mean_field_trace(*model_a, *model_b);
      EXPECT_TRUE(trace.converged) << "rho " << rho << " pair " << pair;
      ASSERT_GE(trace.log_bounds.size(), 2u);
      for (std::size_t i = 1; i < trace.log_bounds.size(); ++i)
        EXPECT_GE(trace.log_bounds[i], trace.log_bounds[i - 1] - 1e-12 * std::fabs(trace.log_bounds[i]))
            << "rho " << rho << " pair " << pair << " sweep " << i;
      EXPECT_GT(trace.log_bounds.back(), trace.log_bounds.front()) << "the ascent did something";
      EXPECT_EQ(model_a->log_kernel(*model_b), trace.log_bounds.back());
    }
}

TEST(Fhmm, SymmetricInTheTwoModels) {
  std::mt19937 rng(6);
  for (double rho : {0.5, 1.0, 2.0})
    for (int pair = 0; pair < 5; ++pair) {
      const Fhmm a = random_fhmm(rng, {2, 3}, 2, 10, 1.5), b = random_fhmm(rng, {2, 2, 2}, 2, 10, 1.5);
      const double ab = bound_log_kernel(a, b, rho), ba = bound_log_kernel(b, a, rho);
      EXPECT_NEAR(ab, ba, 1e-12 * std::max(1.0, std::fabs(ab))) << "rho " << rho;
    }
}

// The bound B can break Cauchy-Schwarz (B(p, q) > sqrt(B(p, p) B(q, q)) when it falls further below k~
// for the self-kernels than for the pair); the dispatcher holds both kernel types to the bound (kernel.hpp):
// ppk_norm = 1 and ppk = sqrt(B(p, p) B(q, q)) there, the raw log B untouched elsewhere.
TEST(Fhmm, KernelValuesAreHeldToTheCauchySchwarzBound) {
  std::mt19937 rng(9);
  int broken = 0;
  for (int pair = 0; pair < 200; ++pair) {
    const KernelParams params = with_rho(1.0);
    const PreparedModel a(fhmm_model(random_fhmm(rng, {3, 3}, 1, 6, 3.0)), params),
        b(fhmm_model(random_fhmm(rng, {3, 3}, 1, 6, 3.0)), params);
    const double excess = log_kernel(a, b) - 0.5 * (a.log_self_kernel() + b.log_self_kernel());
    const double norm = normalized_kernel(a, b), value = kernel(a, b);
    if (excess > 0.0) {
      ++broken;
      EXPECT_EQ(norm, 1.0) << "pair " << pair;
      EXPECT_EQ(value, a.root_self_kernel() * b.root_self_kernel()) << "pair " << pair;
    } else {
      EXPECT_NEAR(norm, std::exp(excess), 1e-15) << "pair " << pair;
      EXPECT_NEAR(value, std::exp(log_kernel(a, b)), 1e-12 * value) << "pair " << pair;
    }
  }
  EXPECT_GT(broken, 0) << "no pair of these models breaks Cauchy-Schwarz: the test checks nothing";
}

// T = 1000: the bound's log stays finite where k~ underflows a double.
TEST(Fhmm, LongSequencesHaveFiniteLogKernels) {
  std::mt19937 rng(7);
  const KernelParams params = with_rho_and_length(1.0, 1000);
  const PreparedModel a(fhmm_model(random_fhmm(rng, {2, 2}, 2, 5, 1.0)), params),
      b(fhmm_model(random_fhmm(rng, {3}, 2, 5, 1.0)), params);
  EXPECT_TRUE(std::isfinite(log_kernel(a, b)));
  EXPECT_LT(log_kernel(a, b), -1000.0);
  EXPECT_NEAR(normalized_kernel(a, a), 1.0, 1e-12);
  EXPECT_TRUE(std::isfinite(normalized_kernel(a, b)));
}

// -d T overrides the stored length; FHMMs of other T or d, and HMMs with Gaussian emissions, have no
// kernel with them.
TEST(Fhmm, LengthAndSampleSpace) {
  std::mt19937 rng(8);
  auto model = fhmm_model(random_fhmm(rng, {2, 2}, 1, 4, 1.0));
  EXPECT_EQ(model->steps(), 4);
  EXPECT_EQ(model->sample_space().describe(), "factorial-HMM sequences of 5 real vectors of dimension 1");
  model->prepare(with_rho_and_length(1.0, 9));
  EXPECT_EQ(model->steps(), 9);
  EXPECT_EQ(model->length(), 4);
  model->prepare(with_rho(1.0));
  EXPECT_EQ(model->steps(), 4);
  EXPECT_THROW(check_compatible(*model, *fhmm_model(random_fhmm(rng, {2}, 1, 5, 1.0))), KernelDomainError);
  EXPECT_THROW(check_compatible(*model, *fhmm_model(random_fhmm(rng, {2}, 2, 4, 1.0))), KernelDomainError);
  EXPECT_THROW(check_compatible(*model, *product_hmm(random_fhmm(rng, {2}, 1, 4, 1.0))), KernelDomainError);
  EXPECT_THROW(model->prepare(with_rho(0.0)), KernelDomainError);
  try {
    model->prepare(with_rho_and_length(1.0, 1000001));
    ADD_FAILURE() << "-d 1000001 accepted";
  } catch (const KernelDomainError& error) {
    EXPECT_TRUE(mentions(error.what(), {"fhmm kernel: -d 1000001", "T = 1000000"}));
  }
}

// The JSON example of docs/families.md and its row: 3 C, 4 d, 5 T, 6..7 M_1 M_2, chain 0 at 8..9 (start),
// 10..13 (trans), 14..17 (means); chain 1 at 18..19, 20..23, 24..27; 28..30 Sigma.
const char* const kJson =
    R"({"family":"fhmm","chains":[{"start":[0.6,0.4],"trans":[[0.9,0.1],[0.2,0.8]],"means":[[1.0,-1.0],[2.0,0.5]]},)"
    R"({"start":[0.5,0.5],"trans":[[0.7,0.3],[0.25,0.75]],"means":[[0.5,1.0],[-0.5,-1.5]]}],)"
    R"("cov":[[0.5,0.1],[0.1,0.4]],"length":3})";

// A kernel runs at most 1000 sweeps, each per step every chain's forward-backward and potentials
// (M_c^2 + M_c d) and the update of Q(x_t) (d^2): prepare() refuses a row whose 1000 sweeps exceed
// kMaxKernelWork = 10^12. One chain of 1000 states, d = 1: 1001001 per step, so T + 1 <= 999 (the
// mean field's storage, 5007 values per step, is far within its own bound there).
TEST(Fhmm, KernelWorkPerEvaluationIsBounded) {
  std::mt19937 rng(61);
  auto model = fhmm_oracles::fhmm_model(fhmm_oracles::random_fhmm(rng, {1000}, 1, 1000, 1.0));
  EXPECT_TRUE(
      mentions(checks::prepare_error(*model, with_rho(1.0)),
               {"fhmm kernel: 1000 sweeps x T + 1 (1001, the field \"length\" or -d T) x 1001001 per step",
                "= 1002002001000 multiply-adds per kernel evaluation, more than the 1e+12", "give a smaller -d T"}));
  EXPECT_EQ(checks::prepare_error(*model, with_rho_and_length(1.0, 998)), "");
  EXPECT_TRUE(mentions(checks::prepare_error(*model, with_rho_and_length(1.0, 999)), {"T + 1 (1000,"}));
}

TEST(Fhmm, RowAndJsonRoundTrips) {
  std::mt19937 rng(9);
  checks::expect_round_trips(*fhmm_model(random_fhmm(rng, {2, 3, 1}, 2, 6, 1.0)));
  checks::expect_round_trips(*fhmm_model(random_fhmm(rng, {4}, 3, 0, 1.0)));
  const auto parsed = model_from_json(nlohmann::json::parse(kJson));
  EXPECT_EQ(format_entries(encode_row(*parsed)),
            "1:1 2:15 3:2 4:2 5:3 6:2 7:2 8:0.6 9:0.4 10:0.9 "
            "11:0.1 12:0.2 13:0.8 14:1 15:-1 16:2 17:0.5 18:0.5 "
            "19:0.5 20:0.7 21:0.3 22:0.25 23:0.75 24:0.5 25:1 26:-0.5 27:-1.5 "
            "28:0.5 29:0.1 30:0.4");
}

TEST(Fhmm, RejectsMalformedRows) {
  const Row row = encode_row(*model_from_json(nlohmann::json::parse(kJson)));
  EXPECT_EQ(row_error(row), "");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 9, 0.5)), {"fhmm chains[0] field \"start\" (index 8)", "summing to 1", "1.1"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 22, 0.5)),
                       {"fhmm chains[1] field \"trans\" (index 22)", "transition row 1", "1.25"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 21, -0.3)),
                       {"fhmm chains[1] field \"trans\" (index 21)", "probability in [0, 1]", "-0.3"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 25, nan)), {"fhmm field \"means\" (index 25)", "finite"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 30, 0.01)), {"fhmm field \"cov\" (indices 28..30)", "positive definite"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 3, 0.0)), {"fhmm field \"chains\"", "[1, 1000]"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 5, -1.0)), {"fhmm field \"length\"", "whole number"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 6, 0.5)), {"fhmm field \"states\"", "whole number"}));
  Row extra = row;
  extra.push_back({31, 1.0});
  EXPECT_NE(row_error(extra), "");
}

TEST(Fhmm, RejectsMalformedJson) {
  const std::string json = kJson;
  EXPECT_EQ(json_error(json), "");
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("start":[0.6,0.4])", R"("start":[0.6,0.6])")),
                       {"fhmm chains[0] field \"start\"", "summing to 1", "1.2"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"([[0.7,0.3],[0.25,0.75]])", R"([[0.7,0.3],[0.25,0.7]])")),
                       {"fhmm chains[1] field \"trans\"[1]", "transition row 1", "0.95"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"([[0.7,0.3],[0.25,0.75]])", R"([[0.7,0.3,0.0],[0.25,0.75,0.0]])")),
                       {"fhmm chains[1] field \"trans\"", "2 x 2", "2 x 3"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("means":[[1.0,-1.0],[2.0,0.5]])", R"("means":[[1.0],[2.0]])")),
                       {"fhmm chains[0] field \"means\"", "dimension 2", "(the size of \"cov\")"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("means":[[1.0,-1.0],[2.0,0.5]])", R"("means":[[1.0,-1.0]])")),
                       {"fhmm chains[0] field \"means\"", "2 mean vectors", "got 1"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("cov":[[0.5,0.1],[0.1,0.4]])", R"("cov":[[0.5,0.9],[0.9,0.4]])")),
                       {"fhmm field \"cov\"", "positive definite"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("cov":[[0.5,0.1],[0.1,0.4]])", R"("cov":[[0.5,0.1],[0.2,0.4]])")),
                       {"fhmm field \"cov\"[0][1]", "symmetric"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("cov":[[0.5,0.1],[0.1,0.4]])", R"("cov":[[0.5,0.1]])")),
                       {"fhmm field \"cov\"", "square", "1 x 2"}));
  EXPECT_TRUE(mentions(
      json_error(replaced(json, R"("chains":[)", R"("chains":[{"start":[1],"trans":[[1]],"means":[[0,0]],"x":1},)")),
      {"fhmm chains[0] field \"x\"", "not a field"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("length":3)", R"("length":1.5)")), {"fhmm field \"length\""}));
}

}  // namespace
}  // namespace ppk
