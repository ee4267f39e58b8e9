// Fisher-kernel features of a pooled latent-variable model (Jaakkola & Haussler 1999, "Exploiting
// generative models in discriminative classifiers"): the Fisher score
//     U(x) = grad_theta log p(x | theta)  at theta = the pooled model (adaptation.hpp),
// with respect to the parameters an AdaptedParameters selects, divided by the example's size, and
// scaled by the diagonal of the empirical Fisher information of the training examples. The Fisher
// kernel phi(x) . phi(x') is then a linear kernel (LIBSVM -t 0, LIBLINEAR) on these features.
//
// A family offers Fisher scores by its Estimator's fisher_scores (estimate.hpp), which makes its
// FisherScores below; each family's file fisher_F.cpp derives its scores and states their order
// (an HMM's, a mixture's, an LDS's and a network's: src/estimate/fisher_hmm.cpp, fisher_mixture.cpp,
// fisher_lds.cpp, fisher_bayesnet.cpp; the Gaussian states' blocks they share: fisher_gaussian.hpp).
//
// Parametrisation. A probability vector p (a chain's start or transition row, a discrete emission
// row, mixture weights, a CPT row) by its logits a, p = softmax(a); with expected counts c_o of its
// outcomes given x and N = sum_o c_o,
//     d log p(x) / d a_o = c_o - N p_o.
// A full covariance Sigma with precision P, by the entries s_ij, i <= j, of its upper triangle, each
// moving both Sigma_ij and Sigma_ji (the matrix stays symmetric): with the expected scatter S about
// its mean and the expected count N, G = (P S P - N P) / 2 is the matrix derivative of log p, and
// the score of s_ij is G_ii for i = j and 2 G_ij for i < j.
//
// Features are named block[i][j]... ("emissions[2][17]"), indices 0-based as the symbols are, and
// only the selected blocks appear, in the family's fixed order; a symmetric matrix's block names its
// upper triangle (j >= i) row by row. The selection's names are those of adaptation.hpp; a name that
// is not one of the family's parameters is refused.
//
// Normalisation: the score per observation u(x) = U(x) / n (n the example's size: a sequence's length,
// a set's size, a network's number of joint observations), so that examples of different sizes are on
// one scale. From the training examples' scores u_i, the diagonal of the empirical Fisher information
// I_jj = mean_i u_ij^2 (FisherScaling), and the features phi_j(x) = u_j(x) / sqrt(I_jj) (0 where
// I_jj = 0: a parameter no training example moves). The diagonal is the training file's: the caller
// saves it, and test files are scaled by it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/model.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk {

// The Fisher score function of one pooled model of a family for the selected parameters, as the
// family makes it (Estimator::fisher_scores). It copies what it needs of the model, so it does not
// refer to the model afterwards. Each kind of example has its score; a kind the model does not score
// is an EstimationError saying which kind it scores (the defaults below).
class FisherScores {
 public:
  virtual ~FisherScores() = default;

  // The F features' names in the family's order.
  const std::vector<std::string>& feature_names() const { return names_; }

  // u(x) for a sequence of symbols 0..O-1.
  virtual Eigen::VectorXd sequence_score(const std::vector<long>& sequence) const;
  // u(x) for the rows of x (n x D): a sequence or a set of vectors.
  virtual Eigen::VectorXd rows_score(const Eigen::MatrixXd& x) const;
  // u(x) for n joint observations of a network's observed variables (observations[v][j]: variable j's
  // 0-based state).
  virtual Eigen::VectorXd observations_score(const std::vector<std::vector<long>>& observations) const;
  // The same from the expected counts n(i, c, k) of n observations.
  virtual Eigen::VectorXd counts_score(const std::vector<Eigen::VectorXd>& expected_counts, double observations) const;
  // u(x) from one example's statistics as the family's estimator makes them; the default scores the
  // statistic "symbols" as a sequence when there is one, else the rows "x".
  virtual Eigen::VectorXd statistics_score(const Statistics& example) const;

 protected:
  // What the pooled model is, for the messages of the kinds it does not score ("the pooled mixture
  // has Gaussian components").
  virtual std::string pooled_model() const = 0;

  std::vector<std::string> names_;
};

// The Fisher score function of one pooled model for the selected parameters: the scores
// `estimator`, the family's estimator, makes of it.
class FisherScorer {
 public:
  // The EstimationError or OptionError of estimator.fisher_scores: EstimationError when `pooled` has
  // no Fisher scores (a family without them, or a model of the family that the family cannot score,
  // naming what it needs); OptionError naming {adapt} when `parameters` lists a parameter the model
  // does not have or selects none of its parameters (check_adapted_parameters, adaptation.hpp).
  FisherScorer(const Estimator& estimator, const Model& pooled, const AdaptedParameters& parameters);
  // A family's scores of its pooled model (hmm_fisher_scores, ...: estimate_hmm.hpp, ...).
  explicit FisherScorer(std::unique_ptr<FisherScores> scores) : scores_(std::move(scores)) {}

  // The number of features F.
  long size() const { return static_cast<long>(scores_->feature_names().size()); }
  // The F features' names in the family's order, e.g. "emissions[2][17]".
  const std::vector<std::string>& feature_names() const { return scores_->feature_names(); }

  // u(x) = U(x) / n for a sequence of symbols (a discrete-emission HMM). EstimationError for an empty
  // sequence, a symbol outside 0..O-1 (naming its position), a model that scores other examples, or a
  // sequence of probability 0 under the pooled model.
  Eigen::VectorXd score(const std::vector<long>& sequence) const { return scores_->sequence_score(sequence); }
  // u(x) = U(x) / n for the rows of x (n x D; a Gaussian-emission HMM, a Gaussian mixture, an LDS).
  // EstimationError for no rows (an LDS: fewer than 2), D other than the model's, a value that is
  // not finite, a model that scores other examples, an example of probability 0, or (an LDS) a
  // covariance the Kalman filter finds not numerically positive definite.
  Eigen::VectorXd score(const Eigen::MatrixXd& x) const { return scores_->rows_score(x); }
  // u(x) = U(x) / n for a network's n joint observations. EstimationError for no observations, a
  // value that is not a state of its variable, an observation of probability 0, or a model that is
  // not a network.
  Eigen::VectorXd score(const std::vector<std::vector<long>>& observations) const {
    return scores_->observations_score(observations);
  }
  // The same from the expected counts n(i, c, k) of n observations (a fully observed network's
  // counts, which are its sufficient statistics). EstimationError unless they have the CPTs' shapes.
  Eigen::VectorXd score(const std::vector<Eigen::VectorXd>& expected_counts, double observations) const {
    return scores_->counts_score(expected_counts, observations);
  }
  // u(x) from one example's statistics as `estimator` makes them (the family says which of the
  // above they are).
  Eigen::VectorXd score(const Statistics& example) const { return scores_->statistics_score(example); }

 private:
  std::unique_ptr<FisherScores> scores_;
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
