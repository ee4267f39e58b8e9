// Internal to libppk: the smoothed probabilities of a Beta or Dirichlet fit (the bernoulli and
// multinomial estimators), stored sparsely.
#pragma once

#include <Eigen/Core>

#include "ppk/core/sparse_probabilities.hpp"

namespace ppk::detail {

// p_d = (t_d + shift) / denominator for the totals t, stored sparsely: coordinates with t_d = 0
// share the base shift / denominator, so the cost of the row is that of the non-zero totals.
inline SparseProbabilities smoothed(const Eigen::MatrixXd& totals, double shift, double denominator) {
  SparseProbabilities p;
  p.dim = totals.rows();
  p.base = shift / denominator;
  for (Eigen::Index d = 0; d < totals.rows(); ++d) {
    if (totals(d, 0) == 0) continue;  // p_d = base: no division for the unlisted coordinates
    const double value = (totals(d, 0) + shift) / denominator;
    if (value == p.base) continue;
    p.index.push_back(d);
    p.value.push_back(value);
  }
  return p;
}

}  // namespace ppk::detail
