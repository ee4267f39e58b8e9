// Internal to libppk: matrix-valued fields of the continuous-state families (lds, linear_gaussian):
// their checks, their row layouts (a general matrix row by row; a symmetric one as its lower triangle
// row by row, S11, S21, S22, S31, ...) and their JSON form (an array of rows). Errors are FieldErrors
// (model_fields.hpp) naming `family` and the field, so that row decoders can restate them at indices.
#pragma once

#include <string>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "model_fields.hpp"
#include "ppk/row.hpp"

namespace ppk::detail {

// FieldError on `field` unless `matrix` is rows x cols; `meaning` says where those numbers come from.
void check_shape(const std::string& family, const char* field, const Eigen::MatrixXd& matrix, Eigen::Index rows,
                 Eigen::Index cols, const std::string& meaning);

// FieldError on the first non-finite entry, addressed as element i * cols + j of the field (the row
// layout of a general matrix) and "[i][j]" (JSON).
void check_finite_entries(const std::string& family, const char* field, const Eigen::MatrixXd& matrix);

// A covariance that may be singular: finite, symmetric (check_symmetric) and no eigenvalue below
// -1e-10 times the largest magnitude (rounding); else a FieldError. Returns it symmetrised.
Eigen::MatrixXd checked_semidefinite(const std::string& family, const char* field, const Eigen::MatrixXd& matrix);

void write_lower_triangle(RowWriter& out, const Eigen::MatrixXd& matrix);
void write_row_major(RowWriter& out, const Eigen::MatrixXd& matrix);

// A matrix read from a row, with where it lies (for at_row).
struct RowMatrix {
  Eigen::MatrixXd matrix;
  RowFieldSpan span;
};
RowMatrix read_symmetric(RowReader& fields, const char* field, long dim);
RowMatrix read_general(RowReader& fields, const char* field, long rows, long cols);

// The JSON form: an array of rows.
nlohmann::json json_rows(const Eigen::MatrixXd& matrix);
// A JSON matrix: a non-empty array of rows of one length (callers check the shape).
Eigen::MatrixXd json_matrix(const JsonFields& fields, const char* field);

}  // namespace ppk::detail
