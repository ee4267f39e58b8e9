// Checks shared by the Fisher-score tests (fisher.hpp): a feature's name parsed into its block and
// indices (so that a test can perturb the parameter a feature scores from its name alone), a
// selection's scores against the full score's, and the Fisher kernel against one computed from oracle scores.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "estimate_helpers.hpp"
#include "positive_family_checks.hpp"
#include "ppk/estimate/fisher.hpp"

namespace ppk {

// A feature's name "block[i][j]..." as the block and its indices.
struct FeatureName {
  std::string block;
  std::vector<long> index;
};
inline FeatureName parse_name(const std::string& name) {
  FeatureName parsed{name.substr(0, name.find('[')), {}};
  for (std::size_t at = name.find('['); at != std::string::npos; at = name.find('[', at + 1))
    parsed.index.push_back(std::stol(name.substr(at + 1)));
  return parsed;
}

// A selection's score is the full score's entries of the same names (the scorers of `estimator`, the
// pooled model's family's).
inline void expect_selection_of_full_score(const Estimator& estimator, const Model& pooled,
                                           const AdaptedParameters& selection,
                                           const std::function<Eigen::VectorXd(const FisherScorer&)>& score) {
  const FisherScorer full(estimator, pooled, AdaptedParameters{}), selected(estimator, pooled, selection);
  const Eigen::VectorXd u_full = score(full), u_selected = score(selected);
  std::size_t next = 0;
  for (std::size_t j = 0; j < full.feature_names().size() && next < selected.feature_names().size(); ++j)
    if (full.feature_names()[j] == selected.feature_names()[next]) {
      EXPECT_EQ(u_selected(static_cast<Eigen::Index>(next)), u_full(static_cast<Eigen::Index>(j)))
          << selected.feature_names()[next];
      ++next;
    }
  EXPECT_EQ(next, selected.feature_names().size());
}

// The refusals of score(x) that every model over D-dimensional vectors shares (`example`: "sequence"
// or "set"): vectors of dimension D + 1, no vectors, and an infinite value (in vector 2 at index 2 of
// `rows` >= 2 vectors), each named in the message.
inline void expect_refuses_bad_vectors(const FisherScorer& scorer, long dim, long rows, const std::string& example) {
  const std::string dimension = example + "'s vectors have dimension " + std::to_string(dim + 1),
                    model_dimension = "pooled model's have " + std::to_string(dim), empty = example + " is empty",
                    position = "vector 2 of the " + example;
  EXPECT_TRUE(checks::mentions(estimation_error([&] { scorer.score(Eigen::MatrixXd::Zero(rows, dim + 1)); }),
                               {dimension.c_str(), model_dimension.c_str()}));
  EXPECT_TRUE(checks::mentions(estimation_error([&] { scorer.score(Eigen::MatrixXd::Zero(0, dim)); }), {empty.c_str()}));
  Eigen::MatrixXd infinite = Eigen::MatrixXd::Zero(rows, dim);
  infinite(1, 1) = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(checks::mentions(estimation_error([&] { scorer.score(infinite); }),
                               {position.c_str(), "inf at index 2", "finite"}));
}

// The Fisher kernel between examples, k(a, b) = phi(a) . phi(b) = u_a' diag(I)^+ u_b (fisher.hpp), with
// I = (1/n) sum_i u_i u_i' the empirical Fisher information of the first n = `training` examples
// (the others are test examples, scaled by the training examples' information) and ^+ the
// pseudo-inverse of its diagonal (a parameter no training example moves has feature 0). The oracle
// computes I and the kernel matrix by dense linear algebra from `oracle_scores` (each example's
// finite differences of an independent log-likelihood, divided by its size); the code's kernel is the
// inner products of FisherScaling's features of the scorer's `scores`. Both agree to `tolerance`
// relative (the kernel entry to sqrt(k(a, a) k(b, b)), Cauchy-Schwarz's bound on it).
inline void expect_fisher_kernel_of_oracle_scores(const std::vector<Eigen::VectorXd>& scores,
                                                  const std::vector<Eigen::VectorXd>& oracle_scores, std::size_t training,
                                                  double tolerance, const std::string& what) {
  ASSERT_EQ(scores.size(), oracle_scores.size()) << what;
  ASSERT_LT(training, scores.size()) << what << ": no test example";
  const auto examples = static_cast<Eigen::Index>(scores.size()), features = oracle_scores[0].size();
  Eigen::MatrixXd u(examples, features);
  for (Eigen::Index i = 0; i < examples; ++i) u.row(i) = oracle_scores[static_cast<std::size_t>(i)].transpose();
  const Eigen::MatrixXd u_training = u.topRows(static_cast<Eigen::Index>(training));
  const Eigen::MatrixXd information = u_training.transpose() * u_training / static_cast<double>(training);
  Eigen::VectorXd inverse_diagonal = Eigen::VectorXd::Zero(features);
  for (Eigen::Index j = 0; j < features; ++j)
    if (information(j, j) > 0.0) inverse_diagonal(j) = 1.0 / information(j, j);
  const Eigen::MatrixXd oracle_kernel = u * inverse_diagonal.asDiagonal() * u.transpose();

  const FisherScaling scaling = FisherScaling::from_training_scores(
      std::vector<Eigen::VectorXd>(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(training)));
  ASSERT_EQ(scaling.information_diagonal().size(), features) << what;
  for (Eigen::Index j = 0; j < features; ++j)
    EXPECT_NEAR(scaling.information_diagonal()(j), information(j, j), tolerance * information(j, j))
        << what << ", information " << j;
  Eigen::MatrixXd phi(examples, features);
  for (Eigen::Index i = 0; i < examples; ++i)
    phi.row(i) = scaling.features(scores[static_cast<std::size_t>(i)]).transpose();
  const Eigen::MatrixXd kernel = phi * phi.transpose();
  for (Eigen::Index a = 0; a < examples; ++a)
    for (Eigen::Index b = 0; b < examples; ++b)
      EXPECT_NEAR(kernel(a, b), oracle_kernel(a, b), tolerance * std::sqrt(oracle_kernel(a, a) * oracle_kernel(b, b)))
          << what << ", k(" << a << ", " << b << ")";
}

}  // namespace ppk
