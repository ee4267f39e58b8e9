// Sparse probability vectors (see sparse_probabilities.hpp).
#include "ppk/core/sparse_probabilities.hpp"

#include <algorithm>
#include <cmath>

namespace ppk {

SparseProbabilities SparseProbabilities::from_dense(const std::vector<double>& p) {
  SparseProbabilities sparse;
  sparse.dim = static_cast<long>(p.size());
  const bool has_zero = std::find(p.begin(), p.end(), 0.0) != p.end();
  const bool all_finite = std::all_of(p.begin(), p.end(), [](double v) { return std::isfinite(v); });
  if (!has_zero && all_finite && !p.empty()) {
    // The most frequent value (the smallest among equally frequent ones) becomes the base.
    std::vector<double> sorted(p);
    std::sort(sorted.begin(), sorted.end());
    std::size_t best_run = 0;
    for (std::size_t start = 0; start < sorted.size();) {
      std::size_t stop = start;
      while (stop < sorted.size() && sorted[stop] == sorted[start]) ++stop;
      if (stop - start > best_run) {
        best_run = stop - start;
        sparse.base = sorted[start];
      }
      start = stop;
    }
  }
  for (std::size_t d = 0; d < p.size(); ++d) {
    if (p[d] == sparse.base) continue;
    sparse.index.push_back(static_cast<long>(d));
    sparse.value.push_back(p[d]);
  }
  return sparse;
}

std::vector<double> SparseProbabilities::dense() const {
  std::vector<double> p(static_cast<std::size_t>(dim), base);
  for (std::size_t i = 0; i < index.size(); ++i) p[static_cast<std::size_t>(index[i])] = value[i];
  return p;
}

double SparseProbabilities::at(long d) const {
  const auto it = std::lower_bound(index.begin(), index.end(), d);
  return it != index.end() && *it == d ? value[static_cast<std::size_t>(it - index.begin())] : base;
}

double SparseProbabilities::sum() const {
  double listed_sum = 0.0;
  for (double v : value) listed_sum += v;
  return base * static_cast<double>(dim - static_cast<long>(index.size())) + listed_sum;
}

}  // namespace ppk
