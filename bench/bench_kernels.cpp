// Cost of one kernel evaluation between two prepared models, per family: the
// work LIBSVM's solver does for every entry of a kernel column. End-to-end
// ratios against LIBSVM's own kernels are measured by bench/ratios.sh.
// Also the cost of decoding one multinomial row over a 50,000-word vocabulary (uniform or pooled
// base), which LIBSVM's kernel plugin pays once per row and kernel matrix.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "ppk/families/bernoulli.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/multinomial.hpp"

namespace {

std::mt19937 rng(1);

Eigen::VectorXd random_vector(long dim) {
  std::normal_distribution<double> normal;
  Eigen::VectorXd v(dim);
  for (long d = 0; d < dim; ++d) v[d] = normal(rng);
  return v;
}

std::unique_ptr<ppk::Model> random_gaussian(ppk::CovarianceForm form, long dim) {
  switch (form) {
    case ppk::CovarianceForm::isotropic: return ppk::GaussianModel::isotropic(random_vector(dim), 0.5);
    case ppk::CovarianceForm::diagonal:
      return ppk::GaussianModel::diagonal(random_vector(dim), random_vector(dim).array().square() + 0.1);
    case ppk::CovarianceForm::full: break;
  }
  Eigen::MatrixXd factor = Eigen::MatrixXd::NullaryExpr(dim, dim, [] { return std::normal_distribution<double>()(rng); });
  return ppk::GaussianModel::full(random_vector(dim),
                                  factor * factor.transpose() / dim + Eigen::MatrixXd::Identity(dim, dim));
}

// A smoothed sparse probability vector: `listed` coordinates out of `dim` carry counts.
ppk::SparseProbabilities random_sparse(long dim, long listed, double base_mass) {
  std::uniform_int_distribution<long> coordinate(0, dim - 1);
  std::vector<long> index;
  while (static_cast<long>(index.size()) < listed) {
    const long d = coordinate(rng);
    if (std::find(index.begin(), index.end(), d) == index.end()) index.push_back(d);
  }
  std::sort(index.begin(), index.end());
  ppk::SparseProbabilities p;
  p.dim = dim;
  p.base = base_mass / dim;
  p.index = index;
  const double listed_each = (1.0 - p.base * (dim - listed)) / listed;
  p.value.assign(listed, listed_each);
  return p;
}

void run(benchmark::State& state, std::unique_ptr<ppk::Model> a, std::unique_ptr<ppk::Model> b, double rho,
         ppk::KernelKind kind) {
  const ppk::KernelParams params{rho, 0};
  const ppk::PreparedModel pa(std::move(a), params), pb(std::move(b), params);
  for (auto _ : state) benchmark::DoNotOptimize(ppk::evaluate(kind, pa, pb));
}

void BM_GaussianIsotropic(benchmark::State& state) {
  run(state, random_gaussian(ppk::CovarianceForm::isotropic, state.range(0)),
      random_gaussian(ppk::CovarianceForm::isotropic, state.range(0)), 1.0, ppk::KernelKind::ppk);
}
void BM_GaussianDiagonal(benchmark::State& state) {
  run(state, random_gaussian(ppk::CovarianceForm::diagonal, state.range(0)),
      random_gaussian(ppk::CovarianceForm::diagonal, state.range(0)), 0.5, ppk::KernelKind::ppk_norm);
}
void BM_GaussianFull(benchmark::State& state) {
  run(state, random_gaussian(ppk::CovarianceForm::full, state.range(0)),
      random_gaussian(ppk::CovarianceForm::full, state.range(0)), 0.5, ppk::KernelKind::ppk_norm);
}
void BM_MultinomialSparse(benchmark::State& state) {
  run(state, std::make_unique<ppk::MultinomialModel>(random_sparse(50000, state.range(0), 0.1), ppk::Trials{}),
      std::make_unique<ppk::MultinomialModel>(random_sparse(50000, state.range(0), 0.1), ppk::Trials{}), 0.5,
      ppk::KernelKind::ppk);
}
void BM_BernoulliSparse(benchmark::State& state) {
  run(state, std::make_unique<ppk::BernoulliModel>(random_sparse(50000, state.range(0), 0.1)),
      std::make_unique<ppk::BernoulliModel>(random_sparse(50000, state.range(0), 0.1)), 0.5, ppk::KernelKind::ppk_norm);
}

// A document's row under a pooled base (docs/base-measure.md): `listed` words seen once each, the
// prior A m over a base quantised from Zipf-like pooled counts, a_d = (c_d + A m_d) / (N + A).
ppk::LeveledProbabilities random_leveled(long dim, long listed) {
  std::vector<double> pooled(static_cast<std::size_t>(dim));
  for (long d = 0; d < dim; ++d) pooled[static_cast<std::size_t>(d)] = std::floor(1000.0 / static_cast<double>(d + 1));
  const ppk::LeveledBase base = ppk::quantised_pooled_base(pooled);
  const ppk::SparseProbabilities words = random_sparse(dim, listed, 0.1);
  const double prior = 0.5 * static_cast<double>(dim), total = static_cast<double>(listed) + prior;
  ppk::LeveledProbabilities p;
  p.dim = dim;
  p.share = prior / total;
  p.levels = base.levels;
  p.index = words.index;
  for (long d : words.index) {
    const int level = base.word_level[static_cast<std::size_t>(d)];
    p.level.push_back(level);
    p.value.push_back((1.0 + prior * base.levels.value[static_cast<std::size_t>(level)]) / total);
  }
  return p;
}

void decode(benchmark::State& state, const ppk::MultinomialModel& model) {
  const ppk::Row row = ppk::encode_row(model);
  for (auto _ : state) benchmark::DoNotOptimize(ppk::decode_row(row));
}
void BM_MultinomialDecodeUniform(benchmark::State& state) {
  decode(state, ppk::MultinomialModel(random_sparse(50000, state.range(0), 0.1), ppk::Trials{}));
}
void BM_MultinomialDecodePooled(benchmark::State& state) {
  decode(state, ppk::MultinomialModel(random_leveled(50000, state.range(0)), ppk::Trials{}));
}

BENCHMARK(BM_GaussianIsotropic)->Arg(2)->Arg(16)->Arg(128);
BENCHMARK(BM_GaussianDiagonal)->Arg(2)->Arg(16)->Arg(128);
BENCHMARK(BM_GaussianFull)->Arg(2)->Arg(8)->Arg(32);
BENCHMARK(BM_MultinomialSparse)->Arg(50)->Arg(500);
BENCHMARK(BM_BernoulliSparse)->Arg(50)->Arg(500);
BENCHMARK(BM_MultinomialDecodeUniform)->Arg(50)->Arg(500);
BENCHMARK(BM_MultinomialDecodePooled)->Arg(50)->Arg(500);

}  // namespace

BENCHMARK_MAIN();
