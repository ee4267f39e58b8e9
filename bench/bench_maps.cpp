// Cost of mapping one row with `ppk map` (maps/feature_map.hpp), the per-row work of the feature-map
// route: the exact map of a short document over a 50,000-word vocabulary (maximum likelihood: sparse;
// smoothed: the sparse route), and the Nystrom map of a 2-state HMM at m = 64, 256 and 1024 landmarks
// (m kernel evaluations and an m x m product). End-to-end times against the kernel SVM:
// bench/map_scaling.sh.
#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/maps/feature_map.hpp"
#include "random_hmm.hpp"

namespace {

std::mt19937 rng(1);

// A document of `listed` distinct words out of `dim`, the rest at the base probability (0: unsmoothed).
std::unique_ptr<ppk::Model> document(long dim, long listed, double base) {
  std::uniform_int_distribution<long> word(0, dim - 1);
  ppk::SparseProbabilities p;
  p.dim = dim;
  p.base = base;
  while (static_cast<long>(p.index.size()) < listed) {
    const long d = word(rng);
    if (std::find(p.index.begin(), p.index.end(), d) == p.index.end()) p.index.push_back(d);
  }
  std::sort(p.index.begin(), p.index.end());
  p.value.assign(static_cast<std::size_t>(listed), (1.0 - base * static_cast<double>(dim - listed)) / listed);
  return std::make_unique<ppk::MultinomialModel>(p, ppk::Trials{});
}

void map_one_row(benchmark::State& state, const ppk::FeatureMap& map, const ppk::PreparedModel& row) {
  ppk::Row features;
  for (auto _ : state) {
    map.features(row, features);
    benchmark::DoNotOptimize(features.data());
  }
}

void BM_ExactMapDocument(benchmark::State& state) {
  const ppk::PreparedModel row(document(50000, 100, 0.0), ppk::KernelParams{0.5, 0});
  const auto map = ppk::make_exact_map(row, ppk::KernelKind::ppk, ppk::MapRoute::exact);
  map_one_row(state, *map, row);
}
void BM_SparseMapSmoothedDocument(benchmark::State& state) {
  const ppk::PreparedModel row(document(50000, 100, 1e-6), ppk::KernelParams{0.5, 0});
  const auto map = ppk::make_exact_map(row, ppk::KernelKind::ppk, ppk::MapRoute::sparse);
  map_one_row(state, *map, row);
}
void BM_NystromMapHmm(benchmark::State& state) {
  const ppk::KernelParams params{1.0, 9};
  std::vector<ppk::Row> landmarks;
  for (long i = 0; i < state.range(0); ++i)
    landmarks.push_back(ppk::encode_row(*bench::as_model(bench::random_hmm(2, 4, rng), 9)));
  ppk::NystromOptions options;
  options.landmarks = landmarks.size();
  const auto map = ppk::fit_nystrom_map(landmarks, ppk::KernelKind::ppk_norm, params, options);
  const ppk::PreparedModel row(bench::as_model(bench::random_hmm(2, 4, rng), 9), params);
  map_one_row(state, *map, row);
}

}  // namespace

BENCHMARK(BM_ExactMapDocument);
BENCHMARK(BM_SparseMapSmoothedDocument);
BENCHMARK(BM_NystromMapHmm)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK_MAIN();
