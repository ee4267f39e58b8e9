// Fitting a linear dynamical system (lds.hpp) to one sequence x_0..x_{N-1} of real d-vectors by EM
// (Shumway and Stoffer 1982; Ghahramani and Hinton 1996, "Parameter estimation for linear dynamical
// systems"), with an n-dimensional hidden state:
//     s_0 ~ N(mean0, cov0),  s_t = A s_{t-1} + w_t, w_t ~ N(0, Q),  x_t = C s_t + v_t, v_t ~ N(0, R).
// The model has no constant offset: E x_t = C A^t mean0, so the data are modelled about 0.
//
// E-step: the Kalman filter (predicted mean and covariance s_t|t-1, P_t|t-1; innovation
// e_t = x_t - C s_t|t-1 with covariance F_t = C P_t|t-1 C' + R; gain K_t = P_t|t-1 C' F_t^-1; filtered
// s_t|t = s_t|t-1 + K_t e_t, V_t|t = (I - K_t C) P_t|t-1 (I - K_t C)' + K_t R K_t' (Joseph's form); with
// n < d the same quantities in information form, by n x n factorisations: src/estimate/lds_em.cpp) gives
//     log p(X) = sum_t log N(e_t; 0, F_t)            (the prediction-error decomposition);
// the Rauch-Tung-Striebel smoother, with J_t = V_t|t A' P_t+1|t^-1, gives the posterior moments
//     s_t|N = s_t|t + J_t (s_t+1|N - s_t+1|t),  V_t|N = V_t|t + J_t (V_t+1|N - P_t+1|t) J_t',
//     V_t+1,t|N = Cov(s_t+1, s_t | X) = V_t+1|N J_t'.
// With E[s_t s_u' | X] = V_t,u|N + s_t|N s_u|N', T = N - 1 transitions and the sums
//     P = sum_{t=0..T} E[s_t s_t'],  P- = sum_{t<T} E[s_t s_t'],  P+ = sum_{t>0} E[s_t s_t'],
//     P1 = sum_{t>0} E[s_t s_t-1'],  Sxs = sum_t x_t E[s_t]',  Sxx = sum_t x_t x_t',
// the M-step (each pair jointly maximised: C resp. A does not depend on R resp. Q) is
//     C = Sxs P^-1,  R = (Sxx - C Sxs' + r I + nu phi V) / (N + nu),  A = P1 (P-)^-1,
//     Q = (P+ - A P1' + (r + nu psi) I) / (T + nu),  mean0 = s_0|N,  cov0 = (V_0|N + (r + nu) I) / (1 + nu),
// every inverse applied by a Cholesky solve and every covariance symmetrised.
//
// Regularisation. These are the maximisers of the expected complete log-likelihood plus the log priors
//     -(r/2) tr(S^-1)                              for S = cov0, Q, R  (the ridge r >= 0), and
//     -(nu/2) (log|S| + tr(S^-1 Psi_S))            (inverse-Wishart with nu pseudo-observations, mode
//                                                    Psi_S when nu dominates),
// centred on Psi_cov0 = I, Psi_Q = psi I and Psi_R = phi V, V = diag(v_1..v_d) the coordinates'
// variances over the sequence. So EM never decreases the penalised (MAP) objective
//     L = log p(X) - (r/2) sum_S tr(S^-1) - (nu/2) sum_S (log|S| + tr(S^-1 Psi_S))
// (L = log p(X) for r = nu = 0). The state's scale is not identified by the data (s -> D s with
// C -> C D^-1 leaves p(X) unchanged); the priors on cov0 and Q, centred on multiples of I, fix it: the
// MAP state has a covariance of order I, and psi is Q relative to that unit state covariance. The
// ridge alone (r tiny by default: 1e-6 times the data's mean per-coordinate variance, 1e-6 for
// constant data) only keeps the covariances positive definite; without nu a single sequence's fit
// sets cov0 = V_0|N, a near point mass at its own first state, and kernels between such models are
// about 0 unless their first observations coincide. With nu > 0, cov0 is pulled to the unit state
// covariance (the first state is believed to be a draw like the others, not a known point), Q and R
// towards pooled noise levels; as nu grows past N the covariances become the centres and only C, A
// and mean0 are fitted per sequence.
//
// Choosing the prior (choose_lds_prior; `ppk fit lds|slds` --prior-strength auto, the default): psi
// and phi are the geometric means, over maximum-likelihood fits (nu = 0) of the training file's
// sequences, of the scale-free ratios tr(Sigma^-1 Q) / n (Sigma the fit's stationary state
// covariance) and mean_j R_jj / v_j. The strength nu is the one of a grid maximising the held-out
// likelihood: each sequence's fit to its first N - h vectors (h = max(1, N / 3)) scores its last h
// vectors as a FRESH sequence started from (mean0, cov0), which is what a kernel between the models
// of different sequences asks of cov0 (a continuation of the filtered state would not test cov0).
// Start of each restart (a random stream std::mt19937_64 seeded by (seed, N, d, n, a hash of the
// data), so the same sequence and options always give the same LDS): principal components of the
// second moment M = (1/N) sum_t x_t x_t' (the model's observations have mean about 0), eigenvalues
// l_1 >= .. >= l_d with unit eigenvectors u_j, as in probabilistic PCA: R = (sigma^2 + r) I (raised to
// the floor below where it is under it) with
// sigma^2 the mean of l_{n+1}..l_d (n < d) or a tenth of the mean eigenvalue (n >= d), at least 1e-3
// times the mean eigenvalue; column j of C is u_j sqrt(max(l_j - sigma^2, sigma^2 / 100)) for j < d and
// 0 beyond, plus N(0, sigma^2 / 400) noise per entry; A a matrix of N(0, 1) entries scaled to a
// largest singular value drawn uniformly from [0.5, 0.95]; Q = I - A A' + r I, mean0 = 0, cov0 = I (so
// that the state starts stationary with unit covariance). EM stops after `iterations` M-steps or
// when L gains less than tolerance * |L|; the fit with the largest L over the restarts is kept (a
// restart whose covariances become singular, which r > 0 prevents, is dropped; if every restart
// fails, the first one's error is thrown).
// The stored length is T = N - 1, or `length` when set.
//
// Finite kernels by construction. Unconstrained maximum likelihood on a short sequence of many
// coordinates (13-D MFCC frames, 24-97 per word) happily returns an explosive A (spectral radius 2.67:
// it fits an onset or a drift by growth) and an R with eigenvalues near 0 (n states explain a few
// directions of a few dozen points exactly). Such a model's joint covariance S of x_0..x_T grows as
// |lambda|^(2T): its kernel overflows (NaN from T of about 30 on), and before that it is rounding noise.
// EM is therefore maximised over the constrained set
//     rho(A) <= 0.999,   R >= diag(0.01 v_1, .., 0.01 v_d),   Q >= q I,
// rho(A) the spectral radius, v_j the variance of coordinate j over the sequence (about its mean; a
// constant coordinate takes the mean of the others'), q = 1e-4 times the state's mean square
// tr(sum_t E[s_t s_t']) / (N n) of the E-step before (the state's scale is not identified, so a floor
// on Q can only be relative to it). For every model of that set the state covariance stays bounded
// (Sigma_t -> the stationary covariance, at most |cov0| + |Q| / (1 - 0.999^2) in the eigenbasis of a
// diagonalisable A) and every innovation covariance F_t >= R is positive definite, so log k is finite
// for every T; the R floor also keeps the kernel from being needlessly peaked.
// How each M-step stays inside the set (lds_em.hpp), and why L still never decreases:
//  * R (and Q for a given A) maximise -(m/2) log|S| - (1/2) tr(S^-1 W) over S >= F: with D = F^(1/2)
//    and D^-1 W D^-1 = U L U', the maximiser is D U max(L, 1) U' D (eigenvalues clipped at the floor),
//    the exact constrained maximiser, and W itself when the floor does not bind.
//  * A: the unconstrained A* = P1 (P-)^-1 when rho(A*) <= 0.999 (the ordinary M-step). Otherwise,
//    with Q maximised out the objective depends on A through S(A) = S(A*) + (A - A*) P- (A - A*)' only
//    and does not increase with S, and along the segment A(alpha) = A_old + alpha (A* - A_old),
//    S(A(alpha)) = S(A*) + (1 - alpha)^2 (A_old - A*) P- (A_old - A*)' shrinks as alpha grows: the
//    largest alpha whose A(alpha) meets the bound (bisection from the stable A_old) is at least as good
//    as A_old. A* scaled to the bound (A* 0.999 / rho(A*)) is the other candidate; the better of the two
//    by the objective is taken. So each M-step is a generalised EM step and L never decreases.
// The random start meets the constraints (largest singular value of A <= 0.95, R floored), so the
// whole run stays inside the set. When the unconstrained fit already meets them (a stationary series
// of a few hundred points or more, as in the recovery tests), the fit is exactly the unconstrained EM.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/families/lds.hpp"

namespace ppk {

// The conjugate priors of "Regularisation" above: strength nu >= 0 (pseudo-observations; 0: none),
// the centre psi > 0 of Q relative to the unit state scale, the centre phi > 0 of R relative to the
// coordinates' variances. `ppk fit lds` chooses them on the training file (choose_lds_prior).
struct LdsPrior {
  double strength = 0;             // nu
  double state_noise = 0.5;        // psi
  double observation_noise = 0.1;  // phi
};

// These options are also the ones `ppk fit slds` shares with it (SldsFitOptions derives from them).
struct LdsFitOptions {
  long state_dim = 1;           // n >= 1
  std::optional<double> ridge;  // r >= 0; default as above
  LdsPrior prior;
  long iterations = 400;    // >= 1
  double tolerance = 1e-8;  // >= 0
  long restarts = 3;        // >= 1
  std::uint64_t seed = 1;
  std::optional<long> length;  // the stored T >= 0; default N - 1
};

// The estimator for `ppk fit lds`: each example's vectors are the sequence x_0..x_{N-1} (N >= 2; the
// statistic "x", N x d, so it cannot pool statistics). Its fit_pooled and adapt are fit_pooled_lds
// and adapt_lds (below, "Pooled fit and adaptation").
std::unique_ptr<Estimator> lds_estimator(const LdsFitOptions& options);
// Its Fisher scores (fisher.hpp, fisher_lds.cpp; the estimator's fisher_scores): EstimationError
// unless cov0 resp. Q is positive definite when start resp. transitions is selected; OptionError
// naming {adapt} as check_adapted_parameters.
std::unique_ptr<FisherScores> lds_fisher_scores(const LdsModel& pooled, const AdaptedParameters& parameters);

// The Kalman filter and Rauch-Tung-Striebel smoother of `model` on the rows of x (x_0..x_{N-1}; the
// model's stored length is not used). Throws EstimationError when an innovation or predicted state
// covariance is not numerically positive definite, or x does not have d columns.
struct LdsPosterior {
  double log_likelihood = 0;                     // log p(x_0..x_{N-1})
  std::vector<Eigen::VectorXd> means;            // E[s_t | X], t = 0..N-1
  std::vector<Eigen::MatrixXd> covariances;      // Cov(s_t | X)
  std::vector<Eigen::MatrixXd> lag_covariances;  // Cov(s_t, s_t-1 | X) at index t - 1, t = 1..N-1
};
LdsPosterior smooth_lds(const LdsModel& model, const Eigen::MatrixXd& x);

// The EM fit and L after each M-step of the kept restart (L[0]: the starting point; the model is the
// one of the last entry). Throws EstimationError for bad options or a sequence of fewer than 2
// vectors, non-finite values, or a covariance that EM drives to singular (with r = 0). The model meets
// the constraints above.
struct LdsFit {
  std::unique_ptr<LdsModel> model;
  std::vector<double> log_likelihoods;  // the penalised L above
};
LdsFit fit_lds(const Eigen::MatrixXd& x, const LdsFitOptions& options);

// The prior chosen on a training file's sequences ("Choosing the prior" above): psi and phi pooled
// over maximum-likelihood fits (nu = 0), then nu in `strengths` maximising the summed fresh-start
// held-out log-likelihood; the scores per strength are returned too (-infinity where a fit failed).
// At most `max_sequences` sequences of at least 3 vectors (evenly spaced in the file) and at most
// 1000 vectors in all (but at least one sequence) are used; with none, the prior is LdsPrior{}
// (nu = 0). Its fits take one restart, at most 100 iterations and a tolerance of at least 1e-6 (the
// other options as given); they run on up to `threads` threads, and the result does not depend on
// their number.
struct LdsPriorChoice {
  LdsPrior prior;
  std::vector<double> strengths;
  std::vector<double> held_out_log_likelihoods;
  long sequences_used = 0;
};
LdsPriorChoice choose_lds_prior(const std::vector<Eigen::MatrixXd>& sequences, const LdsFitOptions& options,
                                const std::vector<double>& strengths, long max_sequences = 30, unsigned threads = 1);
// The default grid of strengths nu: 0, 1, 4, 16, 64, 256.
std::vector<double> default_prior_strengths();

// Pooled fit and adaptation (adaptation.hpp). Pooled: fit_lds's EM with one Kalman smoother per
// sequence and the sufficient statistics P, P-, P+, P1, Sxs, Sxx (and their counts) summed over the
// sequences; the first states give mean0 = (1/S) sum_i s_0|N^(i) and
// cov0 = (sum_i (V_0|N^(i) + (s_0|N^(i) - mean0)(..)') + (r + nu) I) / (S + nu) over the S sequences;
// the constraints of fit_lds with the R floor from the coordinates' variances of all the vectors
// and the Q floor from the state's mean square over all the steps; restarts seeded by (seed, the
// data) and run in parallel. One sequence gives fit_lds exactly (fit_lds is that case).
// Adaptation from theta0 = (mean0_0, cov0_0, A0, Q0, C0, R0): with M0 = (1/(T+1)) sum_{t=0..T} E0[s_t s_t']
// the pooled model's expected state second moment per step (T its stored length; E0 under theta0:
// m_t = A0^t mean0_0, V_t = A0 V_t-1 A0' + Q0 from V_0 = cov0_0), the log priors are
//   start (mean0, cov0):  -(tau/2) [log|cov0| + tr(cov0^-1 (cov0_0 + (mean0 - mean0_0)(mean0 - mean0_0)'))]
//   transitions (A, Q):   -(tau/2) [log|Q| + tr(Q^-1 (Q0 + (A - A0) M0 (A - A0)'))]
//   emissions (C, R):     -(tau/2) [log|R| + tr(R^-1 (R0 + (C - C0) M0 (C - C0)'))]
// i.e. a matrix-normal prior on A (on C) centred on A0 (C0) with row covariance Q (R) and column
// precision tau M0, with an inverse-Wishart-type prior on Q (R) whose mode with A = A0 (C = C0) is
// Q0 (R0), and the normal-inverse-Wishart of the Gaussians above on (mean0, cov0): tau
// pseudo-observations of the pooled model, each a pseudo-step whose previous state has second
// moment M0. EM maximises the MAP objective
//   L = log p(X | theta) + sum over the adapted groups of their log priors - (r/2) sum_S tr(S^-1)
// (S = cov0, Q, R; r the ridge, default 0) by adding the pseudo-observations to the E-step's sums:
//   C = (Sxs + tau C0 M0) (P + tau M0)^-1,
//   R = (Sxx + tau (C0 M0 C0' + R0) - C (Sxs + tau C0 M0)' + r I) / (N + tau),
//   A = (P1 + tau A0 M0) (P- + tau M0)^-1,
//   Q = (P+ + tau (A0 M0 A0' + Q0) - A (P1 + tau A0 M0)' + r I) / (T + tau),
//   mean0 = (s_0|N + tau mean0_0) / (1 + tau),
//   cov0 = (V_0|N + (s_0|N - mean0)(..)' + tau (cov0_0 + (mean0_0 - mean0)(..)') + r I) / (1 + tau),
// the closed forms of the (C, R), (A, Q) and (mean0, cov0) maximisations. The constraints of fit_lds
// stay: rho(A) <= 0.999 by the same generalised M-step (with Q maximised out the objective depends
// on A only through the augmented residual scatter S(A), so the segment and scaling argument of
// "Finite kernels by construction" above holds unchanged and L never decreases); R >= diag(min(0.01 v_j, lambda_min(R0)))
// and Q >= min(q, lambda_min(Q0)) I (the floors of fit_lds, lowered so that theta0 meets them).
// EM starts from theta0, so tau -> infinity keeps theta0 and tau -> 0 is maximum-likelihood EM from
// theta0. The state's basis is not identified by the data (s -> D s, C -> C D^-1 leaves p(X)
// unchanged): per-sequence fits land in arbitrary bases, so their A, Q, C of different sequences are
// not comparable, while every adapted LDS starts in the pooled model's basis and the priors, centred
// on theta0 in that basis, keep it there: adapted rows are comparable with each other and with the
// pooled row.
//
// The pooled fit of fit_lds's EM over all the sequences (each of at least 2 vectors) and the MAP
// adaptation of a pooled LDS to one sequence (above); log_likelihoods holds the pooled
// penalised L resp. the MAP objective after 0, 1, 2, ... M-steps. The pooled LDS stores T = the
// first sequence's N - 1 (or options.length), the adapted one the sequence's N - 1 (or length).
LdsFit fit_pooled_lds(const std::vector<Eigen::MatrixXd>& sequences, const LdsFitOptions& options, unsigned threads = 1);
LdsFit adapt_lds(const LdsModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options);

}  // namespace ppk
