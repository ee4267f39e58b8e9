// The shared EM pieces for state-space models (lds_em.hpp): the smoother along a regime path and the
// M-step's closed forms (the derivations are in estimate_lds.hpp and estimate_slds.hpp).
#include "lds_em.hpp"

#include <cmath>
#include <limits>
#include <string>

#include <Eigen/Dense>

#include "gaussian_em.hpp"
#include "ppk/estimate.hpp"

namespace ppk::detail {
namespace {

const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);

// The Cholesky factorisation of a covariance that must be positive definite.
Eigen::LLT<Eigen::MatrixXd> cholesky(const Eigen::MatrixXd& covariance, const char* what) {
  Eigen::LLT<Eigen::MatrixXd> llt(covariance);
  if (llt.info() != Eigen::Success || !(llt.matrixLLT().diagonal().array() > 0.0).all())
    throw EstimationError(std::string("the ") + what + " is not numerically positive definite; give --ridge R > 0");
  return llt;
}

}  // namespace

Eigen::MatrixXd symmetrised(const Eigen::MatrixXd& s) { return 0.5 * (s + s.transpose()); }

double trace_of_inverse(const Eigen::MatrixXd& s, const char* what) {
  return cholesky(s, what).solve(Eigen::MatrixXd::Identity(s.rows(), s.cols())).trace();
}

LdsPosterior smooth_along(const SwitchingStateSpace& p, const Eigen::MatrixXd& x, const std::vector<int>& regimes) {
  const Eigen::Index count = x.rows(), n = p.mean0.size(), d = x.cols();
  const auto dynamics = [&](Eigen::Index t) -> const StateDynamics& {
    return p.dynamics[static_cast<std::size_t>(regimes[static_cast<std::size_t>(t)])];
  };
  std::vector<Eigen::VectorXd> predicted_means(count), filtered_means(count);
  std::vector<Eigen::MatrixXd> predicted_covs(count), filtered_covs(count);
  LdsPosterior out;
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(n, n);
  for (Eigen::Index t = 0; t < count; ++t) {
    if (t == 0) {
      predicted_means[0] = p.mean0;
      predicted_covs[0] = p.cov0;
    } else {
      const StateDynamics& step = dynamics(t);
      predicted_means[t] = step.transition * filtered_means[t - 1];
      predicted_covs[t] = symmetrised(step.transition * filtered_covs[t - 1] * step.transition.transpose() + step.noise);
    }
    const Eigen::MatrixXd observed_cov = p.observation * predicted_covs[t];  // C P
    const Eigen::LLT<Eigen::MatrixXd> innovation_cov =
        cholesky(symmetrised(observed_cov * p.observation.transpose() + p.observation_noise), "innovation covariance");
    const Eigen::VectorXd innovation = x.row(t).transpose() - p.observation * predicted_means[t];
    const Eigen::VectorXd whitened = innovation_cov.matrixL().solve(innovation);
    out.log_likelihood -= 0.5 * (static_cast<double>(d) * kLog2Pi +
                                 2.0 * innovation_cov.matrixLLT().diagonal().array().log().sum() + whitened.squaredNorm());
    const Eigen::MatrixXd gain = innovation_cov.solve(observed_cov).transpose();  // K = P C' F^-1
    const Eigen::MatrixXd reduction = identity - gain * p.observation;         // I - K C
    filtered_means[t] = predicted_means[t] + gain * innovation;
    filtered_covs[t] = symmetrised(reduction * predicted_covs[t] * reduction.transpose() +
                                   gain * p.observation_noise * gain.transpose());
  }
  out.means.resize(count);
  out.covariances.resize(count);
  out.lag_covariances.resize(count - 1);
  out.means[count - 1] = filtered_means[count - 1];
  out.covariances[count - 1] = filtered_covs[count - 1];
  for (Eigen::Index t = count - 2; t >= 0; --t) {
    // J_t' = P_t+1|t^-1 A_t+1 V_t|t.
    const Eigen::MatrixXd smoother_gain_transposed =
        cholesky(predicted_covs[t + 1], "predicted state covariance").solve(dynamics(t + 1).transition * filtered_covs[t]);
    const Eigen::MatrixXd smoother_gain = smoother_gain_transposed.transpose();
    out.means[t] = filtered_means[t] + smoother_gain * (out.means[t + 1] - predicted_means[t + 1]);
    out.covariances[t] = symmetrised(filtered_covs[t] +
                                     smoother_gain * (out.covariances[t + 1] - predicted_covs[t + 1]) * smoother_gain_transposed);
    out.lag_covariances[t] = out.covariances[t + 1] * smoother_gain_transposed;
  }
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
    out += term(dynamics.noise, regularisation.state_noise_centre * Eigen::MatrixXd::Identity(n, n), "state noise covariance");
  return out;
}

double state_noise_floor(const LdsPosterior& posterior) {
  double mean_square = 0;
  for (std::size_t t = 0; t < posterior.means.size(); ++t)
    mean_square += posterior.covariances[t].trace() + posterior.means[t].squaredNorm();
  mean_square /= static_cast<double>(posterior.means.size() * static_cast<std::size_t>(posterior.means[0].size()));
  return kStateNoiseFloor * mean_square;
}

namespace {

// S(A) = P+ - A P1' - P1 A' + A (P- + a I) A' + r I: the expected residual scatter plus the priors' terms,
// so that the objective at (A, Q) is -(steps/2) log|Q| - (1/2) tr(Q^-1 S(A)).
Eigen::MatrixXd residual_scatter(const TransitionSums& sums, const Eigen::MatrixXd& transition, double ridge,
                                 double transition_ridge) {
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(sums.previous.rows(), sums.previous.cols());
  const Eigen::MatrixXd cross = transition * sums.lag.transpose();
  return symmetrised(sums.next - cross - cross.transpose() +
                     transition * (sums.previous + transition_ridge * identity) * transition.transpose() + ridge * identity);
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
    out.noise = floored_covariance(symmetrised(sums.next - best * sums.lag.transpose() + ridge * identity) / count, floor);
    return out;
  }
  double stable = 0.0, unstable = 1.0;  // alpha: A(stable) meets the bound, A(unstable) does not
  for (int halving = 0; halving < 40; ++halving) {
    const double alpha = 0.5 * (stable + unstable);
    (stability(previous.transition + alpha * (best - previous.transition)) <= kStabilityBound ? stable : unstable) = alpha;
  }
  double best_value = -std::numeric_limits<double>::infinity();
  for (const Eigen::MatrixXd& candidate :
       {Eigen::MatrixXd(previous.transition + stable * (best - previous.transition)), Eigen::MatrixXd(best * (kStabilityBound / growth))}) {
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

void maximise_observation(const Eigen::MatrixXd& x, const LdsPosterior& posterior, const Regularisation& regularisation,
                          const Eigen::VectorXd& noise_floor, SwitchingStateSpace& p) {
  const double ridge = regularisation.ridge, strength = regularisation.strength;
  const Eigen::Index count = x.rows(), n = p.mean0.size(), d = x.cols();
  Eigen::MatrixXd all = Eigen::MatrixXd::Zero(n, n);               // P
  Eigen::MatrixXd observed_states = Eigen::MatrixXd::Zero(d, n);  // Sxs
  for (Eigen::Index t = 0; t < count; ++t) {
    all += second_moment(posterior, t);
    observed_states += x.row(t).transpose() * posterior.means[static_cast<std::size_t>(t)].transpose();
  }
  p.observation = cholesky(all, "sum of the state second moments").solve(observed_states.transpose()).transpose();
  Eigen::MatrixXd scatter = x.transpose() * x - p.observation * observed_states.transpose();
  scatter.diagonal().array() += ridge;
  if (strength > 0.0) scatter.diagonal() += strength * regularisation.observation_centre;
  p.observation_noise = floored_covariance(symmetrised(scatter) / (static_cast<double>(count) + strength), noise_floor);
  p.mean0 = posterior.means[0];
  p.cov0 = symmetrised(posterior.covariances[0] + (ridge + strength) * Eigen::MatrixXd::Identity(n, n)) / (1.0 + strength);
}

}  // namespace ppk::detail
