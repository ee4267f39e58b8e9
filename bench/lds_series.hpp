// The LDS benchmarks' data: sequences as bench/make_series.py draws them (MFCC-like: N = 45 vectors
// of d = 13 per word), and the options of an LDS fit of state dimension n.
#pragma once

#include <random>

#include <Eigen/Core>

#include "ppk/estimate/estimate_lds.hpp"

namespace bench {

// N vectors of dimension d: x_t = s_t c + N(0, 0.3^2 I), c of unit length, s_t = 0.8 s_t-1 + N(0, 0.6^2),
// s_0 ~ N(0, 1).
inline Eigen::MatrixXd series(std::mt19937& rng, long count, long dim) {
  std::normal_distribution<double> normal;
  const auto normals = [&](long size) {  // a distribution of their own (it keeps no draw between calls)
    std::normal_distribution<double> fresh;
    return Eigen::VectorXd::NullaryExpr(size, [&] { return fresh(rng); });
  };
  const Eigen::VectorXd direction = normals(dim).normalized();
  Eigen::MatrixXd x(count, dim);
  double state = normal(rng);
  for (long t = 0; t < count; ++t) {
    if (t > 0) state = 0.8 * state + 0.6 * normal(rng);
    x.row(t) = (state * direction + 0.3 * normals(dim)).transpose();
  }
  return x;
}

inline ppk::LdsFitOptions fit_options(long state_dim) {
  ppk::LdsFitOptions options;
  options.state_dim = state_dim;
  return options;
}

}  // namespace bench
