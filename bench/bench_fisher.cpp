// Fisher scores per second (fisher.hpp): the score of a 300-symbol sequence under a 10-state HMM with
// 20-symbol (protein) emissions, every parameter selected (10 + 100 + 200 features): forward-backward
// under the pooled model, then the expected counts minus their expectations. And the score of an
// LDS (n = 2 and 4) fitted to a sequence of N = 45 vectors of d = 13 (bench_lds.cpp's E-step case),
// every parameter selected (2 + 3 + 4 + 3 + 26 + 91 = 129, resp. 4 + 10 + 16 + 10 + 52 + 91 = 183
// features): the Kalman filter and RTS smoother (BM_LdsEStep), then the sufficient statistics and
// the gradients.
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "lds_series.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/estimate/fisher.hpp"
#include "random_hmm.hpp"

namespace {

void BM_FisherScoreDiscreteHmm(benchmark::State& state) {
  const long states = state.range(0), alphabet = state.range(1), length = state.range(2);
  std::mt19937 rng(7);
  const ppk::FisherScorer scorer(*ppk::hmm_estimator({}), *bench::as_model(bench::random_hmm(states, alphabet, rng), 0),
                                 ppk::AdaptedParameters{});
  std::uniform_int_distribution<long> symbol(0, alphabet - 1);
  std::vector<long> sequence(static_cast<std::size_t>(length));
  for (long& s : sequence) s = symbol(rng);
  for (auto _ : state) benchmark::DoNotOptimize(scorer.score(sequence));
  state.counters["scores/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_FisherScoreLds(benchmark::State& state) {
  std::mt19937 rng(7);
  const Eigen::MatrixXd x = bench::series(rng, 45, 13);
  const ppk::FisherScorer scorer(*ppk::lds_estimator({}), *ppk::fit_lds(x, bench::fit_options(state.range(0))).model,
                                 ppk::AdaptedParameters{});
  for (auto _ : state) benchmark::DoNotOptimize(scorer.score(x));
  state.counters["scores/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_FisherScoreDiscreteHmm)->ArgNames({"M", "alphabet", "n"})->Args({10, 20, 300});
BENCHMARK(BM_FisherScoreLds)->ArgName("n")->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
