// Matrix-valued model fields (see matrix_fields.hpp).
#include "ppk/core/matrix_fields.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

namespace ppk::detail {

namespace {

std::string shape(Eigen::Index rows, Eigen::Index cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

// The error `error` about one matrix, restated for the matrix's place in its field.
FieldError in_field(const MatrixField& where, const FieldError& error) {
  if (where.path_prefix.empty()) return error;
  return FieldError(where.family, where.field, where.first_element + std::max(error.element(), 0L),
                    where.path_prefix + error.json_path(),
                    error.expected() + (error.element() < 0 ? " (matrix " + where.path_prefix + ")" : ""), error.got());
}

}  // namespace

void check_shape(const MatrixField& where, const Eigen::MatrixXd& matrix, Eigen::Index rows, Eigen::Index cols,
                 const std::string& meaning) {
  if (matrix.rows() != rows || matrix.cols() != cols)
    throw in_field(where, field_error(where.family, where.field, "a " + shape(rows, cols) + " matrix (" + meaning + ")",
                                      shape(matrix.rows(), matrix.cols())));
}

void check_finite(const MatrixField& where, const Eigen::MatrixXd& matrix) {
  for (Eigen::Index i = 0; i < matrix.rows(); ++i)
    for (Eigen::Index j = 0; j < matrix.cols(); ++j)
      if (!std::isfinite(matrix(i, j)))
        throw in_field(where, FieldError(where.family, where.field, static_cast<long>(i * matrix.cols() + j),
                                         "[" + std::to_string(i) + "][" + std::to_string(j) + "]", "a finite number",
                                         format_number(matrix(i, j))));
}

namespace {

Eigen::MatrixXd checked_symmetric(const MatrixField& where, const Eigen::MatrixXd& matrix) {
  try {
    check_symmetric(where.family, where.field, matrix);
  } catch (const FieldError& error) {
    throw in_field(where, error);
  }
  return 0.5 * (matrix + matrix.transpose());
}

}  // namespace

Eigen::MatrixXd checked_semidefinite(const MatrixField& where, const Eigen::MatrixXd& matrix) {
  Eigen::MatrixXd symmetric = checked_symmetric(where, matrix);
  const Eigen::VectorXd eigenvalues =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric, Eigen::EigenvaluesOnly).eigenvalues();
  if (eigenvalues.minCoeff() < -1e-10 * eigenvalues.cwiseAbs().maxCoeff())
    throw in_field(where, field_error(where.family, where.field, "a positive semidefinite matrix",
                                      "a smallest eigenvalue of " + format_number(eigenvalues.minCoeff())));
  return symmetric;
}

Eigen::MatrixXd checked_definite(const MatrixField& where, const Eigen::MatrixXd& matrix) {
  Eigen::MatrixXd symmetric = checked_symmetric(where, matrix);
  const Eigen::LLT<Eigen::MatrixXd> llt(symmetric);
  if (llt.info() != Eigen::Success || !(llt.matrixLLT().diagonal().array() > 0.0).all())
    throw in_field(where,
                   field_error(where.family, where.field,
                               "a positive definite matrix (the observation noise; its Cholesky factorisation failed)"));
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

namespace {

Eigen::MatrixXd symmetric_from_lower(const double* lower, long dim) {
  Eigen::MatrixXd matrix(dim, dim);
  for (long i = 0; i < dim; ++i)
    for (long j = 0; j <= i; ++j) matrix(i, j) = matrix(j, i) = lower[lower_triangle_offset(i, j)];
  return matrix;
}

Eigen::MatrixXd general_from_row_major(const double* values, long rows, long cols) {
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(values, rows, cols);
}

}  // namespace

RowMatrices read_symmetric_list(RowReader& fields, const char* field, long count, long dim) {
  const long first = fields.next_index(), size = dim * (dim + 1) / 2;
  const std::vector<double> values = fields.reals(field, static_cast<std::size_t>(count * size));
  RowMatrices read{{}, {field, first, count * size}};
  for (long k = 0; k < count; ++k) read.matrices.push_back(symmetric_from_lower(values.data() + k * size, dim));
  return read;
}

RowMatrices read_general_list(RowReader& fields, const char* field, long count, long rows, long cols) {
  const long first = fields.next_index(), size = rows * cols;
  const std::vector<double> values = fields.reals(field, static_cast<std::size_t>(count * size));
  RowMatrices read{{}, {field, first, count * size}};
  for (long k = 0; k < count; ++k) read.matrices.push_back(general_from_row_major(values.data() + k * size, rows, cols));
  return read;
}

RowMatrix read_symmetric(RowReader& fields, const char* field, long dim) {
  RowMatrices read = read_symmetric_list(fields, field, 1, dim);
  return {std::move(read.matrices[0]), read.span};
}

RowMatrix read_general(RowReader& fields, const char* field, long rows, long cols) {
  RowMatrices read = read_general_list(fields, field, 1, rows, cols);
  return {std::move(read.matrices[0]), read.span};
}

nlohmann::json json_rows(const Eigen::MatrixXd& matrix) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < matrix.rows(); ++i) {
    const Eigen::RowVectorXd row = matrix.row(i);
    rows.push_back(std::vector<double>(row.data(), row.data() + row.size()));
  }
  return rows;
}

namespace {

// The rows of a JSON matrix (`field` + `path` in messages) as an Eigen matrix; the model's
// constructor checks the shape.
Eigen::MatrixXd matrix_from_rows(const JsonFields& fields, const char* field, const std::string& path,
                                 const std::vector<std::vector<double>>& rows) {
  const std::size_t cols = rows[0].size();
  Eigen::MatrixXd matrix(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() != cols)
      throw fields.invalid(field, (path.empty() ? std::string() : "in " + path + ": ") +
                                      "rows of one length (row 0 has " + std::to_string(cols) + " numbers, row " +
                                      std::to_string(i) + " has " + std::to_string(rows[i].size()) + ")");
    for (std::size_t j = 0; j < cols; ++j)
      matrix(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  }
  return matrix;
}

}  // namespace

Eigen::MatrixXd json_matrix(const JsonFields& fields, const char* field) {
  return matrix_from_rows(fields, field, "", fields.matrix(field));
}

std::vector<Eigen::MatrixXd> json_matrices(const JsonFields& fields, const char* field) {
  const nlohmann::json& list = fields.required(field);
  const char* const expected = "a non-empty array of matrices (non-empty arrays of rows of finite numbers)";
  if (!list.is_array() || list.empty()) throw fields.invalid(field, expected);
  std::vector<Eigen::MatrixXd> matrices;
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (!list[k].is_array() || list[k].empty()) throw fields.invalid(field, expected);
    std::vector<std::vector<double>> rows;
    for (const nlohmann::json& row : list[k]) {
      if (!row.is_array()) throw fields.invalid(field, expected);
      rows.emplace_back();
      for (const nlohmann::json& value : row) {
        if (!value.is_number() || !std::isfinite(value.get<double>())) throw fields.invalid(field, expected);
        rows.back().push_back(value.get<double>());
      }
    }
    matrices.push_back(matrix_from_rows(fields, field, "[" + std::to_string(k) + "]", rows));
  }
  return matrices;
}

}  // namespace ppk::detail
