// Linear dynamical systems and their kernel (see lds.hpp).
//
// The observations X = (x_0..x_T) of an LDS are jointly Gaussian, N(m, S), dimension D = (T+1)d
// (design.md "LDS": S is not block diagonal). The kernel is JMLR 2004 eq. 5 between N(m, S) and
// N(m', S'), in the covariance-sum form of gaussian.cpp:
//     log k = (1-2rho)D/2 log 2pi - D/2 log rho + (1-rho)/2 (log|S| + log|S'|)
//             - 1/2 log|S + S'| - rho/2 (m - m')' (S + S')^-1 (m - m').
// (Equivalently: p^rho = N(X; m, S/rho) (2pi)^((1-rho)D/2) rho^(-D/2) |S|^((1-rho)/2), and the
// integral of N(X; m, S/rho) N(X; m', S'/rho) is N(m - m'; 0, (S + S')/rho).)
//
// Linear time. Every term is a Gaussian log-likelihood term of some state-space model, which a
// Kalman filter evaluates by the prediction-error decomposition: for a model with observations
// y_0..y_T, the joint density factorises as prod_t N(y_t; yhat_t, F_t), yhat_t and F_t the predicted
// mean and innovation covariance of y_t given y_0..y_{t-1}, so for the joint V and mean M of Y
//     log|V| = sum_t log|F_t|,   (y - M)' V^-1 (y - M) = sum_t (y_t - yhat_t)' F_t^-1 (y_t - yhat_t).
//  * log|S|: the filter of the LDS itself (F_t does not depend on the data), once per model at
//    prepare(), for the kernel's T.
//  * S + S' and m - m': Y = X - X' with X, X' drawn independently from the two LDSs is the observation
//    sequence of the LDS with the stacked state z = (s, s') (dimension n + n'):
//        z_0 ~ N((mean0, mean0'), blockdiag(cov0, cov0')),  z_t = blockdiag(A, A') z_{t-1} + N(0, blockdiag(Q, Q')),
//        y_t = [C, -C'] z_t + N(0, R + R'),
//    whose mean is m - m' (E y_t = C A^t mean0 - C' A'^t mean0') and whose covariance is S + S'. Its
//    filter run on the all-zero sequence y = 0 gives log|S + S'| and (0 - (m - m'))' (S + S')^-1 (0 - (m - m')),
//    the quadratic form above.
// Each model contributes (1-2rho)D/4 log 2pi - D/4 log rho + (1-rho)/2 log|S| (prepare()); a pair costs
// one filter over T + 1 steps with an (n + n')-dimensional state: O(T (n + n' + d)^3).
//
// dense_log_kernel builds N(m, S) and N(m', S') explicitly and evaluates the Gaussian family's kernel.
#include "ppk/lds.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <nlohmann/json.hpp>

#include "model_fields.hpp"
#include "ppk/row.hpp"

namespace ppk {

using detail::field_error;
using detail::FieldError;
using detail::format_number;
using detail::json_matrix;
using detail::json_rows;
using detail::lower_triangle_offset;
using detail::write_lower_triangle;

namespace {

const char* const kFamily = "lds";
constexpr long kMaxDim = 1000;          // n and d: n^2 and d n values must fit in a row
constexpr long kMaxLength = 100000000;  // 10^8, as for HMMs
const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);

std::string shape(Eigen::Index rows, Eigen::Index cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

void check_shape(const char* field, const Eigen::MatrixXd& matrix, Eigen::Index rows, Eigen::Index cols,
                 const char* meaning) {
  if (matrix.rows() != rows || matrix.cols() != cols)
    throw field_error(kFamily, field, "a " + shape(rows, cols) + " matrix (" + meaning + ")",
                      shape(matrix.rows(), matrix.cols()));
}

// A general matrix, stored in rows row by row: element i * cols + j.
void check_finite(const char* field, const Eigen::MatrixXd& matrix) {
  for (Eigen::Index i = 0; i < matrix.rows(); ++i)
    for (Eigen::Index j = 0; j < matrix.cols(); ++j)
      if (!std::isfinite(matrix(i, j)))
        throw FieldError(kFamily, field, static_cast<long>(i * matrix.cols() + j),
                         "[" + std::to_string(i) + "][" + std::to_string(j) + "]", "a finite number",
                         format_number(matrix(i, j)));
}

// A symmetric positive semidefinite matrix (cov0, Q): finite, symmetric, and no eigenvalue below
// -1e-10 times the largest magnitude (rounding). Returns it symmetrised.
Eigen::MatrixXd checked_semidefinite(const char* field, const Eigen::MatrixXd& matrix) {
  detail::check_symmetric(kFamily, field, matrix);
  Eigen::MatrixXd symmetric = 0.5 * (matrix + matrix.transpose());
  const Eigen::VectorXd eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric, Eigen::EigenvaluesOnly).eigenvalues();
  if (eigenvalues.minCoeff() < -1e-10 * eigenvalues.cwiseAbs().maxCoeff())
    throw field_error(kFamily, field, "a positive semidefinite matrix",
                      "a smallest eigenvalue of " + format_number(eigenvalues.minCoeff()));
  return symmetric;
}

// R: symmetric positive definite, else the observations have no density.
Eigen::MatrixXd checked_definite(const char* field, const Eigen::MatrixXd& matrix) {
  detail::check_symmetric(kFamily, field, matrix);
  Eigen::MatrixXd symmetric = 0.5 * (matrix + matrix.transpose());
  const Eigen::LLT<Eigen::MatrixXd> llt(symmetric);
  if (llt.info() != Eigen::Success || !(llt.matrixLLT().diagonal().array() > 0.0).all())
    throw field_error(kFamily, field,
                      "a positive definite matrix (the observation noise; its Cholesky factorisation failed)");
  return symmetric;
}

// The state-space model z_0 ~ N(start_mean, start_cov), z_t = transition z_{t-1} + N(0, noise),
// y_t = observation z_t + N(0, observation_noise), t = 0..steps.
struct StateSpace {
  Eigen::VectorXd start_mean;
  Eigen::MatrixXd start_cov, transition, noise, observation, observation_noise;
};

// Sums of the prediction-error decomposition of the sequence y = 0 (the file comment).
struct InnovationSums {
  double log_det = 0.0;    // sum_t log|F_t| = log|V|
  double quadratic = 0.0;  // sum_t yhat_t' F_t^-1 yhat_t = M' V^-1 M
};

// The Kalman filter of `model` over y_0..y_steps = 0. NaN sums when an innovation covariance is not
// numerically positive definite. Scratch is per thread: kernels run from several threads at once.
InnovationSums innovation_sums(const StateSpace& model, long steps) {
  thread_local Eigen::VectorXd mean, predicted, whitened;
  thread_local Eigen::MatrixXd cov, scratch, observed_cov, innovation_cov, gain_transposed;
  thread_local Eigen::LLT<Eigen::MatrixXd> llt;
  mean = model.start_mean;  // z_t given y_0..y_{t-1}
  cov = model.start_cov;
  InnovationSums sums;
  for (long t = 0;; ++t) {
    predicted.noalias() = model.observation * mean;   // yhat_t; the innovation is 0 - yhat_t
    observed_cov.noalias() = model.observation * cov;  // H P
    innovation_cov = model.observation_noise;
    innovation_cov.noalias() += observed_cov * model.observation.transpose();  // F_t = H P H' + U
    llt.compute(innovation_cov);
    if (llt.info() != Eigen::Success) return {std::nan(""), std::nan("")};
    sums.log_det += 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    whitened = predicted;
    llt.matrixL().solveInPlace(whitened);
    sums.quadratic += whitened.squaredNorm();
    if (t == steps) break;
    // Update on y_t = 0 with the gain K = P H' F^-1: mean - K yhat, P - K H P; then predict.
    gain_transposed = observed_cov;
    llt.solveInPlace(gain_transposed);  // F^-1 H P = K'
    mean.noalias() -= gain_transposed.transpose() * predicted;
    cov.noalias() -= observed_cov.transpose() * gain_transposed;
    predicted.noalias() = model.transition * mean;
    mean.swap(predicted);
    scratch.noalias() = model.transition * cov;
    cov.noalias() = scratch * model.transition.transpose();
    cov += model.noise;
    scratch = cov.transpose();
    cov = 0.5 * (cov + scratch);  // rounding leaves P slightly asymmetric
  }
  return sums;
}

}  // namespace

struct LdsModel::Impl {
  Eigen::VectorXd mean0;
  Eigen::MatrixXd cov0, transition, state_noise, observation, observation_noise;
  long length = 0;
  // Set by prepare():
  double rho = 0.0;
  long steps = -1;         // the T of the kernel
  double log_scale = 0.0;  // (1-2rho)D/4 log 2pi - D/4 log rho + (1-rho)/2 log|S|
};

LdsModel::LdsModel(Eigen::VectorXd mean0, Eigen::MatrixXd cov0, Eigen::MatrixXd transition,
                   Eigen::MatrixXd state_noise, Eigen::MatrixXd observation, Eigen::MatrixXd observation_noise,
                   long length)
    : impl_(std::make_unique<Impl>()) {
  const Eigen::Index n = mean0.size(), d = observation.rows();
  if (n < 1 || n > kMaxDim)
    throw field_error(kFamily, "mean0", "between 1 and " + std::to_string(kMaxDim) + " values (the state dimension)",
                      std::to_string(n) + " values");
  if (d < 1 || d > kMaxDim)
    throw field_error(kFamily, "C", "between 1 and " + std::to_string(kMaxDim) + " rows (the observation dimension)",
                      std::to_string(d) + " rows");
  if (length < 0 || length > kMaxLength)
    throw field_error(kFamily, "length", detail::whole_numbers(0, kMaxLength), std::to_string(length));
  for (Eigen::Index i = 0; i < n; ++i)
    if (!std::isfinite(mean0[i])) throw detail::element_error(kFamily, "mean0", i, "a finite number", mean0[i]);
  check_shape("cov0", cov0, n, n, "n x n, n = the length of mean0");
  check_shape("A", transition, n, n, "n x n, n = the length of mean0");
  check_shape("Q", state_noise, n, n, "n x n, n = the length of mean0");
  check_shape("C", observation, d, n, "d x n, n = the length of mean0");
  check_shape("R", observation_noise, d, d, "d x d, d = the number of rows of C");
  check_finite("A", transition);
  check_finite("C", observation);
  Impl& m = *impl_;
  m.cov0 = checked_semidefinite("cov0", cov0);
  m.state_noise = checked_semidefinite("Q", state_noise);
  m.observation_noise = checked_definite("R", observation_noise);
  m.mean0 = std::move(mean0);
  m.transition = std::move(transition);
  m.observation = std::move(observation);
  m.length = length;
}

LdsModel::~LdsModel() = default;

const Eigen::VectorXd& LdsModel::mean0() const { return impl_->mean0; }
const Eigen::MatrixXd& LdsModel::cov0() const { return impl_->cov0; }
const Eigen::MatrixXd& LdsModel::transition() const { return impl_->transition; }
const Eigen::MatrixXd& LdsModel::state_noise() const { return impl_->state_noise; }
const Eigen::MatrixXd& LdsModel::observation() const { return impl_->observation; }
const Eigen::MatrixXd& LdsModel::observation_noise() const { return impl_->observation_noise; }
long LdsModel::state_dim() const { return static_cast<long>(impl_->mean0.size()); }
long LdsModel::observation_dim() const { return static_cast<long>(impl_->observation.rows()); }
long LdsModel::length() const { return impl_->length; }
long LdsModel::steps() const { return impl_->steps >= 0 ? impl_->steps : impl_->length; }

const FamilyInfo& LdsModel::family() const { return lds_family(); }

// x_0..x_T, T + 1 real d-vectors. A kind of its own: an HMM with Gaussian emissions lives on the same
// set, but no kernel between the two families is written, and a mixture must not mix them.
SampleSpace LdsModel::sample_space() const {
  return {"linear-Gaussian sequences of " + std::to_string(steps() + 1) + " real vectors", observation_dim()};
}

void LdsModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.rho = params.rho;
  m.steps = params.length > 0 ? params.length : m.length;
  const StateSpace own{Eigen::VectorXd::Zero(m.mean0.size()), m.cov0, m.transition, m.state_noise, m.observation,
                       m.observation_noise};
  const double log_det = innovation_sums(own, m.steps).log_det;  // log|S|
  const double dim = static_cast<double>((m.steps + 1) * observation_dim());
  m.log_scale = 0.25 * (1.0 - 2.0 * m.rho) * dim * kLog2Pi - 0.25 * dim * std::log(m.rho) + 0.5 * (1.0 - m.rho) * log_det;
}

double LdsModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const LdsModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.steps != b.steps || a.observation.rows() != b.observation.rows())
    detail::throw_unprepared_pair(kFamily);
  // The stacked model of Y = X - X' (the file comment), assembled in per-thread scratch.
  const Eigen::Index n = a.mean0.size(), nb = b.mean0.size(), d = a.observation.rows();
  thread_local StateSpace pair;
  pair.start_mean.resize(n + nb);
  pair.start_mean << a.mean0, b.mean0;
  const auto block_diagonal = [n, nb](Eigen::MatrixXd& out, const Eigen::MatrixXd& top, const Eigen::MatrixXd& bottom) {
    out.setZero(n + nb, n + nb);
    out.topLeftCorner(n, n) = top;
    out.bottomRightCorner(nb, nb) = bottom;
  };
  block_diagonal(pair.start_cov, a.cov0, b.cov0);
  block_diagonal(pair.transition, a.transition, b.transition);
  block_diagonal(pair.noise, a.state_noise, b.state_noise);
  pair.observation.resize(d, n + nb);
  pair.observation << a.observation, -b.observation;
  pair.observation_noise = a.observation_noise + b.observation_noise;
  const InnovationSums sums = innovation_sums(pair, a.steps);
  return a.log_scale + b.log_scale - 0.5 * (sums.log_det + a.rho * sums.quadratic);
}

std::unique_ptr<GaussianModel> LdsModel::joint_observations() const {
  const Impl& m = *impl_;
  const Eigen::Index n = m.mean0.size(), d = m.observation.rows(), count = steps() + 1;
  Eigen::VectorXd mean(count * d);
  Eigen::MatrixXd covariance(count * d, count * d);
  Eigen::VectorXd state_mean = m.mean0;  // A^t mean0
  Eigen::MatrixXd state_cov = m.cov0;    // Sigma_u = A Sigma_{u-1} A' + Q
  Eigen::MatrixXd cross(n, d);           // cov(s_t, x_u) = A^(t-u) Sigma_u C'
  for (Eigen::Index u = 0; u < count; ++u) {
    mean.segment(u * d, d) = m.observation * state_mean;
    cross = state_cov * m.observation.transpose();
    for (Eigen::Index t = u; t < count; ++t) {
      covariance.block(t * d, u * d, d, d) = m.observation * cross;  // cov(x_t, x_u), t >= u
      if (t > u) covariance.block(u * d, t * d, d, d) = covariance.block(t * d, u * d, d, d).transpose();
      cross = m.transition * cross;
    }
    covariance.block(u * d, u * d, d, d) += m.observation_noise;
    state_mean = m.transition * state_mean;
    state_cov = m.transition * state_cov * m.transition.transpose() + m.state_noise;
  }
  return GaussianModel::full(std::move(mean), std::move(covariance));
}

double dense_log_kernel(const LdsModel& a, const LdsModel& b) {
  if (a.impl_->rho <= 0.0 || a.impl_->rho != b.impl_->rho || a.steps() != b.steps()) detail::throw_unprepared_pair(kFamily);
  KernelParams params;
  params.rho = a.impl_->rho;
  const auto joint_a = a.joint_observations(), joint_b = b.joint_observations();
  joint_a->prepare(params);
  joint_b->prepare(params);
  return joint_a->log_kernel(*joint_b);
}

namespace {

void write_row_major(RowWriter& out, const Eigen::MatrixXd& matrix) {
  for (Eigen::Index i = 0; i < matrix.rows(); ++i)
    for (Eigen::Index j = 0; j < matrix.cols(); ++j) out.real(matrix(i, j));
}

}  // namespace

// Row fields: n, d, T, mean0, cov0, A, Q, C, R (see lds.hpp).
void LdsModel::encode_fields(RowWriter& out) const {
  const Impl& m = *impl_;
  out.real(static_cast<double>(state_dim()));
  out.real(static_cast<double>(observation_dim()));
  out.real(static_cast<double>(m.length));
  out.reals(m.mean0.data(), m.mean0.data() + m.mean0.size());
  write_lower_triangle(out, m.cov0);
  write_row_major(out, m.transition);
  write_lower_triangle(out, m.state_noise);
  write_row_major(out, m.observation);
  write_lower_triangle(out, m.observation_noise);
}

void LdsModel::to_json(nlohmann::json& out) const {
  const Impl& m = *impl_;
  out = nlohmann::json::object();
  out["family"] = kFamily;
  out["mean0"] = std::vector<double>(m.mean0.data(), m.mean0.data() + m.mean0.size());
  out["cov0"] = json_rows(m.cov0);
  out["A"] = json_rows(m.transition);
  out["Q"] = json_rows(m.state_noise);
  out["C"] = json_rows(m.observation);
  out["R"] = json_rows(m.observation_noise);
  out["length"] = m.length;
}

namespace {

struct RowMatrix {
  Eigen::MatrixXd matrix;
  detail::RowFieldSpan span;
};

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
  return {Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(values.data(), rows, cols),
          {field, first, rows * cols}};
}

std::unique_ptr<Model> decode_lds(RowReader& fields) {
  const long states = fields.integer("n", 1, kMaxDim);
  const long dim = fields.integer("d", 1, kMaxDim);
  const long length_first = fields.next_index();
  const long length = fields.integer("length", 0, kMaxLength);
  const long mean_first = fields.next_index();
  const std::vector<double> mean0 = fields.reals("mean0", static_cast<std::size_t>(states));
  RowMatrix cov0 = read_symmetric(fields, "cov0", states);
  RowMatrix transition = read_general(fields, "A", states, states);
  RowMatrix state_noise = read_symmetric(fields, "Q", states);
  RowMatrix observation = read_general(fields, "C", dim, states);
  RowMatrix observation_noise = read_symmetric(fields, "R", dim);
  return detail::build_from_row(
      {{"length", length_first, 1}, {"mean0", mean_first, states}, cov0.span, transition.span, state_noise.span,
       observation.span, observation_noise.span},
      [&] {
        return std::make_unique<LdsModel>(Eigen::Map<const Eigen::VectorXd>(mean0.data(), states),
                                          std::move(cov0.matrix), std::move(transition.matrix),
                                          std::move(state_noise.matrix), std::move(observation.matrix),
                                          std::move(observation_noise.matrix), length);
      });
}

std::unique_ptr<Model> lds_from_json(const nlohmann::json& object) {
  const detail::JsonFields fields(object, kFamily, {"mean0", "cov0", "A", "Q", "C", "R", "length"});
  const std::vector<double> mean0 = fields.reals("mean0");
  const long length = fields.whole_number("length", 0, kMaxLength);
  return std::make_unique<LdsModel>(Eigen::Map<const Eigen::VectorXd>(mean0.data(), static_cast<Eigen::Index>(mean0.size())),
                                    json_matrix(fields, "cov0"), json_matrix(fields, "A"), json_matrix(fields, "Q"),
                                    json_matrix(fields, "C"), json_matrix(fields, "R"), length);
}

}  // namespace

const FamilyInfo& lds_family() {
  static const FamilyInfo info{kFamily, 11, &decode_lds, &lds_from_json};
  return info;
}

}  // namespace ppk
