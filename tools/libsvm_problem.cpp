#include "libsvm_problem.hpp"

#include <cstddef>
#include <utility>

namespace ppk::cli {

void append_svm_nodes(const Row& row, std::vector<svm_node>& nodes) {
  for (const RowEntry& entry : row) nodes.push_back({entry.index, libsvm_readable(entry.value)});
  nodes.push_back({-1, 0});
}

LibsvmProblem::LibsvmProblem(const std::vector<const Row*>& rows, std::vector<double> labels)
    : x_(rows.size()), labels_(std::move(labels)) {
  std::size_t size = 0;
  for (const Row* row : rows) size += row->size() + 1;
  nodes_.reserve(size);  // no reallocation: x_ points into nodes_
  std::vector<std::size_t> starts;
  for (const Row* row : rows) {
    starts.push_back(nodes_.size());
    append_svm_nodes(*row, nodes_);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) x_[i] = nodes_.data() + starts[i];
  problem_.l = static_cast<int>(rows.size());
  problem_.y = labels_.data();
  problem_.x = x_.data();
}

LibsvmProblem::LibsvmProblem(const std::vector<Row>& rows, std::vector<double> labels)
    : LibsvmProblem(
          [&] {
            std::vector<const Row*> pointers;
            for (const Row& row : rows) pointers.push_back(&row);
            return pointers;
          }(),
          std::move(labels)) {}

}  // namespace ppk::cli
