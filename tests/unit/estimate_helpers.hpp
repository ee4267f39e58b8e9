// What the estimator tests share: dense test vectors as LIBSVM's sparse ones, and the message of
// an EstimationError.
#pragma once

#include <string>
#include <vector>

#include "ppk/data.hpp"
#include "ppk/estimate.hpp"

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

}  // namespace ppk
