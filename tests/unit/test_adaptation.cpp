// Pooled HMMs and mixtures, and their MAP adaptation (adaptation.hpp): the pooled objective against
// enumeration over hidden paths, relevance tau -> infinity giving the pooled model, tau -> 0 giving
// maximum-likelihood EM (against a plain EM written here), the MAP objective against its definition
// and never decreasing, the kernel of adapted and pooled rows against brute force over hidden paths,
// and bad options refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "estimate_helpers.hpp"
#include "positive_family_checks.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/estimate/estimate_hmm.hpp"

namespace ppk {
namespace {

using checks::mentions;

const std::vector<double> kStart{0.6, 0.4};
const std::vector<std::vector<double>> kTrans{{0.85, 0.15}, {0.2, 0.8}};
const std::vector<std::vector<double>> kEmit{{0.5, 0.3, 0.1, 0.1}, {0.05, 0.15, 0.4, 0.4}};

std::vector<std::vector<long>> symbol_sequences(int count, int length, std::uint64_t seed) {
  std::vector<std::vector<long>> sequences;
  for (int s = 0; s < count; ++s)
    sequences.push_back(sample_symbols(kStart, kTrans, kEmit, length + s % 3, seed + static_cast<std::uint64_t>(s)));
  return sequences;
}

// n 2-D vectors from a 2-state chain with Gaussian emissions.
Eigen::MatrixXd vector_sequence(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  const double means[2][2] = {{-1.5, 0.5}, {1.5, -0.5}};
  Eigen::MatrixXd x(n, 2);
  const std::vector<int> path = sample_path(kStart, kTrans, n, rng);
  for (int t = 0; t < n; ++t)
    for (int d = 0; d < 2; ++d) x(t, d) = means[path[t]][d] + (d == 0 ? 0.8 : 0.5) * normal(rng);
  return x;
}

std::vector<Eigen::MatrixXd> vector_sequences(int count, int length, std::uint64_t seed) {
  std::vector<Eigen::MatrixXd> sequences;
  for (int s = 0; s < count; ++s)
    sequences.push_back(vector_sequence(length + s % 4, seed + static_cast<std::uint64_t>(s)));
  return sequences;
}

// The M x O emission table of a discrete-emission HMM.
Eigen::MatrixXd emission_table(const HmmModel& hmm) {
  const long symbols = hmm.emission(0).sample_space().dim;
  Eigen::MatrixXd table(static_cast<Eigen::Index>(hmm.states()), symbols);
  for (std::size_t q = 0; q < hmm.states(); ++q)
    for (long o = 0; o < symbols; ++o)
      table(static_cast<Eigen::Index>(q), o) =
          static_cast<const MultinomialModel&>(hmm.emission(q)).probabilities().at(o);
  return table;
}

const GaussianModel& gaussian(const Model& model) { return static_cast<const GaussianModel&>(model); }

HmmFitOptions pooled_discrete_options(long states) {
  HmmFitOptions options;
  options.states = states;
  options.iterations = 60;
  options.restarts = 2;
  return options;
}

HmmFitOptions pooled_gaussian_options(CovarianceForm form) {
  HmmFitOptions options;
  options.emissions = HmmEmissions::gaussian;
  options.covariance = form;
  options.states = 2;
  options.iterations = 40;
  options.restarts = 2;
  return options;
}

constexpr CovarianceForm kForms[] = {CovarianceForm::isotropic, CovarianceForm::diagonal, CovarianceForm::full};
std::string form_name(CovarianceForm form) { return "form " + std::to_string(static_cast<int>(form)); }

TEST(PooledHmm, ObjectiveIsTheSumOfTheSequencesLikelihoodsByEnumeration) {
  const std::vector<std::vector<long>> sequences{{0, 2, 2, 1, 0}, {3, 3, 1}, {2, 0, 0, 1, 3, 3}};
  HmmFitOptions options = pooled_discrete_options(2);
  options.smoothing = 0.3;
  options.iterations = 7;
  const HmmFit fit = fit_pooled_discrete_hmm(sequences, 4, options);
  const HmmModel& hmm = *fit.model;
  const Eigen::MatrixXd e = emission_table(hmm);
  double expected = 0.0;
  for (const std::vector<long>& x : sequences)
    expected += brute_force_log_likelihood(hmm, static_cast<int>(x.size()),
                                           [&](int q, int t) { return std::log(e(q, x[static_cast<std::size_t>(t)])); });
  // The smoothing's Dirichlet(1 + a) terms on pi, A and E.
  expected += 0.3 * (hmm.start().array().log().sum() + hmm.transitions().array().log().sum() + e.array().log().sum());
  EXPECT_NEAR(fit.log_likelihoods.back(), expected, 1e-12 * std::fabs(expected));
  EXPECT_EQ(hmm.length(), 4);  // the first sequence's T
}

TEST(PooledHmm, GaussianObjectiveIsTheSumOfTheSequencesLikelihoods) {
  const std::vector<Eigen::MatrixXd> sequences = vector_sequences(3, 5, 40);
  for (CovarianceForm form : kForms) {
    HmmFitOptions options = pooled_gaussian_options(form);
    options.ridge = 0.01;
    options.smoothing = 0.0;
    options.iterations = 5;
    const HmmFit fit = fit_pooled_gaussian_hmm(sequences, options);
    const HmmModel& hmm = *fit.model;
    double expected = 0.0;
    for (const Eigen::MatrixXd& x : sequences)
      expected += brute_force_log_likelihood(hmm, static_cast<int>(x.rows()), [&](int q, int t) {
        return gaussian(hmm.emission(q)).log_density(x.row(t).transpose());
      });
    for (int q = 0; q < 2; ++q) expected -= 0.5 * 0.01 * gaussian(hmm.emission(q)).covariance().inverse().trace();
    EXPECT_NEAR(fit.log_likelihoods.back(), expected, 1e-11 * std::fabs(expected)) << form_name(form);
  }
}

TEST(PooledHmm, NeverDecreasesAndDoesNotDependOnTheThreads) {
  const std::vector<std::vector<long>> sequences = symbol_sequences(60, 12, 7);
  HmmFitOptions options = pooled_discrete_options(3);
  options.tolerance = 0;
  options.restarts = 1;
  const HmmFit one = fit_pooled_discrete_hmm(sequences, 4, options, 1);
  expect_never_decreases(one.log_likelihoods, 60, "pooled discrete");
  const HmmFit two = fit_pooled_discrete_hmm(sequences, 4, options, 2);
  EXPECT_EQ(format_entries(encode_row(*one.model)), format_entries(encode_row(*two.model)));
  EXPECT_EQ(one.log_likelihoods, two.log_likelihoods);

  const std::vector<Eigen::MatrixXd> vectors = vector_sequences(40, 10, 3);
  HmmFitOptions gaussian_options = pooled_gaussian_options(CovarianceForm::full);
  gaussian_options.tolerance = 0;
  gaussian_options.restarts = 1;
  const HmmFit g1 = fit_pooled_gaussian_hmm(vectors, gaussian_options, 1);
  expect_never_decreases(g1.log_likelihoods, 40, "pooled gaussian");
  EXPECT_EQ(format_entries(encode_row(*g1.model)),
            format_entries(encode_row(*fit_pooled_gaussian_hmm(vectors, gaussian_options, 2).model)));
}

TEST(PooledMixture, IsTheMixtureOfTheSetsVectorsTogether) {
  const std::vector<Eigen::MatrixXd> sets = vector_sequences(5, 30, 11);
  Eigen::MatrixXd all(0, 2);
  for (const Eigen::MatrixXd& set : sets) {
    all.conservativeResize(all.rows() + set.rows(), Eigen::NoChange);
    all.bottomRows(set.rows()) = set;
  }
  MixtureFitOptions options;
  options.components = 2;
  options.iterations = 2000;
  options.tolerance = 1e-14;
  const std::unique_ptr<MixtureModel> pooled = fit_pooled_mixture(sets, options).model;
  EXPECT_EQ(format_entries(encode_row(*pooled)), format_entries(encode_row(*fit_gaussian_mixture(all, options).model)));
  // And it is an EM fit of all the vectors: a fixed point of the weights' and means' M-step, with
  // the responsibilities computed here from the Gaussian densities written out.
  const std::size_t k = pooled->weights().size();
  Eigen::MatrixXd responsibilities(all.rows(), static_cast<Eigen::Index>(k));
  for (std::size_t m = 0; m < k; ++m) {
    const auto& component = static_cast<const GaussianModel&>(pooled->component(m));
    const Eigen::LLT<Eigen::MatrixXd> chol(component.covariance());
    const Eigen::MatrixXd z = chol.matrixL().solve((all.rowwise() - component.mean().transpose()).transpose());
    const double log_det = 2 * chol.matrixL().toDenseMatrix().diagonal().array().log().sum();
    responsibilities.col(static_cast<Eigen::Index>(m)) =
        (std::log(pooled->weights()[m]) - 0.5 * z.colwise().squaredNorm().array() - 0.5 * log_det - std::log(2 * M_PI))
            .exp()
            .transpose();
  }
  responsibilities.array().colwise() /= responsibilities.rowwise().sum().array();
  for (std::size_t m = 0; m < k; ++m) {
    const Eigen::VectorXd r = responsibilities.col(static_cast<Eigen::Index>(m));
    EXPECT_NEAR(pooled->weights()[m], r.mean(), 1e-8) << "component " << m;
    const Eigen::VectorXd mean = all.transpose() * r / r.sum();
    EXPECT_LE((mean - static_cast<const GaussianModel&>(pooled->component(m)).mean()).norm(), 1e-8) << "component " << m;
  }
}

TEST(PooledHmm, StatesChosenByTheHeldOutLikelihoodByEnumeration) {
  // 10 sequences of 6 symbols: the 5th and 10th are held out.
  const std::vector<std::vector<long>> sequences = symbol_sequences(10, 5, 21);
  std::vector<Statistics> examples;
  const std::unique_ptr<Estimator> reader = hmm_estimator(HmmFitOptions{});
  std::vector<std::vector<long>> kept, held;
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    std::vector<SparseVector> vectors;
    for (long symbol : sequences[i]) vectors.push_back(SparseVector{Feature{symbol, 1.0}});
    examples.push_back(reader->statistics(vectors, 4));
    (i % 5 == 4 ? held : kept).push_back(sequences[i]);
  }
  HmmFitOptions options = pooled_discrete_options(1);
  options.iterations = 30;
  const SizeChoice choice = choose_pooled_states(examples, options, {1, 2, 3}, 2);
  ASSERT_EQ(choice.held_out_log_likelihoods.size(), 3u);
  for (std::size_t g = 0; g < 3; ++g) {
    options.states = choice.grid[g];
    const HmmFit fit = fit_pooled_discrete_hmm(kept, 4, options);
    const Eigen::MatrixXd e = emission_table(*fit.model);
    double expected = 0.0;
    for (const std::vector<long>& x : held)
      expected += brute_force_log_likelihood(*fit.model, static_cast<int>(x.size()), [&](int q, int t) {
        return std::log(e(q, x[static_cast<std::size_t>(t)]));
      });
    EXPECT_NEAR(choice.held_out_log_likelihoods[g], expected, 1e-10 * std::fabs(expected)) << "M = " << choice.grid[g];
  }
  const auto best = std::max_element(choice.held_out_log_likelihoods.begin(), choice.held_out_log_likelihoods.end());
  EXPECT_EQ(choice.size, choice.grid[static_cast<std::size_t>(best - choice.held_out_log_likelihoods.begin())]);
  EXPECT_TRUE(
      mentions(estimation_error([&] {
                 choose_pooled_states(std::vector<Statistics>(examples.begin(), examples.begin() + 4), options, {1, 2});
               }),
               {"states", "at least 5 sequences, got 4"}));
}

TEST(PooledHmm, HeldOutChoiceSeesHiddenStructure) {
  // Symbols drawn independently need one state; a sticky 3-state chain over disjoint symbol groups needs 3.
  const std::vector<double> uniform{0.25, 0.25, 0.25, 0.25};
  std::vector<Statistics> independent, structured;
  const std::unique_ptr<Estimator> reader = hmm_estimator(HmmFitOptions{});
  const auto statistics = [&](const std::vector<long>& symbols) {
    std::vector<SparseVector> vectors;
    for (long symbol : symbols) vectors.push_back(SparseVector{Feature{symbol, 1.0}});
    return reader->statistics(vectors, 6);
  };
  const std::vector<double> start3{1.0 / 3, 1.0 / 3, 1.0 / 3};
  const std::vector<std::vector<double>> sticky{{0.9, 0.05, 0.05}, {0.05, 0.9, 0.05}, {0.05, 0.05, 0.9}};
  const std::vector<std::vector<double>> groups{{0.5, 0.5, 0, 0, 0, 0}, {0, 0, 0.5, 0.5, 0, 0}, {0, 0, 0, 0, 0.5, 0.5}};
  const std::vector<double> flat(6, 1.0 / 6);
  for (int s = 0; s < 40; ++s) {
    independent.push_back(statistics(sample_symbols({1.0}, {{1.0}}, {flat}, 40, 100 + s)));
    structured.push_back(statistics(sample_symbols(start3, sticky, groups, 40, 200 + s)));
  }
  HmmFitOptions options = pooled_discrete_options(1);
  EXPECT_LE(choose_pooled_states(independent, options, default_state_grid()).size, 2);
  EXPECT_GE(choose_pooled_states(structured, options, default_state_grid()).size, 3);
}

// log sum_k w_k N(x | mu_k, Sigma_k), written out.
double mixture_log_density(const MixtureModel& mixture, const Eigen::VectorXd& x) {
  double density = 0.0;
  for (std::size_t k = 0; k < mixture.size(); ++k) {
    const GaussianModel& g = gaussian(mixture.component(k));
    const Eigen::VectorXd d = x - g.mean();
    const Eigen::MatrixXd sigma = g.covariance();
    density += mixture.weights()[k] * std::exp(-0.5 * d.dot(sigma.inverse() * d)) /
               std::sqrt(std::pow(2 * M_PI, static_cast<double>(x.size())) * sigma.determinant());
  }
  return std::log(density);
}

TEST(PooledMixture, ComponentsChosenByTheHeldOutLikelihood) {
  // 10 sets around three well-separated centres.
  std::vector<Eigen::MatrixXd> sets;
  std::mt19937_64 rng(4);
  std::normal_distribution<double> normal;
  const double centres[3][2] = {{-6, 0}, {6, 0}, {0, 8}};
  for (int s = 0; s < 10; ++s) {
    Eigen::MatrixXd x(30, 2);
    for (Eigen::Index i = 0; i < 30; ++i)
      for (int d = 0; d < 2; ++d) x(i, d) = centres[i % 3][d] + normal(rng);
    sets.push_back(x);
  }
  MixtureFitOptions options;
  options.covariance = CovarianceForm::diagonal;
  const SizeChoice choice = choose_pooled_components(sets, options, {1, 2, 3, 4});
  ASSERT_EQ(choice.grid, (std::vector<long>{1, 2, 3, 4}));
  std::vector<Eigen::MatrixXd> kept{sets[0], sets[1], sets[2], sets[3], sets[5], sets[6], sets[7], sets[8]};
  for (std::size_t g = 0; g < 4; ++g) {
    MixtureFitOptions fit_options = options;
    fit_options.components = choice.grid[g];
    fit_options.iterations = 100;
    const GaussianMixtureFit fit = fit_pooled_mixture(kept, fit_options);
    double expected = 0.0;
    for (const Eigen::MatrixXd* held : {&sets[4], &sets[9]})
      for (Eigen::Index i = 0; i < held->rows(); ++i)
        expected += mixture_log_density(*fit.model, held->row(i).transpose());
    EXPECT_NEAR(choice.held_out_log_likelihoods[g], expected, 1e-9 * std::fabs(expected)) << "K = " << choice.grid[g];
  }
  EXPECT_GE(choice.size, 3);
  EXPECT_TRUE(
      mentions(estimation_error([&] {
                 choose_pooled_components(std::vector<Eigen::MatrixXd>(sets.begin(), sets.begin() + 3), options, {1, 2});
               }),
               {"components", "at least 5 sets, got 3"}));
}

// Every parameter of a against b's, to `tolerance`.
void expect_same_hmm(const HmmModel& a, const HmmModel& b, double tolerance, const std::string& what) {
  ASSERT_EQ(a.states(), b.states()) << what;
  EXPECT_LE((a.start() - b.start()).cwiseAbs().maxCoeff(), tolerance) << what;
  EXPECT_LE((a.transitions() - b.transitions()).cwiseAbs().maxCoeff(), tolerance) << what;
  for (std::size_t q = 0; q < a.states(); ++q) {
    if (a.emission(q).family().name == "gaussian") {
      EXPECT_LE((gaussian(a.emission(q)).mean() - gaussian(b.emission(q)).mean()).cwiseAbs().maxCoeff(), tolerance)
          << what << ", state " << q;
      EXPECT_LE((gaussian(a.emission(q)).covariance() - gaussian(b.emission(q)).covariance()).cwiseAbs().maxCoeff(),
                tolerance)
          << what << ", state " << q;
    }
  }
  if (a.emission(0).family().name == "multinomial") {
    EXPECT_LE((emission_table(a) - emission_table(b)).cwiseAbs().maxCoeff(), tolerance) << what;
  }
}

void expect_same_mixture(const MixtureModel& a, const MixtureModel& b, double tolerance, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_NEAR(a.weights()[k], b.weights()[k], tolerance) << what;
    EXPECT_LE((gaussian(a.component(k)).mean() - gaussian(b.component(k)).mean()).cwiseAbs().maxCoeff(), tolerance)
        << what << ", component " << k;
    EXPECT_LE((gaussian(a.component(k)).covariance() - gaussian(b.component(k)).covariance()).cwiseAbs().maxCoeff(),
              tolerance)
        << what << ", component " << k;
  }
}

TEST(Adaptation, InfiniteRelevanceGivesThePooledModel) {
  const HmmFit pooled = fit_pooled_discrete_hmm(symbol_sequences(30, 15, 1), 4, pooled_discrete_options(2));
  const std::vector<long> example = sample_symbols({0.1, 0.9}, kTrans, kEmit, 40, 99);
  expect_same_hmm(*adapt_hmm(*pooled.model, example, adaptation(1e14)).model, *pooled.model, 1e-9, "discrete");

  const Eigen::MatrixXd x = vector_sequence(40, 5).array() + 0.7;
  for (CovarianceForm form : kForms) {
    const HmmFit gaussian_pooled = fit_pooled_gaussian_hmm(vector_sequences(20, 15, 2), pooled_gaussian_options(form));
    expect_same_hmm(*adapt_hmm(*gaussian_pooled.model, x, adaptation(1e14)).model, *gaussian_pooled.model, 1e-9,
                    "gaussian " + form_name(form));
    MixtureFitOptions options;
    options.components = 3;
    options.covariance = form;
    const GaussianMixtureFit mixture = fit_pooled_mixture(vector_sequences(10, 20, 3), options);
    expect_same_mixture(*adapt_mixture(*mixture.model, x, adaptation(1e14)).model, *mixture.model, 1e-9,
                        "mixture " + form_name(form));
  }
}

// Plain maximum-likelihood Baum-Welch on one short symbol sequence, `steps` M-steps from (pi, A, E),
// by the unscaled forward-backward recursions: the reference for tau -> 0.
void plain_baum_welch(const std::vector<long>& x, int steps, Eigen::VectorXd& pi, Eigen::MatrixXd& a,
                      Eigen::MatrixXd& e) {
  const Eigen::Index n = static_cast<Eigen::Index>(x.size()), m = pi.size();
  for (int step = 0; step < steps; ++step) {
    Eigen::MatrixXd alpha(n, m), beta(n, m);
    alpha.row(0) = pi.transpose().cwiseProduct(e.col(x[0]).transpose());
    for (Eigen::Index t = 1; t < n; ++t)
      alpha.row(t) = (alpha.row(t - 1) * a).cwiseProduct(e.col(x[static_cast<std::size_t>(t)]).transpose());
    beta.row(n - 1).setOnes();
    for (Eigen::Index t = n - 2; t >= 0; --t)
      beta.row(t) = (a * e.col(x[static_cast<std::size_t>(t + 1)]).cwiseProduct(beta.row(t + 1).transpose())).transpose();
    const double likelihood = alpha.row(n - 1).sum();
    const Eigen::MatrixXd gamma = alpha.cwiseProduct(beta) / likelihood;
    Eigen::MatrixXd xi = Eigen::MatrixXd::Zero(m, m);
    for (Eigen::Index t = 0; t + 1 < n; ++t)
      for (Eigen::Index p = 0; p < m; ++p)
        for (Eigen::Index q = 0; q < m; ++q)
          xi(p, q) += alpha(t, p) * a(p, q) * e(q, x[static_cast<std::size_t>(t + 1)]) * beta(t + 1, q) / likelihood;
    pi = gamma.row(0).transpose();
    for (Eigen::Index p = 0; p < m; ++p) a.row(p) = xi.row(p) / xi.row(p).sum();
    Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(m, e.cols());
    for (Eigen::Index t = 0; t < n; ++t) counts.col(x[static_cast<std::size_t>(t)]) += gamma.row(t).transpose();
    for (Eigen::Index q = 0; q < m; ++q) e.row(q) = counts.row(q) / counts.row(q).sum();
  }
}

TEST(Adaptation, VanishingRelevanceIsMaximumLikelihoodEmFromThePooledModel) {
  const HmmFit pooled = fit_pooled_discrete_hmm(symbol_sequences(30, 15, 1), 4, pooled_discrete_options(2));
  const std::vector<long> example = sample_symbols({0.1, 0.9}, kTrans, kEmit, 25, 17);
  Eigen::VectorXd pi = pooled.model->start();
  Eigen::MatrixXd a = pooled.model->transitions(), e = emission_table(*pooled.model);
  plain_baum_welch(example, 12, pi, a, e);
  const HmmFit adapted = adapt_hmm(*pooled.model, example, adaptation(1e-12, 12));
  EXPECT_LE((adapted.model->start() - pi).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LE((adapted.model->transitions() - a).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LE((emission_table(*adapted.model) - e).cwiseAbs().maxCoeff(), 1e-8);

  // One state: the emission is the symbols' frequencies, however far from the pooled one.
  const HmmFit one_state = fit_pooled_discrete_hmm(symbol_sequences(10, 15, 1), 4, pooled_discrete_options(1));
  const std::vector<long> skewed{0, 0, 0, 1, 3, 0, 3, 0};
  const Eigen::MatrixXd frequencies = (Eigen::RowVector4d() << 5.0, 1.0, 0.0, 2.0).finished() / 8.0;
  EXPECT_LE((emission_table(*adapt_hmm(*one_state.model, skewed, adaptation(1e-12, 3)).model) - frequencies)
                .cwiseAbs()
                .maxCoeff(),
            1e-11);
}

// Plain maximum-likelihood EM for a Gaussian mixture, `steps` iterations from the given start.
void plain_mixture_em(const Eigen::MatrixXd& x, int steps, CovarianceForm form, std::vector<double>& w,
                      std::vector<Eigen::VectorXd>& mu, std::vector<Eigen::MatrixXd>& sigma) {
  const Eigen::Index n = x.rows(), dim = x.cols();
  const std::size_t k_count = w.size();
  for (int step = 0; step < steps; ++step) {
    Eigen::MatrixXd r(n, static_cast<Eigen::Index>(k_count));
    for (Eigen::Index i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < k_count; ++k) {
        const Eigen::VectorXd d = x.row(i).transpose() - mu[k];
        r(i, static_cast<Eigen::Index>(k)) =
            w[k] * std::exp(-0.5 * d.dot(sigma[k].inverse() * d)) /
            std::sqrt(std::pow(2 * M_PI, static_cast<double>(dim)) * sigma[k].determinant());
      }
      r.row(i) /= r.row(i).sum();
    }
    for (std::size_t k = 0; k < k_count; ++k) {
      const Eigen::VectorXd rk = r.col(static_cast<Eigen::Index>(k));
      w[k] = rk.sum() / static_cast<double>(n);
      mu[k] = x.transpose() * rk / rk.sum();
      const Eigen::MatrixXd centred = x.rowwise() - mu[k].transpose();
      Eigen::MatrixXd s = centred.transpose() * rk.asDiagonal() * centred / rk.sum();
      if (form == CovarianceForm::diagonal) s = Eigen::MatrixXd(s.diagonal().asDiagonal());
      if (form == CovarianceForm::isotropic)
        s = Eigen::MatrixXd::Identity(dim, dim) * s.trace() / static_cast<double>(dim);
      sigma[k] = s;
    }
  }
}

TEST(Adaptation, VanishingRelevanceIsMaximumLikelihoodEmForMixtures) {
  const Eigen::MatrixXd x = vector_sequence(60, 23).array() * 1.3 + 0.4;
  for (CovarianceForm form : kForms) {
    MixtureFitOptions options;
    options.components = 2;
    options.covariance = form;
    const GaussianMixtureFit pooled = fit_pooled_mixture(vector_sequences(6, 30, 5), options);
    std::vector<double> w = pooled.model->weights();
    std::vector<Eigen::VectorXd> mu;
    std::vector<Eigen::MatrixXd> sigma;
    for (std::size_t k = 0; k < 2; ++k) {
      mu.push_back(gaussian(pooled.model->component(k)).mean());
      sigma.push_back(gaussian(pooled.model->component(k)).covariance());
    }
    plain_mixture_em(x, 10, form, w, mu, sigma);
    const GaussianMixtureFit adapted = adapt_mixture(*pooled.model, x, adaptation(1e-12, 10));
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_NEAR(adapted.model->weights()[k], w[k], 1e-8) << form_name(form);
      EXPECT_LE((gaussian(adapted.model->component(k)).mean() - mu[k]).cwiseAbs().maxCoeff(), 1e-8) << form_name(form);
      EXPECT_LE((gaussian(adapted.model->component(k)).covariance() - sigma[k]).cwiseAbs().maxCoeff(), 1e-8)
          << form_name(form);
    }
  }
}

TEST(Adaptation, FinalObjectiveIsTheMapObjectiveByEnumeration) {
  const HmmFit pooled = fit_pooled_discrete_hmm(symbol_sequences(30, 15, 1), 4, pooled_discrete_options(2));
  const std::vector<long> x{3, 3, 2, 0, 1, 3, 2};
  const double tau = 2.5;
  const HmmFit adapted = adapt_hmm(*pooled.model, x, adaptation(tau, 6));
  const HmmModel& hmm = *adapted.model;
  const Eigen::MatrixXd e = emission_table(hmm), e0 = emission_table(*pooled.model);
  double expected =
      brute_force_log_likelihood(hmm, 7, [&](int q, int t) { return std::log(e(q, x[static_cast<std::size_t>(t)])); });
  // tau p0 log p for every adapted probability.
  expected += tau * (pooled.model->start().array() * hmm.start().array().log()).sum() +
              tau * (pooled.model->transitions().array() * hmm.transitions().array().log()).sum() +
              tau * (e0.array() * e.array().log()).sum();
  EXPECT_NEAR(adapted.log_likelihoods.back(), expected, 1e-12 * std::fabs(expected));
}

TEST(Adaptation, MapObjectiveNeverDecreases) {
  const HmmFit pooled = fit_pooled_discrete_hmm(symbol_sequences(30, 15, 1), 4, pooled_discrete_options(3));
  const std::vector<long> example = sample_symbols({0.1, 0.9}, kTrans, kEmit, 60, 5);
  for (double tau : {0.5, 5.0, 50.0})
    for (const char* which : {"all", "emissions", "start,transitions"}) {
      AdaptationOptions options = adaptation(tau);
      options.adapt = parse_adapted_parameters(which);
      expect_never_decreases(adapt_hmm(*pooled.model, example, options).log_likelihoods, 30,
                             std::string("discrete, ") + which + ", tau " + std::to_string(tau), 3);
    }
  const Eigen::MatrixXd x = vector_sequence(50, 77).array() * 1.4 - 0.3;
  for (CovarianceForm form : kForms) {
    const HmmFit gaussian_pooled = fit_pooled_gaussian_hmm(vector_sequences(20, 15, 2), pooled_gaussian_options(form));
    MixtureFitOptions mixture_options;
    mixture_options.components = 3;
    mixture_options.covariance = form;
    const GaussianMixtureFit mixture = fit_pooled_mixture(vector_sequences(10, 20, 3), mixture_options);
    for (double tau : {0.5, 5.0, 50.0})
      for (const char* which : {"all", "means", "covariances", "weights,means", "start,means"}) {
        AdaptationOptions options = adaptation(tau);
        options.adapt = parse_adapted_parameters(which);
        const std::string what = form_name(form) + ", " + which + ", tau " + std::to_string(tau);
        if (std::string(which) != "weights,means")
          expect_never_decreases(adapt_hmm(*gaussian_pooled.model, x, options).log_likelihoods, 30, "hmm " + what, 3);
        if (std::string(which) != "start,means")
          expect_never_decreases(adapt_mixture(*mixture.model, x, options).log_likelihoods, 30, "mixture " + what, 3);
      }
  }
}

TEST(Adaptation, OnlyTheChosenParametersMove) {
  const HmmFit pooled = fit_pooled_discrete_hmm(symbol_sequences(30, 15, 1), 4, pooled_discrete_options(2));
  const std::vector<long> example = sample_symbols({0.1, 0.9}, kTrans, kEmit, 40, 8);
  AdaptationOptions options = adaptation(4.0);
  options.adapt = parse_adapted_parameters("emissions");
  const HmmFit adapted = adapt_hmm(*pooled.model, example, options);
  EXPECT_EQ(adapted.model->start(), pooled.model->start());
  EXPECT_EQ(adapted.model->transitions(), pooled.model->transitions());
  EXPECT_GT((emission_table(*adapted.model) - emission_table(*pooled.model)).cwiseAbs().maxCoeff(), 1e-3);

  MixtureFitOptions mixture_options;
  mixture_options.components = 2;
  const GaussianMixtureFit mixture = fit_pooled_mixture(vector_sequences(10, 20, 3), mixture_options);
  options.adapt = parse_adapted_parameters("means");
  const GaussianMixtureFit means_only = adapt_mixture(*mixture.model, vector_sequence(30, 4).array() + 1.0, options);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(means_only.model->weights()[k], mixture.model->weights()[k]);
    EXPECT_EQ(gaussian(means_only.model->component(k)).covariance(), gaussian(mixture.model->component(k)).covariance());
    EXPECT_GT((gaussian(means_only.model->component(k)).mean() - gaussian(mixture.model->component(k)).mean()).norm(),
              1e-3);
  }
}

// The kernel of two discrete HMMs over x_0..x_T by brute force (docs/families.md, hmm): k~ = the sum
// over both hidden paths s, s' of (pi_s0 pi'_s'0)^rho prod_{t>=1} (A_{s_t-1 s_t} A'_{s'_t-1 s'_t})^rho
// prod_t psi(s_t, s'_t), psi(q, q') = sum_o (E_qo E'_q'o)^rho.
double brute_force_kernel(const HmmModel& a, const HmmModel& b, double rho, long length) {
  const Eigen::MatrixXd ea = emission_table(a), eb = emission_table(b);
  const auto m = static_cast<long>(a.states());
  std::vector<long> s(static_cast<std::size_t>(length + 1), 0), u(s);
  double sum = 0.0;
  const auto next = [&](std::vector<long>& path) {
    std::size_t t = 0;
    while (t < path.size() && ++path[t] == m) path[t++] = 0;
    return t < path.size();
  };
  do {
    do {
      double term = std::pow(a.start()(s[0]) * b.start()(u[0]), rho);
      for (std::size_t t = 0; t < s.size(); ++t) {
        if (t > 0) term *= std::pow(a.transitions()(s[t - 1], s[t]) * b.transitions()(u[t - 1], u[t]), rho);
        term *= (ea.row(s[t]).array() * eb.row(u[t]).array()).pow(rho).sum();
      }
      sum += term;
    } while (next(u));
  } while (next(s));
  return sum;
}

// p(x) of a discrete HMM by the sum over every hidden path, for each of the O^(T+1) sequences x (in
// the order of counting x_0 fastest).
std::vector<double> sequence_probabilities(const HmmModel& hmm, long length) {
  const Eigen::MatrixXd e = emission_table(hmm);
  const auto m = static_cast<long>(hmm.states()), symbols = static_cast<long>(e.cols());
  std::vector<double> probabilities;
  std::vector<long> x(static_cast<std::size_t>(length + 1), 0);
  for (bool more = true; more;) {
    std::vector<long> s(x.size(), 0);
    double p = 0.0;
    for (bool paths = true; paths;) {
      double joint = hmm.start()(s[0]) * e(s[0], x[0]);
      for (std::size_t t = 1; t < x.size(); ++t) joint *= hmm.transitions()(s[t - 1], s[t]) * e(s[t], x[t]);
      p += joint;
      std::size_t t = 0;
      while (t < s.size() && ++s[t] == m) s[t++] = 0;
      paths = t < s.size();
    }
    probabilities.push_back(p);
    std::size_t t = 0;
    while (t < x.size() && ++x[t] == symbols) x[t++] = 0;
    more = t < x.size();
  }
  return probabilities;
}

// Adapted rows (decoded from their rows) with the pooled row at T = 4: the kernel against the brute
// force above to 1e-10 relative at rho = 0.5 and 1, and at rho = 1 against the co-emission
// probability sum_x p(x) p'(x) over all 4^5 sequences.
TEST(Adaptation, AdaptedRowsPairWithThePooledRowAsTheBruteForceKernel) {
  const HmmFit pooled = fit_pooled_discrete_hmm(symbol_sequences(30, 15, 1), 4, pooled_discrete_options(2));
  const std::unique_ptr<Model> pooled_row = decode_row(encode_row(*pooled.model));
  const auto& pooled_hmm = static_cast<const HmmModel&>(*pooled_row);
  const long length = 4;
  for (int s = 0; s < 3; ++s) {
    const std::vector<long> example = sample_symbols({0.5, 0.5}, kTrans, kEmit, 10 + 7 * s, 30 + s);
    const std::unique_ptr<Model> adapted =
        decode_row(encode_row(*adapt_hmm(*pooled.model, example, adaptation(8.0)).model));
    const auto& adapted_hmm = static_cast<const HmmModel&>(*adapted);
    for (double rho : {0.5, 1.0}) {
      const KernelParams params{rho, static_cast<int>(length)};
      PreparedModel a(decode_row(encode_row(*adapted)), params), b(decode_row(encode_row(*pooled_row)), params);
      const double brute_force = brute_force_kernel(adapted_hmm, pooled_hmm, rho, length);
      EXPECT_NEAR(log_kernel(a, b), std::log(brute_force), 1e-10) << "example " << s << ", rho " << rho;
    }
    const std::vector<double> p = sequence_probabilities(adapted_hmm, length),
                              q = sequence_probabilities(pooled_hmm, length);
    double co_emission = 0.0;
    for (std::size_t x = 0; x < p.size(); ++x) co_emission += p[x] * q[x];
    EXPECT_NEAR(co_emission, brute_force_kernel(adapted_hmm, pooled_hmm, 1.0, length), 1e-12 * co_emission);
  }
}

TEST(Adaptation, RejectsBadOptionsAndInputByName) {
  EXPECT_TRUE(refuses([] { parse_adapted_parameters("means,foo"); }, {"adapt", "foo"}));
  EXPECT_TRUE(refuses([] { parse_adapted_parameters("means,means"); }, {"adapt", "twice"}));
  EXPECT_TRUE(refuses([] { parse_adapted_parameters(""); }, {"adapt", "at least one"}));
  EXPECT_TRUE(parse_adapted_parameters("cpts").cpts);
  EXPECT_FALSE(parse_adapted_parameters("cpts").means);
  AdaptationOptions weights_only = adaptation(1.0);
  weights_only.adapt = parse_adapted_parameters("weights");
  const HmmFit pooled = fit_pooled_discrete_hmm(symbol_sequences(10, 15, 1), 4, pooled_discrete_options(2));
  const std::vector<long> symbols{1, 2}, outside{1, 4}, empty;
  for (double tau : {0.0, -1.0, std::nan("")})
    EXPECT_TRUE(refuses([&] { adapt_hmm(*pooled.model, symbols, adaptation(tau)); }, {"relevance"})) << tau;
  EXPECT_TRUE(
      refuses([&] { adapt_hmm(*pooled.model, outside, adaptation(1.0)); }, {"symbol 4", "position 2", "alphabet 0..3"}));
  EXPECT_TRUE(refuses([&] { adapt_hmm(*pooled.model, empty, adaptation(1.0)); }, {"empty"}));
  EXPECT_TRUE(refuses([&] { adapt_hmm(*pooled.model, symbols, weights_only); },
                      {"adapt", "'weights'", "hmm with discrete emissions", "start, transitions, emissions"}));
  const Eigen::MatrixXd three_by_two = Eigen::MatrixXd::Zero(3, 2), three_by_five = Eigen::MatrixXd::Zero(3, 5);
  EXPECT_TRUE(refuses([&] { adapt_hmm(*pooled.model, three_by_two, adaptation(1.0)); },
                      {"emission 1", "multinomial", "not a gaussian"}));
  const HmmFit gaussian_pooled =
      fit_pooled_gaussian_hmm(vector_sequences(5, 15, 2), pooled_gaussian_options(CovarianceForm::diagonal));
  EXPECT_TRUE(refuses([&] { adapt_hmm(*gaussian_pooled.model, symbols, adaptation(1.0)); },
                      {"emission 1", "one-event multinomial"}));
  EXPECT_TRUE(
      refuses([&] { adapt_hmm(*gaussian_pooled.model, three_by_five, adaptation(1.0)); }, {"5 coordinates", "2"}));
  const std::vector<std::vector<long>> bad_second{{0, 1}, {1, 7}}, none;
  EXPECT_TRUE(
      refuses([&] { fit_pooled_discrete_hmm(bad_second, 4, pooled_discrete_options(2)); }, {"sequence 2", "symbol 7"}));
  EXPECT_TRUE(refuses([&] { fit_pooled_discrete_hmm(none, 4, pooled_discrete_options(2)); }, {"no sequences"}));
}

}  // namespace
}  // namespace ppk
