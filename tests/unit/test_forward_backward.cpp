// The scaled forward-backward recursions (estimate_detail.hpp), on the unrolled fixed-size paths
// (M = 1..6) and the dynamic one (M = 7, 9), against independent oracles: gamma_t, sum_t xi_t and
// log p(X) by enumerating every hidden path in log space; log p(X) of long sequences by the
// forward recursion in log space (log-sum-exp per step). Emissions far below exp(-708), which
// underflow as probabilities, and normalisers c_t below 1e-100 check that the scaling and the
// sum of log c_t neither underflow nor lose accuracy.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "estimate/estimate_detail.hpp"

namespace ppk {
namespace {

// log sum_i exp(v_i).
double log_sum_exp(const Eigen::VectorXd& v) {
  const double top = v.maxCoeff();
  return top + std::log((v.array() - top).exp().sum());
}

// A chain whose probabilities are uniform on [0.05, 1), normalised.
detail::MarkovChain random_chain(long m, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  detail::MarkovChain chain{Eigen::VectorXd(m), Eigen::MatrixXd(m, m)};
  for (long q = 0; q < m; ++q) chain.start(q) = uniform(rng);
  chain.start /= chain.start.sum();
  for (long p = 0; p < m; ++p) {
    for (long q = 0; q < m; ++q) chain.transitions(p, q) = uniform(rng);
    chain.transitions.row(p) /= chain.transitions.row(p).sum();
  }
  return chain;
}

// n x M log emissions uniform on [low, high).
Eigen::MatrixXd random_log_emissions(long n, long m, double low, double high, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(low, high);
  Eigen::MatrixXd out(n, m);
  for (long t = 0; t < n; ++t)
    for (long q = 0; q < m; ++q) out(t, q) = uniform(rng);
  return out;
}

// Every hidden path's log p(path, X), normalised by log p(X) into gamma and sum_t xi.
detail::ChainPosteriors enumerated_posteriors(const detail::MarkovChain& chain, const Eigen::MatrixXd& log_emissions) {
  const long n = log_emissions.rows(), m = log_emissions.cols();
  std::vector<std::vector<long>> paths;
  std::vector<double> log_joint;
  std::vector<long> path(static_cast<std::size_t>(n), 0);
  for (;;) {
    double log_p = std::log(chain.start(path[0])) + log_emissions(0, path[0]);
    for (long t = 1; t < n; ++t) log_p += std::log(chain.transitions(path[t - 1], path[t])) + log_emissions(t, path[t]);
    paths.push_back(path);
    log_joint.push_back(log_p);
    long t = 0;  // the next path, as an n-digit number in base m
    while (t < n && ++path[t] == m) path[t++] = 0;
    if (t == n) break;
  }
  detail::ChainPosteriors out;
  out.log_likelihood = log_sum_exp(Eigen::Map<const Eigen::VectorXd>(log_joint.data(), log_joint.size()));
  out.states = Eigen::MatrixXd::Zero(n, m);
  out.transition_counts = Eigen::MatrixXd::Zero(m, m);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const double posterior = std::exp(log_joint[i] - out.log_likelihood);
    for (long t = 0; t < n; ++t) out.states(t, paths[i][t]) += posterior;
    for (long t = 1; t < n; ++t) out.transition_counts(paths[i][t - 1], paths[i][t]) += posterior;
  }
  return out;
}

// log p(X) by the forward recursion in log space.
double log_space_forward(const detail::MarkovChain& chain, const Eigen::MatrixXd& log_emissions) {
  const long n = log_emissions.rows(), m = log_emissions.cols();
  Eigen::VectorXd log_alpha = chain.start.array().log().matrix() + log_emissions.row(0).transpose();
  for (long t = 1; t < n; ++t) {
    Eigen::VectorXd next(m);
    for (long q = 0; q < m; ++q)
      next(q) = log_sum_exp(log_alpha + chain.transitions.col(q).array().log().matrix()) + log_emissions(t, q);
    log_alpha = next;
  }
  return log_sum_exp(log_alpha);
}

TEST(ForwardBackward, PosteriorsAndLikelihoodAreThoseOfEveryPath) {
  std::mt19937_64 rng(31);
  for (long m : {1, 2, 3, 4, 5, 6, 7, 9})
    for (long n : {1, 2, 5}) {
      if (std::pow(static_cast<double>(m), static_cast<double>(n)) > 1e5) continue;
      // Moderate emissions, and emissions around exp(-1500): zero as probabilities.
      for (double low : {-3.0, -1600.0}) {
        const detail::MarkovChain chain = random_chain(m, rng);
        const Eigen::MatrixXd log_emissions = random_log_emissions(n, m, low, low < -10 ? -1400.0 : 0.0, rng);
        const detail::ChainPosteriors expected = enumerated_posteriors(chain, log_emissions);
        const detail::ChainPosteriors got = detail::forward_backward(chain, log_emissions);
        const std::string where =
            "M " + std::to_string(m) + ", n " + std::to_string(n) + ", emissions from " + std::to_string(low);
        EXPECT_NEAR(got.log_likelihood, expected.log_likelihood, 1e-12 * std::fabs(expected.log_likelihood)) << where;
        ASSERT_EQ(got.states.rows(), n) << where;
        ASSERT_EQ(got.states.cols(), m) << where;
        EXPECT_LT((got.states - expected.states).cwiseAbs().maxCoeff(), 1e-12) << where;
        EXPECT_LT((got.transition_counts - expected.transition_counts).cwiseAbs().maxCoeff(), 1e-12) << where;
      }
    }
}

TEST(ForwardBackward, LongSequencesKeepTheirLikelihood) {
  std::mt19937_64 rng(32);
  for (long m : {2, 7})
    for (long n : {1000, 20000}) {
      const detail::MarkovChain chain = random_chain(m, rng);
      const Eigen::MatrixXd log_emissions = random_log_emissions(n, m, -60.0, 0.0, rng);
      const double expected = log_space_forward(chain, log_emissions);
      const detail::ChainPosteriors got = detail::forward_backward(chain, log_emissions);
      EXPECT_NEAR(got.log_likelihood, expected, 1e-12 * std::fabs(expected)) << "M " << m << ", n " << n;
      EXPECT_LT((got.states.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12) << "M " << m << ", n " << n;
      EXPECT_NEAR(got.transition_counts.sum(), static_cast<double>(n - 1), 1e-9 * static_cast<double>(n))
          << "M " << m << ", n " << n;
    }
}

// A chain that almost never enters state 1, the state that explains every symbol better: c_t is
// about p_0(x_t) / p_1(x_t) + 1e-300, 0.5 on most steps and 1e-300 on every 500th. A running
// product of the c_t is logged when it falls below 1e-100 (every 332 steps); each 1e-300 meets
// one near 0.5^167 = 5e-51, and their product would underflow to 0: it is logged alone.
TEST(ForwardBackward, NormalisersFarBelowOneKeepTheirLikelihood) {
  const detail::MarkovChain chain{Eigen::Vector2d(1.0 - 1e-300, 1e-300),
                                  (Eigen::Matrix2d() << 1.0 - 1e-300, 1e-300, 1.0 - 1e-300, 1e-300).finished()};
  Eigen::MatrixXd log_emissions(2000, 2);
  for (long t = 0; t < log_emissions.rows(); ++t) log_emissions.row(t) << (t % 500 == 499 ? -700.0 : std::log(0.5)), 0.0;
  const double expected = log_space_forward(chain, log_emissions);
  const detail::ChainPosteriors got = detail::forward_backward(chain, log_emissions);
  EXPECT_NEAR(got.log_likelihood, expected, 1e-12 * std::fabs(expected));
  EXPECT_LT((got.states.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12);
}

}  // namespace
}  // namespace ppk
