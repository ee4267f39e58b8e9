// Internal to libppk: the linear-Gaussian state-space machinery that the lds and slds families share
// (the coupled Kalman recursion of lds.cpp, generalised to dynamics that switch between regimes),
// and the validation of what they have in common; their matrix fields are read, written and checked
// by matrix_fields.hpp.
//
// A switching state-space model: an n-dimensional state and d-dimensional observations,
//     s_0 ~ N(mean0, cov0),  s_t = A_{r_t} s_{t-1} + w_t,  w_t ~ N(0, Q_{r_t}),
//     x_t = C s_t + v_t,  v_t ~ N(0, R),  t = 0..T,
// where the regime r_t (t = 1..T) picks one of the model's dynamics (A_r, Q_r). Given the regimes,
// it is a non-stationary LDS; an LDS is the case of one regime.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/QR>
#include <nlohmann/json.hpp>

#include "ppk/families/lds.hpp"

#include "ppk/core/matrix_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/row.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk::detail {

// One regime of the state dynamics: s_t = transition s_{t-1} + N(0, noise).
struct StateDynamics {
  Eigen::MatrixXd transition, noise;
};

struct SwitchingStateSpace {
  Eigen::VectorXd mean0;
  Eigen::MatrixXd cov0;
  std::vector<StateDynamics> dynamics;  // indexed by regime
  Eigen::MatrixXd observation, observation_noise;
};

// The dynamics of step t: model.dynamics[regime_of(t)] where regime_of gives a regime's index, or
// regime_of(t) itself where it gives the dynamics (an SLDS pair's stacked regimes, built step by step:
// slds.cpp).
template <class RegimeOf>
const StateDynamics& dynamics_at(const SwitchingStateSpace& model, RegimeOf& regime_of, long t) {
  if constexpr (std::is_integral_v<std::invoke_result_t<RegimeOf&, long>>)
    return model.dynamics[static_cast<std::size_t>(regime_of(t))];
  else
    return regime_of(t);
}

// The multiply-adds of one step of the Kalman filter of an n-dimensional state and d-dimensional
// observations, counted as (n + d)^3: a few products and factorisations of at most that size. A pair's
// filter (stack_difference) has a state of n + n', and (n + n' + d)^3 <= max(2n + d, 2n' + d)^3, so
// filter_step_work(2n, d) is each model's share.
double filter_step_work(long state_dim, long observation_dim);

// Sums of the prediction-error decomposition of the observation sequence y_0..y_T = 0 (lds.cpp):
// for the joint covariance V and mean M of the observations,
struct InnovationSums {
  double log_det = 0.0;    // sum_t log|F_t| = log|V|
  double quadratic = 0.0;  // sum_t yhat_t' F_t^-1 yhat_t = M' V^-1 M
};

// The Kalman filter's per-thread scratch, one per filter that a caller runs in turn (kalman_filter resizes
// it to the model's sizes: a filter of one size after another of another would allocate at every call).
struct FilterScratch {
  Eigen::VectorXd mean, next_mean, predicted, whitened, pivots;
  Eigen::MatrixXd cov, scratch_matrix, observed_cov, innovation_cov, noise_inverse, factor, observed_factor, array,
      gain_transposed, gain_noise;
  Eigen::LLT<Eigen::MatrixXd> noise_llt, llt;  // of U; of F_t (covariance form)
  Eigen::LDLT<Eigen::MatrixXd> cov_ldlt;
  Eigen::HouseholderQR<Eigen::MatrixXd> qr;
};

// The Kalman filter of `model` over y_0..y_T = 0, step t >= 1 following the dynamics regime_of(t), by
// kalman_filter: in covariance form, and in square-root form when the covariance form would lose its
// accuracy. Writes the sums over t = 0..T for each T = lengths[k] (strictly ascending) into sums[k]: each
// step's terms depend on the steps before it only, not on the T the filter runs to, so one run to the
// largest T reads every smaller T's sums at its step. A T whose run stays in covariance form gets its sums
// from the covariance-form run, the others from the square-root form run from step 0, as a run to that T
// alone would. NaN sums only when the observation noise U is not positive definite or the moments
// overflow. O(T (n + d)^3) for the largest T.
// With `observed` ((T + 1) d values, y_0..y_T stacked) the filter runs on those observations instead: the
// innovations are y_t - yhat_t and `quadratic` is (y - M)' V^-1 (y - M).
template <bool kSquareRoot, class RegimeOf>
std::size_t kalman_filter(const SwitchingStateSpace& model, const int* lengths, std::size_t count, RegimeOf regime_of,
                          const double* observed, InnovationSums* sums, FilterScratch& scratch);

template <class RegimeOf>
void innovation_sums(const SwitchingStateSpace& model, const int* lengths, std::size_t count, RegimeOf regime_of,
                     InnovationSums* sums, FilterScratch& scratch, const double* observed = nullptr) {
  const std::size_t done = kalman_filter<false>(model, lengths, count, regime_of, observed, sums, scratch);
  if (done < count) kalman_filter<true>(model, lengths + done, count - done, regime_of, observed, sums + done, scratch);
}

// The sums at one T = steps, with scratch per thread (kernels run from several threads at once).
template <class RegimeOf>
InnovationSums innovation_sums(const SwitchingStateSpace& model, long steps, RegimeOf regime_of,
                               const double* observed = nullptr) {
  thread_local FilterScratch scratch;
  const int length = static_cast<int>(steps);  // <= kMaxSequenceLength
  InnovationSums sums;
  innovation_sums(model, &length, 1, regime_of, &sums, scratch, observed);
  return sums;
}

// The covariance form gives up (and the square-root form runs) at a step where trace(U^-1 F_t), at least
// the largest eigenvalue of U^-1 F_t, exceeds this: P - K H P then cancels to the scale of U from a
// scale this many times larger, and rounding (1e-16 of the larger) would leave 1e-8 of the result.
constexpr double kMaxInnovationToNoise = 1e8;

// The filter's two forms. Covariance form: F_t = H P H' + U by Cholesky, and the update P - K H P; the
// faster, and accurate while F_t stays within kMaxInnovationToNoise of U (it stops at a step where it does
// not, or where F_t is not numerically positive definite, and returns the number of lengths done: a state
// variance 10^20 times the noise gave NaN, and values 10^4 times too small where the Cholesky
// factorisation still succeeded).
// Square-root form: P = G G' (a pivoted LDL', pivots that rounding leaves negative counted as 0),
// F_t = W'W from the QR decomposition of the array [U_c, H G]' (U = U_c U_c' by Cholesky), and the
// update in Joseph's form (I - K H) P (I - K H)' + K U K' = (G - K H G)(G - K H G)' + (K U_c)(K U_c)':
// F_t is the Gram matrix of a full-rank array and P a sum of Gram matrices, so neither loses
// definiteness to rounding; 2.6 times the cost of the covariance form (docs/performance.md).
template <bool kSquareRoot, class RegimeOf>
std::size_t kalman_filter(const SwitchingStateSpace& model, const int* lengths, std::size_t count, RegimeOf regime_of,
                          const double* observed, InnovationSums* sums, FilterScratch& scratch) {
  auto& [mean, next_mean, predicted, whitened, pivots, cov, scratch_matrix, observed_cov, innovation_cov, noise_inverse,
         factor, observed_factor, array, gain_transposed, gain_noise, noise_llt, llt, cov_ldlt, qr] = scratch;
  const Eigen::Index n = model.mean0.size(), d = model.observation.rows();
  noise_llt.compute(model.observation_noise);
  if (noise_llt.info() != Eigen::Success) {
    std::fill(sums, sums + count, InnovationSums{std::nan(""), std::nan("")});
    return count;
  }
  if constexpr (kSquareRoot) {
    array.resize(d + n, d);
    array.topRows(d) = noise_llt.matrixU();  // U_c' (U = U_c U_c')
  } else {
    noise_inverse.setIdentity(d, d);
    noise_llt.solveInPlace(noise_inverse);
  }
  mean = model.mean0;  // s_t given y_0..y_{t-1}
  cov = model.cov0;
  InnovationSums running;  // over steps 0..t
  std::size_t done = 0;    // sums[0..done) written
  for (long t = 0;; ++t) {
    predicted.noalias() = model.observation * mean;  // yhat_t; `predicted` holds minus the innovation y_t - yhat_t
    if (observed != nullptr) predicted -= Eigen::Map<const Eigen::VectorXd>(observed + t * d, d);
    whitened = predicted;
    if constexpr (kSquareRoot) {
      cov_ldlt.compute(cov);  // P = G G' = P^T L D L' P, D clamped at 0
      pivots = cov_ldlt.vectorD().cwiseMax(0.0).cwiseSqrt();
      factor = cov_ldlt.matrixL();
      factor = factor * pivots.asDiagonal();
      factor = cov_ldlt.transpositionsP().transpose() * factor;
      observed_factor.noalias() = model.observation * factor;  // H G
      array.bottomRows(n) = observed_factor.transpose();
      qr.compute(array);
      const auto upper = qr.matrixQR().topRows(d).template triangularView<Eigen::Upper>();  // W, F_t = W'W
      running.log_det += 2.0 * qr.matrixQR().diagonal().head(d).array().abs().log().sum();
      upper.transpose().solveInPlace(whitened);  // W'^-1 e: |W'^-1 e|^2 = e' F^-1 e
      running.quadratic += whitened.squaredNorm();
      if (t == lengths[done]) {
        sums[done] = running;
        if (++done == count) break;
      }
      gain_transposed.noalias() = observed_factor * factor.transpose();  // H P
      upper.transpose().solveInPlace(gain_transposed);
      upper.solveInPlace(gain_transposed);  // F^-1 H P = K'
      mean.noalias() -= gain_transposed.transpose() * predicted;
      factor.noalias() -= gain_transposed.transpose() * observed_factor;         // G - K H G
      gain_noise.noalias() = gain_transposed.transpose() * noise_llt.matrixL();  // K U_c
      cov.noalias() = factor * factor.transpose();
      cov.noalias() += gain_noise * gain_noise.transpose();
    } else {
      observed_cov.noalias() = model.observation * cov;  // H P
      innovation_cov = model.observation_noise;
      innovation_cov.noalias() += observed_cov * model.observation.transpose();  // F_t = H P H' + U
      if (!(noise_inverse.cwiseProduct(innovation_cov).sum() <= kMaxInnovationToNoise)) return done;
      llt.compute(innovation_cov);
      if (llt.info() != Eigen::Success) return done;
      running.log_det += 2.0 * llt.matrixLLT().diagonal().array().log().sum();
      llt.matrixL().solveInPlace(whitened);
      running.quadratic += whitened.squaredNorm();
      if (t == lengths[done]) {
        sums[done] = running;
        if (++done == count) break;
      }
      gain_transposed = observed_cov;
      llt.solveInPlace(gain_transposed);  // F^-1 H P = K'
      mean.noalias() -= gain_transposed.transpose() * predicted;
      cov.noalias() -= observed_cov.transpose() * gain_transposed;
    }
    // Predict with the dynamics of step t + 1.
    const StateDynamics& next = dynamics_at(model, regime_of, t + 1);
    next_mean.noalias() = next.transition * mean;  // its own vector: predicted has d entries, mean n
    mean.swap(next_mean);
    scratch_matrix.noalias() = next.transition * cov;
    cov.noalias() = scratch_matrix * next.transition.transpose();
    cov += next.noise;
    scratch_matrix = cov.transpose();
    cov = 0.5 * (cov + scratch_matrix);  // rounding leaves P slightly asymmetric
  }
  return done;
}

// The model of Y = X - X', X and X' drawn independently from `a` and `b` (lds.cpp): the stacked state
// (s, s'), observation [C, -C'], observation noise R + R'; its dynamics for the pair of regimes (k, k')
// are stack_dynamics(a.dynamics[k], b.dynamics[k']), not built here (K K' of them for two SLDSs: the
// filter of a pair of paths builds those it meets). Written into `out` (reused scratch); out.dynamics
// is left as it is.
void stack_difference(const SwitchingStateSpace& a, const SwitchingStateSpace& b, SwitchingStateSpace& out);
// The stacked dynamics of a pair of regimes: blockdiag(A, A'), blockdiag(Q, Q'), into `out`'s storage.
void stack_dynamics(const StateDynamics& a, const StateDynamics& b, StateDynamics& out);

// log p(x) of the observations x = (x_0..x_steps) stacked ((steps + 1) d values), step t >= 1 following
// regime_of(t): the prediction-error decomposition -1/2 (D log 2pi + sum_t log|F_t| + sum_t e_t' F_t^-1 e_t),
// D = (steps + 1) d, by the filter on x.
template <class RegimeOf>
double log_density(const SwitchingStateSpace& model, const Eigen::Ref<const Eigen::VectorXd>& x, RegimeOf regime_of) {
  const long steps = static_cast<long>(x.size() / model.observation.rows()) - 1;
  const InnovationSums sums = innovation_sums(model, steps, regime_of, x.data());
  const double log_2pi = std::log(2.0 * 3.14159265358979323846);
  return -0.5 * (static_cast<double>(x.size()) * log_2pi + sums.log_det + sums.quadratic);
}

// log Z(rho) = log integral p(x)^rho dx for the Gaussian p = N(m, S) of x_0..x_steps (dimension D)
// with log|S| = log_det: (1 - rho)/2 (D log 2pi + log|S|) - D/2 log rho (gaussian.cpp).
double log_tilted_normalizer(double rho, long steps, long observation_dim, double log_det);

// Fills column k of `samples` ((T + 1) d rows, x_0..x_T stacked) with a draw of the observations
// along paths[path_of_column[k]] (T + 1 regimes each, step t >= 1 following regime path[t]) from the
// model with every noise covariance (cov0, Q_r, R) divided by rho. The joint covariance of X given
// the path is linear in the noise covariances, so X ~ N(m, S / rho): p^rho / Z for p = N(m, S).
// Noise by F z / sqrt(rho), z standard normal and F F' = the covariance (from its eigenvectors, so
// a semidefinite cov0 or Q works); per column in order: s_0, the noise of x_0, then per step the
// state noise and the observation noise.
void sample_tilted_along(const SwitchingStateSpace& model, const std::vector<std::vector<int>>& paths,
                         const std::vector<std::size_t>& path_of_column, double rho, SampleGenerator& generator,
                         Eigen::Ref<Eigen::MatrixXd> samples);

// One model's share of log k_rho between the joint Gaussians of two models' observations
// x_0..x_steps (lds.cpp): (1-2rho)D/4 log 2pi - D/4 log rho + (1-rho)/2 log|S|, D = (steps+1)d.
double log_kernel_share(double rho, long steps, long observation_dim, double log_det);

// Throws KernelDomainError (infinite_moments_error) unless the state's mean m_t = A_t m_{t-1} and
// covariance Sigma_t = A_t Sigma_{t-1} A_t' + Q_t (m_0 = mean0, Sigma_0 = cov0; step t following regime_of(t))
// stay finite for t <= steps: the joint Gaussian of x_0..x_steps is then finite in double precision, and
// so are the filters of its kernels (their predicted state covariances are at most blockdiag(Sigma_t,
// Sigma'_t)). A model whose transitions are stable never fails it; an explosive one fails at large T.
// O(steps n^3): at prepare(), once per path.
std::string infinite_moments_error(const char* family, long steps, long step, const SwitchingStateSpace& model);
template <class RegimeOf>
void check_finite_moments(const char* family, const SwitchingStateSpace& model, long steps, RegimeOf regime_of) {
  Eigen::VectorXd mean = model.mean0, next_mean;
  Eigen::MatrixXd cov = model.cov0, scratch;
  for (long t = 1; t <= steps; ++t) {
    const StateDynamics& step = model.dynamics[static_cast<std::size_t>(regime_of(t))];
    next_mean.noalias() = step.transition * mean;
    mean.swap(next_mean);
    scratch.noalias() = step.transition * cov;
    cov.noalias() = scratch * step.transition.transpose();
    cov += step.noise;
    if (!mean.allFinite() || !cov.allFinite()) throw KernelDomainError(infinite_moments_error(family, steps, t, model));
  }
}

// log k_rho from the two shares and the innovation sums of the stacked difference model.
inline double log_kernel_from_sums(double share_a, double share_b, double rho, const InnovationSums& sums) {
  return share_a + share_b - 0.5 * (sums.log_det + rho * sums.quadratic);
}

// log k_rho(p, p) from p's share and log|S|: S + S = 2S and m - m = 0, so 2 share - 1/2 (D log 2 + log|S|),
// D = (steps + 1) d. Not by the stacked model of (p, p), whose state s + s' is never observed: when the
// dynamics are explosive its variance outgrows the observed part's by more than rounding can resolve.
double log_self_kernel(double share, long steps, long observation_dim, double log_det);

// The joint Gaussian of X = (x_0..x_T), T = regimes.size() - 1, step t >= 1 following the dynamics
// regimes[t], built densely: mean blocks C m_t (m_t = A_t m_{t-1}, m_0 = mean0), covariance blocks
// cov(x_t, x_u) = C A_t A_{t-1} .. A_{u+1} Sigma_u C' (t >= u) plus R when t = u, Sigma_u the state
// covariance (Sigma_u = A_u Sigma_{u-1} A_u' + Q_u). O((T d)^2) memory: the test oracle.
std::unique_ptr<GaussianModel> joint_observations(const SwitchingStateSpace& model, const std::vector<int>& regimes);

using ppk::kMaxSequenceLength;  // (lds.hpp)
using ppk::kMaxStateSpaceDim;

// Validates what every state-space model of `family` has besides its dynamics, and returns the model
// without dynamics: n = mean0.size() and d = observation.rows() in [1, 1000] (fields "mean0" and "C"),
// length in [0, 10^8], every value finite, cov0 n x n and symmetric positive semidefinite, C d x n, R
// d x d and symmetric positive definite (symmetrised).
SwitchingStateSpace checked_state_space(const char* family, Eigen::VectorXd mean0, Eigen::MatrixXd cov0,
                                        Eigen::MatrixXd observation, Eigen::MatrixXd observation_noise, long length);
// Appends the regime (A, Q) (fields "A" and "Q") after checking that both are n x n, A finite and Q
// symmetric positive semidefinite. `regime`: the index of the matrices in fields that list one per
// regime (element offsets and JSON paths start at theirs), -1 when the fields hold one matrix.
void add_dynamics(SwitchingStateSpace& space, const char* family, Eigen::MatrixXd transition, Eigen::MatrixXd noise,
                  long regime);

}  // namespace ppk::detail
