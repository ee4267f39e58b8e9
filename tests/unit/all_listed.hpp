// Probability vectors as SparseProbabilities with every coordinate listed, for the Bernoulli and
// multinomial tests (the dense representation, against the sparse one of from_dense).
#pragma once

#include <cstddef>
#include <vector>

#include "ppk/core/sparse_probabilities.hpp"

namespace ppk {

// Every coordinate of p listed, base 0.
inline SparseProbabilities all_listed(const std::vector<double>& p) {
  SparseProbabilities dense;
  dense.dim = static_cast<long>(p.size());
  for (std::size_t d = 0; d < p.size(); ++d) {
    dense.index.push_back(static_cast<long>(d));
    dense.value.push_back(p[d]);
  }
  return dense;
}

}  // namespace ppk
