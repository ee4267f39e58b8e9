// Fisher scores of pooled HMMs and Gaussian mixtures (fisher.hpp; networks: test_fisher_bayesnet.cpp).
//
// Every score component is checked against central finite differences of log p(x | theta), where
// log p comes from independent oracles: HmmModel::log_probability / MixtureModel::log_probability
// (the sampling interface's forward algorithm and log-sum-exp) of a model rebuilt with the perturbed
// parameter, and, for small HMMs, the sum over every hidden path written out here. The perturbed
// parameter is found from the feature's name alone ("transitions[1][0]"), so the names and the
// feature order are checked with the values. Differences are Richardson-extrapolated central
// differences, (4 D(h/2) - D(h)) / 3 with D(h) = (f(theta + h) - f(theta - h)) / 2h, accurate to
// O(h^4). The Fisher kernel (the scores scaled by the training examples' information) is checked
// against the one computed from these differences by dense linear algebra, and the information
// against the expected negative Hessian of log p by enumeration over every sequence.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "estimate_helpers.hpp"
#include "fisher_checks.hpp"
#include "positive_family_checks.hpp"
#include "ppk/estimate/estimate_gaussian.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/estimate/fisher.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/families/poisson.hpp"

namespace ppk {
namespace {

using checks::mentions;

constexpr double kLogTwoPi = 1.8378770664093454836;

struct GaussianState {
  Eigen::VectorXd mean;
  CovarianceForm form = CovarianceForm::full;
  Eigen::MatrixXd covariance;  // dense, D x D
};

// A pooled model's parameters in plain numbers: an HMM's start, transitions and either discrete
// emission rows or Gaussian states; a mixture's weights and Gaussian components.
struct Parameters {
  Eigen::VectorXd start;
  Eigen::MatrixXd transitions;
  Eigen::MatrixXd emissions;  // M x O (discrete HMMs)
  Eigen::VectorXd weights;    // mixtures
  std::vector<GaussianState> gaussians;
};

Eigen::VectorXd random_probabilities(long size, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.2, 1.0);
  Eigen::VectorXd p(size);
  for (long i = 0; i < size; ++i) p(i) = uniform(rng);
  return p / p.sum();
}

Eigen::MatrixXd random_rows(long rows, long cols, std::mt19937_64& rng) {
  Eigen::MatrixXd p(rows, cols);
  for (long r = 0; r < rows; ++r) p.row(r) = random_probabilities(cols, rng).transpose();
  return p;
}

GaussianState random_gaussian(long dim, CovarianceForm form, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  GaussianState g;
  g.form = form;
  g.mean = Eigen::VectorXd::NullaryExpr(dim, [&] { return 1.5 * uniform(rng); });
  switch (form) {
    case CovarianceForm::isotropic:
      g.covariance = (1.0 + 0.5 * uniform(rng)) * Eigen::MatrixXd::Identity(dim, dim);
      break;
    case CovarianceForm::diagonal:
      g.covariance = Eigen::VectorXd::NullaryExpr(dim, [&] { return 1.0 + 0.5 * uniform(rng); }).asDiagonal();
      break;
    case CovarianceForm::full: {
      const Eigen::MatrixXd a = Eigen::MatrixXd::NullaryExpr(dim, dim, [&] { return 0.6 * uniform(rng); });
      g.covariance = a * a.transpose() + 0.5 * Eigen::MatrixXd::Identity(dim, dim);
      break;
    }
  }
  return g;
}

Parameters random_discrete_hmm(long states, long alphabet, std::mt19937_64& rng) {
  Parameters theta;
  theta.start = random_probabilities(states, rng);
  theta.transitions = random_rows(states, states, rng);
  theta.emissions = random_rows(states, alphabet, rng);
  return theta;
}

Parameters random_gaussian_hmm(long states, long dim, CovarianceForm form, std::mt19937_64& rng) {
  Parameters theta;
  theta.start = random_probabilities(states, rng);
  theta.transitions = random_rows(states, states, rng);
  for (long q = 0; q < states; ++q) theta.gaussians.push_back(random_gaussian(dim, form, rng));
  return theta;
}

Parameters random_mixture(long components, long dim, CovarianceForm form, std::mt19937_64& rng) {
  Parameters theta;
  theta.weights = random_probabilities(components, rng);
  for (long m = 0; m < components; ++m) theta.gaussians.push_back(random_gaussian(dim, form, rng));
  return theta;
}

std::unique_ptr<Model> gaussian_model(const GaussianState& g) {
  switch (g.form) {
    case CovarianceForm::isotropic: return GaussianModel::isotropic(g.mean, g.covariance(0, 0));
    case CovarianceForm::diagonal: return GaussianModel::diagonal(g.mean, g.covariance.diagonal());
    case CovarianceForm::full: break;
  }
  return GaussianModel::full(g.mean, g.covariance);
}

std::unique_ptr<Model> one_event(const Eigen::VectorXd& p) {
  return std::make_unique<MultinomialModel>(
      SparseProbabilities::from_dense(std::vector<double>(p.data(), p.data() + p.size())), Trials{});
}

std::unique_ptr<HmmModel> hmm_model(const Parameters& theta, long length) {
  std::vector<std::unique_ptr<Model>> emissions;
  for (Eigen::Index q = 0; q < theta.start.size(); ++q)
    emissions.push_back(theta.gaussians.empty() ? one_event(theta.emissions.row(q).transpose())
                                                : gaussian_model(theta.gaussians[static_cast<std::size_t>(q)]));
  return std::make_unique<HmmModel>(theta.start, theta.transitions, std::move(emissions), length);
}

std::unique_ptr<MixtureModel> mixture_model(const Parameters& theta) {
  std::vector<std::unique_ptr<Model>> components;
  for (const GaussianState& g : theta.gaussians) components.push_back(gaussian_model(g));
  return std::make_unique<MixtureModel>(
      std::vector<double>(theta.weights.data(), theta.weights.data() + theta.weights.size()), std::move(components));
}

// The oracles of log p(x | theta).
double hmm_log_probability(const Parameters& theta, const std::vector<long>& sequence) {
  const Eigen::VectorXd x = Eigen::Map<const Eigen::Matrix<long, Eigen::Dynamic, 1>>(
                                sequence.data(), static_cast<Eigen::Index>(sequence.size()))
                                .cast<double>();
  return hmm_model(theta, static_cast<long>(sequence.size()) - 1)->log_probability(x);
}
double hmm_log_probability(const Parameters& theta, const Eigen::MatrixXd& x) {
  const Eigen::MatrixXd columns = x.transpose();  // x_0, x_1, ... stacked
  return hmm_model(theta, static_cast<long>(x.rows()) - 1)
      ->log_probability(Eigen::Map<const Eigen::VectorXd>(columns.data(), columns.size()));
}
double mixture_log_probability(const Parameters& theta, const Eigen::MatrixXd& x) {
  const std::unique_ptr<MixtureModel> model = mixture_model(theta);
  double sum = 0.0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) sum += model->log_probability(x.row(i).transpose());
  return sum;
}

// log N(x | mu, Sigma) from the density's formula.
double gaussian_log_density(const GaussianState& g, const Eigen::VectorXd& x) {
  const Eigen::VectorXd r = x - g.mean;
  return -0.5 * (static_cast<double>(x.size()) * kLogTwoPi + std::log(g.covariance.determinant()) +
                 r.dot(g.covariance.inverse() * r));
}

// log p(x) = log sum over every hidden path s of pi_{s_0} prod_t A_{s_{t-1} s_t} prod_t p_{s_t}(x_t).
double brute_force_log_probability(const Parameters& theta, long length,
                                   const std::function<double(long state, long t)>& log_emission) {
  const long states = theta.start.size();
  std::vector<long> path(static_cast<std::size_t>(length), 0);
  double sum = 0.0;
  for (;;) {
    double log_joint = std::log(theta.start(path[0])) + log_emission(path[0], 0);
    for (long t = 1; t < length; ++t)
      log_joint += std::log(theta.transitions(path[t - 1], path[t])) + log_emission(path[t], t);
    sum += std::exp(log_joint);
    long t = 0;
    while (t < length && ++path[t] == states) path[t++] = 0;
    if (t == length) break;
  }
  return std::log(sum);
}
double brute_force_log_probability(const Parameters& theta, const std::vector<long>& sequence) {
  return brute_force_log_probability(theta, static_cast<long>(sequence.size()),
                                     [&](long q, long t) { return std::log(theta.emissions(q, sequence[t])); });
}
double brute_force_log_probability(const Parameters& theta, const Eigen::MatrixXd& x) {
  return brute_force_log_probability(theta, static_cast<long>(x.rows()), [&](long q, long t) {
    return gaussian_log_density(theta.gaussians[static_cast<std::size_t>(q)], x.row(t).transpose());
  });
}

// p = softmax(a) after a_o += h: p_o e^h, renormalised.
template <class Vector>
void shift_logit(Vector&& p, long o, double h) {
  p(o) *= std::exp(h);
  p /= p.sum();
}

// theta with the parameter that feature `name` scores moved by h in the parametrisation of
// fisher.hpp and fisher_gaussian.hpp, and that parameter's natural unit (the step is a multiple of it).
Parameters perturbed(Parameters theta, const FeatureName& f, double h) {
  const auto& i = f.index;
  if (f.block == "start") shift_logit(theta.start, i[0], h);
  if (f.block == "weights") shift_logit(theta.weights, i[0], h);
  if (f.block == "transitions") shift_logit(theta.transitions.row(i[0]), i[1], h);
  if (f.block == "emissions") shift_logit(theta.emissions.row(i[0]), i[1], h);
  if (f.block == "means") theta.gaussians[i[0]].mean(i[1]) += h;
  if (f.block == "covariances") {
    GaussianState& g = theta.gaussians[i[0]];
    if (g.form == CovarianceForm::isotropic) {
      EXPECT_EQ(i.size(), 1u);
      g.covariance *= std::exp(h);  // log v
    } else if (g.form == CovarianceForm::diagonal) {
      EXPECT_EQ(i[1], i[2]);
      g.covariance(i[1], i[1]) *= std::exp(h);  // log v_d
    } else {
      EXPECT_LE(i[1], i[2]);
      g.covariance(i[1], i[2]) += h;  // s_ij moves both entries
      if (i[1] != i[2]) g.covariance(i[2], i[1]) += h;
    }
  }
  return theta;
}
double unit_of(const Parameters& theta, const FeatureName& f) {
  if (f.block == "means") return std::sqrt(theta.gaussians[f.index[0]].covariance(f.index[1], f.index[1]));
  if (f.block == "covariances" && theta.gaussians[f.index[0]].form == CovarianceForm::full) {
    const Eigen::MatrixXd& s = theta.gaussians[f.index[0]].covariance;
    return std::sqrt(s(f.index[1], f.index[1]) * s(f.index[2], f.index[2]));
  }
  return 1.0;  // logits and log variances
}

using LogProbability = std::function<double(const Parameters&)>;

double richardson_derivative(const Parameters& theta, const FeatureName& f, const LogProbability& log_p) {
  const double h = 1e-3 * unit_of(theta, f);
  const auto central = [&](double step) {
    return (log_p(perturbed(theta, f, step)) - log_p(perturbed(theta, f, -step))) / (2.0 * step);
  };
  return (4.0 * central(h / 2.0) - central(h)) / 3.0;
}

// u(x) = U(x) / n from the differences of one oracle of log p(x | theta), in the order of `names`.
Eigen::VectorXd difference_score(const Parameters& theta, const std::vector<std::string>& names, long n,
                                 const LogProbability& log_p) {
  Eigen::VectorXd u(static_cast<Eigen::Index>(names.size()));
  for (std::size_t j = 0; j < names.size(); ++j)
    u(static_cast<Eigen::Index>(j)) = richardson_derivative(theta, parse_name(names[j]), log_p) / static_cast<double>(n);
  return u;
}

// u(x) against the differences of each oracle, to 1e-6 relative (the differences agree with the
// scores to about 1e-8 relative here, the smallest components included).
void expect_matches_differences(const Eigen::VectorXd& score, long n, const std::vector<std::string>& names,
                                const Parameters& theta, const std::vector<LogProbability>& oracles,
                                const std::string& what) {
  ASSERT_EQ(static_cast<std::size_t>(score.size()), names.size()) << what;
  for (std::size_t k = 0; k < oracles.size(); ++k) {
    const Eigen::VectorXd difference = difference_score(theta, names, n, oracles[k]);
    for (Eigen::Index j = 0; j < score.size(); ++j)
      EXPECT_NEAR(score(j), difference(j), 1e-6 * std::fabs(difference(j)))
          << what << ", " << names[static_cast<std::size_t>(j)] << ", oracle " << k;
  }
}

std::vector<long> random_sequence(long length, long alphabet, std::mt19937_64& rng) {
  std::uniform_int_distribution<long> symbol(0, alphabet - 1);
  std::vector<long> sequence(static_cast<std::size_t>(length));
  for (long& s : sequence) s = symbol(rng);
  return sequence;
}

Eigen::MatrixXd random_vectors(long n, long dim, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.5);
  return Eigen::MatrixXd::NullaryExpr(n, dim, [&] { return normal(rng); });
}

const std::vector<CovarianceForm> kForms = {CovarianceForm::isotropic, CovarianceForm::diagonal, CovarianceForm::full};
std::string form_name(CovarianceForm form) {
  return form == CovarianceForm::isotropic ? "isotropic" : form == CovarianceForm::diagonal ? "diagonal" : "full";
}

TEST(FisherScore, DiscreteHmmMatchesDifferences) {
  std::mt19937_64 rng(11);
  const Parameters theta = random_discrete_hmm(3, 5, rng);
  const FisherScorer scorer(hmm_fisher_scores(*hmm_model(theta, 0), AdaptedParameters{}));
  ASSERT_EQ(scorer.size(), 3 + 9 + 15);
  for (long length : {1, 2, 6, 60}) {
    const std::vector<long> x = random_sequence(length, 5, rng);
    std::vector<LogProbability> oracles = {[&](const Parameters& t) { return hmm_log_probability(t, x); }};
    if (length <= 6) oracles.push_back([&](const Parameters& t) { return brute_force_log_probability(t, x); });
    expect_matches_differences(scorer.score(x), length, scorer.feature_names(), theta, oracles,
                               "length " + std::to_string(length));
  }
}

TEST(FisherScore, GaussianHmmMatchesDifferencesInEveryCovarianceForm) {
  std::mt19937_64 rng(13);
  for (CovarianceForm form : kForms) {
    const Parameters theta = random_gaussian_hmm(3, 3, form, rng);
    const FisherScorer scorer(hmm_fisher_scores(*hmm_model(theta, 0), AdaptedParameters{}));
    for (long length : {1, 4, 40}) {
      const Eigen::MatrixXd x = random_vectors(length, 3, rng);
      std::vector<LogProbability> oracles = {[&](const Parameters& t) { return hmm_log_probability(t, x); }};
      if (length <= 4) oracles.push_back([&](const Parameters& t) { return brute_force_log_probability(t, x); });
      expect_matches_differences(scorer.score(x), length, scorer.feature_names(), theta, oracles,
                                 form_name(form) + ", length " + std::to_string(length));
    }
  }
}

TEST(FisherScore, GaussianMixtureMatchesDifferencesInEveryCovarianceForm) {
  std::mt19937_64 rng(14);
  for (CovarianceForm form : kForms) {
    const Parameters theta = random_mixture(3, 3, form, rng);
    const FisherScorer scorer(mixture_fisher_scores(*mixture_model(theta), AdaptedParameters{}));
    for (long size : {1, 5, 50}) {
      const Eigen::MatrixXd x = random_vectors(size, 3, rng);
      expect_matches_differences(scorer.score(x), size, scorer.feature_names(), theta,
                                 {[&](const Parameters& t) { return mixture_log_probability(t, x); }},
                                 form_name(form) + ", " + std::to_string(size) + " vectors");
    }
  }
}

TEST(FisherScore, SelectedParametersOnlyInTheDocumentedOrder) {
  std::mt19937_64 rng(15);
  const std::unique_ptr<HmmModel> discrete = hmm_model(random_discrete_hmm(2, 2, rng), 0);
  EXPECT_EQ(FisherScorer(hmm_fisher_scores(*discrete, AdaptedParameters{})).feature_names(),
            (std::vector<std::string>{"start[0]", "start[1]", "transitions[0][0]", "transitions[0][1]",
                                      "transitions[1][0]", "transitions[1][1]", "emissions[0][0]", "emissions[0][1]",
                                      "emissions[1][0]", "emissions[1][1]"}));
  AdaptedParameters emissions_only;
  emissions_only.start = emissions_only.transitions = false;
  EXPECT_EQ(FisherScorer(hmm_fisher_scores(*discrete, emissions_only)).feature_names(),
            (std::vector<std::string>{"emissions[0][0]", "emissions[0][1]", "emissions[1][0]", "emissions[1][1]"}));

  const std::unique_ptr<MixtureModel> full = mixture_model(random_mixture(2, 2, CovarianceForm::full, rng));
  EXPECT_EQ(FisherScorer(mixture_fisher_scores(*full, AdaptedParameters{})).feature_names(),
            (std::vector<std::string>{"weights[0]", "weights[1]", "means[0][0]", "means[0][1]", "covariances[0][0][0]",
                                      "covariances[0][0][1]", "covariances[0][1][1]", "means[1][0]", "means[1][1]",
                                      "covariances[1][0][0]", "covariances[1][0][1]", "covariances[1][1][1]"}));
  AdaptedParameters transitions_and_covariances;
  transitions_and_covariances.start = transitions_and_covariances.means = false;
  const std::unique_ptr<HmmModel> diagonal = hmm_model(random_gaussian_hmm(2, 2, CovarianceForm::diagonal, rng), 0);
  EXPECT_EQ(FisherScorer(hmm_fisher_scores(*diagonal, transitions_and_covariances)).feature_names(),
            (std::vector<std::string>{"transitions[0][0]", "transitions[0][1]", "transitions[1][0]", "transitions[1][1]",
                                      "covariances[0][0][0]", "covariances[0][1][1]", "covariances[1][0][0]",
                                      "covariances[1][1][1]"}));
  const std::unique_ptr<MixtureModel> isotropic = mixture_model(random_mixture(2, 3, CovarianceForm::isotropic, rng));
  AdaptedParameters covariances_only;
  covariances_only.weights = covariances_only.means = false;
  EXPECT_EQ(FisherScorer(mixture_fisher_scores(*isotropic, covariances_only)).feature_names(),
            (std::vector<std::string>{"covariances[0]", "covariances[1]"}));
}

TEST(FisherScore, SelectionsAreTheFullScoresEntries) {
  std::mt19937_64 rng(20);
  AdaptedParameters start_and_emissions, means_only;
  start_and_emissions.transitions = false;
  means_only.start = means_only.transitions = means_only.weights = means_only.covariances = false;
  const std::vector<long> sequence = random_sequence(30, 4, rng);
  const Eigen::MatrixXd x = random_vectors(20, 2, rng);
  const std::unique_ptr<Estimator> hmm = hmm_estimator({}), mixture = mixture_estimator({});
  expect_selection_of_full_score(*hmm, *hmm_model(random_discrete_hmm(3, 4, rng), 0), start_and_emissions,
                                 [&](const FisherScorer& scorer) { return scorer.score(sequence); });
  expect_selection_of_full_score(*hmm, *hmm_model(random_gaussian_hmm(3, 2, CovarianceForm::full, rng), 0), means_only,
                                 [&](const FisherScorer& scorer) { return scorer.score(x); });
  expect_selection_of_full_score(*mixture, *mixture_model(random_mixture(3, 2, CovarianceForm::diagonal, rng)),
                                 means_only, [&](const FisherScorer& scorer) { return scorer.score(x); });
}

// The score has mean zero under the model: sum_x p(x) U(x) = grad sum_x p(x) = 0 over all O^n
// sequences of length n, with p(x) from the forward algorithm.
TEST(FisherScore, DiscreteHmmScoreHasMeanZeroOverAllSequences) {
  std::mt19937_64 rng(16);
  const Parameters theta = random_discrete_hmm(2, 3, rng);
  const FisherScorer scorer(hmm_fisher_scores(*hmm_model(theta, 0), AdaptedParameters{}));
  const long length = 4;
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(scorer.size());
  double total_probability = 0.0;
  std::vector<long> x(length, 0);
  for (;;) {
    const double p = std::exp(hmm_log_probability(theta, x));
    total_probability += p;
    mean += p * length * scorer.score(x);
    long t = 0;
    while (t < length && ++x[t] == 3) x[t++] = 0;
    if (t == length) break;
  }
  EXPECT_NEAR(total_probability, 1.0, 1e-12);
  for (Eigen::Index j = 0; j < mean.size(); ++j) EXPECT_NEAR(mean(j), 0.0, 1e-12) << scorer.feature_names()[j];
}

// The Fisher kernel of 24 training and 6 test examples of each model against the one computed from
// the finite differences of the forward algorithm's and the mixture density's log p
// (expect_fisher_kernel_of_oracle_scores): the scores, the training information and the scaling of
// test examples by it.
TEST(FisherKernel, IsTheKernelOfTheDifferencesScaledByTheTrainingInformation) {
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<long> length(5, 80);
  std::vector<Eigen::VectorXd> scores, differences;
  const Parameters discrete = random_discrete_hmm(4, 6, rng);
  const FisherScorer discrete_scorer(hmm_fisher_scores(*hmm_model(discrete, 0), AdaptedParameters{}));
  for (int i = 0; i < 30; ++i) {
    const std::vector<long> x = random_sequence(length(rng), 6, rng);
    scores.push_back(discrete_scorer.score(x));
    differences.push_back(difference_score(discrete, discrete_scorer.feature_names(), static_cast<long>(x.size()),
                                           [&](const Parameters& t) { return hmm_log_probability(t, x); }));
  }
  expect_fisher_kernel_of_oracle_scores(scores, differences, 24, 1e-6, "discrete HMM");

  const std::vector<std::pair<Parameters, std::string>> gaussian_models{
      {random_gaussian_hmm(3, 2, CovarianceForm::full, rng), "Gaussian HMM"},
      {random_mixture(3, 2, CovarianceForm::diagonal, rng), "mixture"}};
  for (const auto& [theta, what] : gaussian_models) {
    const bool hmm = what != "mixture";
    const std::unique_ptr<Model> pooled =
        hmm ? std::unique_ptr<Model>(hmm_model(theta, 0)) : std::unique_ptr<Model>(mixture_model(theta));
    const FisherScorer scorer(hmm ? *hmm_estimator({}) : *mixture_estimator({}), *pooled, AdaptedParameters{});
    scores.clear();
    differences.clear();
    for (int i = 0; i < 30; ++i) {
      const Eigen::MatrixXd x = random_vectors(length(rng), 2, rng);
      scores.push_back(scorer.score(x));
      differences.push_back(difference_score(theta, scorer.feature_names(), x.rows(), [&](const Parameters& t) {
        return hmm ? hmm_log_probability(t, x) : mixture_log_probability(t, x);
      }));
    }
    expect_fisher_kernel_of_oracle_scores(scores, differences, 24, 1e-6, what);
  }
}

// The information the scaling estimates is Fisher's: over the sequences of length L that a discrete
// HMM emits, E[u_j^2] = E[(d log p / d theta_j)^2] / L^2 = -E[d^2 log p / d theta_j^2] / L^2, the
// expectation by enumerating all O^L sequences with p(x) and the second differences
// (f(h) - 2 f(0) + f(-h)) / h^2 of the forward algorithm's log p. FisherScaling's diagonal from 4000
// sequences drawn from the model lies within 4 standard errors (of a mean of 4000 u_j^2) of it.
TEST(FisherScaling, InformationOfTheModelsSequencesIsTheExpectedNegativeHessian) {
  std::mt19937_64 rng(21);
  const Parameters theta = random_discrete_hmm(2, 3, rng);
  const FisherScorer scorer(hmm_fisher_scores(*hmm_model(theta, 0), AdaptedParameters{}));
  const long length = 4, features = scorer.size();
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(features);
  std::vector<long> x(length, 0);
  const double h = 1e-3;
  for (;;) {
    const auto log_p = [&](const Parameters& t) { return hmm_log_probability(t, x); };
    const double at_theta = log_p(theta);
    for (Eigen::Index j = 0; j < features; ++j) {
      const FeatureName f = parse_name(scorer.feature_names()[static_cast<std::size_t>(j)]);
      const double second = (log_p(perturbed(theta, f, h)) - 2.0 * at_theta + log_p(perturbed(theta, f, -h))) / (h * h);
      expected(j) -= std::exp(at_theta) * second / static_cast<double>(length * length);
    }
    long t = 0;
    while (t < length && ++x[t] == 3) x[t++] = 0;
    if (t == length) break;
  }

  const auto as_vector = [](const Eigen::VectorXd& p) { return std::vector<double>(p.data(), p.data() + p.size()); };
  std::vector<std::vector<double>> transitions, emissions;
  for (Eigen::Index q = 0; q < 2; ++q) {
    transitions.push_back(as_vector(theta.transitions.row(q).transpose()));
    emissions.push_back(as_vector(theta.emissions.row(q).transpose()));
  }
  const int draws = 4000;
  std::vector<Eigen::VectorXd> scores;
  Eigen::VectorXd fourth_moment = Eigen::VectorXd::Zero(features);
  for (int i = 0; i < draws; ++i) {
    scores.push_back(
        scorer.score(sample_symbols(as_vector(theta.start), transitions, emissions, static_cast<int>(length), 1000 + i)));
    fourth_moment += scores.back().array().pow(4).matrix() / draws;
  }
  const Eigen::VectorXd information = FisherScaling::from_training_scores(scores).information_diagonal();
  for (Eigen::Index j = 0; j < features; ++j) {
    const double standard_error = std::sqrt((fourth_moment(j) - information(j) * information(j)) / draws);
    EXPECT_GT(expected(j), 0.0) << scorer.feature_names()[static_cast<std::size_t>(j)];
    EXPECT_NEAR(information(j), expected(j), 4.0 * standard_error) << scorer.feature_names()[static_cast<std::size_t>(j)];
  }
}

TEST(FisherScaling, DividesByTheRootMeanSquareOfTheTrainingScores) {
  Eigen::VectorXd first(3), second(3), test(3);
  first << 1.0, 0.0, 2.0;
  second << 3.0, 0.0, -2.0;
  test << 2.0, 7.0, 1.0;
  const FisherScaling scaling = FisherScaling::from_training_scores({first, second});
  // I = ((1 + 9) / 2, 0, (4 + 4) / 2) = (5, 0, 4); a feature with I_jj = 0 is 0.
  EXPECT_EQ(scaling.information_diagonal(), Eigen::Vector3d(5.0, 0.0, 4.0));
  const Eigen::VectorXd phi = scaling.features(test);
  EXPECT_DOUBLE_EQ(phi(0), 2.0 / std::sqrt(5.0));
  EXPECT_EQ(phi(1), 0.0);
  EXPECT_DOUBLE_EQ(phi(2), 0.5);
  // A saved diagonal scales as the one it was computed from.
  EXPECT_EQ(FisherScaling(scaling.information_diagonal()).features(test), phi);
}

TEST(FisherScaling, RefusesBadScoresAndDiagonals) {
  EXPECT_TRUE(mentions(estimation_error([] { FisherScaling::from_training_scores({}); }), {"no training scores"}));
  EXPECT_TRUE(mentions(estimation_error([] {
                         FisherScaling::from_training_scores({Eigen::VectorXd::Ones(3), Eigen::VectorXd::Ones(2)});
                       }),
                       {"training score 2 has 2 features", "first has 3"}));
  EXPECT_TRUE(mentions(
      estimation_error([] {
        FisherScaling::from_training_scores({Eigen::VectorXd::Ones(2), Eigen::VectorXd::Constant(2, std::nan(""))});
      }),
      {"training score 2", "not finite"}));
  EXPECT_TRUE(mentions(estimation_error([] { FisherScaling(Eigen::Vector2d(1.0, -1.0)); }),
                       {"diagonal entry 2", "-1", "finite and >= 0"}));
  EXPECT_TRUE(
      mentions(estimation_error([] { FisherScaling(Eigen::Vector2d(1.0, 1.0)).features(Eigen::VectorXd::Ones(3)); }),
               {"3 features", "scaling has 2"}));
}

TEST(FisherScore, RefusesBadExamples) {
  std::mt19937_64 rng(18);
  const FisherScorer discrete(hmm_fisher_scores(*hmm_model(random_discrete_hmm(2, 4, rng), 0), AdaptedParameters{}));
  EXPECT_TRUE(mentions(estimation_error([&] {
                         discrete.score(std::vector<long>{0, 1, 4});
                       }),
                       {"symbol 4 at position 3", "alphabet 0..3"}));
  EXPECT_TRUE(mentions(estimation_error([&] { discrete.score(std::vector<long>{-1}); }),
                       {"symbol -1 at position 1", "alphabet 0..3"}));
  EXPECT_TRUE(mentions(estimation_error([&] { discrete.score(std::vector<long>{}); }), {"sequence is empty"}));
  EXPECT_TRUE(mentions(estimation_error([&] { discrete.score(Eigen::MatrixXd::Zero(3, 4)); }),
                       {"discrete emissions", "sequence of symbols"}));

  const FisherScorer gaussian(
      hmm_fisher_scores(*hmm_model(random_gaussian_hmm(2, 2, CovarianceForm::diagonal, rng), 0), AdaptedParameters{}));
  expect_refuses_bad_vectors(gaussian, 2, 3, "sequence");
  EXPECT_TRUE(mentions(estimation_error([&] {
                         gaussian.score(std::vector<long>{0, 1});
                       }),
                       {"HMM has Gaussian emissions", "rows of a matrix"}));

  const FisherScorer mixture(
      mixture_fisher_scores(*mixture_model(random_mixture(2, 2, CovarianceForm::full, rng)), AdaptedParameters{}));
  expect_refuses_bad_vectors(mixture, 2, 4, "set");
}

TEST(FisherScore, RefusesSequencesOfProbabilityZero) {
  // State 0 emits only symbol 0 and state 1 only symbol 1; the chain starts in state 0 and never
  // leaves it. Symbol 2 has probability 0 everywhere; the sequence 0 1 has no path.
  Parameters theta;
  theta.start = Eigen::Vector2d(1.0, 0.0);
  theta.transitions = Eigen::Matrix2d::Identity();
  theta.emissions.resize(2, 3);
  theta.emissions << 1.0, 0.0, 0.0, 0.0, 1.0, 0.0;
  const FisherScorer scorer(hmm_fisher_scores(*hmm_model(theta, 0), AdaptedParameters{}));
  EXPECT_TRUE(mentions(estimation_error([&] {
                         scorer.score(std::vector<long>{0, 2});
                       }),
                       {"symbol 2 at position 2", "probability 0 in every state"}));
  EXPECT_TRUE(mentions(estimation_error([&] {
                         scorer.score(std::vector<long>{0, 1});
                       }),
                       {"sequence has probability 0 under the pooled model"}));
  // The sequence 0 0 has probability 1: its expected counts are their expectations, every score 0.
  const Eigen::VectorXd u = scorer.score(std::vector<long>{0, 0});
  ASSERT_TRUE(u.allFinite());
  EXPECT_EQ(u, Eigen::VectorXd::Zero(scorer.size()));
}

TEST(FisherScore, RefusesModelsItCannotScore) {
  std::vector<std::unique_ptr<Model>> poisson;
  for (double rate : {1.0, 3.0}) poisson.push_back(std::make_unique<PoissonModel>(std::vector<double>{rate}));
  const HmmModel poisson_hmm(Eigen::Vector2d(0.5, 0.5), Eigen::Matrix2d::Constant(0.5), std::move(poisson), 3);
  EXPECT_TRUE(mentions(estimation_error([&] { FisherScorer(hmm_fisher_scores(poisson_hmm, AdaptedParameters{})); }),
                       {"pooled HMM's emission 1 is a poisson model", "one-event multinomial or a Gaussian"}));

  std::vector<std::unique_ptr<Model>> counts;
  for (int q = 0; q < 2; ++q)
    counts.push_back(
        std::make_unique<MultinomialModel>(SparseProbabilities::from_dense({0.5, 0.5}), Trials{Trials::fixed, 3}));
  const HmmModel counts_hmm(Eigen::Vector2d(0.5, 0.5), Eigen::Matrix2d::Constant(0.5), std::move(counts), 3);
  EXPECT_TRUE(mentions(estimation_error([&] { FisherScorer(hmm_fisher_scores(counts_hmm, AdaptedParameters{})); }),
                       {"pooled HMM's emission 1", "multinomial over counts"}));

  std::vector<std::unique_ptr<Model>> categories;
  categories.push_back(one_event(Eigen::Vector2d(0.3, 0.7)));
  categories.push_back(one_event(Eigen::Vector2d(0.6, 0.4)));
  const MixtureModel categorical_mixture({0.5, 0.5}, std::move(categories));
  EXPECT_TRUE(
      mentions(estimation_error([&] { FisherScorer(mixture_fisher_scores(categorical_mixture, AdaptedParameters{})); }),
               {"pooled mixture's component 1 is a multinomial", "not a gaussian"}));

  std::vector<std::unique_ptr<Model>> two_forms;
  two_forms.push_back(GaussianModel::isotropic(Eigen::VectorXd::Zero(2), 1.0));
  two_forms.push_back(GaussianModel::full(Eigen::VectorXd::Zero(2), Eigen::Matrix2d::Identity()));
  const HmmModel two_forms_hmm(Eigen::Vector2d(0.5, 0.5), Eigen::Matrix2d::Constant(0.5), std::move(two_forms), 3);
  EXPECT_TRUE(mentions(estimation_error([&] { FisherScorer(hmm_fisher_scores(two_forms_hmm, AdaptedParameters{})); }),
                       {"pooled HMM's emission 2 differs in covariance form"}));

  const std::unique_ptr<Model> plain = GaussianModel::isotropic(Eigen::VectorXd::Zero(2), 1.0);
  EXPECT_TRUE(mentions(estimation_error([&] { FisherScorer(*gaussian_estimator({}), *plain, AdaptedParameters{}); }),
                       {"pooled model is a gaussian model", "an HMM, a mixture of Gaussians, an LDS or a network"}));

  std::mt19937_64 rng(19);
  const std::unique_ptr<MixtureModel> mixture = mixture_model(random_mixture(2, 2, CovarianceForm::full, rng));
  AdaptedParameters hmm_parameters_only;
  hmm_parameters_only.weights = hmm_parameters_only.means = hmm_parameters_only.covariances = false;
  try {
    FisherScorer(mixture_fisher_scores(*mixture, hmm_parameters_only));
    ADD_FAILURE() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.fields(), std::vector<std::string>{"adapt"});
    EXPECT_TRUE(mentions(e.what(), {"selects none", "weights, means, covariances"}));
  }
  try {
    FisherScorer(mixture_fisher_scores(*mixture, parse_adapted_parameters("start,means")));
    ADD_FAILURE() << "no error";
  } catch (const OptionError& e) {
    EXPECT_TRUE(mentions(e.what(), {"adapt", "'start'", "mixture", "weights, means, covariances"}));
  }
}

}  // namespace
}  // namespace ppk
