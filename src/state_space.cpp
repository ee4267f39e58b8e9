// Linear-Gaussian state-space machinery shared by the lds and slds families (see state_space.hpp).
#include "state_space.hpp"

#include <cmath>
#include <string>
#include <utility>

#include <Eigen/Eigenvalues>

namespace ppk::detail {

namespace {

const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);

// Into `out`'s storage (no allocation when it already has the size).
void block_diagonal(Eigen::MatrixXd& out, const Eigen::MatrixXd& top, const Eigen::MatrixXd& bottom) {
  out.setZero(top.rows() + bottom.rows(), top.cols() + bottom.cols());
  out.topLeftCorner(top.rows(), top.cols()) = top;
  out.bottomRightCorner(bottom.rows(), bottom.cols()) = bottom;
}

}  // namespace

void stack_difference(const SwitchingStateSpace& a, const SwitchingStateSpace& b, SwitchingStateSpace& out) {
  const Eigen::Index n = a.mean0.size(), nb = b.mean0.size(), d = a.observation.rows();
  out.mean0.resize(n + nb);
  out.mean0 << a.mean0, b.mean0;
  block_diagonal(out.cov0, a.cov0, b.cov0);
  out.dynamics.resize(a.dynamics.size() * b.dynamics.size());
  for (std::size_t k = 0; k < a.dynamics.size(); ++k)
    for (std::size_t kb = 0; kb < b.dynamics.size(); ++kb) {
      StateDynamics& pair = out.dynamics[k * b.dynamics.size() + kb];
      block_diagonal(pair.transition, a.dynamics[k].transition, b.dynamics[kb].transition);
      block_diagonal(pair.noise, a.dynamics[k].noise, b.dynamics[kb].noise);
    }
  out.observation.resize(d, n + nb);
  out.observation << a.observation, -b.observation;
  out.observation_noise = a.observation_noise + b.observation_noise;
}

double log_kernel_share(double rho, long steps, long observation_dim, double log_det) {
  const double dim = static_cast<double>((steps + 1) * observation_dim);
  return 0.25 * (1.0 - 2.0 * rho) * dim * kLog2Pi - 0.25 * dim * std::log(rho) + 0.5 * (1.0 - rho) * log_det;
}

std::unique_ptr<GaussianModel> joint_observations(const SwitchingStateSpace& model, const std::vector<int>& regimes) {
  const Eigen::Index n = model.mean0.size(), d = model.observation.rows(), count = static_cast<Eigen::Index>(regimes.size());
  const auto dynamics = [&](Eigen::Index t) -> const StateDynamics& {
    return model.dynamics[static_cast<std::size_t>(regimes[static_cast<std::size_t>(t)])];
  };
  Eigen::VectorXd mean(count * d);
  Eigen::MatrixXd covariance(count * d, count * d);
  Eigen::VectorXd state_mean = model.mean0;  // m_u
  Eigen::MatrixXd state_cov = model.cov0;    // Sigma_u
  Eigen::MatrixXd cross(n, d);               // cov(s_t, x_u) = A_t .. A_{u+1} Sigma_u C'
  for (Eigen::Index u = 0; u < count; ++u) {
    if (u > 0) {
      state_mean = dynamics(u).transition * state_mean;
      state_cov = dynamics(u).transition * state_cov * dynamics(u).transition.transpose() + dynamics(u).noise;
    }
    mean.segment(u * d, d) = model.observation * state_mean;
    cross = state_cov * model.observation.transpose();
    for (Eigen::Index t = u; t < count; ++t) {
      if (t > u) cross = dynamics(t).transition * cross;
      covariance.block(t * d, u * d, d, d) = model.observation * cross;  // cov(x_t, x_u), t >= u
      if (t > u) covariance.block(u * d, t * d, d, d) = covariance.block(t * d, u * d, d, d).transpose();
    }
    covariance.block(u * d, u * d, d, d) += model.observation_noise;
  }
  return GaussianModel::full(std::move(mean), std::move(covariance));
}

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
  const Eigen::VectorXd eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric, Eigen::EigenvaluesOnly).eigenvalues();
  if (eigenvalues.minCoeff() < -1e-10 * eigenvalues.cwiseAbs().maxCoeff())
    throw in_field(where, field_error(where.family, where.field, "a positive semidefinite matrix",
                                      "a smallest eigenvalue of " + format_number(eigenvalues.minCoeff())));
  return symmetric;
}

Eigen::MatrixXd checked_definite(const MatrixField& where, const Eigen::MatrixXd& matrix) {
  Eigen::MatrixXd symmetric = checked_symmetric(where, matrix);
  const Eigen::LLT<Eigen::MatrixXd> llt(symmetric);
  if (llt.info() != Eigen::Success || !(llt.matrixLLT().diagonal().array() > 0.0).all())
    throw in_field(where, field_error(where.family, where.field,
                                      "a positive definite matrix (the observation noise; its Cholesky factorisation failed)"));
  return symmetric;
}

SwitchingStateSpace checked_state_space(const char* family, Eigen::VectorXd mean0, Eigen::MatrixXd cov0,
                                        Eigen::MatrixXd observation, Eigen::MatrixXd observation_noise, long length) {
  const Eigen::Index n = mean0.size(), d = observation.rows();
  const std::string limit = "between 1 and " + std::to_string(kMaxStateSpaceDim);
  if (n < 1 || n > kMaxStateSpaceDim)
    throw field_error(family, "mean0", limit + " values (the state dimension)", std::to_string(n) + " values");
  if (d < 1 || d > kMaxStateSpaceDim)
    throw field_error(family, "C", limit + " rows (the observation dimension)", std::to_string(d) + " rows");
  if (length < 0 || length > kMaxSequenceLength)
    throw field_error(family, "length", whole_numbers(0, kMaxSequenceLength), std::to_string(length));
  for (Eigen::Index i = 0; i < n; ++i)
    if (!std::isfinite(mean0[i])) throw element_error(family, "mean0", i, "a finite number", mean0[i]);
  const auto field = [family](const char* name) { return MatrixField{family, name, 0, ""}; };
  check_shape(field("cov0"), cov0, n, n, "n x n, n = the length of mean0");
  check_shape(field("C"), observation, d, n, "d x n, n = the length of mean0");
  check_shape(field("R"), observation_noise, d, d, "d x d, d = the number of rows of C");
  check_finite(field("C"), observation);
  SwitchingStateSpace space;
  space.cov0 = checked_semidefinite(field("cov0"), cov0);
  space.observation_noise = checked_definite(field("R"), observation_noise);
  space.mean0 = std::move(mean0);
  space.observation = std::move(observation);
  return space;
}

void add_dynamics(SwitchingStateSpace& space, const char* family, Eigen::MatrixXd transition, Eigen::MatrixXd noise,
                  long regime) {
  const Eigen::Index n = space.mean0.size();
  const auto field = [&](const char* name, long size) {
    return regime < 0 ? MatrixField{family, name, 0, ""}
                      : MatrixField{family, name, regime * size, "[" + std::to_string(regime) + "]"};
  };
  const MatrixField transition_field = field("A", n * n), noise_field = field("Q", n * (n + 1) / 2);
  check_shape(transition_field, transition, n, n, "n x n, n = the length of mean0");
  check_shape(noise_field, noise, n, n, "n x n, n = the length of mean0");
  check_finite(transition_field, transition);
  space.dynamics.push_back({std::move(transition), checked_semidefinite(noise_field, noise)});
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
