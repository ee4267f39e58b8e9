// Fisher scores per second (fisher.hpp): the score of a 300-symbol sequence under a 10-state HMM with
// 20-symbol (protein) emissions, every parameter selected (10 + 100 + 200 features): forward-backward
// under the pooled model, then the expected counts minus their expectations.
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <Eigen/Core>

#include "ppk/estimate/fisher.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/multinomial.hpp"

namespace {

Eigen::VectorXd random_probabilities(long size, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  Eigen::VectorXd p(size);
  for (long i = 0; i < size; ++i) p[i] = uniform(rng);
  return p / p.sum();
}

std::unique_ptr<ppk::HmmModel> random_discrete_hmm(long states, long alphabet, std::mt19937& rng) {
  Eigen::MatrixXd transitions(states, states);
  std::vector<std::unique_ptr<ppk::Model>> emissions;
  for (long q = 0; q < states; ++q) {
    transitions.row(q) = random_probabilities(states, rng).transpose();
    const Eigen::VectorXd row = random_probabilities(alphabet, rng);
    emissions.push_back(std::make_unique<ppk::MultinomialModel>(
        ppk::SparseProbabilities::from_dense(std::vector<double>(row.data(), row.data() + row.size())), ppk::Trials{}));
  }
  return std::make_unique<ppk::HmmModel>(random_probabilities(states, rng), transitions, std::move(emissions), 0);
}

void BM_FisherScoreDiscreteHmm(benchmark::State& state) {
  const long states = state.range(0), alphabet = state.range(1), length = state.range(2);
  std::mt19937 rng(7);
  const ppk::FisherScorer scorer(*random_discrete_hmm(states, alphabet, rng), ppk::AdaptedParameters{});
  std::uniform_int_distribution<long> symbol(0, alphabet - 1);
  std::vector<long> sequence(static_cast<std::size_t>(length));
  for (long& s : sequence) s = symbol(rng);
  for (auto _ : state) benchmark::DoNotOptimize(scorer.score(sequence));
  state.counters["scores/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_FisherScoreDiscreteHmm)->ArgNames({"M", "alphabet", "n"})->Args({10, 20, 300});

}  // namespace

BENCHMARK_MAIN();
