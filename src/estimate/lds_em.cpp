// The shared EM pieces for state-space models (lds_em.hpp): the smoother along a regime path and the
// M-step's closed forms (the derivations are in estimate_lds.hpp and estimate_slds.hpp).
#include "estimate/lds_em.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "estimate/gaussian_em.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk::detail {
namespace {

const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);

// Factorises a covariance that must be positive definite into `llt` (its storage reused).
void factorise(Eigen::LLT<Eigen::MatrixXd>& llt, const Eigen::MatrixXd& covariance, const char* what) {
  llt.compute(covariance);
  if (llt.info() != Eigen::Success || !(llt.matrixLLT().diagonal().array() > 0.0).all())
    throw OptionError(std::string("the ") + what + " is not numerically positive definite; give {ridge} R > 0");
}

// The Cholesky factorisation of a covariance that must be positive definite.
Eigen::LLT<Eigen::MatrixXd> cholesky(const Eigen::MatrixXd& covariance, const char* what) {
  Eigen::LLT<Eigen::MatrixXd> llt;
  factorise(llt, covariance, what);
  return llt;
}

// log|S| from the Cholesky factor of S.
double log_determinant(const Eigen::LLT<Eigen::MatrixXd>& llt) {
  return 2.0 * llt.matrixLLT().diagonal().array().log().sum();
}

// S <- (S + S') / 2 in place.
void symmetrise(Eigen::MatrixXd& s) {
  for (Eigen::Index j = 0; j < s.cols(); ++j)
    for (Eigen::Index i = j + 1; i < s.rows(); ++i) s(i, j) = s(j, i) = 0.5 * (s(i, j) + s(j, i));
}

// The scratch of smooth_along, one per thread and kept between calls: an E-step allocates only when
// N, n or d changed since the thread's previous one.
struct SmootherWorkspace {
  std::vector<Eigen::VectorXd> predicted_means;  // s_t|t-1
  std::vector<Eigen::MatrixXd> predicted_covs;   // P_t = P_t|t-1
  // The information form's invariants of one E-step: R = L_R L_R', W = L_R^-1 C, G = W'W = C' R^-1 C.
  // And the whitened data L_R^-1 x_t (column t; one triangular solve with N right-hand sides).
  Eigen::LLT<Eigen::MatrixXd> noise_cholesky;
  Eigen::MatrixXd whitened_observation, observation_information, whitened_data;
  double noise_log_det = 0;
  // Per step.
  Eigen::LLT<Eigen::MatrixXd> predicted_cholesky, innovation_cholesky, whitened_precision_cholesky;
  Eigen::VectorXd innovation, projected_innovation, state_innovation, difference;
  Eigen::MatrixXd observed_cov, innovation_cov, gain_transposed, gain_noise;      // d x n, d x d, d x n, n x d
  Eigen::MatrixXd reduction, product, filtered_factor, smoother_gain_transposed;  // n x n
};

// One covariance-form update of the filter on x_t (estimate_lds.hpp): innovation e = x_t - C s_t|t-1
// with covariance F = C P C' + R (LLT reads its lower triangle), gain K = P C' F^-1, filtered
// s_t|t = s_t|t-1 + K e and V_t|t = (I - K C) P (I - K C)' + K R K' (Joseph's form). O(d^3 + d^2 n + n^2 d).
// Returns log N(e; 0, F).
double covariance_update(const SwitchingStateSpace& p, const Eigen::MatrixXd& x, Eigen::Index t,
                         const Eigen::VectorXd& predicted_mean, const Eigen::MatrixXd& predicted_cov,
                         SmootherWorkspace& w, Eigen::VectorXd& filtered_mean, Eigen::MatrixXd& filtered_cov) {
  const Eigen::Index n = predicted_mean.size(), d = x.cols();
  w.observed_cov.noalias() = p.observation * predicted_cov;  // C P
  w.innovation_cov = p.observation_noise;
  w.innovation_cov.noalias() += w.observed_cov * p.observation.transpose();  // F
  factorise(w.innovation_cholesky, w.innovation_cov, "innovation covariance");
  w.innovation = x.row(t).transpose();
  w.innovation.noalias() -= p.observation * predicted_mean;  // e
  w.gain_transposed = w.observed_cov;
  w.innovation_cholesky.solveInPlace(w.gain_transposed);  // K' = F^-1 C P
  filtered_mean = predicted_mean;
  filtered_mean.noalias() += w.gain_transposed.transpose() * w.innovation;
  w.reduction.setIdentity(n, n);
  w.reduction.noalias() -= w.gain_transposed.transpose() * p.observation;  // I - K C
  w.product.noalias() = w.reduction * predicted_cov;
  filtered_cov.noalias() = w.product * w.reduction.transpose();
  w.gain_noise.noalias() = w.gain_transposed.transpose() * p.observation_noise;  // K R
  filtered_cov.noalias() += w.gain_noise * w.gain_transposed;
  symmetrise(filtered_cov);
  w.innovation_cholesky.matrixL().solveInPlace(w.innovation);  // L_F^-1 e
  return -0.5 * (static_cast<double>(d) * kLog2Pi + log_determinant(w.innovation_cholesky) + w.innovation.squaredNorm());
}

// The same update in information form, for n < d, from the factor P = L_P L_P' (w.predicted_cholesky)
// and the E-step's invariants L_R, W = L_R^-1 C, G = C' R^-1 C and L_R^-1 x_t. With B = I + L_P' G L_P = L_B L_B'
// (n x n, B >= I; B = L_P' V_t|t^-1 L_P, the filtered precision in the predicted state's whitened
// coordinates), the matrix inversion lemma and the matrix determinant lemma give
//     F^-1 = R^-1 - R^-1 C L_P B^-1 L_P' C' R^-1,   log|F| = log|R| + log|B|,
// and with L_R^-1 e = L_R^-1 x_t - W s_t|t-1, b = C' R^-1 e = W' L_R^-1 e and z = L_B^-1 L_P' b,
//     e' F^-1 e = |L_R^-1 e|^2 - |z|^2,
//     K e = P C' F^-1 e = L_P B^-1 L_P' b = L_P L_B^-T z,
//     V_t|t = P - P C' F^-1 C P = L_P B^-1 L_P' = Z'Z,  Z = L_B^-1 L_P'
// (V_t|t = (P^-1 + C' R^-1 C)^-1, the information filter's update). O(d n + n^3) per step, after
// the E-step's O(d^2 (n + N)) for W and the whitened data.
double information_update(Eigen::Index t, const Eigen::VectorXd& predicted_mean, SmootherWorkspace& w,
                          Eigen::VectorXd& filtered_mean, Eigen::MatrixXd& filtered_cov) {
  const Eigen::Index n = predicted_mean.size(), d = w.whitened_data.rows();
  const auto predicted_factor = w.predicted_cholesky.matrixL();  // L_P
  w.product.noalias() = w.observation_information * predicted_factor;
  w.reduction.setIdentity(n, n);
  w.reduction.noalias() += predicted_factor.transpose() * w.product;  // B = I + L_P' G L_P
  factorise(w.whitened_precision_cholesky, w.reduction, "innovation covariance");
  const auto precision_factor = w.whitened_precision_cholesky.matrixL();  // L_B
  w.innovation = w.whitened_data.col(t);
  w.innovation.noalias() -= w.whitened_observation * predicted_mean;                     // L_R^-1 e
  w.projected_innovation.noalias() = w.whitened_observation.transpose() * w.innovation;  // b
  w.state_innovation.noalias() = predicted_factor.transpose() * w.projected_innovation;
  precision_factor.solveInPlace(w.state_innovation);  // z
  const double quadratic = w.innovation.squaredNorm() - w.state_innovation.squaredNorm();
  precision_factor.transpose().solveInPlace(w.state_innovation);  // L_B^-T z
  filtered_mean = predicted_mean;
  filtered_mean.noalias() += predicted_factor * w.state_innovation;
  w.filtered_factor = predicted_factor.transpose();
  precision_factor.solveInPlace(w.filtered_factor);  // Z
  filtered_cov.noalias() = w.filtered_factor.transpose() * w.filtered_factor;
  symmetrise(filtered_cov);
  return -0.5 * (static_cast<double>(d) * kLog2Pi + w.noise_log_det + log_determinant(w.whitened_precision_cholesky) +
                 quadratic);
}

}  // namespace

Eigen::MatrixXd symmetrised(const Eigen::MatrixXd& s) { return 0.5 * (s + s.transpose()); }

double trace_of_inverse(const Eigen::MatrixXd& s, const char* what) {
  return cholesky(s, what).solve(Eigen::MatrixXd::Identity(s.rows(), s.cols())).trace();
}

void smooth_along(const SwitchingStateSpace& p, const Eigen::MatrixXd& x, const std::vector<int>& regimes,
                  LdsPosterior& out) {
  const Eigen::Index count = x.rows(), n = p.mean0.size(), d = x.cols();
  const auto dynamics = [&](Eigen::Index t) -> const StateDynamics& {
    return p.dynamics[static_cast<std::size_t>(regimes[static_cast<std::size_t>(t)])];
  };
  thread_local SmootherWorkspace w;
  const auto steps = static_cast<std::size_t>(count);
  w.predicted_means.resize(steps);
  w.predicted_covs.resize(steps);
  out.means.resize(steps);        // s_t|t, then s_t|N
  out.covariances.resize(steps);  // V_t|t, then V_t|N
  out.lag_covariances.resize(steps - 1);
  out.log_likelihood = 0;
  // The information form costs O(d n + n^3) a step against the covariance form's O(d^3): it is taken
  // when n < d, at every step whose P_t is numerically positive definite (a semidefinite cov0 may not be).
  const bool information_form = n < d;
  if (information_form) {
    factorise(w.noise_cholesky, p.observation_noise, "observation noise covariance");
    w.noise_log_det = log_determinant(w.noise_cholesky);
    w.whitened_observation = p.observation;
    w.noise_cholesky.matrixL().solveInPlace(w.whitened_observation);
    w.observation_information.noalias() = w.whitened_observation.transpose() * w.whitened_observation;
    w.whitened_data = x.transpose();
    w.noise_cholesky.matrixL().solveInPlace(w.whitened_data);
  }
  for (Eigen::Index t = 0; t < count; ++t) {
    const auto u = static_cast<std::size_t>(t);
    Eigen::VectorXd& predicted_mean = w.predicted_means[u];
    Eigen::MatrixXd& predicted_cov = w.predicted_covs[u];
    if (t == 0) {
      predicted_mean = p.mean0;
      predicted_cov = p.cov0;
    } else {
      const StateDynamics& step = dynamics(t);
      predicted_mean.noalias() = step.transition * out.means[u - 1];
      w.product.noalias() = step.transition * out.covariances[u - 1];
      predicted_cov = step.noise;
      predicted_cov.noalias() += w.product * step.transition.transpose();  // A V_t-1|t-1 A' + Q
      symmetrise(predicted_cov);
    }
    if (information_form) w.predicted_cholesky.compute(predicted_cov);
    out.log_likelihood +=
        information_form && w.predicted_cholesky.info() == Eigen::Success
            ? information_update(t, predicted_mean, w, out.means[u], out.covariances[u])
            : covariance_update(p, x, t, predicted_mean, predicted_cov, w, out.means[u], out.covariances[u]);
  }
  for (Eigen::Index t = count - 2; t >= 0; --t) {
    const auto u = static_cast<std::size_t>(t);
    // J_t' = P_t+1|t^-1 A_t+1 V_t|t.
    factorise(w.predicted_cholesky, w.predicted_covs[u + 1], "predicted state covariance");
    Eigen::MatrixXd& gain_transposed = w.smoother_gain_transposed;
    gain_transposed.noalias() = dynamics(t + 1).transition * out.covariances[u];
    w.predicted_cholesky.solveInPlace(gain_transposed);
    w.difference = out.means[u + 1] - w.predicted_means[u + 1];
    out.means[u].noalias() += gain_transposed.transpose() * w.difference;  // s_t|t + J_t (s_t+1|N - s_t+1|t)
    w.reduction = out.covariances[u + 1] - w.predicted_covs[u + 1];
    w.product.noalias() = w.reduction * gain_transposed;
    out.covariances[u].noalias() += gain_transposed.transpose() * w.product;  // V_t|t + J_t (V_t+1|N - P_t+1|t) J_t'
    symmetrise(out.covariances[u]);
    out.lag_covariances[u].noalias() = out.covariances[u + 1] * gain_transposed;  // V_t+1|N J_t'
  }
}

LdsPosterior smooth_along(const SwitchingStateSpace& p, const Eigen::MatrixXd& x, const std::vector<int>& regimes) {
  LdsPosterior out;
  smooth_along(p, x, regimes, out);
  return out;
}

Eigen::MatrixXd second_moment(const LdsPosterior& posterior, Eigen::Index t) {
  const auto u = static_cast<std::size_t>(t);
  return posterior.covariances[u] + posterior.means[u] * posterior.means[u].transpose();
}

TransitionSums transition_sums(const LdsPosterior& posterior, const std::vector<int>& regimes, int regime) {
  const Eigen::Index n = posterior.means[0].size();
  TransitionSums sums{Eigen::MatrixXd::Zero(n, n), Eigen::MatrixXd::Zero(n, n), Eigen::MatrixXd::Zero(n, n), 0.0};
  for (std::size_t t = 1; t < posterior.means.size(); ++t) {
    if (regimes[t] != regime) continue;
    sums.previous += second_moment(posterior, static_cast<Eigen::Index>(t - 1));
    sums.next += second_moment(posterior, static_cast<Eigen::Index>(t));
    sums.lag += posterior.lag_covariances[t - 1] + posterior.means[t] * posterior.means[t - 1].transpose();
    sums.steps += 1.0;
  }
  return sums;
}

void add_transition_sums(const TransitionSums& more, TransitionSums& into) {
  into.previous += more.previous;
  into.next += more.next;
  into.lag += more.lag;
  into.steps += more.steps;
}

double spectral_radius(const Eigen::MatrixXd& a) {
  return Eigen::EigenSolver<Eigen::MatrixXd>(a, false).eigenvalues().cwiseAbs().maxCoeff();
}

double spectral_norm(const Eigen::MatrixXd& a) { return Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues()(0); }

Eigen::VectorXd observation_noise_floor(const Eigen::MatrixXd& x) {
  Eigen::VectorXd variances = (x.rowwise() - x.colwise().mean()).colwise().squaredNorm() / static_cast<double>(x.rows());
  const double positive = (variances.array() > 0.0).count();
  const double fallback = positive > 0 ? variances.sum() / positive : 1.0;
  for (Eigen::Index j = 0; j < variances.size(); ++j)
    if (!(variances(j) > 0.0)) variances(j) = fallback;
  return kObservationNoiseFloor * variances;
}

// With Omega = S^-1 the objective is (m/2) (log|Omega| - tr(Omega W)), concave, over Omega <= diag(floor)^-1.
// In the whitened coordinates (D^-1 W D^-1 = U L U', Omega~ = D Omega D <= I) the maximiser commutes
// with L (von Neumann's trace inequality) and each eigenvalue solves max log w - w l over w <= 1:
// w = min(1 / l, 1), so S = D U max(L, 1) U' D.
Eigen::MatrixXd floored_covariance(const Eigen::MatrixXd& w, const Eigen::VectorXd& floor) {
  // Every eigenvalue L exceeds 1 exactly when W - diag(floor) is positive definite: then S = W, found
  // by a Cholesky factorisation (d^3 / 3 flops) instead of the eigendecomposition (about 9 d^3).
  Eigen::MatrixXd excess = w;
  excess.diagonal() -= floor;
  if (Eigen::LLT<Eigen::MatrixXd>(excess).info() == Eigen::Success) return w;
  const Eigen::VectorXd scale = floor.cwiseSqrt();
  const Eigen::MatrixXd whitened = scale.cwiseInverse().asDiagonal() * w * scale.cwiseInverse().asDiagonal();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(symmetrised(whitened));
  if (eigen.eigenvalues().minCoeff() >= 1.0) return w;
  const Eigen::MatrixXd factor = scale.asDiagonal() * eigen.eigenvectors();
  return symmetrised(factor * eigen.eigenvalues().cwiseMax(1.0).asDiagonal() * factor.transpose());
}

Regularisation regularisation_of(const Eigen::MatrixXd& x, const LdsFitOptions& options) {
  Regularisation out;
  out.ridge = options.ridge ? *options.ridge : default_ridge(x);
  out.strength = options.prior.strength;
  out.state_noise_centre = options.prior.state_noise;
  out.observation_centre = (options.prior.observation_noise / kObservationNoiseFloor) * observation_noise_floor(x);
  return out;
}

double covariance_penalty(const SwitchingStateSpace& model, const Regularisation& regularisation) {
  const double ridge = regularisation.ridge, strength = regularisation.strength;
  if (ridge == 0.0 && strength == 0.0) return 0.0;
  // -(nu/2)(log|S| + tr(S^-1 Psi)) - (r/2) tr(S^-1) = -(nu/2) log|S| - (1/2) tr(S^-1 (nu Psi + r I)).
  const auto term = [&](const Eigen::MatrixXd& s, const Eigen::MatrixXd& centre, const char* what) {
    const Eigen::LLT<Eigen::MatrixXd> llt = cholesky(s, what);
    const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    Eigen::MatrixXd weight = strength * centre;
    weight.diagonal().array() += ridge;
    return -0.5 * (strength * log_det + llt.solve(weight).trace());
  };
  const Eigen::Index n = model.mean0.size();
  double out = term(model.cov0, Eigen::MatrixXd::Identity(n, n), "initial state covariance") +
               term(model.observation_noise, regularisation.observation_centre.asDiagonal().toDenseMatrix(),
                    "observation noise covariance");
  for (const StateDynamics& dynamics : model.dynamics)
    out += term(dynamics.noise, regularisation.state_noise_centre * Eigen::MatrixXd::Identity(n, n),
                "state noise covariance");
  return out;
}

namespace {

// Adds tr(E[s_t s_t']) over the steps of `posterior` to `mean_square` and their number to `steps`.
void add_state_mean_square(const LdsPosterior& posterior, double& mean_square, std::size_t& steps) {
  for (std::size_t t = 0; t < posterior.means.size(); ++t)
    mean_square += posterior.covariances[t].trace() + posterior.means[t].squaredNorm();
  steps += posterior.means.size();
}

double state_noise_floor_of(double mean_square, std::size_t steps, Eigen::Index n) {
  return kStateNoiseFloor * (mean_square / static_cast<double>(steps * static_cast<std::size_t>(n)));
}

}  // namespace

double state_noise_floor(const LdsPosterior& posterior) {
  double mean_square = 0;
  std::size_t steps = 0;
  add_state_mean_square(posterior, mean_square, steps);
  return state_noise_floor_of(mean_square, steps, posterior.means[0].size());
}

double state_noise_floor(const std::vector<LdsPosterior>& posteriors) {
  double mean_square = 0;
  std::size_t steps = 0;
  for (const LdsPosterior& posterior : posteriors) add_state_mean_square(posterior, mean_square, steps);
  return state_noise_floor_of(mean_square, steps, posteriors[0].means[0].size());
}

namespace {

// S(A) = P+ - A P1' - P1 A' + A (P- + a I) A' + r I: the expected residual scatter plus the priors' terms,
// so that the objective at (A, Q) is -(steps/2) log|Q| - (1/2) tr(Q^-1 S(A)).
Eigen::MatrixXd residual_scatter(const TransitionSums& sums, const Eigen::MatrixXd& transition, double ridge,
                                 double transition_ridge) {
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(sums.previous.rows(), sums.previous.cols());
  const Eigen::MatrixXd cross = transition * sums.lag.transpose();
  return symmetrised(sums.next - cross - cross.transpose() +
                     transition * (sums.previous + transition_ridge * identity) * transition.transpose() +
                     ridge * identity);
}

// The objective at (A, Q) for Q = floored_covariance(S / steps, q_floor).
double profile_objective(const Eigen::MatrixXd& scatter, double steps, const Eigen::MatrixXd& noise) {
  const Eigen::LLT<Eigen::MatrixXd> llt = cholesky(noise, "state noise covariance");
  return -0.5 * (steps * 2.0 * llt.matrixLLT().diagonal().array().log().sum() + llt.solve(scatter).trace());
}

}  // namespace

// The constraint on A (estimate_lds.hpp): with Q maximised out, the objective depends on A only through
// S(A) = S(A*) + (A - A*) (P- + a I) (A - A*)', and it is non-increasing in S (Loewner order). On the
// segment A(alpha) = A0 + alpha (A* - A0), S(A(alpha)) = S(A*) + (1 - alpha)^2 (A0 - A*) (P- + a I) (A0 - A*)'
// decreases as alpha grows, so every stable point of the segment is at least as good as the previous
// A0 = A(0): the M-step stays a generalised EM step and L never decreases.
StateDynamics maximise_dynamics(const TransitionSums& sums, const Regularisation& regularisation, double transition_ridge,
                                const StateDynamics& previous, double q_floor, Stability stability) {
  // The prior -(nu/2)(log|Q| + psi tr(Q^-1)) adds nu psi I to the scatter and nu to the count.
  const double ridge = regularisation.ridge + regularisation.strength * regularisation.state_noise_centre;
  const double count = sums.steps + regularisation.strength;
  const Eigen::Index n = sums.previous.rows();
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(n, n);
  const Eigen::VectorXd floor = Eigen::VectorXd::Constant(n, q_floor);
  StateDynamics out;
  const Eigen::MatrixXd best = cholesky(sums.previous + transition_ridge * identity, "sum of the state second moments")
                                   .solve(sums.lag.transpose())
                                   .transpose();  // A*
  const double growth = stability(best);
  if (growth <= kStabilityBound) {
    out.transition = best;
    out.noise =
        floored_covariance(symmetrised(sums.next - best * sums.lag.transpose() + ridge * identity) / count, floor);
    return out;
  }
  double stable = 0.0, unstable = 1.0;  // alpha: A(stable) meets the bound, A(unstable) does not
  for (int halving = 0; halving < 40; ++halving) {
    const double alpha = 0.5 * (stable + unstable);
    (stability(previous.transition + alpha * (best - previous.transition)) <= kStabilityBound ? stable : unstable) =
        alpha;
  }
  double best_value = -std::numeric_limits<double>::infinity();
  for (const Eigen::MatrixXd& candidate : {Eigen::MatrixXd(previous.transition + stable * (best - previous.transition)),
                                           Eigen::MatrixXd(best * (kStabilityBound / growth))}) {
    const Eigen::MatrixXd scatter = residual_scatter(sums, candidate, ridge, transition_ridge);
    Eigen::MatrixXd noise = floored_covariance(scatter / count, floor);
    const double value = profile_objective(scatter, count, noise);
    if (value > best_value) {
      best_value = value;
      out.transition = candidate;
      out.noise = std::move(noise);
    }
  }
  return out;
}

void add_observation_sums(const Eigen::MatrixXd& x, const LdsPosterior& posterior, ObservationSums& sums) {
  const Eigen::Index count = x.rows(), n = posterior.means[0].size(), d = x.cols();
  if (sums.states.size() == 0) {
    sums.states = Eigen::MatrixXd::Zero(n, n);
    sums.observed_states = Eigen::MatrixXd::Zero(d, n);
    sums.observations = Eigen::MatrixXd::Zero(d, d);
  }
  // With the posterior means as the columns of M (n x N): P = sum_t V_t|N + M M' and Sxs = X' M'.
  Eigen::MatrixXd means(n, count);
  Eigen::MatrixXd all = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index t = 0; t < count; ++t) {
    means.col(t) = posterior.means[static_cast<std::size_t>(t)];
    all += posterior.covariances[static_cast<std::size_t>(t)];
  }
  all.noalias() += means * means.transpose();
  sums.states += all;
  sums.observed_states.noalias() += x.transpose() * means.transpose();
  sums.observations.noalias() += x.transpose() * x;
  sums.count += static_cast<double>(count);
  sums.first_weights.push_back(1.0);
  sums.first_means.push_back(posterior.means[0]);
  sums.first_covariances.push_back(posterior.covariances[0]);
}

void add_observation_sums(const ObservationSums& more, ObservationSums& into) {
  into.states += more.states;
  into.observed_states += more.observed_states;
  into.observations += more.observations;
  into.count += more.count;
  into.first_weights.insert(into.first_weights.end(), more.first_weights.begin(), more.first_weights.end());
  into.first_means.insert(into.first_means.end(), more.first_means.begin(), more.first_means.end());
  into.first_covariances.insert(into.first_covariances.end(), more.first_covariances.begin(),
                                more.first_covariances.end());
}

void maximise_emission(const ObservationSums& sums, const Regularisation& regularisation,
                       const Eigen::VectorXd& noise_floor, SwitchingStateSpace& p) {
  const double strength = regularisation.strength;
  p.observation =
      cholesky(sums.states, "sum of the state second moments").solve(sums.observed_states.transpose()).transpose();
  Eigen::MatrixXd scatter = sums.observations - p.observation * sums.observed_states.transpose();
  scatter.diagonal().array() += regularisation.ridge;
  if (strength > 0.0) scatter.diagonal() += strength * regularisation.observation_centre;
  p.observation_noise = floored_covariance(symmetrised(scatter) / (sums.count + strength), noise_floor);
}

void maximise_start(const ObservationSums& sums, const Regularisation& regularisation, SwitchingStateSpace& p) {
  const Eigen::Index n = sums.first_means[0].size();
  double weight = 0;
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(n);
  for (std::size_t i = 0; i < sums.first_means.size(); ++i) {
    weight += sums.first_weights[i];
    mean += sums.first_weights[i] * sums.first_means[i];
  }
  mean /= weight;
  Eigen::MatrixXd scatter = Eigen::MatrixXd::Zero(n, n);
  for (std::size_t i = 0; i < sums.first_means.size(); ++i) {
    const Eigen::VectorXd deviation = sums.first_means[i] - mean;
    scatter += sums.first_weights[i] * (sums.first_covariances[i] + deviation * deviation.transpose());
  }
  const double strength = regularisation.strength;
  p.mean0 = std::move(mean);
  p.cov0 =
      symmetrised(scatter + (regularisation.ridge + strength) * Eigen::MatrixXd::Identity(n, n)) / (weight + strength);
}

ObservationSums pseudo_observation_sums(const SwitchingStateSpace& pooled, const Eigen::MatrixXd& m0, double tau) {
  const Eigen::MatrixXd& c0 = pooled.observation;
  ObservationSums sums;
  sums.states = tau * m0;
  sums.observed_states = tau * c0 * m0;
  sums.observations = tau * symmetrised(c0 * m0 * c0.transpose() + pooled.observation_noise);
  sums.count = tau;
  sums.first_weights = {tau};
  sums.first_means = {pooled.mean0};
  sums.first_covariances = {pooled.cov0};
  return sums;
}

TransitionSums pseudo_transition_sums(const StateDynamics& pooled, const Eigen::MatrixXd& m0, double tau) {
  const Eigen::MatrixXd& a0 = pooled.transition;
  return {tau * m0, tau * symmetrised(a0 * m0 * a0.transpose() + pooled.noise), tau * a0 * m0, tau};
}

namespace {

// -(tau/2) (log|S| + tr(S^-1 W)) for a covariance S.
double inverse_wishart_term(const Eigen::MatrixXd& s, const Eigen::MatrixXd& w, double tau, const char* what) {
  const Eigen::LLT<Eigen::MatrixXd> llt(s);
  if (llt.info() != Eigen::Success) throw EstimationError(std::string("the ") + what + " is not positive definite");
  return -0.5 * tau * (2.0 * llt.matrixLLT().diagonal().array().log().sum() + llt.solve(w).trace());
}

}  // namespace

double start_log_prior(const SwitchingStateSpace& p, const SwitchingStateSpace& pooled, double tau) {
  const Eigen::VectorXd deviation = p.mean0 - pooled.mean0;
  return inverse_wishart_term(p.cov0, pooled.cov0 + deviation * deviation.transpose(), tau, "initial state covariance");
}

double dynamics_log_prior(const StateDynamics& p, const StateDynamics& pooled, const Eigen::MatrixXd& m0, double tau) {
  const Eigen::MatrixXd deviation = p.transition - pooled.transition;
  return inverse_wishart_term(p.noise, pooled.noise + deviation * m0 * deviation.transpose(), tau,
                              "state noise covariance");
}

double emission_log_prior(const SwitchingStateSpace& p, const SwitchingStateSpace& pooled, const Eigen::MatrixXd& m0,
                          double tau) {
  const Eigen::MatrixXd deviation = p.observation - pooled.observation;
  return inverse_wishart_term(p.observation_noise, pooled.observation_noise + deviation * m0 * deviation.transpose(), tau,
                              "observation noise covariance");
}

Eigen::MatrixXd expected_state_second_moment(const SwitchingStateSpace& model, const Eigen::VectorXd& start,
                                             const Eigen::MatrixXd& chain, long length) {
  const auto regimes = static_cast<std::size_t>(start.size());
  const Eigen::MatrixXd first = model.cov0 + model.mean0 * model.mean0.transpose();
  std::vector<Eigen::MatrixXd> moments(regimes);
  Eigen::VectorXd weights = start;
  for (std::size_t k = 0; k < regimes; ++k) moments[k] = start(static_cast<Eigen::Index>(k)) * first;
  Eigen::MatrixXd sum = first;
  for (long t = 1; t <= std::max(0L, length); ++t) {
    std::vector<Eigen::MatrixXd> next(regimes, Eigen::MatrixXd::Zero(first.rows(), first.cols()));
    for (std::size_t k = 0; k < regimes; ++k) {
      const StateDynamics& dynamics = model.dynamics[k];
      for (std::size_t j = 0; j < regimes; ++j)
        next[k] += chain(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(k)) *
                   (dynamics.transition * moments[j] * dynamics.transition.transpose() +
                    weights(static_cast<Eigen::Index>(j)) * dynamics.noise);
      sum += next[k];
    }
    moments = std::move(next);
    weights = chain.transpose() * weights;
  }
  return symmetrised(sum / static_cast<double>(std::max(0L, length) + 1));
}

double least_eigenvalue(const Eigen::MatrixXd& s) {
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(s, Eigen::EigenvaluesOnly).eigenvalues()(0);
}

void maximise_observation(const Eigen::MatrixXd& x, const LdsPosterior& posterior, const Regularisation& regularisation,
                          const Eigen::VectorXd& noise_floor, SwitchingStateSpace& p) {
  ObservationSums sums;
  add_observation_sums(x, posterior, sums);
  maximise_emission(sums, regularisation, noise_floor, p);
  maximise_start(sums, regularisation, p);
}

}  // namespace ppk::detail
