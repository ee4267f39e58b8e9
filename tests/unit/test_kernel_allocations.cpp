// The kernel hot loop does not allocate (it runs from several threads inside LIBSVM's solver), nor
// does an iteration of Baum-Welch with discrete emissions (ppk fit hmm runs hundreds per sequence).
//
// This file counts heap allocations by interposing malloc, calloc and realloc in the test
// executable (they forward to glibc's own allocator, so nothing else changes); Eigen and
// operator new both allocate through malloc. Sanitizers bring their own allocator, so under
// AddressSanitizer the interposition is compiled out and the test is skipped.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "ppk/families/bayesnet.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/families/fhmm.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/linear_gaussian.hpp"
#include "ppk/families/markov.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/families/slds.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "kernel_params.hpp"

// The sanitizers replace malloc themselves (gcc says so by __SANITIZE_*__, clang by __has_feature).
#if defined(__has_feature)
#define PPK_SANITIZER_FEATURE \
  (__has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer))
#else
#define PPK_SANITIZER_FEATURE 0
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(__SANITIZE_MEMORY__) || PPK_SANITIZER_FEATURE
#define PPK_COUNT_ALLOCATIONS 0
#else
#define PPK_COUNT_ALLOCATIONS 1
#endif

namespace {
std::atomic<long> g_allocations{0};
thread_local bool t_counting = false;  // constant-initialised: safe to read inside malloc
}  // namespace

#if PPK_COUNT_ALLOCATIONS && defined(__GLIBC__)
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void __libc_free(void* pointer);

void* malloc(std::size_t size) {
  if (t_counting) ++g_allocations;
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  if (t_counting) ++g_allocations;
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) {
  if (t_counting) ++g_allocations;
  return __libc_realloc(pointer, size);
}
void free(void* pointer) { __libc_free(pointer); }
}
#define PPK_ALLOCATIONS_COUNTED 1
#else
#define PPK_ALLOCATIONS_COUNTED 0
#endif

namespace ppk {
namespace {

// Allocations made while evaluating every kernel kind on (a, b) `repeats` times, after one warm-up.
long allocations_while_evaluating(const PreparedModel& a, const PreparedModel& b, int repeats = 20) {
  double sink = evaluate(KernelKind::ppk_norm, a, b) + log_kernel(a, b);  // warm-up (grows scratch space)
  const long before = g_allocations.load();
  t_counting = true;
  for (int i = 0; i < repeats; ++i)
    sink += evaluate(KernelKind::ppk, a, b) + evaluate(KernelKind::ppk_norm, a, b) + log_kernel(a, b);
  t_counting = false;
  EXPECT_TRUE(std::isfinite(sink) || std::isinf(sink));
  return g_allocations.load() - before;
}

// Allocations made by the batch kernels (LIBSVM's evaluate_many) of every model against all of
// `models`, for both kernel kinds, after one warm-up batch.
long allocations_in_batches(const std::vector<std::unique_ptr<PreparedModel>>& models) {
  std::vector<const PreparedModel*> b;
  for (const auto& m : models) b.push_back(m.get());
  std::vector<double> out(b.size());
  evaluate_many(KernelKind::ppk, *b[0], b.data(), b.size(), out.data());  // warm-up
  const long before = g_allocations.load();
  t_counting = true;
  for (const PreparedModel* a : b)
    for (KernelKind kind : {KernelKind::ppk, KernelKind::ppk_norm})
      evaluate_many(kind, *a, b.data(), b.size(), out.data());
  t_counting = false;
  return g_allocations.load() - before;
}

TEST(KernelAllocations, TheCounterSeesAllocations) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  const long before = g_allocations.load();
  t_counting = true;
  Eigen::VectorXd v = Eigen::VectorXd::Random(1000);
  std::vector<int> w(100);
  t_counting = false;
  EXPECT_GE(g_allocations.load() - before, 2) << v.sum() << w.size();
}

TEST(KernelAllocations, IsotropicDiagonalBernoulliAndMultinomialKernelsDoNotAllocate) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  const int dim = 50;
  const Eigen::VectorXd mu = Eigen::VectorXd::Random(dim), nu = Eigen::VectorXd::Random(dim);
  const Eigen::VectorXd var = Eigen::VectorXd::Random(dim).array().abs() + 0.1;
  const PreparedModel iso_a(GaussianModel::isotropic(mu, 0.5), with_rho(0.7));
  const PreparedModel iso_b(GaussianModel::isotropic(nu, 1.5), with_rho(0.7));
  const PreparedModel diag_a(GaussianModel::diagonal(mu, var), with_rho(0.7));
  const PreparedModel diag_b(GaussianModel::diagonal(nu, var.reverse()), with_rho(0.7));
  EXPECT_EQ(allocations_while_evaluating(iso_a, iso_b), 0);
  EXPECT_EQ(allocations_while_evaluating(iso_a, diag_b), 0);
  EXPECT_EQ(allocations_while_evaluating(diag_a, iso_b), 0);
  EXPECT_EQ(allocations_while_evaluating(diag_a, diag_b), 0);

  std::vector<double> g(1000, 0.01), h(1000, 0.02);
  g[5] = 0.5, g[700] = 0.9, h[5] = 0.3, h[6] = 0.2;
  const PreparedModel bern_a(std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(g)), with_rho(0.5));
  const PreparedModel bern_b(std::make_unique<BernoulliModel>(SparseProbabilities::from_dense(h)), with_rho(0.5));
  EXPECT_EQ(allocations_while_evaluating(bern_a, bern_b), 0);

  std::vector<double> a(1000, 0.0005), b(1000, 0.0005);
  a[3] = 0.201, a[400] = 0.3, b[3] = 0.1, b[10] = 0.401;  // each sums to 1
  for (Trials::Kind kind : {Trials::one_event, Trials::fixed, Trials::all}) {
    Trials trials;
    trials.kind = kind;
    trials.count = kind == Trials::fixed ? 30 : 0;
    trials.decay = kind == Trials::all ? 0.9 : 1.0;
    const double rho = kind == Trials::one_event ? 0.8 : 0.5;
    const PreparedModel multi_a(std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(a), trials),
                                with_rho(rho));
    const PreparedModel multi_b(std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(b), trials),
                                with_rho(rho));
    EXPECT_EQ(allocations_while_evaluating(multi_a, multi_b), 0) << "trials kind " << kind;
  }
}

TEST(KernelAllocations, FullCovarianceKernelsReuseTheirScratchSpace) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  for (int dim : {3, 20, 100}) {
    const Eigen::MatrixXd r = Eigen::MatrixXd::Random(dim, dim);
    const Eigen::MatrixXd cov = r * r.transpose() + Eigen::MatrixXd::Identity(dim, dim);
    const PreparedModel full(GaussianModel::full(Eigen::VectorXd::Random(dim), cov), with_rho(1.0));
    const PreparedModel diag(GaussianModel::diagonal(Eigen::VectorXd::Random(dim), cov.diagonal()), with_rho(1.0));
    EXPECT_EQ(allocations_while_evaluating(full, full), 0) << "D = " << dim;
    EXPECT_EQ(allocations_while_evaluating(full, diag), 0) << "D = " << dim;
  }
}

// The batch path (LIBSVM's evaluate_many): the multinomial's dense scatter array is per thread and
// grown once per dimension; the other families' batches use no scratch space.
TEST(KernelAllocations, BatchKernelsDoNotAllocateAfterWarmUp) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  std::vector<std::unique_ptr<PreparedModel>> multinomials, gaussians;
  for (int i = 0; i < 40; ++i) {
    std::vector<double> p(3000, 0.0002);
    p[(7 * i) % 3000] = 0.2, p[(31 * i + 5) % 3000] = 0.2;
    double sum = 0;
    for (double v : p) sum += v;
    for (double& v : p) v /= sum;
    multinomials.push_back(std::make_unique<PreparedModel>(
        std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(p), Trials()), with_rho(0.5)));
    gaussians.push_back(std::make_unique<PreparedModel>(
        GaussianModel::isotropic(Eigen::VectorXd::Constant(10, 0.1 * i), i % 2 ? 0.5 : 0.7), with_rho(1.0)));
  }
  for (const auto* models : {&multinomials, &gaussians})
    EXPECT_EQ(allocations_in_batches(*models), 0) << (models == &multinomials ? "multinomial" : "gaussian");
}

// A linear Gaussian DAG's kernel is the full-covariance Gaussian kernel on its observed marginal,
// computed once when the row is decoded; a pair (with a DAG or with a Gaussian) allocates nothing.
TEST(KernelAllocations, LinearGaussianDagKernelsDoNotAllocate) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  const auto dag = [](double weight) {
    std::vector<LinearGaussianNode> nodes(2);
    nodes[0].dim = 3;
    nodes[0].offset = Eigen::VectorXd::Constant(3, weight);
    nodes[0].cov = Eigen::MatrixXd::Identity(3, 3);
    nodes[1].dim = 2;
    nodes[1].observed = true;
    nodes[1].parents = {0};
    nodes[1].weights = Eigen::MatrixXd::Constant(2, 3, weight);
    nodes[1].offset = Eigen::VectorXd::Zero(2);
    nodes[1].cov = Eigen::MatrixXd::Identity(2, 2);
    return std::make_unique<LinearGaussianModel>(std::move(nodes));
  };
  const PreparedModel a(dag(0.5), with_rho(0.7)), b(dag(-0.25), with_rho(0.7));
  const PreparedModel gaussian(GaussianModel::isotropic(Eigen::VectorXd::Ones(2), 0.5), with_rho(0.7));
  EXPECT_EQ(allocations_while_evaluating(a, b), 0);
  EXPECT_EQ(allocations_while_evaluating(a, gaussian), 0);
  EXPECT_EQ(allocations_while_evaluating(gaussian, b), 0);
}

// The factorial HMM's mean field keeps its marginals and messages in per-thread storage that only
// grows: after the largest pair a thread has seen, no evaluation allocates, whatever the pair's
// chains, dimension or T (pairs of other shapes, smaller, reuse the same storage).
TEST(KernelAllocations, FactorialHmmKernelsReuseTheirScratchSpace) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  const auto fhmm = [](const std::vector<long>& states, long d, double shift) {
    std::vector<FhmmChain> chains;
    for (long m : states) {
      FhmmChain chain;
      chain.start = Eigen::VectorXd::Constant(m, 1.0 / static_cast<double>(m));
      chain.trans = Eigen::MatrixXd::Constant(m, m, 0.2 / static_cast<double>(m)) + 0.8 * Eigen::MatrixXd::Identity(m, m);
      chain.means = Eigen::MatrixXd::Random(d, m) + Eigen::MatrixXd::Constant(d, m, shift);
      chains.push_back(std::move(chain));
    }
    return std::make_unique<FhmmModel>(std::move(chains), Eigen::MatrixXd::Identity(d, d), 30);
  };
  const PreparedModel large_a(fhmm({3, 4, 2}, 3, 0.0), with_rho(0.7)), large_b(fhmm({2, 2}, 3, 0.5), with_rho(0.7));
  const PreparedModel small_a(fhmm({2}, 2, 0.0), with_rho(0.7)), small_b(fhmm({3, 2}, 2, 1.0), with_rho(0.7));
  EXPECT_EQ(allocations_while_evaluating(large_a, large_b), 0);
  EXPECT_EQ(allocations_while_evaluating(small_a, small_b, 5), 0);  // after the larger pair
  EXPECT_EQ(allocations_while_evaluating(large_a, large_a, 5), 0);
}

// A Markov chain's forward recursion keeps alpha and the step's products in per-thread vectors that only
// grow: after the largest pair, chains of lower orders, aligned or not, evaluate without allocating.
TEST(KernelAllocations, MarkovChainKernelsReuseTheirScratchSpace) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  const auto chain = [](long order, long positions, double n) {
    MarkovParameters p;
    p.alphabet = 4;
    p.order = order;
    p.positions = positions;
    p.length = positions > 0 ? positions - 1 : 59;
    p.strength = 1.0;
    p.counts = {{1, n}, {7, 2.0}, {19, 1.0}};  // (S >= 20: 4 + 16 at order 1)
    return std::make_unique<MarkovModel>(std::move(p));
  };
  const PreparedModel large_a(chain(3, 60, 1.0), with_rho(0.7)), large_b(chain(2, 0, 3.0), with_rho(0.7));
  const PreparedModel small_a(chain(1, 0, 2.0), with_rho(0.7)), small_b(chain(0, 60, 1.0), with_rho(0.7));
  EXPECT_EQ(allocations_while_evaluating(large_a, large_b), 0);
  EXPECT_EQ(allocations_while_evaluating(small_a, small_b, 5), 0);
  EXPECT_EQ(allocations_while_evaluating(large_a, small_b, 5), 0);
  // Homogeneous pairs over T = 5000 jump by repeated squaring of the 64 x 64 stationary step.
  const PreparedModel long_a(chain(3, 0, 1.0), with_rho_and_length(0.7, 5000)),
      long_b(chain(2, 0, 2.0), with_rho_and_length(0.7, 5000));
  EXPECT_EQ(allocations_while_evaluating(long_a, long_b, 5), 0);
}

// An SLDS kernel runs one Kalman filter per pair of distinct drawn paths over the stacked model of
// the pair, all in per-thread scratch space.
TEST(KernelAllocations, SwitchingLdsKernelsDoNotAllocateAfterWarmUp) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  const auto slds = [](long n, double decay, long paths) {
    SldsParameters p;
    p.start = Eigen::Vector2d(0.5, 0.5);
    p.transitions = (Eigen::Matrix2d() << 0.9, 0.1, 0.2, 0.8).finished();
    p.state_transitions = {decay * Eigen::MatrixXd::Identity(n, n), -decay * Eigen::MatrixXd::Identity(n, n)};
    p.state_noises = {Eigen::MatrixXd::Identity(n, n), 0.5 * Eigen::MatrixXd::Identity(n, n)};
    p.mean0 = Eigen::VectorXd::Ones(n);
    p.cov0 = Eigen::MatrixXd::Identity(n, n);
    p.observation = Eigen::MatrixXd::Ones(2, n);
    p.observation_noise = Eigen::MatrixXd::Identity(2, 2);
    p.length = 12;
    p.paths = paths;
    return std::make_unique<SldsModel>(std::move(p));
  };
  const PreparedModel a(slds(2, 0.9, 4), with_rho(0.7)), b(slds(3, 0.5, 3), with_rho(0.7));
  EXPECT_EQ(allocations_while_evaluating(a, b), 0);
  EXPECT_EQ(allocations_while_evaluating(b, b), 0);
}

// A network kernel runs its pair of structures' elimination plan (made once, then kept) on the
// prepared CPT powers and the pair's emission kernels, all in per-thread storage: after a warm-up
// no evaluation allocates, for HMM-shaped networks with emission leaves or discrete observations,
// for a chain over positions, and for a network against another of a different structure.
TEST(KernelAllocations, NetworkKernelsDoNotAllocateAfterWarmUp) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  const auto one_event = [](std::vector<double> p) -> std::unique_ptr<Model> {
    return std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(p), Trials());
  };
  // s_0 -> .. -> s_T over 3 states, each x_t an emission leaf (or a discrete node) over 4 symbols.
  const auto hmm_network = [&](long steps, bool discrete, double tilt) {
    std::vector<BayesNode> nodes;
    for (long t = 0; t <= steps; ++t) {
      BayesNode s, x;
      s.states = 3;
      s.cpt =
          t == 0 ? std::vector<double>{0.5, 0.3, 0.2} : std::vector<double>{0.8, 0.1, 0.1, 0.2, 0.7, 0.1, 0.3, 0.3, 0.4};
      if (t > 0) s.parents = {2 * (t - 1)};
      x.variable = t;
      x.parents = {2 * t};
      for (long q = 0; q < 3; ++q) {
        std::vector<double> p{0.1 + tilt * q, 0.2, 0.3, 0.4 - tilt * q};
        if (discrete)
          x.cpt.insert(x.cpt.end(), p.begin(), p.end());
        else
          x.emissions.push_back(one_event(p));
      }
      x.states = discrete ? 4 : 0;
      nodes.push_back(std::move(s));
      nodes.push_back(std::move(x));
    }
    return std::make_unique<BayesNetModel>(std::move(nodes));
  };
  // x_0 -> .. -> x_T over 4 symbols: the observed variables of the HMM-shaped networks.
  const auto chain = [](long positions, double tilt) {
    std::vector<BayesNode> nodes(static_cast<std::size_t>(positions));
    for (long t = 0; t < positions; ++t) {
      BayesNode& x = nodes[static_cast<std::size_t>(t)];
      x.states = 4;
      x.variable = t;
      if (t > 0) x.parents = {t - 1};
      for (long c = 0; c < (t > 0 ? 4 : 1); ++c) x.cpt.insert(x.cpt.end(), {0.1 + tilt, 0.2, 0.3, 0.4 - tilt});
    }
    return std::make_unique<BayesNetModel>(std::move(nodes));
  };
  const PreparedModel a(hmm_network(20, false, 0.05), with_rho(0.7)), b(hmm_network(20, false, 0.02), with_rho(0.7));
  const PreparedModel discrete(hmm_network(20, true, 0.03), with_rho(0.7)), positions(chain(21, 0.05), with_rho(0.7));
  const PreparedModel other_positions(chain(21, -0.05), with_rho(0.7));
  EXPECT_EQ(allocations_while_evaluating(a, b), 0);
  EXPECT_EQ(allocations_while_evaluating(a, discrete), 0);
  EXPECT_EQ(allocations_while_evaluating(positions, other_positions), 0);
  EXPECT_EQ(allocations_while_evaluating(discrete, positions), 0);
}

// Baum-Welch keeps its E-step's storage across iterations and restarts: after a warm-up, fits
// running 5 and 40 iterations allocate alike, per-sequence and pooled, at M = 2, 3 and 6 states
// (the unrolled recursions).
TEST(KernelAllocations, BaumWelchIterationsDoNotAllocate) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  std::mt19937 rng(5);
  std::vector<std::vector<long>> sequences(3);
  for (std::vector<long>& sequence : sequences) {
    long state = 0;  // a sticky 2-state chain over 4 symbols, so that EM is still gaining at 40 steps
    for (int t = 0; t < 300; ++t) {
      if (rng() % 20 == 0) state = 1 - state;
      sequence.push_back(rng() % 3 == 0 ? static_cast<long>(rng() % 4) : 2 * state + static_cast<long>(rng() % 2));
    }
  }
  const auto allocations = [&](long states, long iterations, bool pooled) {
    HmmFitOptions options;
    options.states = states;
    options.iterations = iterations;
    options.tolerance = 0.0;
    options.restarts = 2;
    const long before = g_allocations.load();
    t_counting = true;
    const HmmFit fit =
        pooled ? fit_pooled_discrete_hmm(sequences, 4, options, 1) : fit_discrete_hmm(sequences[0], 4, options);
    t_counting = false;
    EXPECT_EQ(fit.log_likelihoods.size(), static_cast<std::size_t>(iterations) + 1) << "stopped early";
    return g_allocations.load() - before;
  };
  allocations(2, 1, false);  // warm-up: a first fit makes one-time allocations
  allocations(2, 1, true);
  for (long states : {2, 3, 6})
    for (bool pooled : {false, true})
      EXPECT_EQ(allocations(states, 40, pooled), allocations(states, 5, pooled))
          << "M " << states << (pooled ? ", pooled" : "");
}

}  // namespace

// Multinomial rows under a pooled base (--base pooled): the same merge and scatter as the uniform
// base, with the level table's E(2 rho) computed once in prepare().
TEST(KernelAllocations, LeveledMultinomialKernelsDoNotAllocate) {
  if (!PPK_ALLOCATIONS_COUNTED) GTEST_SKIP() << "allocation counting needs glibc and no sanitizer";
  std::vector<double> pooled(500, 0.0);
  for (int d = 0; d < 450; ++d) pooled[d] = 1000.0 / (d + 1);
  const auto base = std::make_shared<const LeveledBase>(quantised_pooled_base(pooled));
  const auto leveled = [&](std::vector<long> words) {
    LeveledProbabilities p;
    p.dim = 500;
    p.levels = base->levels;
    p.share = 0.5;  // a_d = 1/(2 |L|) + m_d / 2 on the listed words, m_d / 2 elsewhere: sum 1
    for (long d : words) {
      p.index.push_back(d);
      p.level.push_back(base->word_level[d]);
      p.value.push_back(0.5 / static_cast<double>(words.size()) + 0.5 * base->levels.value[base->word_level[d]]);
    }
    return std::make_unique<MultinomialModel>(std::move(p), Trials());
  };
  std::vector<std::unique_ptr<PreparedModel>> models;
  for (long i = 0; i < 20; ++i)
    models.push_back(std::make_unique<PreparedModel>(leveled({i, 3 * i + 1, 499 - i}), with_rho(0.7)));
  EXPECT_EQ(allocations_while_evaluating(*models[0], *models[1]), 0);
  EXPECT_EQ(allocations_in_batches(models), 0);
}

}  // namespace ppk
