// LDS kernel evaluations per second (lds.hpp), state dimension n = 2 and 3, d = 2, T in {1, 2, 5, 10, 100, 1000}:
// the default linear-time kernel (a Kalman filter over the stacked pair of state chains,
// O(T (n + n' + d)^3)) against the dense joint Gaussians (build both (T+1)d-dimensional joints and
// factorise their sum, O((T d)^3)), the test oracle. The dense timing includes building the joints.
// SLDS kernel evaluations (slds.hpp): K = 2 discrete states each, n = 2 and 3, d = 2, S paths per model,
// T in {10, 100}: up to S^2 filters of the LDS kernel's size per evaluation (fewer when paths repeat).
// The LDS fit (estimate_lds.hpp) on one sequence of N = 45 vectors of d = 13, as bench/make_series.py
// simulates them, at state dimension n = 2 and 4: one E-step (the Kalman filter and smoother,
// smooth_lds) and one whole fit (fit_lds at --prior-strength 0: 3 restarts of EM to convergence).
#include <cmath>
#include <memory>
#include <random>

#include <benchmark/benchmark.h>
#include <Eigen/Dense>

#include "lds_series.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/families/slds.hpp"

namespace {

Eigen::MatrixXd random_matrix(std::mt19937& rng, long rows, long cols) {
  std::normal_distribution<double> normal;
  return Eigen::MatrixXd::NullaryExpr(rows, cols, [&] { return normal(rng); });
}

Eigen::MatrixXd random_covariance(std::mt19937& rng, long dim) {
  const Eigen::MatrixXd b = random_matrix(rng, dim, dim);
  return b * b.transpose() / static_cast<double>(dim) + 0.1 * Eigen::MatrixXd::Identity(dim, dim);
}

// A stable LDS (A of spectral norm 0.9), prepared at rho = 1 and length T.
std::unique_ptr<ppk::LdsModel> random_lds(std::mt19937& rng, long n, long d, long length) {
  const Eigen::MatrixXd a = random_matrix(rng, n, n);
  auto model = std::make_unique<ppk::LdsModel>(random_matrix(rng, n, 1), random_covariance(rng, n),
                                               a * (0.9 / Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues()(0)),
                                               random_covariance(rng, n), random_matrix(rng, d, n),
                                               random_covariance(rng, d), length);
  model->prepare(ppk::KernelParams{1.0, 0});
  return model;
}

void BM_LdsKernel(benchmark::State& state) {
  std::mt19937 rng(7);
  const auto a = random_lds(rng, 2, 2, state.range(0)), b = random_lds(rng, 3, 2, state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(a->log_kernel(*b));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_LdsKernelDense(benchmark::State& state) {
  std::mt19937 rng(7);
  const auto a = random_lds(rng, 2, 2, state.range(0)), b = random_lds(rng, 3, 2, state.range(0));
  // Both compute the same number: compare them once.
  const double expected = a->log_kernel(*b);
  if (!(std::fabs(ppk::dense_log_kernel(*a, *b) - expected) <= 1e-9 * std::fabs(expected)))
    state.SkipWithError("the dense joint Gaussians disagree with the linear-time kernel");
  for (auto _ : state) benchmark::DoNotOptimize(ppk::dense_log_kernel(*a, *b));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// A 2-state SLDS whose discrete states have the dynamics of two random stable LDSs, S paths, length T.
std::unique_ptr<ppk::SldsModel> random_slds(std::mt19937& rng, long n, long d, long length, long paths) {
  const auto first = random_lds(rng, n, d, length), second = random_lds(rng, n, d, length);
  ppk::SldsParameters p;
  p.start = Eigen::Vector2d(0.5, 0.5);
  p.transitions = (Eigen::Matrix2d() << 0.9, 0.1, 0.2, 0.8).finished();
  p.state_transitions = {first->transition(), second->transition()};
  p.state_noises = {first->state_noise(), second->state_noise()};
  p.mean0 = first->mean0();
  p.cov0 = first->cov0();
  p.observation = first->observation();
  p.observation_noise = first->observation_noise();
  p.length = length;
  p.paths = paths;
  auto model = std::make_unique<ppk::SldsModel>(std::move(p));
  model->prepare(ppk::KernelParams{1.0, 0});
  return model;
}

void BM_SldsKernel(benchmark::State& state) {
  std::mt19937 rng(7);
  const auto a = random_slds(rng, 2, 2, state.range(0), state.range(1));
  const auto b = random_slds(rng, 3, 2, state.range(0), state.range(1));
  for (auto _ : state) benchmark::DoNotOptimize(a->log_kernel(*b));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

using bench::fit_options;
using bench::series;

void BM_LdsEStep(benchmark::State& state) {
  std::mt19937 rng(7);
  const Eigen::MatrixXd x = series(rng, 45, 13);
  const auto model = ppk::fit_lds(x, fit_options(state.range(0))).model;
  for (auto _ : state) benchmark::DoNotOptimize(ppk::smooth_lds(*model, x).log_likelihood);
}

void BM_LdsFit(benchmark::State& state) {
  std::mt19937 rng(7);
  const Eigen::MatrixXd x = series(rng, 45, 13);
  for (auto _ : state) benchmark::DoNotOptimize(ppk::fit_lds(x, fit_options(state.range(0))).model);
}

// T = 1, 2, 5 locate the crossover below T = 10; bench/lds_crossover.py prints it and the growth rates.
BENCHMARK(BM_LdsKernel)->ArgName("T")->Arg(1)->Arg(2)->Arg(5)->Arg(10)->Arg(100)->Arg(1000);
BENCHMARK(BM_LdsKernelDense)
    ->ArgName("T")
    ->Arg(1)
    ->Arg(2)
    ->Arg(5)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LdsEStep)->ArgName("n")->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LdsFit)->ArgName("n")->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SldsKernel)->ArgNames({"T", "S"})->ArgsProduct({{10, 100}, {1, 10}})->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
