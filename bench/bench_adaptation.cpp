// Pooled HMMs and their MAP adaptation (adaptation.hpp), discrete emissions over 20 symbols:
// * BM_PooledBaumWelch: 3 restarts of 20 Baum-Welch iterations of a 4-state HMM over 200 sequences
//   of 50 symbols, with 1 and 2 threads (the restarts run in parallel; the result does not depend on
//   the threads);
// * BM_AdaptOneSequence: adapting that pooled HMM to one sequence of 100 symbols (relevance 16,
//   at most 100 iterations), against BM_BaumWelchOneSequence, the per-sequence fit it replaces
//   (3 restarts of at most 400 iterations, the defaults of ppk fit hmm).
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate_hmm.hpp"

namespace {

constexpr long kAlphabet = 20;

// Sequences whose symbols follow a sticky 4-state chain over groups of 5 symbols.
std::vector<std::vector<long>> sequences(int count, int length, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<std::vector<long>> out(static_cast<std::size_t>(count));
  for (std::vector<long>& s : out) {
    long state = static_cast<long>(rng() % 4);
    for (int t = 0; t < length; ++t) {
      if (uniform(rng) < 0.2) state = static_cast<long>(rng() % 4);
      s.push_back(uniform(rng) < 0.8 ? state * 5 + static_cast<long>(rng() % 5) : static_cast<long>(rng() % kAlphabet));
    }
  }
  return out;
}

ppk::HmmFitOptions four_states(long iterations) {
  ppk::HmmFitOptions options;
  options.states = 4;
  options.iterations = iterations;
  options.tolerance = 0;
  return options;
}

void BM_PooledBaumWelch(benchmark::State& state) {
  const std::vector<std::vector<long>> data = sequences(200, 50, 1);
  const auto threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(ppk::fit_pooled_discrete_hmm(data, kAlphabet, four_states(20), threads));
  state.counters["symbols/s"] =
      benchmark::Counter(200.0 * 50 * 20 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PooledBaumWelch)->ArgName("threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_AdaptOneSequence(benchmark::State& state) {
  const ppk::HmmFit pooled = ppk::fit_pooled_discrete_hmm(sequences(200, 50, 1), kAlphabet, four_states(100));
  const std::vector<long> example = sequences(1, 100, 2)[0];
  ppk::AdaptationOptions options;  // relevance 16, at most 100 iterations, tolerance 1e-8
  for (auto _ : state) benchmark::DoNotOptimize(ppk::adapt_hmm(*pooled.model, example, options));
}
BENCHMARK(BM_AdaptOneSequence)->Unit(benchmark::kMicrosecond);

void BM_BaumWelchOneSequence(benchmark::State& state) {
  const std::vector<long> example = sequences(1, 100, 2)[0];
  ppk::HmmFitOptions options;  // ppk fit hmm's defaults with 4 states
  options.states = 4;
  for (auto _ : state) benchmark::DoNotOptimize(ppk::fit_discrete_hmm(example, kAlphabet, options));
}
BENCHMARK(BM_BaumWelchOneSequence)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
