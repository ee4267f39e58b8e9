// Switching linear dynamical systems (slds.hpp): one discrete state against the LDS family's kernel;
// the time-varying linear-time recursion and the library's dense joint against joint Gaussians built
// here from the explicit linear map from (s_0, w_1..w_T, v_0..v_T) to X; the hybrid-sampling kernel
// against the mean over all S x S' pairs of drawn paths of the Gaussian family's kernel between those
// joints; deterministic path draws (same row, any order of rows, any thread) and their distribution
// against the chain (chi-square); PSD Gram matrices; round trips and rejected models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/Dense>

#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "lds_sampling.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/slds.hpp"

namespace ppk {
namespace {

using namespace checks;  // the messages of malformed rows and JSON

std::unique_ptr<SldsModel> prepared(const SldsParameters& p, double rho, long steps) {
  auto model = std::make_unique<SldsModel>(p);
  model->prepare(with_rho_and_length(rho, static_cast<int>(steps)));
  return model;
}

// The joint Gaussian of X given the discrete path q, from the linear map: with e = (s_0, w_1..w_T),
// s_t = sum_{u <= t} Phi(t, u) e_u, Phi(t, u) = A_{q_t} .. A_{q_{u+1}} (Phi(t, t) = I), so
// s = L e, cov s = L blockdiag(cov0, Q_{q_1}, .., Q_{q_T}) L', E s = L (mean0, 0, .., 0), and
// X = blockdiag(C, .., C) s + v, cov v = blockdiag(R, .., R).
std::unique_ptr<GaussianModel> path_joint(const SldsParameters& p, const std::vector<int>& path) {
  const long n = p.mean0.size(), d = p.observation.rows(), count = static_cast<long>(path.size());
  Eigen::MatrixXd map = Eigen::MatrixXd::Zero(count * n, count * n);  // L
  for (long u = 0; u < count; ++u) {
    Eigen::MatrixXd phi = Eigen::MatrixXd::Identity(n, n);
    for (long t = u; t < count; ++t) {
      if (t > u) phi = p.state_transitions[static_cast<std::size_t>(path[static_cast<std::size_t>(t)])] * phi;
      map.block(t * n, u * n, n, n) = phi;
    }
  }
  Eigen::MatrixXd innovations = Eigen::MatrixXd::Zero(count * n, count * n);
  Eigen::VectorXd innovation_mean = Eigen::VectorXd::Zero(count * n);
  innovations.topLeftCorner(n, n) = p.cov0;
  innovation_mean.head(n) = p.mean0;
  for (long t = 1; t < count; ++t)
    innovations.block(t * n, t * n, n, n) = p.state_noises[static_cast<std::size_t>(path[static_cast<std::size_t>(t)])];
  Eigen::MatrixXd observe = Eigen::MatrixXd::Zero(count * d, count * n);
  Eigen::MatrixXd noise = Eigen::MatrixXd::Zero(count * d, count * d);
  for (long t = 0; t < count; ++t) {
    observe.block(t * d, t * n, d, n) = p.observation;
    noise.block(t * d, t * d, d, d) = p.observation_noise;
  }
  const Eigen::MatrixXd to_x = observe * map;
  Eigen::MatrixXd cov = to_x * innovations * to_x.transpose() + noise;
  cov = 0.5 * (cov + cov.transpose()).eval();
  return GaussianModel::full(to_x * innovation_mean, cov);
}

// log k_rho between two joint Gaussians by the Gaussian family's kernel.
double gaussian_log_kernel(std::unique_ptr<GaussianModel> a, std::unique_ptr<GaussianModel> b, double rho) {
  a->prepare(with_rho(rho));
  b->prepare(with_rho(rho));
  return a->log_kernel(*b);
}

// The hybrid-sampling kernel written out: the mean over all S x S' pairs of drawn paths of the
// Gaussian kernel between the joints built by path_joint, in log space.
double explicit_pair_mean(const SldsParameters& pa, const SldsModel& a, const SldsParameters& pb, const SldsModel& b,
                          double rho) {
  std::vector<double> terms;
  for (const auto& path_a : a.drawn_paths())
    for (const auto& path_b : b.drawn_paths())
      terms.push_back(gaussian_log_kernel(path_joint(pa, path_a), path_joint(pb, path_b), rho));
  const double largest = *std::max_element(terms.begin(), terms.end());
  double sum = 0.0;
  for (double term : terms) sum += std::exp(term - largest);
  return largest + std::log(sum / static_cast<double>(terms.size()));
}

TEST(Slds, OneDiscreteStateEqualsTheLdsKernel) {
  std::mt19937 rng(31);
  for (long n_a = 1; n_a <= 3; ++n_a)
    for (long n_b = 1; n_b <= 2; ++n_b)
      for (long paths : {1, 4, 10}) {
        const SldsParameters pa = random_slds(rng, 1, n_a, 2, 5, paths), pb = random_slds(rng, 1, n_b, 2, 5, 11 - paths);
        for (long steps : {0, 5, 30})
          for (double rho : {0.5, 1.0, 2.0}) {
            LdsModel lds_a(pa.mean0, pa.cov0, pa.state_transitions[0], pa.state_noises[0], pa.observation,
                           pa.observation_noise, pa.length);
            LdsModel lds_b(pb.mean0, pb.cov0, pb.state_transitions[0], pb.state_noises[0], pb.observation,
                           pb.observation_noise, pb.length);
            const KernelParams params = with_rho_and_length(rho, static_cast<int>(steps));
            lds_a.prepare(params);
            lds_b.prepare(params);
            const double expected = lds_a.log_kernel(lds_b);
            const auto a = prepared(pa, rho, steps), b = prepared(pb, rho, steps);
            EXPECT_NEAR(a->log_kernel(*b), expected, 1e-12 * std::fabs(expected))
                << "n = " << n_a << ", " << n_b << ", S = " << paths << ", T = " << steps << ", rho = " << rho;
          }
      }
}

// S = 1: the kernel is k_rho between two non-stationary LDSs (the paths drawn by each model).
TEST(Slds, TimeVaryingRecursionEqualsTheDenseJoints) {
  std::mt19937 rng(32);
  for (long n_a = 1; n_a <= 3; ++n_a)
    for (long n_b : {1L, 3L}) {
      const SldsParameters pa = random_slds(rng, 3, n_a, 2, 0, 1), pb = random_slds(rng, 2, n_b, 2, 0, 1);
      for (long steps : {0, 1, 5, 50})
        for (double rho : {0.5, 1.0, 2.0}) {
          SldsParameters pa_t = pa, pb_t = pb;
          pa_t.length = pb_t.length = steps;  // T = 0 is asked for by -d 0 with both stored lengths 0
          const auto a = prepared(pa_t, rho, steps), b = prepared(pb_t, rho, steps);
          ASSERT_EQ(a->drawn_paths().size(), 1u);
          const std::vector<int>& path_a = a->drawn_paths()[0];
          const std::vector<int>& path_b = b->drawn_paths()[0];
          ASSERT_EQ(path_a.size(), static_cast<std::size_t>(steps + 1));
          const double dense = gaussian_log_kernel(path_joint(pa_t, path_a), path_joint(pb_t, path_b), rho);
          EXPECT_NEAR(a->log_kernel(*b), dense, 1e-9 * std::max(1.0, std::fabs(dense)))
              << "n = " << n_a << ", " << n_b << ", T = " << steps << ", rho = " << rho;
          // The library's recursive dense joint (the generalised LDS oracle) against the linear map.
          const auto joint = a->joint_observations(0), mapped = path_joint(pa_t, path_a);
          EXPECT_LT((joint->mean() - mapped->mean()).cwiseAbs().maxCoeff(),
                    1e-9 * (1.0 + mapped->mean().cwiseAbs().maxCoeff()));
          EXPECT_LT((joint->covariance() - mapped->covariance()).cwiseAbs().maxCoeff(),
                    1e-9 * mapped->covariance().cwiseAbs().maxCoeff());
        }
      // The paths switch: T = 50 with 3 and 2 states visits more than one regime.
      const auto a = prepared(pa, 1.0, 50), b = prepared(pb, 1.0, 50);
      for (const auto* path : {&a->drawn_paths()[0], &b->drawn_paths()[0]})
        EXPECT_NE(std::count(path->begin() + 1, path->end(), (*path)[1]), 50);
    }
}

TEST(Slds, KernelIsTheMeanOverAllPairsOfDrawnPaths) {
  std::mt19937 rng(33);
  for (long paths_a : {1, 3, 5})
    for (long paths_b : {2, 4}) {
      const SldsParameters pa = random_slds(rng, 2, 2, 1, 6, paths_a), pb = random_slds(rng, 3, 1, 1, 6, paths_b);
      // The paper's hybrid kernel at any rho (issue 22): rho = 1 is the expected-likelihood kernel
      // between the equal-weight mixtures of path-conditioned LDSs, other rho the mean of their k_rho.
      for (double rho : {0.25, 0.5, 1.0, 2.0}) {
        const auto a = prepared(pa, rho, 0), b = prepared(pb, rho, 0);
        ASSERT_EQ(a->drawn_paths().size(), static_cast<std::size_t>(paths_a));
        const double expected = explicit_pair_mean(pa, *a, pb, *b, rho);
        EXPECT_NEAR(a->log_kernel(*b), expected, 1e-10 * std::max(1.0, std::fabs(expected)))
            << "S = " << paths_a << ", " << paths_b << ", rho = " << rho;
        EXPECT_NEAR(b->log_kernel(*a), expected, 1e-10 * std::max(1.0, std::fabs(expected)));
      }
    }
}

// Sticky chains repeat paths: repeated paths are counted, not dropped.
TEST(Slds, RepeatedPathsKeepTheirWeight) {
  std::mt19937 rng(34);
  SldsParameters pa = random_slds(rng, 2, 2, 1, 3, 8), pb = random_slds(rng, 2, 1, 1, 3, 5);
  pa.start << 0.9, 0.1;
  pa.transitions << 0.95, 0.05, 0.3, 0.7;
  const auto a = prepared(pa, 1.0, 0), b = prepared(pb, 1.0, 0);
  std::map<std::vector<int>, int> counts;
  for (const auto& path : a->drawn_paths()) ++counts[path];
  ASSERT_LT(counts.size(), a->drawn_paths().size()) << "no repeated path: the test needs one";
  const double expected = explicit_pair_mean(pa, *a, pb, *b, 1.0);
  EXPECT_NEAR(a->log_kernel(*b), expected, 1e-9 * std::fabs(expected));
}

TEST(Slds, PathsDependOnTheRowOnly) {
  std::mt19937 rng(35);
  const SldsParameters p = random_slds(rng, 3, 2, 1, 20, 6);
  const auto model = prepared(p, 1.0, 0);
  // The same row decoded again, the model read back from JSON, a different rho: the same paths.
  const auto decoded = decode_row(encode_row(*model));
  decoded->prepare(with_rho(0.5));
  EXPECT_EQ(static_cast<const SldsModel&>(*decoded).drawn_paths(), model->drawn_paths());
  const auto reparsed = model_from_json(model_to_json(*model));
  reparsed->prepare(with_rho(2.0));
  EXPECT_EQ(static_cast<const SldsModel&>(*reparsed).drawn_paths(), model->drawn_paths());
  // Paths are not all alike, and another row draws other paths.
  EXPECT_NE(model->drawn_paths()[0], model->drawn_paths()[1]);
  SldsParameters other = p;
  other.mean0[0] += 1e-9;
  const auto moved = prepared(other, 1.0, 0);
  EXPECT_NE(moved->path_seed(), model->path_seed());
  EXPECT_NE(moved->drawn_paths(), model->drawn_paths());
}

// The Gram matrix of 6 models computed in another order of the models and from 3 threads at once
// (each thread its own entries) is the same bit for bit.
TEST(Slds, GramIsTheSameInAnyOrderAndOnAnyThread) {
  std::mt19937 rng(36);
  std::vector<SldsParameters> parameters;
  for (long i = 0; i < 6; ++i) parameters.push_back(random_slds(rng, 1 + i % 3, 1 + i % 2, 2, 8, 3));
  const auto gram_of = [&](const std::vector<std::size_t>& order, unsigned threads) {
    std::vector<std::unique_ptr<SldsModel>> models(parameters.size());
    for (std::size_t i : order) models[i] = prepared(parameters[i], 0.5, 0);
    Eigen::MatrixXd gram(6, 6);
    std::vector<std::thread> workers;
    for (unsigned w = 0; w < threads; ++w)
      workers.emplace_back([&, w] {
        for (std::size_t e = w; e < 36; e += threads) gram(e / 6, e % 6) = models[e / 6]->log_kernel(*models[e % 6]);
      });
    for (auto& worker : workers) worker.join();
    return gram;
  };
  const Eigen::MatrixXd forward = gram_of({0, 1, 2, 3, 4, 5}, 1);
  EXPECT_TRUE(forward.allFinite());
  const Eigen::MatrixXd reversed = gram_of({5, 4, 3, 2, 1, 0}, 3);
  EXPECT_EQ(forward, reversed);
  EXPECT_LT((forward - forward.transpose()).cwiseAbs().maxCoeff(), 1e-12 * forward.cwiseAbs().maxCoeff());
}

// 2000 paths of one 3-state chain: the counts of (q_0, q_1) against pi_i trans_ij (9 cells) and of
// q_3 against (pi' trans^3)_k (3 cells) by chi-square at p = 0.001 (critical values 26.12 for 8 and
// 13.82 for 2 degrees of freedom).
TEST(Slds, PathsAreDistributedLikeTheChain) {
  std::mt19937 rng(37);
  SldsParameters p = random_slds(rng, 3, 1, 1, 3, 1000);
  p.start << 0.5, 0.3, 0.2;
  p.transitions << 0.1, 0.6, 0.3, 0.7, 0.2, 0.1, 0.25, 0.25, 0.5;
  Eigen::MatrixXd pair_counts = Eigen::MatrixXd::Zero(3, 3);
  Eigen::VectorXd last_counts = Eigen::VectorXd::Zero(3);
  double draws = 0.0;
  for (int copy = 0; copy < 2; ++copy) {
    p.mean0[0] = copy;  // two rows, two independent sets of paths
    const auto model = prepared(p, 1.0, 0);
    for (const auto& path : model->drawn_paths()) {
      pair_counts(path[0], path[1]) += 1.0;
      last_counts[path[3]] += 1.0;
      draws += 1.0;
    }
  }
  const Eigen::MatrixXd pair_expected = draws * (p.start.asDiagonal() * p.transitions);
  const double pair_chi_square = ((pair_counts - pair_expected).array().square() / pair_expected.array()).sum();
  EXPECT_LT(pair_chi_square, 26.12) << pair_counts;
  const Eigen::VectorXd last_expected =
      draws * (p.start.transpose() * p.transitions * p.transitions * p.transitions).transpose();
  const double last_chi_square = ((last_counts - last_expected).array().square() / last_expected.array()).sum();
  EXPECT_LT(last_chi_square, 13.82) << last_counts.transpose();
}

TEST(Slds, GramMatricesArePositiveSemidefinite) {
  std::mt19937 rng(38);
  for (long paths : {1, 3, 10})
    for (double rho : {0.25, 0.5, 1.0, 2.0}) {
      std::vector<PreparedModel> models;
      for (long i = 0; i < 8; ++i)
        models.emplace_back(std::make_unique<SldsModel>(random_slds(rng, 1 + i % 3, 1 + i % 2, 2, 10, paths)),
                            with_rho(rho));
      expect_positive_semidefinite(models, "slds S = " + std::to_string(paths) + ", rho = " + std::to_string(rho));
    }
}

// -d T overrides the stored length; other T or d, and LDS rows, have no kernel with them.
TEST(Slds, LengthAndSampleSpace) {
  std::mt19937 rng(39);
  auto model = std::make_unique<SldsModel>(random_slds(rng, 2, 2, 1, 4, 2));
  EXPECT_EQ(model->sample_space().describe(), "switching linear-Gaussian sequences of 5 real vectors of dimension 1");
  model->prepare(with_rho_and_length(1.0, 9));
  EXPECT_EQ(model->steps(), 9);
  EXPECT_EQ(model->drawn_paths()[0].size(), 10u);
  const SldsModel other_length(random_slds(rng, 2, 2, 1, 5, 2));
  model->prepare(with_rho(1.0));
  EXPECT_THROW(check_compatible(*model, other_length), KernelDomainError);
  const SldsModel other_dim(random_slds(rng, 2, 2, 2, 4, 2));
  EXPECT_THROW(check_compatible(*model, other_dim), KernelDomainError);
  const SldsParameters p = random_slds(rng, 1, 1, 1, 4, 1);
  const LdsModel lds(p.mean0, p.cov0, p.state_transitions[0], p.state_noises[0], p.observation, p.observation_noise, 4);
  EXPECT_THROW(check_compatible(*model, lds), KernelDomainError);
  EXPECT_THROW(model->prepare(with_rho(0.0)), KernelDomainError);
}

TEST(Slds, LongSequencesHaveFiniteNormalizedKernels) {
  std::mt19937 rng(40);
  const KernelParams params = with_rho_and_length(1.0, 1000);
  const PreparedModel a(std::make_unique<SldsModel>(random_slds(rng, 2, 2, 2, 5, 3)), params);
  const PreparedModel b(std::make_unique<SldsModel>(random_slds(rng, 3, 1, 2, 5, 2)), params);
  const double normalized = normalized_kernel(a, b);
  EXPECT_TRUE(std::isfinite(normalized));
  EXPECT_GT(normalized, 0.0);
  EXPECT_LT(normalized, 1.0);
  EXPECT_LT(log_kernel(a, b), -1000.0);  // k itself underflows: only its log is usable
}

// One kernel runs a filter of T + 1 steps per pair of distinct paths; prepare() refuses a row whose own pairs
// exceed kMaxSldsKernelSteps (S S' <= max(S, S')^2 bounds every pair), before running any filter.
TEST(Slds, KernelStepsPerEvaluationAreBounded) {
  std::mt19937 rng(42);
  const SldsParameters p = random_slds(rng, 2, 1, 1, 5, 10);
  SldsModel model(p);
  model.prepare(with_rho_and_length(1.0, 9999));  // 10^2 pairs x 10^4 steps = 10^6: within
  std::vector<std::vector<int>> paths = model.drawn_paths();
  std::sort(paths.begin(), paths.end());
  ASSERT_EQ(std::unique(paths.begin(), paths.end()) - paths.begin(), 10);  // 10^4 steps of 2 regimes: all distinct
  std::string error;
  try {
    model.prepare(with_rho_and_length(1.0, 10000));
  } catch (const KernelDomainError& e) {
    error = e.what();
  }
  EXPECT_TRUE(mentions(error, {"slds kernel: 10 distinct paths", "\"paths\", 10", "(10001,",
                               "= 1000100 Kalman-filter steps per kernel evaluation, more than 1000001", "Limits"}));
  // Repeated paths count once: one regime gives 1000 copies of one path, a single filter per pair.
  SldsParameters one_regime = random_slds(rng, 1, 1, 1, 10000, 1000);
  SldsModel repeated(one_regime);
  EXPECT_NO_THROW(repeated.prepare(with_rho(1.0)));
}

// Each distinct-path pair's filter costs (2n + d)^3 per step as each row's share: prepare() also refuses
// (distinct paths)^2 (T + 1)(2n + d)^3 > kMaxKernelWork = 10^12 where the steps alone are within their bound.
TEST(Slds, KernelWorkPerEvaluationIsBounded) {
  std::mt19937 rng(43);
  SldsModel model(random_slds(rng, 1, 100, 100, 100000, 1));  // 1 path, 10^5 + 1 steps of 300^3
  EXPECT_TRUE(
      mentions(checks::prepare_error(model, with_rho(1.0)),
               {"slds kernel: 1 distinct paths squared x T + 1 (100001) x (2n + d)^3 (n = 100, d = 100) = "
                "2.700027e+12",
                "multiply-adds per kernel evaluation, more than the 1e+12", "give fewer paths or a smaller -d T"}));
  EXPECT_EQ(checks::prepare_error(model, with_rho_and_length(1.0, 2)), "");
}

// A pair's filter builds the stacked dynamics of the regime pairs its paths meet, step by step, not all
// K K' of them (10^6 stacked pairs of 70 x 70 matrices, 78 GB, for K = K' = 1000 and n = 40, 30). With all
// the start probability on regime 0 and identity transitions every path stays in regime 0, so the kernel
// is the LDS kernel of (A_0, Q_0) whatever the other 999 regimes are.
TEST(Slds, ManyRegimesCostOnlyThePairsTheirPathsMeet) {
  std::mt19937 rng(44);
  const long regimes = 1000;
  const auto one_regime_of_many = [&](long n) {
    SldsParameters p = random_slds(rng, 1, n, 2, 6, 3);
    p.start = Eigen::VectorXd::Unit(regimes, 0);
    p.transitions = Eigen::MatrixXd::Identity(regimes, regimes);
    p.state_transitions.resize(regimes, Eigen::MatrixXd::Zero(n, n));
    p.state_noises.resize(regimes, Eigen::MatrixXd::Identity(n, n));
    return p;
  };
  const SldsParameters pa = one_regime_of_many(40), pb = one_regime_of_many(30);
  for (double rho : {0.5, 1.0}) {
    LdsModel lds_a(pa.mean0, pa.cov0, pa.state_transitions[0], pa.state_noises[0], pa.observation, pa.observation_noise,
                   pa.length);
    LdsModel lds_b(pb.mean0, pb.cov0, pb.state_transitions[0], pb.state_noises[0], pb.observation, pb.observation_noise,
                   pb.length);
    lds_a.prepare(with_rho(rho));
    lds_b.prepare(with_rho(rho));
    const double expected = lds_a.log_kernel(lds_b);
    const auto a = prepared(pa, rho, 0), b = prepared(pb, rho, 0);
    EXPECT_NEAR(a->log_kernel(*b), expected, 1e-12 * std::fabs(expected)) << "rho = " << rho;
  }
}

const char* const kJson =
    R"({"family":"slds","start":[0.6,0.4],"trans":[[0.9,0.1],[0.2,0.8]],)"
    R"("A":[[[0.5,0.1],[0.0,0.8]],[[-0.5,0.0],[0.3,0.2]]],"Q":[[[0.1,0.0],[0.0,0.2]],[[0.3,0.1],[0.1,0.4]]],)"
    R"("mean0":[1.0,-2.0],"cov0":[[1.0,0.5],[0.5,2.0]],"C":[[1.0,2.0]],"R":[[0.5]],"length":7,"paths":3})";

TEST(Slds, RowAndJsonRoundTrips) {
  std::mt19937 rng(41);
  for (long states = 1; states <= 3; ++states)
    checks::expect_round_trips(SldsModel(random_slds(rng, states, 2, 2, 6, 4)));
  const auto parsed = model_from_json(nlohmann::json::parse(kJson));
  // 3 K, 4 n, 5 d, 6 T, 7 S, 8..9 start, 10..13 trans, 14..21 A, 22..27 Q, 28..29 mean0, 30..32 cov0,
  // 33..34 C, 35 R.
  EXPECT_EQ(format_entries(encode_row(*parsed)),
            "1:1 2:13 3:2 4:2 5:1 6:7 7:3 8:0.6 9:0.4 10:0.9 "
            "11:0.1 12:0.2 13:0.8 14:0.5 15:0.1 "
            "17:0.8 18:-0.5 20:0.3 21:0.2 22:0.1 "
            "24:0.2 25:0.3 26:0.1 27:0.4 28:1 29:-2 "
            "30:1 31:0.5 32:2 33:1 34:2 35:0.5");
}

TEST(Slds, RejectsMalformedRows) {
  const Row row = encode_row(*model_from_json(nlohmann::json::parse(kJson)));
  EXPECT_EQ(row_error(row), "");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(mentions(row_error(with_value(row, 8, 0.5)), {"slds field \"start\" (index 8)", "summing to 1", "0.9"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 12, 0.3)), {"slds field \"trans\" (index 12)", "transition row 1", "1.1"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 11, -0.1)), {"slds field \"trans\" (index 11)", "probability in [0, 1]"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 18, nan)), {"slds field \"A\" (index 18)", "finite", "nan"}));
  // Q_1 = [[0.3, 0.1], [0.1, 0.4]] at 25..27: an off-diagonal 5 makes it indefinite.
  EXPECT_TRUE(mentions(row_error(with_value(row, 26, 5.0)),
                       {"slds field \"Q\" (index 25)", "positive semidefinite", "matrix [1]"}));
  EXPECT_TRUE(
      mentions(row_error(with_value(row, 31, 3.0)), {"slds field \"cov0\" (indices 30..32)", "positive semidefinite"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 35, 0.0)), {"slds field \"R\" (index 35)", "positive definite"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 28, nan)), {"slds field \"mean0\" (index 28)", "finite"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 7, 0.0)), {"slds field \"paths\"", "[1, 1000]"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 3, 0.0)), {"slds field \"K\"", "[1, 1000]"}));
  EXPECT_TRUE(mentions(row_error(with_value(row, 6, 1.5)), {"slds field \"length\"", "whole number"}));
  Row extra = row;
  extra.push_back({36, 1.0});
  EXPECT_NE(row_error(extra), "");
}

TEST(Slds, RejectsMalformedJson) {
  const std::string json = kJson;
  EXPECT_EQ(json_error(json), "");
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("start":[0.6,0.4])", R"("start":[0.6,0.5])")),
                       {"slds field \"start\"", "summing to 1", "1.1"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("trans":[[0.9,0.1],[0.2,0.8]])", R"("trans":[[0.9,0.1]])")),
                       {"slds field \"trans\"", "2 x 2", "1 x 2"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"([[-0.5,0.0],[0.3,0.2]])", R"([[-0.5,0.0,1.0],[0.3,0.2,1.0]])")),
                       {"slds field \"A\"[1]", "2 x 2", "2 x 3"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"(,[[0.3,0.1],[0.1,0.4]]])", "]")),
                       {"slds field \"Q\"", "2 matrices (one per discrete state)", "got 1"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"([[0.3,0.1],[0.1,0.4]])", R"([[0.3,0.2],[0.1,0.4]])")),
                       {"slds field \"Q\"[1][0][1]", "symmetric"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"([[0.3,0.1],[0.1,0.4]])", R"([[0.3,1.0],[1.0,0.4]])")),
                       {"slds field \"Q\"[1]", "positive semidefinite"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("R":[[0.5]])", R"("R":[[-1.0]])")),
                       {"slds field \"R\"", "positive definite"}));
  EXPECT_TRUE(
      mentions(json_error(replaced(json, R"("paths":3)", R"("paths":0)")), {"slds field \"paths\"", "[1, 1000]"}));
  EXPECT_TRUE(mentions(json_error(replaced(json, R"("A":[[[0.5,0.1])", R"("A":[[["x",0.1])")),
                       {"slds field \"A\"", "array of matrices"}));
}

}  // namespace
}  // namespace ppk
