// Internal to libppk: the pieces of EM for linear-Gaussian state-space models (state_space.hpp) that
// `ppk fit lds` (estimate_lds.hpp) and `ppk fit slds` (estimate_slds.hpp) share: the Kalman filter and
// Rauch-Tung-Striebel smoother along a given regime path, and the M-step's closed forms.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "ppk/estimate_lds.hpp"
#include "state_space.hpp"

namespace ppk::detail {

// Checks the options of the LDS fit, which the SLDS fit shares (EstimationError naming the option).
void check_lds_options(const LdsFitOptions& options);

// (S + S') / 2: rounding leaves computed covariances slightly asymmetric.
Eigen::MatrixXd symmetrised(const Eigen::MatrixXd& s);

// tr(S^-1) of a covariance S that must be positive definite (EstimationError naming `what` if not).
double trace_of_inverse(const Eigen::MatrixXd& s, const char* what);

// The filter and smoother of estimate_lds.hpp on the rows of x (x_0..x_{N-1}), step t >= 1 following
// the dynamics regimes[t] (regimes.size() == N; regimes[0] is not used): with A_t, Q_t in place of
// A, Q the recursions are unchanged (the prediction of s_t and the smoother gain J_{t-1} use A_t).
// Throws EstimationError when an innovation or predicted state covariance is not numerically
// positive definite.
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

// The dynamics maximising sum_t E log N(s_t; A s_{t-1}, Q) - (r/2) tr(Q^-1) - (a/2) tr(Q^-1 A A') over
// the summed steps (the last term a matrix-normal prior on A, a = transition_ridge >= 0; a = 0 for the
// LDS): A = P1 (P- + a I)^-1, Q = (P+ - A P1' + r I) / steps. Needs steps >= 1.
StateDynamics maximise_dynamics(const TransitionSums& sums, double ridge, double transition_ridge);

// The M-step of everything but the dynamics (estimate_lds.hpp): C = Sxs P^-1,
// R = (Sxx - C Sxs' + r I) / N, mean0 = s_0|N, cov0 = V_0|N + r I, written into `model`.
void maximise_observation(const Eigen::MatrixXd& x, const LdsPosterior& posterior, double ridge,
                          SwitchingStateSpace& model);

}  // namespace ppk::detail
