// Internal to libppk: matrix-valued fields of the continuous-state families (lds, slds,
// linear_gaussian, fhmm): their checks, their row layouts (a general matrix row by row; a symmetric
// one as its lower triangle row by row, S11, S21, S22, S31, ...) and their JSON form (an array of
// rows). Errors are FieldErrors (model_fields.hpp) naming the family and the field, so that row
// decoders can restate them at indices.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "ppk/core/model_fields.hpp"
#include "ppk/core/row.hpp"

namespace ppk::detail {

// Validation of matrix fields. `where` names the field and where the matrix sits in it (a field
// may hold a list of matrices, one per regime: element offsets and JSON paths then start at the
// matrix's own).
struct MatrixField {
  const char* family;
  const char* field;
  long first_element = 0;   // the offset in the field of the matrix's first stored value
  std::string path_prefix;  // "" or "[k]" (the k-th matrix of the field)
};
void check_shape(const MatrixField& where, const Eigen::MatrixXd& matrix, Eigen::Index rows, Eigen::Index cols,
                 const std::string& meaning);
// Every value finite (a general matrix, stored row by row).
void check_finite(const MatrixField& where, const Eigen::MatrixXd& matrix);
// Symmetric positive semidefinite (cov0, Q): finite, symmetric, and no eigenvalue below -1e-10 times
// the largest magnitude (rounding). Returns it symmetrised.
Eigen::MatrixXd checked_semidefinite(const MatrixField& where, const Eigen::MatrixXd& matrix);
// Symmetric positive definite (R), else the observations have no density. Returns it symmetrised.
Eigen::MatrixXd checked_definite(const MatrixField& where, const Eigen::MatrixXd& matrix);

// Rows: symmetric matrices as their lower triangle row by row, general matrices row by row.
void write_lower_triangle(RowWriter& out, const Eigen::MatrixXd& matrix);
void write_row_major(RowWriter& out, const Eigen::MatrixXd& matrix);
// A matrix read from a row and the indices it occupies (for errors).
struct RowMatrix {
  Eigen::MatrixXd matrix;
  RowFieldSpan span;
};
RowMatrix read_symmetric(RowReader& fields, const char* field, long dim);
RowMatrix read_general(RowReader& fields, const char* field, long rows, long cols);
// `count` matrices stored one after the other in one field.
struct RowMatrices {
  std::vector<Eigen::MatrixXd> matrices;
  RowFieldSpan span;
};
RowMatrices read_symmetric_list(RowReader& fields, const char* field, long count, long dim);
RowMatrices read_general_list(RowReader& fields, const char* field, long count, long rows, long cols);

// JSON: a matrix is an array of rows of one length; a list of matrices an array of those.
nlohmann::json json_rows(const Eigen::MatrixXd& matrix);
Eigen::MatrixXd json_matrix(const JsonFields& fields, const char* field);
std::vector<Eigen::MatrixXd> json_matrices(const JsonFields& fields, const char* field);

}  // namespace ppk::detail
