#include "matrix_fields.hpp"

#include <cmath>
#include <vector>

#include <Eigen/Eigenvalues>

namespace ppk::detail {

namespace {
std::string shape(Eigen::Index rows, Eigen::Index cols) { return std::to_string(rows) + " x " + std::to_string(cols); }
}  // namespace

void check_shape(const std::string& family, const char* field, const Eigen::MatrixXd& matrix, Eigen::Index rows,
                 Eigen::Index cols, const std::string& meaning) {
  if (matrix.rows() != rows || matrix.cols() != cols)
    throw field_error(family, field, "a " + shape(rows, cols) + " matrix (" + meaning + ")",
                      shape(matrix.rows(), matrix.cols()));
}

void check_finite_entries(const std::string& family, const char* field, const Eigen::MatrixXd& matrix) {
  for (Eigen::Index i = 0; i < matrix.rows(); ++i)
    for (Eigen::Index j = 0; j < matrix.cols(); ++j)
      if (!std::isfinite(matrix(i, j)))
        throw FieldError(family, field, static_cast<long>(i * matrix.cols() + j),
                         "[" + std::to_string(i) + "][" + std::to_string(j) + "]", "a finite number",
                         format_number(matrix(i, j)));
}

Eigen::MatrixXd checked_semidefinite(const std::string& family, const char* field, const Eigen::MatrixXd& matrix) {
  check_symmetric(family, field, matrix);
  Eigen::MatrixXd symmetric = 0.5 * (matrix + matrix.transpose());
  const Eigen::VectorXd eigenvalues =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric, Eigen::EigenvaluesOnly).eigenvalues();
  if (eigenvalues.minCoeff() < -1e-10 * eigenvalues.cwiseAbs().maxCoeff())
    throw field_error(family, field, "a positive semidefinite matrix",
                      "a smallest eigenvalue of " + format_number(eigenvalues.minCoeff()));
  return symmetric;
}

void write_lower_triangle(RowWriter& out, const Eigen::MatrixXd& matrix) {
  for (Eigen::Index i = 0; i < matrix.rows(); ++i)
    for (Eigen::Index j = 0; j <= i; ++j) out.real(matrix(i, j));
}

void write_row_major(RowWriter& out, const Eigen::MatrixXd& matrix) {
  for (Eigen::Index i = 0; i < matrix.rows(); ++i)
    for (Eigen::Index j = 0; j < matrix.cols(); ++j) out.real(matrix(i, j));
}

RowMatrix read_symmetric(RowReader& fields, const char* field, long dim) {
  const long first = fields.next_index(), count = dim * (dim + 1) / 2;
  const std::vector<double> lower = fields.reals(field, static_cast<std::size_t>(count));
  Eigen::MatrixXd matrix(dim, dim);
  for (long i = 0; i < dim; ++i)
    for (long j = 0; j <= i; ++j) matrix(i, j) = matrix(j, i) = lower[lower_triangle_offset(i, j)];
  return {std::move(matrix), {field, first, count}};
}

RowMatrix read_general(RowReader& fields, const char* field, long rows, long cols) {
  const long first = fields.next_index();
  const std::vector<double> values = fields.reals(field, static_cast<std::size_t>(rows * cols));
  return {Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(values.data(), rows,
                                                                                                   cols),
          {field, first, rows * cols}};
}

nlohmann::json json_rows(const Eigen::MatrixXd& matrix) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < matrix.rows(); ++i) {
    const Eigen::RowVectorXd row = matrix.row(i);
    rows.push_back(std::vector<double>(row.data(), row.data() + row.size()));
  }
  return rows;
}

Eigen::MatrixXd json_matrix(const JsonFields& fields, const char* field) {
  const std::vector<std::vector<double>> rows = fields.matrix(field);
  const std::size_t cols = rows[0].size();
  Eigen::MatrixXd matrix(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() != cols)
      throw fields.invalid(field, "rows of one length (row 0 has " + std::to_string(cols) + " numbers, row " +
                                      std::to_string(i) + " has " + std::to_string(rows[i].size()) + ")");
    for (std::size_t j = 0; j < cols; ++j)
      matrix(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  }
  return matrix;
}

}  // namespace ppk::detail
