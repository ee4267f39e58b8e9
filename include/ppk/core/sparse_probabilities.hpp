// A probability vector over D coordinates stored sparsely: p_d is the listed
// value for listed coordinates and `base` for all others. A smoothed model of a
// short document over a 50,000-word vocabulary stays as sparse as its counts.
#pragma once

#include <cstddef>
#include <vector>

namespace ppk {

struct SparseProbabilities {
  long dim = 0;
  double base = 0.0;          // the value of every coordinate not listed
  std::vector<long> index;    // listed coordinates, 0-based, strictly increasing
  std::vector<double> value;  // their probabilities (never equal to base)

  // Chooses as base the most frequent value of p (0 if some p_d is 0, so that a
  // row never needs to store a zero), and lists the rest.
  static SparseProbabilities from_dense(const std::vector<double>& p);
  std::vector<double> dense() const;
  double at(long d) const;
  // Sum over all D coordinates: base * (D - listed) + sum of listed values.
  double sum() const;
  std::size_t listed() const { return index.size(); }
};

}  // namespace ppk
