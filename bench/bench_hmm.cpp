// HMM kernel evaluations per second (JMLR 2004 section 4.2), M = N states in {2, 4, 8}, alphabets of 4
// (DNA) and 20 (protein) symbols, T in {10, 100}: ppk's matrix-form recursion
//     Phi_t = (A^rho)' (psi .* Phi_{t-1}) A'^rho            O(T (M^2 N + M N^2))
// against a straightforward implementation of the same recursion written here,
//     Phi_t(q, q') = sum_{p, p'} A(p, q)^rho A'(p', q')^rho psi(p, p') Phi_{t-1}(p, p')   O(T M^2 N^2),
// with the powers taken inside the loop and each step rescaled, as a first implementation would.
// BM_FitHmmDnaSequence: one per-sequence fit of ppk fit hmm --states 2 --alphabet ACGT (Baum-Welch,
// 3 restarts of at most 400 iterations, tolerance 1e-8) to a 275-base sequence of the sequences
// demo's generator (examples/make_sequences.py, class +1), the cost of each row of bench/map_hmm.sh.
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <Eigen/Core>

#include "ppk/core/kernel.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "random_hmm.hpp"

namespace {

using bench::as_model;
using bench::random_hmm;
using bench::RandomHmm;

// The straightforward recursion: log k~ with per-step rescaling.
double straightforward_log_kernel(const RandomHmm& a, const RandomHmm& b, long length, double rho) {
  const long m = a.start.size(), n = b.start.size();
  Eigen::MatrixXd psi(m, n), phi(m, n), next(m, n);
  for (long p = 0; p < m; ++p)
    for (long q = 0; q < n; ++q) {
      double sum = 0;
      for (Eigen::Index x = 0; x < a.emissions.cols(); ++x) sum += std::pow(a.emissions(p, x) * b.emissions(q, x), rho);
      psi(p, q) = sum;
      phi(p, q) = std::pow(a.start[p] * b.start[q], rho);
    }
  double log_scale = 0;
  for (long t = 1; t <= length; ++t) {
    for (long q = 0; q < m; ++q)
      for (long r = 0; r < n; ++r) {
        double sum = 0;
        for (long p = 0; p < m; ++p)
          for (long s = 0; s < n; ++s)
            sum += std::pow(a.transitions(p, q), rho) * std::pow(b.transitions(s, r), rho) * psi(p, s) * phi(p, s);
        next(q, r) = sum;
      }
    const double top = next.maxCoeff();
    phi = next / top;
    log_scale += std::log(top);
  }
  return std::log((psi.array() * phi.array()).sum()) + log_scale;
}

void BM_HmmKernel(benchmark::State& state) {
  const long states = state.range(0), alphabet = state.range(1), length = state.range(2);
  std::mt19937 rng(7);
  const RandomHmm a = random_hmm(states, alphabet, rng), b = random_hmm(states, alphabet, rng);
  const ppk::KernelParams params{1.0, 0};
  const ppk::PreparedModel pa(as_model(a, length), params), pb(as_model(b, length), params);
  for (auto _ : state) benchmark::DoNotOptimize(ppk::log_kernel(pa, pb));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_HmmKernelStraightforward(benchmark::State& state) {
  const long states = state.range(0), alphabet = state.range(1), length = state.range(2);
  std::mt19937 rng(7);
  const RandomHmm a = random_hmm(states, alphabet, rng), b = random_hmm(states, alphabet, rng);
  // Both compute the same number: compare them once.
  const ppk::KernelParams params{1.0, 0};
  const double expected =
      ppk::log_kernel(ppk::PreparedModel(as_model(a, length), params), ppk::PreparedModel(as_model(b, length), params));
  if (!(std::fabs(straightforward_log_kernel(a, b, length, 1.0) - expected) <= 1e-9 * std::fabs(expected)))
    state.SkipWithError("the straightforward recursion disagrees with ppk");
  for (auto _ : state) benchmark::DoNotOptimize(straightforward_log_kernel(a, b, length, 1.0));
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void hmm_sizes(benchmark::internal::Benchmark* bench) {
  bench->ArgNames({"M", "alphabet", "T"});
  for (long states : {2, 4, 8})
    for (long alphabet : {4, 20})
      for (long length : {10, 100}) bench->Args({states, alphabet, length});
}

BENCHMARK(BM_HmmKernel)->Apply(hmm_sizes);
BENCHMARK(BM_HmmKernelStraightforward)->Apply(hmm_sizes);

// T bases from examples/make_sequences.py's class +1: an AT-rich and a GC-rich state, kept with
// probability 0.97 at each step.
std::vector<long> dna_sequence(long length, unsigned seed) {
  const double emissions[2][4] = {{0.35, 0.15, 0.15, 0.35}, {0.15, 0.35, 0.35, 0.15}};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<long> out;
  int state = static_cast<int>(rng() % 2);
  for (long t = 0; t < length; ++t) {
    std::discrete_distribution<long> base(emissions[state], emissions[state] + 4);
    out.push_back(base(rng));
    if (uniform(rng) > 0.97) state = 1 - state;
  }
  return out;
}

void BM_FitHmmDnaSequence(benchmark::State& state) {
  const std::vector<long> sequence = dna_sequence(state.range(0), 1);
  ppk::HmmFitOptions options;  // ppk fit hmm's defaults: 3 restarts, at most 400 iterations, tolerance 1e-8
  options.states = 2;
  options.seed = 1;
  std::size_t iterations = 0;
  for (auto _ : state) iterations = ppk::fit_discrete_hmm(sequence, 4, options).log_likelihoods.size() - 1;
  state.counters["best restart's iterations"] = static_cast<double>(iterations);
}
BENCHMARK(BM_FitHmmDnaSequence)->ArgName("T")->Arg(275)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
