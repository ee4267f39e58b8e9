// Internal to libppk: the pieces of EM for linear-Gaussian state-space models (lds_state_space.hpp) that
// `ppk fit lds` (estimate_lds.hpp) and `ppk fit slds` (estimate_slds.hpp) share: the Kalman filter and
// Rauch-Tung-Striebel smoother along a given regime path, and the M-step's closed forms.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/estimate_lds.hpp"
#include "estimate/gaussian_em.hpp"
#include "families/lds_state_space.hpp"

namespace ppk::detail {

// Checks the options of the LDS fit, which the SLDS fit shares (EstimationError naming the option).
void check_lds_options(const LdsFitOptions& options);
// The sequences of a pooled fit or an adaptation, each checked as the one sequence of fit_lds
// (EstimationError: "sequence i has 1 vector; `fit` needs at least 2", or of stack_rows), and stacked.
StackedRows checked_sequences(const std::vector<Eigen::MatrixXd>& sequences, const char* fit = "an LDS fit");

// (S + S') / 2: rounding leaves computed covariances slightly asymmetric.
Eigen::MatrixXd symmetrised(const Eigen::MatrixXd& s);

// tr(S^-1) of a covariance S that must be positive definite (EstimationError naming `what` if not).
double trace_of_inverse(const Eigen::MatrixXd& s, const char* what);

// The filter and smoother of estimate_lds.hpp on the rows of x (x_0..x_{N-1}), step t >= 1 following
// the dynamics regimes[t] (regimes.size() == N; regimes[0] is not used): with A_t, Q_t in place of
// A, Q the recursions are unchanged (the prediction of s_t and the smoother gain J_{t-1} use A_t).
// Throws EstimationError when an innovation or predicted state covariance is not numerically
// positive definite. With n < d the filter's updates are taken in information form (O(d^2 + n^3) a
// step instead of O(d^3), the same numbers to rounding; lds_em.cpp). Written into `out`, whose storage
// is reused: an E-step allocates nothing when `out` and the thread's scratch already have the sizes.
void smooth_along(const SwitchingStateSpace& model, const Eigen::MatrixXd& x, const std::vector<int>& regimes,
                  LdsPosterior& out);
LdsPosterior smooth_along(const SwitchingStateSpace& model, const Eigen::MatrixXd& x, const std::vector<int>& regimes);

// E[s_t s_t' | X] = V_t|N + s_t|N s_t|N'.
Eigen::MatrixXd second_moment(const LdsPosterior& posterior, Eigen::Index t);

// The expected sufficient statistics of the transitions s_{t-1} -> s_t over a set of steps t >= 1:
struct TransitionSums {
  Eigen::MatrixXd previous;  // P- = sum E[s_{t-1} s_{t-1}']
  Eigen::MatrixXd next;      // P+ = sum E[s_t s_t']
  Eigen::MatrixXd lag;       // P1 = sum E[s_t s_{t-1}']
  double steps = 0;          // the number of steps summed
};
// The sums over the steps t >= 1 with regimes[t] == regime.
TransitionSums transition_sums(const LdsPosterior& posterior, const std::vector<int>& regimes, int regime);
// into += more (the sums of more steps: other sequences, or a prior's pseudo-steps).
void add_transition_sums(const TransitionSums& more, TransitionSums& into);

// The expected sufficient statistics of the observation model x_t = C s_t + v_t and of the first
// state, summed over sequences (and a prior's pseudo-observations, estimate_lds.hpp):
struct ObservationSums {
  Eigen::MatrixXd states;           // P = sum_t E[s_t s_t'] (n x n)
  Eigen::MatrixXd observed_states;  // Sxs = sum_t x_t E[s_t]' (d x n)
  Eigen::MatrixXd observations;     // Sxx = sum_t x_t x_t' (d x d)
  double count = 0;                 // N, the number of vectors summed
  // Per sequence (or prior) i: a weight w_i (1 for a sequence), the mean m_i = E[s_0 | X_i] and the
  // covariance V_i = Cov(s_0 | X_i) of its first state.
  std::vector<double> first_weights;
  std::vector<Eigen::VectorXd> first_means;
  std::vector<Eigen::MatrixXd> first_covariances;
};
// Adds the sums of the sequence x (rows x_0..x_{N-1}) under its E-step `posterior` to `sums`
// (whose empty matrices count as zeros).
void add_observation_sums(const Eigen::MatrixXd& x, const LdsPosterior& posterior, ObservationSums& sums);
// into += more (a prior's pseudo-observations, or the sums of other sequences).
void add_observation_sums(const ObservationSums& more, ObservationSums& into);

// The constraints of every LDS and SLDS fit (estimate_lds.hpp, "Finite kernels by construction"):
constexpr double kStabilityBound = 0.999;        // of each transition's Stability measure below
constexpr double kObservationNoiseFloor = 1e-2;  // R >= this times diag(the coordinates' variances)
constexpr double kStateNoiseFloor = 1e-4;        // Q >= this times the state's mean square, times I

// A measure of a transition's growth, positively homogeneous (m(c A) = |c| m(A)): the LDS bounds the
// spectral radius (the largest modulus of A's eigenvalues), the SLDS with K >= 2 regimes the spectral
// norm (the largest singular value), which bounds every product of the regimes' transitions too.
using Stability = double (*)(const Eigen::MatrixXd& a);
double spectral_radius(const Eigen::MatrixXd& a);
double spectral_norm(const Eigen::MatrixXd& a);

// The floor of R for the sequence x (rows x_0..x_{N-1}): kObservationNoiseFloor v_j for coordinate j,
// v_j its variance about its mean over the sequence; a constant coordinate takes the mean of the
// others' variances, and constant data 1 (as detail::default_ridge).
Eigen::VectorXd observation_noise_floor(const Eigen::MatrixXd& x);

// The covariance S >= diag(floor) (floor > 0) maximising -(m/2) log|S| - (1/2) tr(S^-1 m W) for a
// symmetric W: with D = diag(floor)^(1/2) and the eigendecomposition D^-1 W D^-1 = U L U',
// S = D U max(L, 1) U' D (W itself when L >= 1).
Eigen::MatrixXd floored_covariance(const Eigen::MatrixXd& w, const Eigen::VectorXd& floor);

// The state noise floor of the M-step after the E-step `posterior`: kStateNoiseFloor times the
// state's mean square tr(sum_t E[s_t s_t']) / (N n).
double state_noise_floor(const LdsPosterior& posterior);
// The same over the E-steps of several sequences: the sums over all of their steps.
double state_noise_floor(const std::vector<LdsPosterior>& posteriors);

// The penalties of one fit (estimate_lds.hpp, "Regularisation"): the ridge r and the inverse-Wishart
// priors of strength nu (pseudo-observations) centred on I for cov0, psi I for each Q and
// diag(observation_centre) for R.
struct Regularisation {
  double ridge = 0;                    // r
  double strength = 0;                 // nu
  double state_noise_centre = 0;       // psi
  Eigen::VectorXd observation_centre;  // phi v_1..phi v_d (size d; unused when nu = 0)
};
// The regularisation of a fit to x: r = options.ridge or detail::default_ridge(x), nu, psi from
// options.prior, and the centre of R phi v_j, v_j the variances of observation_noise_floor.
Regularisation regularisation_of(const Eigen::MatrixXd& x, const LdsFitOptions& options);

// The log prior -(nu/2) sum_S (log|S| + tr(S^-1 Psi_S)) - (r/2) sum_S tr(S^-1) over S = cov0, every Q_k
// and R (without the SLDS's prior on the A_k); 0 when r = nu = 0.
double covariance_penalty(const SwitchingStateSpace& model, const Regularisation& regularisation);

// The dynamics maximising sum_t E log N(s_t; A s_{t-1}, Q) - (r/2) tr(Q^-1) - (a/2) tr(Q^-1 A A')
// - (nu/2) (log|Q| + psi tr(Q^-1)) over the summed steps (the third term a matrix-normal prior on A,
// a = transition_ridge >= 0; a = 0 for the LDS), subject to stability(A) <= kStabilityBound and
// Q >= q_floor I. Unconstrained: A* = P1 (P- + a I)^-1, Q = (P+ - A* P1' + (r + nu psi) I) / (steps + nu).
// When A* is not stable, the better (by the objective) of two stable candidates: the point
// previous.transition + alpha (A* - previous.transition) with the largest alpha in [0, 1] found by
// bisection, and A* scaled to the bound (estimate_lds.hpp explains why the objective cannot
// decrease); then Q = floored ((S(A) + nu psi I) / (steps + nu)). `previous` (the dynamics before the
// M-step) must meet the bound. Needs steps >= 1.
StateDynamics maximise_dynamics(const TransitionSums& sums, const Regularisation& regularisation, double transition_ridge,
                                const StateDynamics& previous, double q_floor, Stability stability);

// The M-step of everything but the dynamics (estimate_lds.hpp): C = Sxs P^-1,
// R = floored_covariance((Sxx - C Sxs' + r I + nu diag(observation_centre)) / (N + nu), noise_floor),
// mean0 = s_0|N, cov0 = (V_0|N + (r + nu) I) / (1 + nu), written into `model`.
void maximise_observation(const Eigen::MatrixXd& x, const LdsPosterior& posterior, const Regularisation& regularisation,
                          const Eigen::VectorXd& noise_floor, SwitchingStateSpace& model);
// Its two halves from summed statistics. C and R: C = Sxs P^-1 and
// R = floored_covariance((Sxx - C Sxs' + r I + nu diag(observation_centre)) / (N + nu), noise_floor).
void maximise_emission(const ObservationSums& sums, const Regularisation& regularisation,
                       const Eigen::VectorXd& noise_floor, SwitchingStateSpace& model);
// mean0 and cov0 from the first states (weights w_i summing to W): mean0 = sum_i w_i m_i / W and
// cov0 = (sum_i w_i (V_i + (m_i - mean0)(m_i - mean0)') + (r + nu) I) / (W + nu), the maximiser of
// sum_i w_i E log N(s_0; mean0, cov0) - (r/2) tr(cov0^-1) - (nu/2) (log|cov0| + tr(cov0^-1)).
void maximise_start(const ObservationSums& sums, const Regularisation& regularisation, SwitchingStateSpace& model);

// The MAP adaptation's priors (estimate_lds.hpp): tau pseudo-steps of the pooled model, whose
// state has the second moment M0 = m0. As sums to add to the E-step's:
// the observation model and the first state: P = tau M0, Sxs = tau C0 M0, Sxx = tau (C0 M0 C0' + R0),
// tau vectors, and one first state of weight tau, mean mean0_0 and covariance cov0_0;
ObservationSums pseudo_observation_sums(const SwitchingStateSpace& pooled, const Eigen::MatrixXd& m0, double tau);
// the dynamics (A0, Q0): P- = tau M0, P+ = tau (A0 M0 A0' + Q0), P1 = tau A0 M0, tau steps.
TransitionSums pseudo_transition_sums(const StateDynamics& pooled, const Eigen::MatrixXd& m0, double tau);
// Their log priors:
//   start (mean0, cov0):  -(tau/2) [log|cov0| + tr(cov0^-1 (cov0_0 + (mean0 - mean0_0)(mean0 - mean0_0)'))],
//   dynamics (A, Q):      -(tau/2) [log|Q| + tr(Q^-1 (Q0 + (A - A0) M0 (A - A0)'))],
//   emissions (C, R):     -(tau/2) [log|R| + tr(R^-1 (R0 + (C - C0) M0 (C - C0)'))].
double start_log_prior(const SwitchingStateSpace& p, const SwitchingStateSpace& pooled, double tau);
double dynamics_log_prior(const StateDynamics& p, const StateDynamics& pooled, const Eigen::MatrixXd& m0, double tau);
double emission_log_prior(const SwitchingStateSpace& p, const SwitchingStateSpace& pooled, const Eigen::MatrixXd& m0,
                          double tau);
// M0 = (1/(T+1)) sum_{t=0..T} E[s_t s_t'], the state's second moment per step of a switching
// state-space model whose regime starts r_0 ~ start and moves by the chain (chain_jk = P(r_t = k |
// r_t-1 = j)), over T = length steps (estimate_lds.hpp and estimate_slds.hpp), the regimes summed out
// exactly: with M_t(k) = E[s_t s_t' 1{r_t = k}] and w_t(k) = P(r_t = k), M_0(k) = start_k (cov0 +
// mean0 mean0'), w_0 = start and, as r_t depends on s_t-1 only through r_t-1,
//   M_t(k) = sum_j chain_jk (A_k M_t-1(j) A_k' + w_t-1(j) Q_k),   w_t = chain' w_t-1;
// E[s_t s_t'] = sum_k M_t(k). An LDS is the one-regime case (start = chain = 1), where M_t = V_t + m_t m_t'.
Eigen::MatrixXd expected_state_second_moment(const SwitchingStateSpace& model, const Eigen::VectorXd& start,
                                             const Eigen::MatrixXd& chain, long length);
// The smallest eigenvalue of a symmetric matrix (the cap of a floor that the pooled model must meet).
double least_eigenvalue(const Eigen::MatrixXd& s);

}  // namespace ppk::detail
