// Checks shared by the Fisher-score tests (fisher.hpp): a feature's name parsed into its block and
// indices (so that a test can perturb the parameter a feature scores from its name alone), a
// selection's scores against the full score's, and the Fisher Gram matrix of training scores.
#pragma once

#include <gtest/gtest.h>

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

// A selection's score is the full score's entries of the same names.
inline void expect_selection_of_full_score(const Model& pooled, const AdaptedParameters& selection,
                                           const std::function<Eigen::VectorXd(const FisherScorer&)>& score) {
  const FisherScorer full(pooled, AdaptedParameters{}), selected(pooled, selection);
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

// The Gram matrix of the Fisher features of training scores.
inline Eigen::MatrixXd fisher_gram(const std::vector<Eigen::VectorXd>& scores) {
  const FisherScaling scaling = FisherScaling::from_training_scores(scores);
  Eigen::MatrixXd phi(static_cast<Eigen::Index>(scores.size()), scaling.information_diagonal().size());
  for (std::size_t i = 0; i < scores.size(); ++i)
    phi.row(static_cast<Eigen::Index>(i)) = scaling.features(scores[i]).transpose();
  // Each feature with I_jj > 0 has mean square 1 over the training examples.
  for (Eigen::Index j = 0; j < phi.cols(); ++j)
    if (scaling.information_diagonal()(j) > 0.0) {
      EXPECT_NEAR(phi.col(j).squaredNorm() / phi.rows(), 1.0, 1e-12) << j;
    }
  return phi * phi.transpose();
}

// Smallest eigenvalue >= -1e-9 x largest, and the largest > 0.
inline void expect_positive_semidefinite(const Eigen::MatrixXd& gram, const std::string& what) {
  ASSERT_TRUE(gram.allFinite()) << what;
  const Eigen::VectorXd eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram).eigenvalues();
  EXPECT_GT(eigenvalues.maxCoeff(), 0.0) << what;
  EXPECT_GE(eigenvalues.minCoeff(), -1e-9 * eigenvalues.maxCoeff()) << what;
}

}  // namespace ppk
