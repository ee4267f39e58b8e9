// Model rows as LIBSVM sees them in process: svm_node arrays holding each value as svm-train reads it
// back from the row file (format_entries writes libsvm_readable(value) in the fewest digits that read
// back), so that training and prediction in process give what svm-train and svm-predict give on
// the written rows. Used by --alpha auto (smoothing_cv.cpp) and by the Python module's PPKSVC.
#pragma once

#include <vector>

#include "ppk/core/row.hpp"
#include "svm.h"

namespace ppk::cli {

// `row` as LIBSVM nodes, appended to `nodes`, ending with the terminator {-1, 0}.
void append_svm_nodes(const Row& row, std::vector<svm_node>& nodes);

// Rows and their labels as an svm_problem; the problem points into this object.
class LibsvmProblem {
 public:
  LibsvmProblem(const std::vector<const Row*>& rows, std::vector<double> labels);
  LibsvmProblem(const std::vector<Row>& rows, std::vector<double> labels);
  LibsvmProblem(const LibsvmProblem&) = delete;
  LibsvmProblem& operator=(const LibsvmProblem&) = delete;
  const svm_problem& get() const { return problem_; }

 private:
  std::vector<svm_node> nodes_;  // every row's nodes, one after the other
  std::vector<svm_node*> x_;     // the start of row i in nodes_
  std::vector<double> labels_;
  svm_problem problem_{};
};

}  // namespace ppk::cli
