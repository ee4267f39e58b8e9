// Fisher scores (fisher.hpp) of a pooled HMM whose emissions are all one-event multinomials (x a
// sequence of symbols 0..O-1) or all Gaussians in one covariance form (x the rows x_0..x_{n-1} of an
// n x D matrix). The E-step is Baum-Welch's forward-backward (estimate_hmm.cpp) under the pooled
// parameters: with gamma_t(q) = P(s_t = q | x) and xi_t(p, q) = P(s_t = p, s_{t+1} = q | x), the
// logit scores of the probability vectors (fisher.hpp) have the expected counts
//     start        c_q = gamma_0(q), N = 1;
//     transitions  c_pq = sum_{t < n-1} xi_t(p, q), N = sum_q c_pq;
//     emissions    c_qo = sum_{t: x_t = o} gamma_t(q), N = sum_t gamma_t(q);
// and Gaussian emissions have the blocks of Gaussian states weighted by gamma_t(q) (fisher_gaussian.hpp).
// u(x) = U(x) / n, n the sequence's length.
//
// Feature order: start[q] (q = 0..M-1); transitions[p][q] (row by row); then state by state
// q = 0..M-1 its emission block: discrete emissions[q][o] (o = 0..O-1), or Gaussian means[q][d]
// (d = 0..D-1) followed by its covariance block. The selection's names: start, transitions, and
// emissions (discrete) or means, covariances (Gaussian).
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "estimate/estimate_hmm_emissions.hpp"
#include "estimate/fisher_gaussian.hpp"
#include "estimate/fisher_scores.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/estimate/fisher.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"

namespace ppk {

namespace {

// The scores of the chain, pi and A, that both kinds of emissions share.
class HmmChainScores : public FisherScores {
 protected:
  HmmChainScores(const HmmModel& hmm, const AdaptedParameters& parameters)
      : start_(parameters.start), transitions_(parameters.transitions) {
    chain_.start = hmm.start();
    chain_.transitions = hmm.transitions();
  }

  long states() const { return static_cast<long>(chain_.start.size()); }

  void name_chain() {
    if (start_)
      for (long q = 0; q < states(); ++q) names_.push_back(detail::indexed("start", q));
    if (transitions_)
      for (long p = 0; p < states(); ++p)
        for (long q = 0; q < states(); ++q) names_.push_back(detail::indexed(detail::indexed("transitions", p), q));
  }

  // Start and transition scores from gamma and the expected transition counts; returns the next index.
  Eigen::Index write_chain_scores(const detail::ChainPosteriors& posteriors, Eigen::VectorXd& out) const {
    const Eigen::Index states = chain_.start.size();
    Eigen::Index j = 0;
    if (start_) {
      detail::write_logit_scores(posteriors.states.row(0).transpose(), chain_.start, out.segment(j, states));
      j += states;
    }
    if (transitions_)
      for (Eigen::Index p = 0; p < states; ++p, j += states)
        detail::write_logit_scores(posteriors.transition_counts.row(p).transpose(), chain_.transitions.row(p).transpose(),
                                   out.segment(j, states));
    return j;
  }

  detail::MarkovChain chain_;  // pi, A
  bool start_, transitions_;
};

class DiscreteHmmScores final : public HmmChainScores {
 public:
  DiscreteHmmScores(const HmmModel& hmm, const AdaptedParameters& parameters)
      : HmmChainScores(hmm, parameters),
        probabilities_(detail::one_event_emission_table(
            hmm, "Fisher scores need every emission a one-event multinomial or a Gaussian")),
        log_probabilities_by_symbol_(probabilities_.transpose().array().log().matrix()),
        symbols_(static_cast<long>(probabilities_.cols())),
        emissions_(parameters.emissions) {
    check_adapted_parameters(parameters, "hmm with discrete emissions", {"start", "transitions", "emissions"});
    name_chain();
    if (emissions_)
      for (long q = 0; q < states(); ++q)
        for (long o = 0; o < symbols_; ++o) names_.push_back(detail::indexed(detail::indexed("emissions", q), o));
  }

  Eigen::VectorXd sequence_score(const std::vector<long>& sequence) const override {
    if (sequence.empty()) throw EstimationError("the sequence is empty");
    const Eigen::Index n = static_cast<Eigen::Index>(sequence.size()), states = chain_.start.size();
    Eigen::MatrixXd log_emissions(n, states);  // log E_q,x_t
    for (Eigen::Index t = 0; t < n; ++t) {
      const long symbol = sequence[static_cast<std::size_t>(t)];
      if (symbol < 0 || symbol >= symbols_)
        throw EstimationError("symbol " + std::to_string(symbol) + " at position " + std::to_string(t + 1) +
                              " is outside the pooled HMM's alphabet 0.." + std::to_string(symbols_ - 1));
      log_emissions.row(t) = log_probabilities_by_symbol_.row(symbol);
      if (!std::isfinite(log_emissions.row(t).maxCoeff()))
        throw EstimationError("symbol " + std::to_string(symbol) + " at position " + std::to_string(t + 1) +
                              " has probability 0 in every state of the pooled HMM: its Fisher score is not defined");
    }
    const detail::ChainPosteriors posteriors = detail::forward_backward(chain_, log_emissions);
    detail::check_probability(posteriors.log_likelihood, "sequence");
    Eigen::VectorXd out(static_cast<Eigen::Index>(names_.size()));
    Eigen::Index j = write_chain_scores(posteriors, out);
    if (emissions_) {
      // c_qo = sum_{t: x_t = o} gamma_t(q), M x O: each step adds gamma_t to the column of its symbol.
      Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(states, symbols_);
      for (Eigen::Index t = 0; t < n; ++t)
        counts.col(sequence[static_cast<std::size_t>(t)]) += posteriors.states.row(t).transpose();
      for (Eigen::Index q = 0; q < states; ++q, j += symbols_)
        detail::write_logit_scores(counts.row(q).transpose(), probabilities_.row(q).transpose(),
                                   out.segment(j, symbols_));
    }
    return out / static_cast<double>(n);
  }

 protected:
  std::string pooled_model() const override { return "the pooled HMM has discrete emissions"; }

 private:
  Eigen::MatrixXd probabilities_;                // E, M x O
  Eigen::MatrixXd log_probabilities_by_symbol_;  // log E', O x M (row o: log E_.o)
  long symbols_;                                 // O
  bool emissions_;
};

class GaussianHmmScores final : public HmmChainScores {
 public:
  GaussianHmmScores(const HmmModel& hmm, const std::vector<const Model*>& emissions, const AdaptedParameters& parameters)
      : HmmChainScores(hmm, parameters),
        gaussians_(emissions, "the pooled HMM's emission", parameters.means, parameters.covariances) {
    check_adapted_parameters(parameters, "hmm with gaussian emissions", {"start", "transitions", "means", "covariances"});
    name_chain();
    for (long q = 0; q < states(); ++q) gaussians_.name_state(q, names_);
  }

  Eigen::VectorXd rows_score(const Eigen::MatrixXd& x) const override {
    detail::check_rows(x, gaussians_.dim, "sequence");
    const detail::ChainPosteriors posteriors =
        detail::forward_backward(chain_, detail::log_densities(x, gaussians_.gaussians));
    detail::check_probability(posteriors.log_likelihood, "sequence");
    Eigen::VectorXd out(static_cast<Eigen::Index>(names_.size()));
    Eigen::Index j = write_chain_scores(posteriors, out);
    for (std::size_t q = 0; q < gaussians_.gaussians.means.size(); ++q)
      j = gaussians_.write_state(x, posteriors.states.col(static_cast<Eigen::Index>(q)), q, out, j);
    return out / static_cast<double>(x.rows());
  }

 protected:
  std::string pooled_model() const override { return "the pooled HMM has Gaussian emissions"; }

 private:
  detail::GaussianStateScores gaussians_;
};

}  // namespace

std::unique_ptr<FisherScores> hmm_fisher_scores(const HmmModel& pooled, const AdaptedParameters& parameters) {
  std::vector<const Model*> emissions;
  for (std::size_t q = 0; q < pooled.states(); ++q) emissions.push_back(&pooled.emission(q));
  if (dynamic_cast<const GaussianModel*>(emissions.front()) != nullptr)
    return std::make_unique<GaussianHmmScores>(pooled, emissions, parameters);
  return std::make_unique<DiscreteHmmScores>(pooled, parameters);
}

}  // namespace ppk
