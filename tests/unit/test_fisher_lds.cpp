// Fisher scores of a pooled LDS (fisher.hpp): mean0 and the entries of A and C directly, the
// covariances cov0, Q and R by the entries of their upper triangles, by Fisher's identity from the
// Kalman smoother's moments. Every score component is checked against central finite differences
// of log p(x | theta) from the dense joint Gaussian of the observations (lds_sampling.hpp), which
// shares no code with the filter and smoother, of an LDS rebuilt with the perturbed parameter (a
// covariance entry s_ij moves both S_ij and S_ji, so the matrix stays symmetric). The perturbed
// parameter is found from the feature's name alone ("Q[0][1]"), so the names and the order are
// checked with the values. Differences are Richardson-extrapolated central differences,
// (4 D(h/2) - D(h)) / 3 with D(h) = (f(theta + h) - f(theta - h)) / 2h, accurate to O(h^4). The
// Fisher kernel is checked against the one computed from these differences.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "estimate_helpers.hpp"
#include "fisher_checks.hpp"
#include "lds_sampling.hpp"
#include "positive_family_checks.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/estimate/fisher.hpp"

namespace ppk {
namespace {

using checks::mentions;

// The matrix of `s` that feature block `block` scores ("mean0" as an n x 1 matrix).
Eigen::MatrixXd& parameter_of(Lds& s, const std::string& block) {
  if (block == "cov0") return s.cov0;
  if (block == "A") return s.A;
  if (block == "Q") return s.Q;
  if (block == "C") return s.C;
  if (block == "R") return s.R;
  ADD_FAILURE() << "no LDS parameter " << block;
  return s.A;
}

// s with the parameter that feature `f` scores moved by h: mean0[i], A[i][j] and C[i][j] themselves,
// a covariance's s_ij (i <= j) in both of its entries.
Lds perturbed(Lds s, const FeatureName& f, double h) {
  if (f.block == "mean0") {
    s.mean0(f.index[0]) += h;
    return s;
  }
  Eigen::MatrixXd& m = parameter_of(s, f.block);
  m(f.index[0], f.index[1]) += h;
  if (f.block != "A" && f.block != "C") {
    EXPECT_LE(f.index[0], f.index[1]) << f.block;
    if (f.index[0] != f.index[1]) m(f.index[1], f.index[0]) += h;
  }
  return s;
}

// The parameter's natural unit (the step is a multiple of it): a standard deviation for mean0, the
// geometric mean of the two variances for a covariance entry, 1 for the entries of A and C.
double unit_of(Lds s, const FeatureName& f) {
  if (f.block == "mean0") return std::sqrt(s.cov0(f.index[0], f.index[0]));
  if (f.block == "A" || f.block == "C") return 1.0;
  const Eigen::MatrixXd& m = parameter_of(s, f.block);
  return std::sqrt(m(f.index[0], f.index[0]) * m(f.index[1], f.index[1]));
}

// log p(x | s) by the dense joint Gaussian of x_0..x_{N-1}.
double dense_log_p(Lds s, const Eigen::MatrixXd& x) {
  s.length = x.rows() - 1;
  return dense_log_likelihood(*lds_model(s), x);
}

// u(x) = U(x) / N from the differences of the dense oracle, in the order of `names`.
Eigen::VectorXd difference_score(const Lds& s, const std::vector<std::string>& names, const Eigen::MatrixXd& x) {
  Eigen::VectorXd u(static_cast<Eigen::Index>(names.size()));
  for (std::size_t j = 0; j < names.size(); ++j) {
    const FeatureName f = parse_name(names[j]);
    const double h = 1e-3 * unit_of(s, f);
    const auto central = [&](double step) {
      return (dense_log_p(perturbed(s, f, step), x) - dense_log_p(perturbed(s, f, -step), x)) / (2.0 * step);
    };
    u(static_cast<Eigen::Index>(j)) = (4.0 * central(h / 2.0) - central(h)) / 3.0 / static_cast<double>(x.rows());
  }
  return u;
}

// u(x) against the differences of the dense oracle, to 1e-6 relative.
void expect_matches_differences(const Lds& s, const AdaptedParameters& selection, const Eigen::MatrixXd& x,
                                const std::string& what) {
  const FisherScorer scorer(lds_fisher_scores(*lds_model(s), selection));
  const Eigen::VectorXd score = scorer.score(x);
  ASSERT_EQ(static_cast<std::size_t>(score.size()), scorer.feature_names().size()) << what;
  const Eigen::VectorXd difference = difference_score(s, scorer.feature_names(), x);
  for (Eigen::Index j = 0; j < score.size(); ++j)
    EXPECT_NEAR(score(j), difference(j), 1e-6 * std::fabs(difference(j)))
        << what << ", " << scorer.feature_names()[static_cast<std::size_t>(j)];
}

// n (state), d (observation) and N (vectors): n < d takes the filter's information form, n >= d
// its covariance form (lds_em.hpp); N = 2 is the shortest sequence, with one transition.
TEST(FisherScoreLds, MatchesDifferencesOfTheDenseJointGaussian) {
  std::mt19937 rng(51);
  struct Case {
    long n, d, count;
  };
  for (const Case& c : {Case{1, 1, 2}, Case{2, 3, 9}, Case{3, 2, 20}, Case{2, 2, 40}}) {
    const Lds s = random_lds(rng, c.n, c.d, 0);
    const Eigen::MatrixXd x = simulate_rows(s, c.count, static_cast<unsigned>(rng()));
    expect_matches_differences(
        s, AdaptedParameters{}, x,
        "n " + std::to_string(c.n) + ", d " + std::to_string(c.d) + ", N " + std::to_string(c.count));
  }
}

// Data the pooled model did not generate (a larger scale and an offset): the scores are far from 0.
TEST(FisherScoreLds, MatchesDifferencesOnDataFarFromTheModel) {
  std::mt19937 rng(52);
  const Lds s = random_lds(rng, 2, 2, 0);
  const Eigen::MatrixXd x = (3.0 * simulate_rows(random_lds(rng, 2, 2, 0), 15, 8)).array() + 1.0;
  expect_matches_differences(s, AdaptedParameters{}, x, "far data");
}

// cov0 may be semidefinite (lds.hpp): the start's score needs cov0^-1 and is refused, the others
// are defined and match the differences.
TEST(FisherScoreLds, SemidefiniteCov0ScoresTransitionsAndEmissions) {
  std::mt19937 rng(53);
  Lds s = random_lds(rng, 2, 3, 0);
  s.cov0 = Eigen::MatrixXd::Zero(2, 2);
  EXPECT_TRUE(mentions(estimation_error([&] { FisherScorer(lds_fisher_scores(*lds_model(s), AdaptedParameters{})); }),
                       {"pooled LDS's cov0 is not positive definite", "start (mean0, cov0)"}));
  expect_matches_differences(s, parse_adapted_parameters("transitions,emissions"), simulate_rows(s, 12, 9), "cov0 = 0");
  s.Q = Eigen::MatrixXd::Zero(2, 2);
  EXPECT_TRUE(mentions(
      estimation_error([&] { FisherScorer(lds_fisher_scores(*lds_model(s), parse_adapted_parameters("transitions"))); }),
      {"pooled LDS's Q is not positive definite", "transitions (A, Q)"}));
  // With cov0 = Q = 0 the states are not random: the smoother cannot run, and says so (an
  // EstimationError, not the fit's OptionError asking for a ridge).
  const FisherScorer emissions(lds_fisher_scores(*lds_model(s), parse_adapted_parameters("emissions")));
  try {
    emissions.score(simulate_rows(random_lds(rng, 2, 3, 0), 5, 10));
    ADD_FAILURE() << "no error";
  } catch (const OptionError& e) {
    ADD_FAILURE() << e.what();
  } catch (const EstimationError& e) {
    EXPECT_TRUE(mentions(e.what(), {"Kalman smoother failed", "not numerically positive definite"})) << e.what();
  }
}

TEST(FisherScoreLds, SelectedParametersOnlyInTheDocumentedOrder) {
  std::mt19937 rng(54);
  const Lds s = random_lds(rng, 2, 1, 0);
  const std::unique_ptr<LdsModel> model = lds_model(s);
  EXPECT_EQ(
      FisherScorer(lds_fisher_scores(*model, AdaptedParameters{})).feature_names(),
      (std::vector<std::string>{"mean0[0]", "mean0[1]", "cov0[0][0]", "cov0[0][1]", "cov0[1][1]", "A[0][0]", "A[0][1]",
                                "A[1][0]", "A[1][1]", "Q[0][0]", "Q[0][1]", "Q[1][1]", "C[0][0]", "C[0][1]", "R[0][0]"}));
  EXPECT_EQ(FisherScorer(lds_fisher_scores(*model, parse_adapted_parameters("transitions"))).feature_names(),
            (std::vector<std::string>{"A[0][0]", "A[0][1]", "A[1][0]", "A[1][1]", "Q[0][0]", "Q[0][1]", "Q[1][1]"}));
  const Eigen::MatrixXd x = simulate_rows(s, 10, 3);
  for (const char* selection : {"start", "transitions", "emissions", "start,emissions"})
    expect_selection_of_full_score(*lds_estimator({}), *model, parse_adapted_parameters(selection),
                                   [&](const FisherScorer& scorer) { return scorer.score(x); });
}

// The Fisher kernel of 24 training and 6 test sequences against the one computed from the
// differences of the dense joint Gaussian (expect_fisher_kernel_of_oracle_scores).
TEST(FisherKernelLds, IsTheKernelOfTheDifferencesScaledByTheTrainingInformation) {
  std::mt19937 rng(55);
  const Lds s = random_lds(rng, 2, 3, 0);
  const FisherScorer scorer(lds_fisher_scores(*lds_model(s), AdaptedParameters{}));
  std::uniform_int_distribution<long> length(2, 40);
  std::vector<Eigen::VectorXd> scores, differences;
  for (int i = 0; i < 30; ++i) {
    const Eigen::MatrixXd x = simulate_rows(s, length(rng), static_cast<unsigned>(i));
    scores.push_back(scorer.score(x));
    differences.push_back(difference_score(s, scorer.feature_names(), x));
  }
  expect_fisher_kernel_of_oracle_scores(scores, differences, 24, 1e-6, "LDS");
}

TEST(FisherScoreLds, RefusesBadSequencesAndParameters) {
  std::mt19937 rng(56);
  const std::unique_ptr<LdsModel> model = lds_model(random_lds(rng, 2, 2, 0));
  const FisherScorer scorer(lds_fisher_scores(*model, AdaptedParameters{}));
  expect_refuses_bad_vectors(scorer, 2, 3, "sequence");
  EXPECT_TRUE(mentions(estimation_error([&] { scorer.score(Eigen::MatrixXd::Zero(1, 2)); }),
                       {"sequence has 1 vector", "at least 2 (one transition)"}));
  Eigen::MatrixXd not_a_number = Eigen::MatrixXd::Zero(4, 2);
  not_a_number(2, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(mentions(estimation_error([&] { scorer.score(not_a_number); }), {"vector 3 of the sequence", "nan"}));
  EXPECT_TRUE(mentions(estimation_error([&] {
                         scorer.score(std::vector<long>{0, 1});
                       }),
                       {"pooled model is an LDS", "rows of a matrix"}));
  EXPECT_TRUE(mentions(estimation_error([&] { scorer.score(std::vector<std::vector<long>>{{0}}); }), {"not a network"}));
  try {
    FisherScorer(lds_fisher_scores(*model, parse_adapted_parameters("transitions,means")));
    ADD_FAILURE() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.fields(), std::vector<std::string>{"adapt"});
    EXPECT_TRUE(mentions(e.what(), {"'means'", "lds", "start, transitions, emissions"})) << e.what();
  }
}

}  // namespace
}  // namespace ppk
