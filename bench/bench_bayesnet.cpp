// Bayesian-network kernel evaluations (JMLR 2004 section 4.3; bayesnet_kernel.hpp: the fused networks
// summed by a variable-elimination plan made once per pair of structures). Three cases:
//   * HMMs written as networks (s_0 -> .. -> s_T, s_t -> x_t), M = N states, alphabet 4, T in
//     {10, 60, 100}, next to the same pair as HMM rows (hmm.cpp's matrix recursion): the cost of the
//     general engine on the structure the HMM family specialises (BM_HmmAsNetwork / BM_HmmAsHmm is
//     the ratio docs/performance.md reports);
//   * position chains: x_0 -> x_1 -> .. -> x_{T-1} over 4 symbols, a CPT per position and no hidden
//     node (what `ppk fit bayesnet` fits to aligned sequences, e.g. 60-base splice junctions);
//   * naive-Bayes networks (one hidden class of H states, D observed variables of 4 symbols, half of
//     them discrete nodes and half emission leaves).
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <Eigen/Core>

#include "ppk/families/bayesnet.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/multinomial.hpp"
#include "random_hmm.hpp"

namespace {

std::vector<double> std_vector(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

std::vector<double> random_probabilities(long size, std::mt19937& rng) {
  return std_vector(bench::random_probabilities(size, rng));
}

std::unique_ptr<ppk::Model> multinomial(const std::vector<double>& p) {
  return std::make_unique<ppk::MultinomialModel>(ppk::SparseProbabilities::from_dense(p), ppk::Trials{});
}

// A random HMM over x_0..x_T (bench::random_hmm) as the equivalent network: hidden node 2t is s_t,
// observed node 2t + 1 is x_t with one emission per state of its parent.
std::unique_ptr<ppk::Model> as_network(const bench::RandomHmm& h, long length) {
  std::vector<ppk::BayesNode> nodes;
  for (long t = 0; t <= length; ++t) {
    ppk::BayesNode hidden;
    hidden.states = static_cast<long>(h.start.size());
    if (t == 0) {
      hidden.cpt = std_vector(h.start);
    } else {
      hidden.parents = {2 * (t - 1)};
      for (Eigen::Index p = 0; p < h.transitions.rows(); ++p) {
        const std::vector<double> row = std_vector(h.transitions.row(p).transpose());
        hidden.cpt.insert(hidden.cpt.end(), row.begin(), row.end());
      }
    }
    ppk::BayesNode observed;
    observed.variable = t;
    observed.parents = {2 * t};
    for (Eigen::Index q = 0; q < h.emissions.rows(); ++q)
      observed.emissions.push_back(multinomial(std_vector(h.emissions.row(q).transpose())));
    nodes.push_back(std::move(hidden));
    nodes.push_back(std::move(observed));
  }
  return std::make_unique<ppk::BayesNetModel>(std::move(nodes));
}

template <class Build>
void run_pair(benchmark::State& state, Build build) {
  const long states = state.range(0), length = state.range(1);
  std::mt19937 rng(7);
  const bench::RandomHmm a = bench::random_hmm(states, 4, rng), b = bench::random_hmm(states, 4, rng);
  const ppk::KernelParams params{1.0, 0};
  const ppk::PreparedModel pa(build(a, length), params), pb(build(b, length), params);
  for (auto _ : state) benchmark::DoNotOptimize(ppk::log_kernel(pa, pb));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_HmmAsHmm(benchmark::State& state) { run_pair(state, bench::as_model); }
void BM_HmmAsNetwork(benchmark::State& state) { run_pair(state, as_network); }

void hmm_sizes(benchmark::internal::Benchmark* bench) {
  bench->ArgNames({"M", "T"});
  for (long states : {2, 4, 8, 12})
    for (long length : {10, 60, 100}) bench->Args({states, length});
}

BENCHMARK(BM_HmmAsHmm)->Apply(hmm_sizes);
BENCHMARK(BM_HmmAsNetwork)->Apply(hmm_sizes);

// A chain over T positions of 4 symbols, a random CPT per position (node t is x_t, observed).
std::unique_ptr<ppk::Model> position_chain(long positions, std::mt19937& rng) {
  std::vector<ppk::BayesNode> nodes;
  for (long t = 0; t < positions; ++t) {
    ppk::BayesNode x;
    x.states = 4;
    x.variable = t;
    if (t > 0) x.parents = {t - 1};
    for (long c = 0; c < (t > 0 ? 4 : 1); ++c) {
      const std::vector<double> row = random_probabilities(4, rng);
      x.cpt.insert(x.cpt.end(), row.begin(), row.end());
    }
    nodes.push_back(std::move(x));
  }
  return std::make_unique<ppk::BayesNetModel>(std::move(nodes));
}

void BM_PositionChain(benchmark::State& state) {
  std::mt19937 rng(13);
  const ppk::KernelParams params{0.5, 0};
  const ppk::PreparedModel pa(position_chain(state.range(0), rng), params),
      pb(position_chain(state.range(0), rng), params);
  for (auto _ : state) benchmark::DoNotOptimize(ppk::log_kernel(pa, pb));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_PositionChain)->ArgNames({"T"})->Arg(60)->Arg(200);

// Naive Bayes: class c (node 0, H states), observed x_j (j < D) with parent c; even j discrete nodes,
// odd j emission leaves of one-event multinomials.
std::unique_ptr<ppk::Model> naive_bayes(long classes, long variables, std::mt19937& rng) {
  std::vector<ppk::BayesNode> nodes(1);
  nodes[0].states = classes;
  nodes[0].cpt = random_probabilities(classes, rng);
  for (long j = 0; j < variables; ++j) {
    ppk::BayesNode x;
    x.variable = j;
    x.parents = {0};
    x.states = j % 2 == 0 ? 4 : 0;
    for (long c = 0; c < classes; ++c) {
      const std::vector<double> row = random_probabilities(4, rng);
      if (x.states > 0)
        x.cpt.insert(x.cpt.end(), row.begin(), row.end());
      else
        x.emissions.push_back(multinomial(row));
    }
    nodes.push_back(std::move(x));
  }
  return std::make_unique<ppk::BayesNetModel>(std::move(nodes));
}

void BM_NaiveBayes(benchmark::State& state) {
  const long classes = state.range(0), variables = state.range(1);
  std::mt19937 rng(11);
  const ppk::KernelParams params{1.0, 0};
  const ppk::PreparedModel pa(naive_bayes(classes, variables, rng), params),
      pb(naive_bayes(classes, variables, rng), params);
  for (auto _ : state) benchmark::DoNotOptimize(ppk::log_kernel(pa, pb));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_NaiveBayes)->ArgNames({"H", "D"})->Args({2, 10})->Args({4, 10})->Args({4, 50})->Args({8, 50});

}  // namespace

BENCHMARK_MAIN();
