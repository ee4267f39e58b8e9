// Fisher-kernel features of a pooled latent-variable model (Jaakkola & Haussler 1999, "Exploiting
// generative models in discriminative classifiers"): the Fisher score
//     U(x) = grad_theta log p(x | theta)  at theta = the pooled model (adaptation.hpp),
// with respect to the parameters an AdaptedParameters selects, divided by the example's size, and
// scaled by the diagonal of the empirical Fisher information of the training examples. The Fisher
// kernel phi(x) . phi(x') is then a linear kernel (LIBSVM -t 0, LIBLINEAR) on these features.
//
// Models: an HmmModel whose emissions are all one-event multinomials (x a sequence of symbols
// 0..O-1) or all Gaussians in one covariance form (x the rows x_0..x_{n-1} of an n x D matrix), and
// a MixtureModel of Gaussians in one covariance form (x a set of vectors, the rows of an n x D matrix),
// an LdsModel (x the sequence x_0..x_{N-1}, the rows of an N x d matrix, N >= 2) and a BayesNetModel
// of discrete nodes (x a set of n joint observations of its observed variables).
//
// Parametrisation. A probability vector p (the HMM's start pi, each transition row A_p., each
// discrete emission row E_q., the mixture's weights w) by its logits a, p = softmax(a); with
// expected counts c_o of its outcomes given x and N = sum_o c_o,
//     d log p(x) / d a_o = c_o - N p_o,
// where, with gamma_t(q) = P(s_t = q | x) and xi_t(p, q) = P(s_t = p, s_{t+1} = q | x) from
// forward-backward (the responsibilities r_t(q) for a mixture, with t running over the set):
//     start        c_q = gamma_0(q), N = 1;
//     transitions  c_pq = sum_{t < n-1} xi_t(p, q), N = sum_q c_pq;
//     emissions    c_qo = sum_{t: x_t = o} gamma_t(q), N = sum_t gamma_t(q);
//     weights      c_m = sum_t r_t(m), N = n.
//     cpts         each row P(. | c) of node i's CPT: c_k = n(i, c, k), the expected count of node i in
//                  state k with its parents in configuration c over the n observations (the E-step of
//                  estimate_bayesnet.hpp, enumerating the hidden nodes), N = n(i, c).
// A Gaussian state (component) q, N(mu_q, Sigma_q) with P_q = Sigma_q^-1, residuals
// e_t = x_t - mu_q, N_q = sum_t gamma_t(q) and S_q = sum_t gamma_t(q) e_t e_t':
//     means, by mu_q itself:  d log p / d mu_q = P_q sum_t gamma_t(q) e_t;
//     covariances:
//       isotropic (Sigma = v I), by log v:        (tr S_q / v - N_q D) / 2;
//       diagonal (Sigma = diag v), by log v_d:    (S_q,dd / v_d - N_q) / 2 for each d;
//       full, by the entries s_ij, i <= j, of the upper triangle of Sigma_q, each moving both
//       Sigma_ij and Sigma_ji (the matrix stays symmetric): with G = (P_q S_q P_q - N_q P_q) / 2,
//       the matrix derivative of log p, the score of s_ij is G_ii for i = j and 2 G_ij for i < j.
// An LDS (lds.hpp: s_0 ~ N(mean0, cov0), s_t = A s_t-1 + N(0, Q), x_t = C s_t + N(0, R), t = 0..N-1,
// all three covariances full and symmetric). By Fisher's identity U(x) = E[grad log p(x, s) | x], the
// posterior expectation of the complete-data score, from the Kalman filter and RTS smoother at the
// pooled LDS (estimate_lds.hpp): with E[s_t], V_t = Cov(s_t | x) and the sums
// P- = sum_{t>=1} E[s_t-1 s_t-1'], P+ = sum_{t>=1} E[s_t s_t'], P1 = sum_{t>=1} E[s_t s_t-1'],
// P = sum_t E[s_t s_t'], Sxs = sum_t x_t E[s_t]' and Sxx = sum_t x_t x_t',
//     start        mean0 itself:  cov0^-1 e0,  e0 = E[s_0] - mean0;
//                  cov0 by its upper-triangle entries as a full covariance above, with P_q = cov0^-1,
//                  S_q = V_0 + e0 e0' and N_q = 1;
//     transitions  A by its entries:  Q^-1 (P1 - A P-);
//                  Q likewise with P_q = Q^-1, S_q = P+ - A P1' - P1 A' + A P- A', N_q = N - 1;
//     emissions    C by its entries:  R^-1 (Sxs - C P);
//                  R likewise with P_q = R^-1, S_q = Sxx - C Sxs' - Sxs C' + C P C', N_q = N.
// (The pooled LDS's cov0 resp. Q must be positive definite when start resp. transitions is selected.)
//
// Feature order (fixed; only the selected blocks, in this order):
//   HMM:     start[q] (q = 0..M-1); transitions[p][q] (row by row); then state by state q = 0..M-1
//            its emission block: discrete emissions[q][o] (o = 0..O-1), or Gaussian means[q][d]
//            (d = 0..D-1) followed by its covariance block;
//   mixture: weights[m]; then component by component its means[m][d] and covariance block.
//   LDS:     mean0[i] (i = 0..n-1, n the state dimension), cov0[i][j]; A[i][j], Q[i][j]; C[i][j]
//            (i = 0..d-1, d the observation dimension), R[i][j]: the row's matrix names (lds.hpp), A
//            and C entry by entry row by row, the covariances by their upper triangles (j >= i) row
//            by row.
//   network: cpts[i][e] for node i = 0.. and its CPT entry e = c K_i + k (row c, state k), every node.
//   A covariance block: isotropic covariances[q] (log v); diagonal covariances[q][d][d] (log v_d);
//   full covariances[q][i][j] for i <= j, row by row of the upper triangle. Indices are 0-based,
//   as the symbols are. The selection's names: start, transitions, emissions (discrete emissions;
//   an LDS's (C, R)), means, covariances (Gaussian states), weights (mixtures), cpts (networks); an
//   LDS's start is (mean0, cov0) and its transitions (A, Q) (adaptation.hpp); the others do not apply.
//
// Normalisation: the score per observation u(x) = U(x) / n (n the sequence's length or the set's
// size; an LDS's number of vectors N), so that examples of different sizes are on one scale. From
// the training examples' scores u_i, the diagonal of the empirical Fisher information I_jj = mean_i u_ij^2
// (FisherScaling), and the features phi_j(x) = u_j(x) / sqrt(I_jj) (0 where I_jj = 0: a parameter no training example
// moves). The diagonal is the training file's: the caller saves it, and test files are scaled by it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/model.hpp"
#include "ppk/estimate/adaptation.hpp"

namespace ppk {

// The Fisher score function of one pooled model for the selected parameters: the model's
// parameters are copied, so the scorer does not refer to the model afterwards.
class FisherScorer {
 public:
  // EstimationError unless `pooled` is an HmmModel with all emissions one-event multinomials
  // (not leveled) or all Gaussians of one form, a MixtureModel of Gaussians of one form
  // (naming the first emission or component that is not), an LdsModel (whose cov0 resp. Q is
  // positive definite when start resp. transitions is selected), or a BayesNetModel of discrete nodes; OptionError naming
  // {adapt} when `parameters` lists a parameter the model does not have or selects none of its parameters
  // (check_adapted_parameters, adaptation.hpp).
  FisherScorer(const Model& pooled, const AdaptedParameters& parameters);
  ~FisherScorer();
  FisherScorer(FisherScorer&&) noexcept;
  FisherScorer& operator=(FisherScorer&&) noexcept;

  // The number of features F.
  long size() const;
  // The F features' names in the order above, e.g. "emissions[2][17]".
  const std::vector<std::string>& feature_names() const;

  // u(x) = U(x) / n for a sequence of symbols under a discrete-emission HMM. EstimationError for
  // an empty sequence, a symbol outside 0..O-1 (naming its position), a model with Gaussian
  // emissions, or a sequence of probability 0 under the pooled model.
  Eigen::VectorXd score(const std::vector<long>& sequence) const;
  // u(x) = U(x) / n for the rows of x (n x D) under a Gaussian-emission HMM, a Gaussian mixture or
  // an LDS. EstimationError for no rows (an LDS: fewer than 2), D other than the model's, a value
  // that is not finite, a discrete-emission HMM or a network, or (an LDS) a covariance the Kalman
  // filter finds not numerically positive definite.
  Eigen::VectorXd score(const Eigen::MatrixXd& x) const;
  // u(x) = U(x) / n for a network's n joint observations (observations[v][j]: observed variable j's
  // 0-based state). EstimationError for no observations, a value that is not a state of its
  // variable, an observation of probability 0, or a model that is not a network.
  Eigen::VectorXd score(const std::vector<std::vector<long>>& observations) const;
  // The same from the expected counts n(i, c, k) of n observations (a fully observed network's
  // counts, which are its sufficient statistics). EstimationError unless they have the CPTs' shapes.
  Eigen::VectorXd score(const std::vector<Eigen::VectorXd>& expected_counts, double observations) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The diagonal of the empirical Fisher information of the training examples and the features it
// scales (see above).
class FisherScaling {
 public:
  // I_jj = mean_i u_ij^2 over the training examples' per-observation scores u_i. EstimationError
  // for no scores, scores of different sizes, or a value that is not finite.
  static FisherScaling from_training_scores(const std::vector<Eigen::VectorXd>& scores);
  // A saved diagonal. EstimationError unless every I_jj is finite and >= 0.
  explicit FisherScaling(Eigen::VectorXd information_diagonal);

  const Eigen::VectorXd& information_diagonal() const { return information_diagonal_; }
  // phi_j = u_j / sqrt(I_jj), 0 where I_jj = 0. EstimationError unless u has the diagonal's size.
  Eigen::VectorXd features(const Eigen::VectorXd& score) const;

 private:
  Eigen::VectorXd information_diagonal_;
};

}  // namespace ppk
