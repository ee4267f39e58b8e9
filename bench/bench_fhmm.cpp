// Factorial-HMM kernel evaluations per second (fhmm.hpp): the structured mean-field bound between two
// random factorial HMMs of C chains of M states each in d dimensions (docs/performance.md's examples:
// C = M = 2, d = 2; and a larger C = M = 3, d = 3), rho = 1, T in {10, 100}. Each evaluation runs the
// coordinate ascent to convergence; the counter "sweeps" is the number of sweeps it took for the
// benchmarked pair.
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <Eigen/Dense>

#include "ppk/families/fhmm.hpp"

namespace {

// C chains of M states: start and transition rows uniform on the simplex, means N(0, 1) per
// coordinate, Sigma = B B'/d + 0.2 I; prepared at rho = 1 and length T.
std::unique_ptr<ppk::FhmmModel> random_fhmm(std::mt19937& rng, long chains, long states, long d, long length) {
  std::normal_distribution<double> normal;
  std::exponential_distribution<double> exponential;
  const auto probabilities = [&] {
    Eigen::VectorXd p = Eigen::VectorXd::NullaryExpr(states, [&] { return exponential(rng); });
    return Eigen::VectorXd(p / p.sum());
  };
  std::vector<ppk::FhmmChain> list;
  for (long c = 0; c < chains; ++c) {
    ppk::FhmmChain chain;
    chain.start = probabilities();
    chain.trans.resize(states, states);
    for (long p = 0; p < states; ++p) chain.trans.row(p) = probabilities().transpose();
    chain.means = Eigen::MatrixXd::NullaryExpr(d, states, [&] { return normal(rng); });
    list.push_back(std::move(chain));
  }
  const Eigen::MatrixXd b = Eigen::MatrixXd::NullaryExpr(d, d, [&] { return normal(rng); });
  auto model = std::make_unique<ppk::FhmmModel>(
      std::move(list), b * b.transpose() / static_cast<double>(d) + 0.2 * Eigen::MatrixXd::Identity(d, d), length);
  model->prepare(ppk::KernelParams{1.0, 0});
  return model;
}

// Arguments: T, C, M, d.
void BM_FhmmKernel(benchmark::State& state) {
  std::mt19937 rng(11);
  const long length = state.range(0), chains = state.range(1), states = state.range(2), d = state.range(3);
  const auto a = random_fhmm(rng, chains, states, d, length), b = random_fhmm(rng, chains, states, d, length);
  for (auto _ : state) benchmark::DoNotOptimize(a->log_kernel(*b));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["sweeps"] = static_cast<double>(ppk::mean_field_trace(*a, *b).log_bounds.size() - 1);
}

BENCHMARK(BM_FhmmKernel)
    ->ArgNames({"T", "C", "M", "d"})
    ->Args({10, 2, 2, 2})
    ->Args({100, 2, 2, 2})
    ->Args({10, 3, 3, 3})
    ->Args({100, 3, 3, 3})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
