// What the estimator tests share: dense test vectors as LIBSVM's sparse ones, the message of an
// EstimationError, categorical draws, and the check of an EM objective.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ppk/core/data.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk {

// A dense vector as a sparse one (zeros omitted, as LIBSVM files omit them).
inline SparseVector sparse(const std::vector<double>& dense) {
  SparseVector v;
  for (std::size_t d = 0; d < dense.size(); ++d)
    if (dense[d] != 0) v.push_back(Feature{static_cast<long>(d), dense[d]});
  return v;
}

// The message of the EstimationError that fit() throws ("" if none).
template <class Fit>
std::string estimation_error(Fit fit) {
  try {
    fit();
  } catch (const EstimationError& e) {
    return e.what();
  }
  return "";
}

// A state drawn from probabilities p by inversion of a uniform draw.
inline int draw(const std::vector<double>& p, std::mt19937_64& rng) {
  double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  for (std::size_t i = 0; i + 1 < p.size(); ++i) {
    if (u < p[i]) return static_cast<int>(i);
    u -= p[i];
  }
  return static_cast<int>(p.size()) - 1;
}

// L after each M-step never decreases (to rounding). With tolerance 0, EM runs all its iterations
// unless L stops gaining: then the last gain is rounding noise at the fixed point.
inline void expect_never_decreases(const std::vector<double>& objective, std::size_t iterations,
                                   const std::string& what) {
  ASSERT_LE(objective.size(), iterations + 1) << what;
  ASSERT_GE(objective.size(), 10u) << what;
  if (objective.size() < iterations + 1) {
    EXPECT_LE(std::fabs(objective.back() - objective[objective.size() - 2]), 1e-12 * std::fabs(objective.back())) << what;
  }
  for (std::size_t t = 1; t < objective.size(); ++t)
    EXPECT_GE(objective[t], objective[t - 1] - 1e-10 * std::fabs(objective[t - 1])) << what << ", iteration " << t;
  EXPECT_GT(objective.back(), objective.front()) << what;  // EM moved from its random start
}

}  // namespace ppk
