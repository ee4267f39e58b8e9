// The factorial-HMM estimator (estimate.hpp): EM never decreases its penalised objective, whose final
// value equals log p(X) summed by brute force over every hidden path plus the prior terms written out
// here; a simulated 2-chain model's means are recovered up to the labels; fits are deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "ppk/estimate.hpp"
#include "ppk/fhmm.hpp"

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
    for (Eigen::Index b = 0; b < chains[1].means.cols(); ++b) out.push_back(chains[0].means.col(a) + chains[1].means.col(b));
  return out;
}

// log p(X) by summing over every pair of hidden paths of two chains, with the Gaussian density
// written out; plus a (sum log pi + sum log A) - (R/2) tr Sigma^-1.
double brute_force_objective(const FhmmModel& model, const Eigen::MatrixXd& x, double a, double ridge) {
  const auto& chains = model.chains();
  const Eigen::MatrixXd& cov = model.cov();
  const Eigen::MatrixXd precision = cov.inverse();
  const double d = static_cast<double>(cov.rows());
  const auto density = [&](const Eigen::VectorXd& v, const Eigen::VectorXd& mean) {
    const Eigen::VectorXd e = v - mean;
    return std::exp(-0.5 * e.dot(precision * e)) / std::sqrt(std::pow(2.0 * M_PI, d) * cov.determinant());
  };
  const long n = x.rows(), m0 = chains[0].start.size(), m1 = chains[1].start.size();
  double total = 0.0;
  std::vector<long> p0(static_cast<std::size_t>(n), 0), p1(static_cast<std::size_t>(n), 0);
  const auto next = [](std::vector<long>& path, long states) {
    for (long& k : path) {
      if (++k < states) return true;
      k = 0;
    }
    return false;
  };
  do {
    do {
      double p = chains[0].start[p0[0]] * chains[1].start[p1[0]];
      for (long t = 0; t < n; ++t) {
        if (t > 0) p *= chains[0].trans(p0[t - 1], p0[t]) * chains[1].trans(p1[t - 1], p1[t]);
        p *= density(x.row(t).transpose(), chains[0].means.col(p0[t]) + chains[1].means.col(p1[t]));
      }
      total += p;
    } while (next(p1, m1));
  } while (next(p0, m0));
  double prior = 0.0;
  if (a > 0.0)
    for (const FhmmChain& chain : chains) prior += a * (chain.start.array().log().sum() + chain.trans.array().log().sum());
  return std::log(total) + prior - 0.5 * ridge * precision.trace();
}

TEST(EstimateFhmm, EmNeverDecreasesItsObjective) {
  const Eigen::MatrixXd x = simulate(two_chains(), 0.5 * Eigen::Matrix2d::Identity(), 300, 1);
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    FhmmFitOptions options;
    options.seed = seed;
    options.restarts = 1;
    options.iterations = 60;
    options.tolerance = 0.0;
    options.smoothing = seed % 2 == 0 ? 0.0 : 0.5;
    const FhmmFit fit = fit_fhmm(x, options);
    ASSERT_GE(fit.log_likelihoods.size(), 10u);  // 60 M-steps at most; it stops when L no longer rises
    for (std::size_t i = 1; i < fit.log_likelihoods.size(); ++i)
      EXPECT_GE(fit.log_likelihoods[i], fit.log_likelihoods[i - 1] - 1e-9 * std::fabs(fit.log_likelihoods[i]))
          << "seed " << seed << " step " << i;
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
  try {
    fit_fhmm(x, options);
    ADD_FAILURE() << "4^6 product states accepted";
  } catch (const EstimationError& error) {
    EXPECT_NE(std::string(error.what()).find("4096 product states"), std::string::npos) << error.what();
  }
  options.chains = 0;
  EXPECT_THROW(fit_fhmm(x, options), EstimationError);
  options.chains = 2;
  options.smoothing = -1.0;
  EXPECT_THROW(fit_fhmm(x, options), EstimationError);
}

}  // namespace
}  // namespace ppk
