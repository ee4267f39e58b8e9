// Fisher scores (fisher.hpp) of a pooled LDS (lds.hpp: s_0 ~ N(mean0, cov0), s_t = A s_t-1 + N(0, Q),
// x_t = C s_t + N(0, R), t = 0..N-1, all three covariances full and symmetric), x the sequence
// x_0..x_{N-1}, the rows of an N x d matrix, N >= 2. By Fisher's identity U(x) = E[grad log p(x, s) | x],
// the posterior expectation of the complete-data score, from the Kalman filter and RTS smoother at the
// pooled LDS (estimate_lds.hpp) with their sufficient statistics (lds_em.hpp): with E[s_t],
// V_t = Cov(s_t | x) and the sums P- = sum_{t>=1} E[s_t-1 s_t-1'], P+ = sum_{t>=1} E[s_t s_t'],
// P1 = sum_{t>=1} E[s_t s_t-1'], P = sum_t E[s_t s_t'], Sxs = sum_t x_t E[s_t]' and Sxx = sum_t x_t x_t',
//     start        mean0 itself:  cov0^-1 e0,  e0 = E[s_0] - mean0;
//                  cov0 by its upper-triangle entries as a full covariance (fisher.hpp), with
//                  P = cov0^-1, S = V_0 + e0 e0' and N = 1;
//     transitions  A by its entries:  Q^-1 (P1 - A P-);
//                  Q likewise with P = Q^-1, S = P+ - A P1' - P1 A' + A P- A', N = N - 1;
//     emissions    C by its entries:  R^-1 (Sxs - C P);
//                  R likewise with P = R^-1, S = Sxx - C Sxs' - Sxs C' + C P C', N = N.
// (The pooled LDS's cov0 resp. Q must be positive definite when start resp. transitions is selected.)
// u(x) = U(x) / N, N the number of vectors.
//
// Feature order: mean0[i] (i = 0..n-1, n the state dimension), cov0[i][j]; A[i][j], Q[i][j]; C[i][j]
// (i = 0..d-1, d the observation dimension), R[i][j]: the row's matrix names (lds.hpp), A and C entry
// by entry row by row, the covariances by their upper triangles (j >= i) row by row. The selection's
// names: start (mean0, cov0), transitions (A, Q), emissions (C, R).
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "estimate/fisher_scores.hpp"
#include "estimate/lds_em.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/estimate/fisher.hpp"
#include "ppk/families/lds.hpp"

namespace ppk {

namespace {

// S^-1 of a covariance S of the pooled LDS, EstimationError naming it and the block that needs it
// unless S is numerically positive definite.
Eigen::MatrixXd lds_precision(const Eigen::MatrixXd& covariance, const char* name, const char* block) {
  const Eigen::LLT<Eigen::MatrixXd> llt(covariance);
  if (llt.info() != Eigen::Success || !(llt.matrixLLT().diagonal().array() > 0.0).all())
    throw EstimationError(std::string("the pooled LDS's ") + name + " is not positive definite: the Fisher score of " +
                          block + " needs its inverse");
  return llt.solve(Eigen::MatrixXd::Identity(covariance.rows(), covariance.cols()));
}

class LdsScores final : public FisherScores {
 public:
  LdsScores(const LdsModel& pooled, const AdaptedParameters& parameters)
      : start_(parameters.start), transitions_(parameters.transitions), emissions_(parameters.emissions) {
    check_adapted_parameters(parameters, "lds", {"start", "transitions", "emissions"});
    lds_ = std::make_unique<LdsModel>(pooled.parameters());
    if (start_) start_precision_ = lds_precision(pooled.cov0(), "cov0", "start (mean0, cov0)");
    if (transitions_) state_noise_precision_ = lds_precision(pooled.state_noise(), "Q", "transitions (A, Q)");
    if (emissions_) observation_noise_precision_ = lds_precision(pooled.observation_noise(), "R", "emissions (C, R)");
    const long n = lds_->state_dim(), d = lds_->observation_dim();
    if (start_) {
      for (long i = 0; i < n; ++i) names_.push_back(detail::indexed("mean0", i));
      detail::name_entries("cov0", n, n, true, names_);
    }
    if (transitions_) {
      detail::name_entries("A", n, n, false, names_);
      detail::name_entries("Q", n, n, true, names_);
    }
    if (emissions_) {
      detail::name_entries("C", d, n, false, names_);
      detail::name_entries("R", d, d, true, names_);
    }
  }

  // The score above from the smoother's moments of x's states (lds_em.hpp's sums).
  Eigen::VectorXd rows_score(const Eigen::MatrixXd& x) const override {
    if (x.rows() == 1)
      throw EstimationError(
          "the sequence has 1 vector; an LDS's Fisher score, like its fit, needs at least 2 (one transition)");
    detail::check_rows(x, lds_->observation_dim(), "sequence");
    LdsPosterior posterior;
    try {
      posterior = smooth_lds(*lds_, x);
    } catch (const OptionError&) {  // it suggests a ridge, which is the pooled fit's, not the scorer's
      throw EstimationError(
          "the pooled LDS's Kalman smoother failed on the sequence: a predicted state or innovation covariance is "
          "not numerically positive definite (cov0 and Q singular along it)");
    }
    const Eigen::Index n = lds_->state_dim();
    Eigen::VectorXd out(static_cast<Eigen::Index>(names_.size()));
    Eigen::Index j = 0;
    if (start_) {
      // s_0 ~ N(mean0, cov0), one expected observation: the Gaussian's mean and full covariance scores
      // with e = E[s_0] - mean0 and S = Cov(s_0 | X) + e e'.
      const Eigen::VectorXd residual = posterior.means[0] - lds_->mean0();
      out.segment(j, n) = start_precision_ * residual;
      j = detail::write_covariance_entry_scores(
          start_precision_, posterior.covariances[0] + residual * residual.transpose(), 1.0, out, j + n);
    }
    if (transitions_) {
      const detail::TransitionSums sums =
          detail::transition_sums(posterior, std::vector<int>(static_cast<std::size_t>(x.rows()), 0), 0);
      const Eigen::MatrixXd& a = lds_->transition();
      const Eigen::MatrixXd lag_residual = sums.lag - a * sums.previous;  // P1 - A P-
      j = detail::write_row_by_row(state_noise_precision_ * lag_residual, out, j);
      // sum_t E[(s_t - A s_t-1)(s_t - A s_t-1)'] = P+ - A P1' - P1 A' + A P- A' = (P+ - A P1') - (P1 - A P-) A'.
      j = detail::write_covariance_entry_scores(
          state_noise_precision_,
          detail::symmetrised(sums.next - a * sums.lag.transpose() - lag_residual * a.transpose()), sums.steps, out, j);
    }
    if (emissions_) {
      detail::ObservationSums sums;
      detail::add_observation_sums(x, posterior, sums);
      const Eigen::MatrixXd& c = lds_->observation();
      const Eigen::MatrixXd cross_residual = sums.observed_states - c * sums.states;  // Sxs - C P
      j = detail::write_row_by_row(observation_noise_precision_ * cross_residual, out, j);
      // sum_t E[(x_t - C s_t)(x_t - C s_t)'] = Sxx - C Sxs' - Sxs C' + C P C' = (Sxx - C Sxs') - (Sxs - C P) C'.
      detail::write_covariance_entry_scores(
          observation_noise_precision_,
          detail::symmetrised(sums.observations - c * sums.observed_states.transpose() - cross_residual * c.transpose()),
          sums.count, out, j);
    }
    return out / static_cast<double>(x.rows());
  }

 protected:
  std::string pooled_model() const override { return "the pooled model is an LDS"; }

 private:
  bool start_, transitions_, emissions_;
  std::unique_ptr<LdsModel> lds_;  // a copy of the pooled model
  // cov0^-1, Q^-1 and R^-1, each when its block (start, transitions, emissions) is selected.
  Eigen::MatrixXd start_precision_, state_noise_precision_, observation_noise_precision_;
};

}  // namespace

std::unique_ptr<FisherScores> lds_fisher_scores(const LdsModel& pooled, const AdaptedParameters& parameters) {
  return std::make_unique<LdsScores>(pooled, parameters);
}

}  // namespace ppk
