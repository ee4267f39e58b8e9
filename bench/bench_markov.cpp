// Markov-chain kernel evaluations per second (markov.hpp: the forward recursion over the last k symbols,
// A^{k+1} multiply-adds per position), next to the hmm family at comparable work and, for the aligned
// chains, the same chains written as Bayesian networks (node t with parents t-k..t-1: bayesnet.cpp's
// variable elimination on the structure the markov family specialises):
//   * aligned DNA, L = 60 positions, orders 1, 2, 3 (16, 64, 256 entries per position), against an HMM
//     of M = 3, 4, 6 states over T = 59 (M^3 = 27, 64, 216 per step, and its M^2 emission kernels);
//   * homogeneous chains over 20 symbols (proteins), order 1, T = 300 (400 entries per step), against
//     an HMM of M = 7 states (343);
//   * homogeneous DNA chains of orders 1-3 over T = 10,000, against an HMM of M = 4 states.
// The chains are what per-sequence fits give: the counts of one random sequence (one per position,
// sparse), strength 1 toward a dense pooled base (a random chain), rho = 1/2.
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <Eigen/Core>

#include "ppk/core/kernel.hpp"
#include "ppk/families/bayesnet.hpp"
#include "ppk/families/markov.hpp"
#include "random_hmm.hpp"

namespace {

// A chain of `order` over `symbols` (positions > 0: aligned, else homogeneous over x_0..x_length): the
// counts of a uniform random sequence, strength 1 toward a random dense base.
ppk::MarkovParameters fitted_chain(long symbols, long order, long positions, long length, std::mt19937& rng) {
  ppk::MarkovParameters p;
  p.alphabet = symbols;
  p.order = order;
  p.positions = positions;
  p.length = positions > 0 ? positions - 1 : length;
  p.strength = 1.0;
  const long size = ppk::markov_table_size(p);
  for (long first = 0; first < size; first += symbols) {
    const Eigen::VectorXd row = bench::random_probabilities(symbols, rng);
    p.base.insert(p.base.end(), row.data(), row.data() + row.size());
  }
  std::vector<long> sequence;
  std::uniform_int_distribution<long> symbol(0, symbols - 1);
  for (long t = 0; t <= p.length; ++t) sequence.push_back(symbol(rng));
  std::vector<double> counts(static_cast<std::size_t>(size), 0.0);
  for (long t = 0; t <= p.length; ++t) counts[ppk::markov_flat_index(p, sequence, t)] += 1.0;
  for (long j = 0; j < size; ++j)
    if (counts[j] > 0.0) p.counts.emplace_back(j, counts[j]);
  return p;
}

// The aligned chain as a network: node t observed (variable t), parents t - d..t - 1 (the oldest first, so
// that the network's configuration number, the last parent fastest, is the chain's context c), its CPT
// the chain's slot t.
std::unique_ptr<ppk::Model> as_network(const ppk::MarkovParameters& p) {
  const std::vector<double> table = ppk::markov_probability_table(p);
  std::vector<ppk::BayesNode> nodes;
  for (long t = 0; t < p.positions; ++t) {
    ppk::BayesNode node;
    node.states = p.alphabet;
    node.variable = t;
    for (long parent = t - ppk::markov_slot_depth(p, t); parent < t; ++parent) node.parents.push_back(parent);
    node.cpt.assign(table.begin() + ppk::markov_slot_offset(p, t), table.begin() + ppk::markov_slot_offset(p, t + 1));
    nodes.push_back(std::move(node));
  }
  return std::make_unique<ppk::BayesNetModel>(std::move(nodes));
}

const ppk::KernelParams kParams{0.5, 0};

void run(benchmark::State& state, const ppk::PreparedModel& a, const ppk::PreparedModel& b) {
  for (auto _ : state) benchmark::DoNotOptimize(ppk::log_kernel(a, b));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_MarkovAlignedDna(benchmark::State& state) {
  std::mt19937 rng(7);
  const ppk::PreparedModel a(std::make_unique<ppk::MarkovModel>(fitted_chain(4, state.range(0), 60, 0, rng)), kParams);
  const ppk::PreparedModel b(std::make_unique<ppk::MarkovModel>(fitted_chain(4, state.range(0), 60, 0, rng)), kParams);
  run(state, a, b);
}
BENCHMARK(BM_MarkovAlignedDna)->ArgName("order")->DenseRange(1, 3);

void BM_MarkovAlignedDnaAsNetwork(benchmark::State& state) {
  std::mt19937 rng(7);
  const ppk::PreparedModel a(as_network(fitted_chain(4, state.range(0), 60, 0, rng)), kParams);
  const ppk::PreparedModel b(as_network(fitted_chain(4, state.range(0), 60, 0, rng)), kParams);
  run(state, a, b);
}
BENCHMARK(BM_MarkovAlignedDnaAsNetwork)->ArgName("order")->DenseRange(1, 3);

void BM_MarkovProtein(benchmark::State& state) {
  std::mt19937 rng(7);
  const ppk::PreparedModel a(std::make_unique<ppk::MarkovModel>(fitted_chain(20, 1, 0, 300, rng)), kParams);
  const ppk::PreparedModel b(std::make_unique<ppk::MarkovModel>(fitted_chain(20, 1, 0, 300, rng)), kParams);
  run(state, a, b);
}
BENCHMARK(BM_MarkovProtein);

// Homogeneous DNA chains over T = 10,000 (orders 1, 2: jumps by repeated squaring of the stationary step;
// order 3: 64 contexts, where stepping costs less).
void BM_MarkovLongDna(benchmark::State& state) {
  std::mt19937 rng(7);
  const ppk::PreparedModel a(std::make_unique<ppk::MarkovModel>(fitted_chain(4, state.range(0), 0, 10000, rng)), kParams);
  const ppk::PreparedModel b(std::make_unique<ppk::MarkovModel>(fitted_chain(4, state.range(0), 0, 10000, rng)), kParams);
  run(state, a, b);
}
BENCHMARK(BM_MarkovLongDna)->ArgName("order")->DenseRange(1, 3);

// HMMs of M states over `alphabet` symbols, T steps.
void BM_Hmm(benchmark::State& state) {
  const long states = state.range(0), alphabet = state.range(1), length = state.range(2);
  std::mt19937 rng(7);
  const bench::RandomHmm a = bench::random_hmm(states, alphabet, rng), b = bench::random_hmm(states, alphabet, rng);
  const ppk::PreparedModel pa(bench::as_model(a, length), kParams), pb(bench::as_model(b, length), kParams);
  run(state, pa, pb);
}
BENCHMARK(BM_Hmm)
    ->ArgNames({"M", "alphabet", "T"})
    ->Args({3, 4, 59})
    ->Args({4, 4, 59})
    ->Args({6, 4, 59})
    ->Args({7, 20, 300})
    ->Args({4, 4, 10000});

}  // namespace

BENCHMARK_MAIN();
