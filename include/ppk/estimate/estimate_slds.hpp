// Fitting a switching linear dynamical system (slds.hpp) to one sequence x_0..x_{N-1} of real
// d-vectors by APPROXIMATE EM: hard-assignment ("Viterbi-like") EM, which replaces the intractable
// posterior over the K^N regime paths (JMLR 2004 section 5.1) by the single best path. For a path
// r = (r_0..r_T), T = N - 1, the model given r is a non-stationary LDS (estimate_lds.hpp with
// A_t = A_{r_t}, Q_t = Q_{r_t}), and the method maximises over the parameters theta AND the path
//     J(theta, r) = log p(r | theta) + log p(X | r, theta) + a (sum_k log pi_k + sum_jk log trans_jk)
//                   - (r/2) (tr(cov0^-1) + tr(R^-1) + sum_k tr(Q_k^-1 (I + A_k A_k')))
//                   - (nu/2) sum_S (log|S| + tr(S^-1 Psi_S))   (S = cov0, every Q_k, R)
// (a = --smoothing, the Dirichlet(1 + a) priors of the chain, its term dropped for a = 0; r = --ridge,
// the LDS fit's penalty plus a matrix-normal prior on each A_k that keeps a regime with few steps
// well posed; nu, Psi_S: the inverse-Wishart priors of the LDS fit, estimate_lds.hpp "Regularisation",
// which make Q_k = (P+ - A_k P1' + (r + nu psi) I) / (n_k + nu) below), by coordinate ascent on F(q, r, theta) = E_q log
// p(S, X, r | theta) + H(q) + priors, whose maximum over the state posterior q is J:
//   (1) smooth: q = p(S | X, r, theta), the Kalman filter and RTS smoother along r (lds_em.hpp), which
//       also gives log p(X | r, theta) and so J;
//   (2) path: with q fixed, the path maximising
//           log pi_{r_0} + sum_{t >= 1} [log trans(r_{t-1}, r_t) + E_q log N(s_t; A_{r_t} s_{t-1}, Q_{r_t})]
//       by Viterbi, E_q log N(s_t; A s_{t-1}, Q) = -1/2 (n log 2pi + log|Q| + tr(Q^-1 E_q[e e'])),
//       e = s_t - A s_{t-1}, E_q[e e'] = E s_t s_t' - A E s_{t-1} s_t' - E s_t s_{t-1}' A' + A E s_{t-1} s_{t-1}' A'
//       (ties: the lowest regime);
//   (3) M-step given q and the path: per regime k, from the sums P-, P+, P1 over the steps t >= 1 with
//       r_t = k: A_k = P1 (P- + r I)^-1, Q_k = (P+ - A_k P1' + r I) / (number of those steps) (a regime
//       with no step keeps its dynamics); C, R, mean0, cov0 as in the LDS M-step; pi_k ~ [r_0 = k] + a,
//       trans_jk ~ #{t: r_{t-1} = j, r_t = k} + a (a row with no count and a = 0: uniform).
// Each step cannot decrease F, so J never decreases.
// Start: the parameters of `ppk fit lds`'s fit with the same --state-dim, --ridge, --iterations,
// --tolerance, --restarts and --seed (fit_lds) for every regime, a uniform chain, and a first path
// from the data alone, as in the clustering identification of piecewise affine systems
// (Ferrari-Trecate, Muselli, Liberati and Morari 2003, "A clustering technique for the identification
// of piecewise affine systems", Automatica 39(2)), with windows in time instead of neighbourhoods in
// the regressor space: for each step t >= 1 the least-squares local dynamics B_t of x_u ~ B x_{u-1}
// over the window |u - t| <= h (h = max(5, d), so each window has more equations than unknowns;
// clipped to 1..T), then Lloyd's k-means of the vec(B_t) into K clusters from k-means++ means (a
// random stream seeded by (seed, N, d, n, K, a hash of the data)), r_t the cluster of B_t, r_0 = r_1.
// The overlapping windows make the labels piecewise constant, and the first Viterbi step (2) under
// the chain counted from them smooths them further. A regime whose dynamics are poorly explained by
// the one-regime LDS makes its R too large (it takes the fast regime's motion for noise), which
// hard EM corrects only slowly or not at all: the start's R is the LDS fit's R scaled by the factor
// among 1, 0.1, 0.01, 0.001 after whose first round J is largest. J[0] is J at that start after (1).
// Each round: (3); (1); (2), and (1) again if the path changed; J. Stop when J gains less than
// tolerance * |J| or after `iterations` rounds (an unchanged path is not the end: the M-step along it
// still raises J). With K = 1 the path is certain and the LDS fit is exact EM: it is the fit, as it is
// (J has one entry). Each of `restarts` restarts draws its own k-means++ means (so a clustering that
// stops in a poor local optimum has a fallback); a restart whose first path an earlier one had is
// skipped (everything after it is determined by that path), and the fit with the largest J is kept.
// The constraints of the LDS fit (estimate_lds.hpp, "Finite kernels by construction") hold in every
// M-step, the R floor also at the start's scaled R, except that with K >= 2 each A_k's spectral NORM
// (largest singular value), not only its spectral radius, is at most 0.999: regimes that are stable
// one by one can still switch into growth (a product of stable matrices need not be stable), while
// |A_{r_T} .. A_{r_1}| <= 0.999^T for every path when each norm is; the start's A (the LDS fit's) is
// scaled down to that bound when it exceeds it.
// The stored length is T = N - 1, or `length` when set; the stored path count S is `paths`.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/families/slds.hpp"

namespace ppk {

// The options of the LDS fit (state_dim, ridge, iterations, tolerance, restarts, seed, length; they
// also drive the LDS start) and the SLDS's own.
struct SldsFitOptions : LdsFitOptions {
  long states = 2;         // K >= 1
  long paths = 10;         // S >= 1, stored in the row
  double smoothing = 0.1;  // a >= 0
};

// The estimator for `ppk fit slds`: each example's vectors are the sequence x_0..x_{N-1} (N >= 2).
// Its fit_pooled and adapt are fit_pooled_slds and adapt_slds (below; adapt stores
// S = options.paths in the adapted rows).
std::unique_ptr<Estimator> slds_estimator(const SldsFitOptions& options);

// The fit, its regime path r_0..r_{N-1} (paths[0]) and J after the start and each round of the kept
// restart (the model is the one of the last entry). Throws EstimationError for bad options, fewer
// than 2 vectors, non-finite values, or a covariance that becomes singular (with r = 0).
// (fit_pooled_slds and adapt_slds below return the same: one path per sequence.)
struct SldsFit {
  std::unique_ptr<SldsModel> model;
  std::vector<std::vector<int>> paths;  // per sequence
  std::vector<double> objectives;       // J above
};
SldsFit fit_slds(const Eigen::MatrixXd& x, const SldsFitOptions& options);

// Pooled fit and adaptation (adaptation.hpp; hard EM over regime paths, its objective J above).
// Pooled: that hard EM over all the sequences X_1..X_S at once, one regime path r^(i) per sequence,
// maximising
//   J = sum_i [log p(r^(i) | theta) + log p(X_i | r^(i), theta)] + the priors of J (counted once)
// with ONE theta = (pi, trans, A_k, Q_k, C, R, mean0, cov0): (1) one Kalman smoother per sequence
// along its path; (2) one Viterbi path per sequence; (3) the M-step above from the sums over the
// sequences (P-, P+, P1 and the step counts per regime, P, Sxs, Sxx, the first states as for the
// pooled LDS, estimate_lds.hpp; pi_k ~ #{i: r_0^(i) = k} + a, trans_jk ~ #{i, t: r_{t-1}^(i) = j, r_t^(i) = k} + a).
// Start: the pooled LDS (fit_pooled_lds, same options) for every regime, a uniform chain, and first
// paths from the k-means of the windowed local dynamics of all the sequences' steps together; R
// floor from all the vectors, Q floor from all the steps, stability and R scaling as for one
// sequence; restarts seeded by (seed, the stacked data) and run in parallel, the E-steps too; the
// result does not depend on `threads`. One sequence gives fit_slds exactly (fit_slds is that case).
// Adaptation from theta0 = (pi0, trans0, A0_k, Q0_k, C0, R0, mean0_0, cov0_0), tau the relevance,
// with ONE M0 shared by the regimes: the pooled model's expected state second moment per step
//   M0 = (1/(T+1)) sum_{t=0..T} E0[s_t s_t']   (T its stored length; the chain summed out exactly:
//   M_t(k) = E0[s_t s_t' 1{r_t = k}] = sum_j trans0_jk (A0_k M_{t-1}(j) A0_k' + P0(r_{t-1} = j) Q0_k),
//   M_0(k) = pi0_k (cov0_0 + mean0_0 mean0_0'), E0[s_t s_t'] = sum_k M_t(k)),
// the log priors are those of the LDS (estimate_lds.hpp, "Pooled fit and adaptation") on (mean0,
// cov0) and (C, R), for each regime k that of the LDS's transitions on (A_k, Q_k) with A0_k, Q0_k (a
// matrix-normal prior centred on A0_k with row
// covariance Q_k and column precision tau M0, an inverse-Wishart-type prior with mode Q0_k: tau
// pseudo-steps per regime), and the Dirichlet priors of adaptation.hpp on the chain:
//   start (pi, mean0, cov0):        tau sum_k pi0_k log pi_k  + the LDS's start prior,
//   transitions (trans, A_k, Q_k):  tau sum_jk trans0_jk log trans_jk + sum_k -(tau/2) [log|Q_k|
//                                   + tr(Q_k^-1 (Q0_k + (A_k - A0_k) M0 (A_k - A0_k)'))],
//   emissions (C, R):               the LDS's emission prior.
// Hard EM maximises J_MAP = log p(r | theta) + log p(X | r, theta) + the log priors of the adapted
// groups - (r/2) sum_S tr(S^-1) (S = cov0, Q_k, R; r the ridge, default 0; no smoothing a and no
// prior on A_k besides the pooled one) by the same three steps; (1) and (2) do not involve the priors,
// and the M-step (3) has the closed forms
//   pi_k = ([r_0 = k] + tau pi0_k) / (1 + tau),  trans_jk = (n_jk + tau trans0_jk) / (n_j + tau),
//   A_k = (P1_k + tau A0_k M0) (P-_k + tau M0)^-1,
//   Q_k = (P+_k + tau (A0_k M0 A0_k' + Q0_k) - A_k (P1_k + tau A0_k M0)' + r I) / (n_k + tau),
//   C, R, mean0, cov0 as for the LDS,
// over the steps t >= 1 of regime k on the path (n_k of them; n_jk the path's j -> k moves, n_j its
// moves from j), so no step decreases J_MAP. The constraints of the fit stay: with K >= 2 each A_k's
// spectral norm (K = 1: spectral radius) <= 0.999 by the generalised M-step, R >= diag(min(0.01 v_j,
// lambda_min(R0))), Q_k >= min(q, lambda_min(Q0_k)) I. The start: theta0 and the path reached from the
// pooled chain's most probable path by steps (1) and (2) under theta0 until it repeats (at most 100
// times). Groups not
// adapted keep their pooled values. tau -> infinity keeps theta0; tau -> 0 is hard EM for J with
// a = r = 0 started from theta0. With K = 1 it is the LDS's adaptation. The regimes, like the state
// basis, stay the pooled model's, so adapted rows are comparable with each other and the pooled row.
//
// The pooled hard EM over all the sequences (each of at least 2 vectors) and the MAP adaptation of a
// pooled SLDS to one sequence (above); objectives holds J resp. J_MAP after the start and each round,
// paths the final regime path of each sequence. The pooled SLDS stores T = the first sequence's N - 1
// (or options.length), the adapted one the sequence's N - 1 (or options.length) and S = `paths`
// (default: the pooled model's S).
SldsFit fit_pooled_slds(const std::vector<Eigen::MatrixXd>& sequences, const SldsFitOptions& options,
                        unsigned threads = 1);
SldsFit adapt_slds(const SldsModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options,
                   std::optional<long> paths = std::nullopt);

}  // namespace ppk
