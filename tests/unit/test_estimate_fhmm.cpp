// The factorial-HMM estimator (estimate.hpp): EM never decreases its penalised objective, whose final
// value equals log p(X) summed by brute force over every hidden path plus the prior terms written out
// here; a simulated 2-chain model's means are recovered up to the labels; fits are deterministic.
// The structured mean-field E-step: its bound is below the brute-force log p(X) and equal to it for
// one chain, never decreases over the chain updates nor over EM iterations, recovers a 3-chain model's
// means, and fits models whose M^C is beyond the exact E-step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_fhmm.hpp"
#include "ppk/families/fhmm.hpp"

namespace ppk {
namespace {

// A draw from a discrete distribution p.
long draw(const Eigen::VectorXd& p, std::mt19937_64& rng) {
  double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  for (Eigen::Index k = 0; k + 1 < p.size(); ++k) {
    if (u < p[k]) return static_cast<long>(k);
    u -= p[k];
  }
  return static_cast<long>(p.size() - 1);
}

// n vectors from the FHMM: each chain runs on its own; x_t = sum_c W_c[:, k_t^c] + L z, L L' = Sigma.
Eigen::MatrixXd simulate(const std::vector<FhmmChain>& chains, const Eigen::MatrixXd& cov, long n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  const Eigen::MatrixXd l = cov.llt().matrixL();
  std::vector<long> states(chains.size());
  Eigen::MatrixXd x(n, cov.rows());
  for (long t = 0; t < n; ++t) {
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(cov.rows());
    for (std::size_t c = 0; c < chains.size(); ++c) {
      states[c] = t == 0 ? draw(chains[c].start, rng) : draw(chains[c].trans.row(states[c]).transpose(), rng);
      mean += chains[c].means.col(states[c]);
    }
    const Eigen::VectorXd z = Eigen::VectorXd::NullaryExpr(cov.rows(), [&] { return normal(rng); });
    x.row(t) = (mean + l * z).transpose();
  }
  return x;
}

// Two chains of two states in the plane; the four state means (0,0), (3,0), (0,2), (3,2).
std::vector<FhmmChain> two_chains() {
  FhmmChain first{Eigen::Vector2d(0.5, 0.5), (Eigen::Matrix2d() << 0.9, 0.1, 0.2, 0.8).finished(),
                  (Eigen::Matrix2d() << 0.0, 3.0, 0.0, 0.0).finished()};
  FhmmChain second{Eigen::Vector2d(0.3, 0.7), (Eigen::Matrix2d() << 0.7, 0.3, 0.15, 0.85).finished(),
                   (Eigen::Matrix2d() << 0.0, 0.0, 0.0, 2.0).finished()};
  return {first, second};
}

// The mean of x_t in each product state (k_0, k_1): W_0[:, k_0] + W_1[:, k_1]. W_0 and W_1 alone are
// not identified (a vector may move from one to the other), their sums are.
std::vector<Eigen::VectorXd> state_means(const std::vector<FhmmChain>& chains) {
  std::vector<Eigen::VectorXd> out;
  for (Eigen::Index a = 0; a < chains[0].means.cols(); ++a)
    for (Eigen::Index b = 0; b < chains[1].means.cols(); ++b)
      out.push_back(chains[0].means.col(a) + chains[1].means.col(b));
  return out;
}

// log p(X) by summing over every joint hidden path of all chains, with the Gaussian density written out.
double brute_force_log_likelihood(const FhmmModel& model, const Eigen::MatrixXd& x) {
  const auto& chains = model.chains();
  const Eigen::MatrixXd& cov = model.cov();
  const Eigen::MatrixXd precision = cov.inverse();
  const double d = static_cast<double>(cov.rows());
  const auto density = [&](const Eigen::VectorXd& v, const Eigen::VectorXd& mean) {
    const Eigen::VectorXd e = v - mean;
    return std::exp(-0.5 * e.dot(precision * e)) / std::sqrt(std::pow(2.0 * M_PI, d) * cov.determinant());
  };
  const std::size_t n = static_cast<std::size_t>(x.rows()), count = chains.size();
  std::vector<long> path(n * count, 0);  // path[t * count + c] = the state of chain c at t
  const auto next = [&] {
    for (std::size_t i = 0; i < path.size(); ++i) {
      if (++path[i] < chains[i % count].start.size()) return true;
      path[i] = 0;
    }
    return false;
  };
  double total = 0.0;
  do {
    double p = 1.0;
    for (std::size_t t = 0; t < n; ++t) {
      Eigen::VectorXd mean = Eigen::VectorXd::Zero(cov.rows());
      for (std::size_t c = 0; c < count; ++c) {
        const long k = path[t * count + c];
        p *= t == 0 ? chains[c].start[k] : chains[c].trans(path[(t - 1) * count + c], k);
        mean += chains[c].means.col(k);
      }
      p *= density(x.row(static_cast<Eigen::Index>(t)).transpose(), mean);
    }
    total += p;
  } while (next());
  return std::log(total);
}

// The fit's objective by brute force: log p(X) plus a (sum log pi + sum log A) - (R/2) tr Sigma^-1.
double brute_force_objective(const FhmmModel& model, const Eigen::MatrixXd& x, double a, double ridge) {
  double prior = 0.0;
  if (a > 0.0)
    for (const FhmmChain& chain : model.chains())
      prior += a * (chain.start.array().log().sum() + chain.trans.array().log().sum());
  return brute_force_log_likelihood(model, x) + prior - 0.5 * ridge * model.cov().inverse().trace();
}

// A random chain of m states with means N(0, scale^2) in dimension d.
FhmmChain random_chain(long m, long d, double scale, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.2, 1.0);
  std::normal_distribution<double> normal;
  FhmmChain chain{Eigen::VectorXd::NullaryExpr(m, [&] { return uniform(rng); }),
                  Eigen::MatrixXd::NullaryExpr(m, m, [&] { return uniform(rng); }),
                  Eigen::MatrixXd::NullaryExpr(d, m, [&] { return scale * normal(rng); })};
  chain.start /= chain.start.sum();
  for (Eigen::Index k = 0; k < m; ++k) chain.trans.row(k) /= chain.trans.row(k).sum();
  return chain;
}

// With either E-step (variational EM: the bound F in place of log p(X)).
TEST(EstimateFhmm, EmNeverDecreasesItsObjective) {
  const Eigen::MatrixXd x = simulate(two_chains(), 0.5 * Eigen::Matrix2d::Identity(), 300, 1);
  for (FhmmEStep e_step : {FhmmEStep::exact, FhmmEStep::mean_field})
    for (std::uint64_t seed : {1, 2, 3, 4}) {
      FhmmFitOptions options;
      options.seed = seed;
      options.restarts = 1;
      options.iterations = 60;
      options.tolerance = 0.0;
      options.smoothing = seed % 2 == 0 ? 0.0 : 0.5;
      options.e_step = e_step;
      const FhmmFit fit = fit_fhmm(x, options);
      const bool exact = e_step == FhmmEStep::exact;
      ASSERT_GE(fit.log_likelihoods.size(), 10u);  // 60 M-steps at most; it stops when L no longer rises
      for (std::size_t i = 1; i < fit.log_likelihoods.size(); ++i)
        EXPECT_GE(fit.log_likelihoods[i], fit.log_likelihoods[i - 1] - 1e-9 * std::fabs(fit.log_likelihoods[i]))
            << (exact ? "exact" : "mean-field") << " seed " << seed << " step " << i;
      if (exact) continue;
      // From the same start, the bound is below the exact objective.
      options.e_step = FhmmEStep::exact;
      options.iterations = 1;
      EXPECT_LT(fit.log_likelihoods[0], fit_fhmm(x, options).log_likelihoods[0]) << "seed " << seed;
    }
}

TEST(EstimateFhmm, FinalObjectiveEqualsBruteForce) {
  const Eigen::MatrixXd x = simulate(two_chains(), 0.5 * Eigen::Matrix2d::Identity(), 6, 2);
  for (double a : {0.0, 0.3}) {
    FhmmFitOptions options;
    options.smoothing = a;
    options.ridge = 0.01;
    options.iterations = 5;
    options.restarts = 1;
    options.tolerance = 0.0;
    const FhmmFit fit = fit_fhmm(x, options);
    const double expected = brute_force_objective(*fit.model, x, a, 0.01);
    EXPECT_NEAR(fit.log_likelihoods.back(), expected, 1e-9 * std::fabs(expected)) << "a " << a;
    EXPECT_EQ(fit.model->length(), 5);
  }
}

TEST(EstimateFhmm, RecoversTheMeansOfATwoChainModel) {
  const std::vector<FhmmChain> truth = two_chains();
  const Eigen::MatrixXd x = simulate(truth, 0.3 * Eigen::Matrix2d::Identity(), 3000, 3);
  FhmmFitOptions options;
  options.restarts = 3;
  const FhmmFit fit = fit_fhmm(x, options);
  const std::vector<Eigen::VectorXd> expected = state_means(truth), got = state_means(fit.model->chains());
  // Up to the labels: every true state mean has a fitted one within 0.1, and no fitted one twice.
  std::vector<bool> used(got.size(), false);
  for (const Eigen::VectorXd& mean : expected) {
    std::size_t nearest = 0;
    for (std::size_t j = 1; j < got.size(); ++j)
      if ((got[j] - mean).norm() < (got[nearest] - mean).norm()) nearest = j;
    EXPECT_LT((got[nearest] - mean).norm(), 0.1) << mean.transpose() << " vs " << got[nearest].transpose();
    EXPECT_FALSE(used[nearest]);
    used[nearest] = true;
  }
  EXPECT_LT((fit.model->cov() - 0.3 * Eigen::Matrix2d::Identity()).cwiseAbs().maxCoeff(), 0.05);
  // Deterministic: the same data and options give the same model.
  const FhmmFit again = fit_fhmm(x, options);
  EXPECT_EQ(again.log_likelihoods.back(), fit.log_likelihoods.back());
}

TEST(EstimateFhmm, RejectsTooManyProductStatesAndBadOptions) {
  const Eigen::MatrixXd x = Eigen::MatrixXd::Random(10, 2);
  FhmmFitOptions options;
  options.chains = 6;
  options.states = 4;
  options.e_step = FhmmEStep::exact;
  try {
    fit_fhmm(x, options);
    ADD_FAILURE() << "4^6 product states accepted by the exact E-step";
  } catch (const EstimationError& error) {
    EXPECT_NE(std::string(error.what()).find("4096 product states"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("e_step mean-field"), std::string::npos) << error.what();
  }
  options.e_step = FhmmEStep::mean_field;
  options.chains = 11;
  options.states = 100;
  try {
    fit_fhmm(x, options);
    ADD_FAILURE() << "1100 stacked states accepted by the mean-field E-step";
  } catch (const EstimationError& error) {
    EXPECT_NE(std::string(error.what()).find("1100 states in all"), std::string::npos) << error.what();
  }
  options.e_step.reset();
  options.chains = 0;
  EXPECT_THROW(fit_fhmm(x, options), EstimationError);
  options.chains = 2;
  options.smoothing = -1.0;
  EXPECT_THROW(fit_fhmm(x, options), EstimationError);
}

TEST(EstimateFhmm, MeanFieldBoundIsBelowTheLogLikelihood) {
  std::mt19937_64 rng(11);
  // Two chains of 2 and 3 states, then three of 2: overlapping means, so Q differs from the posterior.
  for (const std::vector<long>& sizes : {std::vector<long>{2, 3}, std::vector<long>{2, 2, 2}}) {
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<FhmmChain> chains;
      for (long m : sizes) chains.push_back(random_chain(m, 2, 1.0, rng));
      const Eigen::Matrix2d cov = (Eigen::Matrix2d() << 0.6, 0.2, 0.2, 0.4).finished();
      const Eigen::MatrixXd x = simulate(chains, cov, 5, rng());
      const FhmmModel model(chains, cov, 4);
      const double bound = fhmm_mean_field(model, x).bound, exact = brute_force_log_likelihood(model, x);
      EXPECT_LT(bound, exact - 1e-6) << "chains " << sizes.size() << " trial " << trial;
    }
  }
  // Chains on separate coordinates with little noise: the posterior nearly factorises over the
  // chains, and the bound is tight.
  const std::vector<FhmmChain> chains = two_chains();
  const Eigen::Matrix2d cov = 0.05 * Eigen::Matrix2d::Identity();
  const Eigen::MatrixXd x = simulate(chains, cov, 6, 18);
  const FhmmModel model(chains, cov, 5);
  const double bound = fhmm_mean_field(model, x).bound, exact = brute_force_log_likelihood(model, x);
  EXPECT_LE(bound, exact + 1e-12 * std::fabs(exact));
  EXPECT_GT(bound, exact - 1e-6);
}

TEST(EstimateFhmm, MeanFieldBoundIsExactForOneChain) {
  std::mt19937_64 rng(12);
  for (long m : {1, 2, 4}) {
    const std::vector<FhmmChain> chains{random_chain(m, 2, 1.5, rng)};
    const Eigen::Matrix2d cov = 0.5 * Eigen::Matrix2d::Identity();
    const Eigen::MatrixXd x = simulate(chains, cov, 6, rng());
    const double bound = fhmm_mean_field(FhmmModel(chains, cov, 5), x).bound;
    const double exact = brute_force_log_likelihood(FhmmModel(chains, cov, 5), x);
    EXPECT_NEAR(bound, exact, 1e-10 * std::fabs(exact)) << "states " << m;
  }
  // And EM with either E-step follows the same path from the same start: 12 steps, each still
  // gaining (from step 15 on the gains are rounding noise, and tolerance 0 stops either run at the
  // first step whose noise is a loss, which is no property of the E-step).
  const Eigen::MatrixXd x = simulate({random_chain(3, 2, 2.0, rng)}, 0.3 * Eigen::Matrix2d::Identity(), 200, 13);
  FhmmFitOptions options;
  options.chains = 1;
  options.states = 3;
  options.restarts = 1;
  options.iterations = 12;
  options.tolerance = 0.0;
  options.e_step = FhmmEStep::exact;
  const FhmmFit exact = fit_fhmm(x, options);
  options.e_step = FhmmEStep::mean_field;
  const FhmmFit mean_field = fit_fhmm(x, options);
  ASSERT_EQ(exact.log_likelihoods.size(), 13u);
  ASSERT_EQ(mean_field.log_likelihoods.size(), exact.log_likelihoods.size());
  for (std::size_t i = 0; i < exact.log_likelihoods.size(); ++i)
    EXPECT_NEAR(mean_field.log_likelihoods[i], exact.log_likelihoods[i], 1e-8 * std::fabs(exact.log_likelihoods[i]))
        << "step " << i;
}

TEST(EstimateFhmm, MeanFieldBoundNeverDecreasesOverTheChainUpdates) {
  std::mt19937_64 rng(14);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<FhmmChain> chains;
    for (long m : {2, 3, 4, 3}) chains.push_back(random_chain(m, 3, 1.0, rng));
    const Eigen::MatrixXd cov = 0.5 * Eigen::MatrixXd::Identity(3, 3);
    const Eigen::MatrixXd x = simulate(chains, cov, 150, rng());
    const FhmmMeanField mean_field = fhmm_mean_field(FhmmModel(chains, cov, 149), x);
    ASSERT_GE(mean_field.updates.size(), 1u + 2u * chains.size()) << "at least two sweeps";
    EXPECT_GT(mean_field.updates.back(), mean_field.updates.front() + 1.0) << "the updates move F";
    for (std::size_t i = 1; i < mean_field.updates.size(); ++i)
      EXPECT_GE(mean_field.updates[i], mean_field.updates[i - 1] - 1e-11 * std::fabs(mean_field.updates[i]))
          << "trial " << trial << " update " << i;
    EXPECT_EQ(mean_field.bound, mean_field.updates.back());
  }
}

// Three chains of three states, chain c moving coordinate c among -2, 0, 2 (W_c = e_c (-2 0 2)).
std::vector<FhmmChain> three_chains() {
  std::vector<FhmmChain> chains;
  for (Eigen::Index c = 0; c < 3; ++c) {
    FhmmChain chain{Eigen::Vector3d::Constant(1.0 / 3.0),
                    (Eigen::Matrix3d() << 0.8, 0.1, 0.1, 0.15, 0.7, 0.15, 0.1, 0.1, 0.8).finished(),
                    Eigen::MatrixXd::Zero(3, 3)};
    chain.means.row(c) << -2.0, 0.0, 2.0;
    chains.push_back(chain);
  }
  return chains;
}

TEST(EstimateFhmm, MeanFieldRecoversTheMeansOfAThreeChainModel) {
  const std::vector<FhmmChain> truth = three_chains();
  const Eigen::MatrixXd x = simulate(truth, 0.25 * Eigen::Matrix3d::Identity(), 1000, 15);
  FhmmFitOptions options;
  options.chains = 3;
  options.states = 3;
  options.e_step = FhmmEStep::mean_field;
  options.tolerance = 1e-6;
  const FhmmFit fit = fit_fhmm(x, options);
  // W_c is identified up to a vector moved between chains: compare each chain's means about their
  // average, up to the chains' order and the states' labels.
  const auto centred = [](const Eigen::MatrixXd& means) -> Eigen::MatrixXd {
    return means.colwise() - means.rowwise().mean();
  };
  std::vector<bool> used(3, false);
  for (const FhmmChain& expected : truth) {
    double best = 1e300;
    std::size_t best_chain = 0;
    for (std::size_t c = 0; c < 3; ++c) {
      const Eigen::MatrixXd got = centred(fit.model->chains()[c].means);
      std::vector<int> labels{0, 1, 2};
      do {
        double error = 0.0;
        for (int k = 0; k < 3; ++k) error = std::max(error, (got.col(labels[k]) - centred(expected.means).col(k)).norm());
        if (error < best) {
          best = error;
          best_chain = c;
        }
      } while (std::next_permutation(labels.begin(), labels.end()));
    }
    EXPECT_LT(best, 0.1) << expected.means;
    EXPECT_FALSE(used[best_chain]);
    used[best_chain] = true;
  }
  EXPECT_LT((fit.model->cov() - 0.25 * Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff(), 0.05);
}

TEST(EstimateFhmm, DefaultsToMeanFieldBeyondTheExactLimit) {
  std::mt19937_64 rng(16);
  std::vector<FhmmChain> chains;
  for (int c = 0; c < 4; ++c) chains.push_back(random_chain(6, 2, 1.0, rng));
  const Eigen::MatrixXd x = simulate(chains, 0.5 * Eigen::Matrix2d::Identity(), 200, 17);
  FhmmFitOptions options;
  options.chains = 4;
  options.states = 6;  // 1296 product states
  options.restarts = 1;
  options.iterations = 30;
  const FhmmFit fit = fit_fhmm(x, options);
  ASSERT_EQ(fit.model->chains().size(), 4u);
  for (const FhmmChain& chain : fit.model->chains()) EXPECT_EQ(chain.start.size(), 6);
  ASSERT_GE(fit.log_likelihoods.size(), 2u);
  EXPECT_TRUE(std::isfinite(fit.log_likelihoods.back()));
  EXPECT_GT(fit.log_likelihoods.back(), fit.log_likelihoods.front());
  options.e_step = FhmmEStep::exact;
  EXPECT_THROW(fit_fhmm(x, options), EstimationError);
}

}  // namespace
}  // namespace ppk
