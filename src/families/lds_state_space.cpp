// Linear-Gaussian state-space machinery shared by the lds and slds families (see lds_state_space.hpp).
#include "families/lds_state_space.hpp"

#include <algorithm>
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
  out.observation.resize(d, n + nb);
  out.observation << a.observation, -b.observation;
  out.observation_noise = a.observation_noise + b.observation_noise;
}

void stack_dynamics(const StateDynamics& a, const StateDynamics& b, StateDynamics& out) {
  block_diagonal(out.transition, a.transition, b.transition);
  block_diagonal(out.noise, a.noise, b.noise);
}

double filter_step_work(long state_dim, long observation_dim) {
  const double size = static_cast<double>(state_dim + observation_dim);
  return size * size * size;
}

double log_kernel_share(double rho, long steps, long observation_dim, double log_det) {
  const double dim = static_cast<double>((steps + 1) * observation_dim);
  return 0.25 * (1.0 - 2.0 * rho) * dim * kLog2Pi - 0.25 * dim * std::log(rho) + 0.5 * (1.0 - rho) * log_det;
}

double log_self_kernel(double share, long steps, long observation_dim, double log_det) {
  const double dim = static_cast<double>((steps + 1) * observation_dim);
  return 2.0 * share - 0.5 * (dim * std::log(2.0) + log_det);
}

std::string infinite_moments_error(const char* family, long steps, long step, const SwitchingStateSpace& model) {
  double radius = 0.0;
  for (const StateDynamics& regime : model.dynamics)
    radius = std::max(radius,
                      Eigen::EigenSolver<Eigen::MatrixXd>(regime.transition, false).eigenvalues().cwiseAbs().maxCoeff());
  return std::string(family) + " kernel at T = " + std::to_string(steps) +
         ": the state's mean or covariance overflows a double at step " + std::to_string(step) +
         ", so the kernel is not finite (the largest spectral radius of the transitions A is " + format_number(radius) +
         (radius >= 1.0 ? ": the state grows without bound" : "") +
         "); give a smaller -d T, or refit: ppk fit lds and slds keep every transition stable";
}

double log_tilted_normalizer(double rho, long steps, long observation_dim, double log_det) {
  const double dim = static_cast<double>((steps + 1) * observation_dim);
  return 0.5 * (1.0 - rho) * (dim * kLog2Pi + log_det) - 0.5 * dim * std::log(rho);
}

namespace {

// F with F F' = S for a symmetric positive semidefinite S: V diag(sqrt(max(lambda, 0))) from S's
// eigenvectors V and eigenvalues lambda (rounding may leave a zero eigenvalue slightly negative).
Eigen::MatrixXd semidefinite_factor(const Eigen::MatrixXd& s) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(s);
  return eigen.eigenvectors() * eigen.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal();
}

// F z, z a fresh standard normal vector.
Eigen::VectorXd correlated_normal(const Eigen::MatrixXd& factor, SampleGenerator& generator) {
  Eigen::VectorXd z(factor.cols());
  for (Eigen::Index i = 0; i < z.size(); ++i) z[i] = generator.normal();
  return factor * z;
}

}  // namespace

void sample_tilted_along(const SwitchingStateSpace& model, const std::vector<std::vector<int>>& paths,
                         const std::vector<std::size_t>& path_of_column, double rho, SampleGenerator& generator,
                         Eigen::Ref<Eigen::MatrixXd> samples) {
  const double scale = 1.0 / std::sqrt(rho);
  const Eigen::MatrixXd initial_factor = scale * semidefinite_factor(model.cov0);
  const Eigen::MatrixXd observation_factor = scale * semidefinite_factor(model.observation_noise);
  std::vector<Eigen::MatrixXd> state_factors;
  for (const StateDynamics& regime : model.dynamics) state_factors.push_back(scale * semidefinite_factor(regime.noise));
  const Eigen::Index d = model.observation.rows();
  for (Eigen::Index k = 0; k < samples.cols(); ++k) {
    const std::vector<int>& path = paths[path_of_column[static_cast<std::size_t>(k)]];
    Eigen::VectorXd state = model.mean0 + correlated_normal(initial_factor, generator);
    for (std::size_t t = 0; t < path.size(); ++t) {
      if (t > 0) {
        const std::size_t regime = static_cast<std::size_t>(path[t]);
        state = model.dynamics[regime].transition * state + correlated_normal(state_factors[regime], generator);
      }
      samples.col(k).segment(static_cast<Eigen::Index>(t) * d, d) =
          model.observation * state + correlated_normal(observation_factor, generator);
    }
  }
}

std::unique_ptr<GaussianModel> joint_observations(const SwitchingStateSpace& model, const std::vector<int>& regimes) {
  const Eigen::Index n = model.mean0.size(), d = model.observation.rows(),
                     count = static_cast<Eigen::Index>(regimes.size());
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

}  // namespace ppk::detail
