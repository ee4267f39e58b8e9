// The SLDS estimator (estimate_slds.hpp, approximate hard-assignment EM): with one regime it is the
// LDS fit; the objective J(theta, r) = log p(r) + log p(X | r) + priors never decreases, and its
// final value is recomputed here from the fitted row and path with the dense joint Gaussian of X
// given the path (built from the model's equations); with the default options, on long simulated
// series with two clearly different regimes (1-D, and 2-D with a rotating regime) the path, both
// transitions (their eigenvalues in 2-D) and the chain's stickiness are recovered; bad sequences and
// options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "estimate_helpers.hpp"
#include "lds_sampling.hpp"
#include "positive_family_checks.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/estimate/estimate_slds.hpp"
#include "ppk/families/slds.hpp"

namespace ppk {
namespace {

using checks::mentions;

// A switching series: a sticky two-regime chain (switch probability 0.02), s_t = A_{r_t} s_{t-1}
// + N(0, I), x_t = C s_t + N(0, 0.2^2 I). Returns the observations (one row per step) and the true path.
struct Series {
  Eigen::MatrixXd x;
  std::vector<int> path;
};
Series simulate_switching(const Eigen::MatrixXd (&a)[2], const Eigen::MatrixXd& c, long count, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  const auto draw = [&](Eigen::Index size) {
    return Eigen::VectorXd(Eigen::VectorXd::NullaryExpr(size, [&] { return normal(rng); }));
  };
  Series out{Eigen::MatrixXd(count, c.rows()), std::vector<int>(static_cast<std::size_t>(count))};
  int regime = 0;
  Eigen::VectorXd s = draw(c.cols());
  for (long t = 0; t < count; ++t) {
    if (t > 0) {
      if (uniform(rng) < 0.02) regime = 1 - regime;
      s = a[regime] * s + draw(c.cols());
    }
    out.path[static_cast<std::size_t>(t)] = regime;
    out.x.row(t) = (c * s + 0.2 * draw(c.rows())).transpose();
  }
  return out;
}
// The 1-D series: a = a_0 or a_1, C = 1.
Series simulate_switching(const double (&a)[2], long count, unsigned seed) {
  const Eigen::MatrixXd scalars[2] = {Eigen::MatrixXd::Constant(1, 1, a[0]), Eigen::MatrixXd::Constant(1, 1, a[1])};
  return simulate_switching(scalars, Eigen::MatrixXd::Ones(1, 1), count, seed);
}

// The share of steps on which the fitted path agrees with the true two-regime one, up to the label
// swap; `swapped` says whether fitted regime 0 is true regime 1.
double agreement(const std::vector<int>& fitted, const std::vector<int>& truth, bool& swapped) {
  long same = 0;
  for (std::size_t t = 0; t < fitted.size(); ++t) same += fitted[t] == truth[t];
  const long steps = static_cast<long>(fitted.size());
  swapped = 2 * same < steps;
  return static_cast<double>(swapped ? steps - same : same) / static_cast<double>(steps);
}

// J of estimate_slds.hpp from the fitted row and path, log p(X | r) dense (dense_path_log_likelihood).
double dense_objective(const SldsParameters& p, const std::vector<int>& path, const Eigen::MatrixXd& x, double ridge,
                       double smoothing) {
  double value = dense_path_log_likelihood(p, path, x) + std::log(p.start(path[0]));
  for (std::size_t t = 1; t < path.size(); ++t) value += std::log(p.transitions(path[t - 1], path[t]));
  if (smoothing > 0.0) value += smoothing * (p.start.array().log().sum() + p.transitions.array().log().sum());
  double traces = p.cov0.inverse().trace() + p.observation_noise.inverse().trace();
  for (std::size_t k = 0; k < p.state_noises.size(); ++k)
    traces += (p.state_noises[k].inverse() * (Eigen::MatrixXd::Identity(p.mean0.size(), p.mean0.size()) +
                                              p.state_transitions[k] * p.state_transitions[k].transpose()))
                  .trace();
  return value - 0.5 * ridge * traces;
}

SldsFitOptions slds_options(long states, long state_dim, double ridge, long restarts) {
  SldsFitOptions options;
  options.states = states;
  options.state_dim = state_dim;
  options.ridge = ridge;
  options.restarts = restarts;
  return options;
}

TEST(SldsEstimate, OneRegimeIsTheLdsFit) {
  std::mt19937 rng(41);
  const Lds truth = random_lds(rng, 2, 2, 0);
  std::mt19937 draw(42);
  const Eigen::VectorXd stacked = Simulator(truth).draw(draw, 79);
  const Eigen::MatrixXd x =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(stacked.data(), 80, 2);
  SldsFitOptions options = slds_options(1, 2, 1e-4, 2);
  options.seed = 7;
  options.iterations = 50;
  const SldsFit slds = fit_slds(x, options);
  LdsFitOptions lds_options;
  lds_options.state_dim = 2;
  lds_options.ridge = 1e-4;
  lds_options.restarts = 2;
  lds_options.seed = 7;
  lds_options.iterations = 50;
  const LdsFit lds = fit_lds(x, lds_options);
  const SldsParameters& p = slds.model->parameters();
  EXPECT_TRUE(p.state_transitions[0].isApprox(lds.model->transition(), 1e-9));
  EXPECT_TRUE(p.state_noises[0].isApprox(lds.model->state_noise(), 1e-9));
  EXPECT_TRUE(p.observation.isApprox(lds.model->observation(), 1e-9));
  EXPECT_TRUE(p.observation_noise.isApprox(lds.model->observation_noise(), 1e-9));
  EXPECT_TRUE(p.mean0.isApprox(lds.model->mean0(), 1e-9));
  EXPECT_TRUE(p.cov0.isApprox(lds.model->cov0(), 1e-9));
  EXPECT_DOUBLE_EQ(p.start(0), 1.0);
  EXPECT_EQ(slds.paths[0], std::vector<int>(80, 0));
}

// Finite kernels by construction (estimate_slds.hpp): SLDSs (K = 2, n = 4) fitted to the short 13-D
// utterances that provoke explosive LDS fits (lds_sampling.hpp) have every regime's spectral norm at
// most 0.999 (so every switching product is stable), R above its floor 0.01 diag(coordinate
// variances), positive definite Q_k, a J that never decreases, and finite kernels at T = 10, 100, 1000
// and rho = 0.1, 0.5, 1 (2 drawn paths per row keep the T = 1000 pairs cheap).
TEST(SldsEstimate, ShortHighDimensionalSequencesGiveStableModelsWithNoiseFloors) {
  std::mt19937 rng(51);
  std::uniform_int_distribution<long> frames(24, 40);
  std::vector<std::unique_ptr<Model>> models;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const Eigen::MatrixXd x = provoking_utterance(rng, frames(rng), 13);
    SldsFitOptions options;
    options.state_dim = 4;
    options.states = 2;
    options.paths = 2;
    options.seed = seed;
    SldsFit fit = fit_slds(x, options);
    const SldsParameters& p = fit.model->parameters();
    const std::string what = "seed " + std::to_string(seed);
    for (std::size_t k = 0; k < p.state_transitions.size(); ++k) {
      EXPECT_LE(Eigen::JacobiSVD<Eigen::MatrixXd>(p.state_transitions[k]).singularValues()(0), 0.999 + 1e-9)
          << what << ", regime " << k;
      EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(p.state_noises[k]).eigenvalues().minCoeff(), 0.0) << what;
    }
    const Eigen::VectorXd whitened =
        (0.01 * (x.rowwise() - x.colwise().mean()).colwise().squaredNorm() / static_cast<double>(x.rows()))
            .transpose()
            .cwiseSqrt()
            .cwiseInverse();
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(whitened.asDiagonal() * p.observation_noise *
                                                             whitened.asDiagonal())
                  .eigenvalues()
                  .minCoeff(),
              1.0 - 1e-9)
        << what;
    for (std::size_t k = 1; k < fit.objectives.size(); ++k)
      EXPECT_GE(fit.objectives[k], fit.objectives[k - 1] - 1e-10 * std::fabs(fit.objectives[k - 1]))
          << what << ", round " << k;
    models.push_back(std::move(fit.model));
  }
  fitted_kernels_are_finite(models);
}

TEST(SldsEstimate, TheObjectiveNeverDecreasesAndEqualsTheDenseValue) {
  const double a[2] = {0.9, -0.6};
  const Series series = simulate_switching(a, 150, 43);
  for (const double smoothing : {0.0, 0.5}) {
    for (const long states : {2L, 3L}) {
      SldsFitOptions options = slds_options(states, 1, 1e-3, 1);
      options.smoothing = smoothing;
      options.tolerance = 0.0;
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        options.seed = seed;
        const SldsFit fit = fit_slds(series.x, options);
        ASSERT_GE(fit.objectives.size(), 2u) << "no hard-EM round was taken";
        for (std::size_t i = 1; i < fit.objectives.size(); ++i)
          EXPECT_GE(fit.objectives[i], fit.objectives[i - 1] - 1e-9 * std::fabs(fit.objectives[i])) << "round " << i;
        const double dense = dense_objective(fit.model->parameters(), fit.paths[0], series.x, 1e-3, smoothing);
        EXPECT_NEAR(fit.objectives.back(), dense, 1e-7 * std::fabs(dense));
      }
    }
  }
}

// With the inverse-Wishart priors of estimate_lds.hpp (nu = 5, psi = 0.3, phi = 0.2) J still never
// decreases, and equals the dense J plus the log priors -(nu/2)(log|S| + tr(S^-1 Psi_S)) over cov0,
// every Q_k and R, computed here by dense determinants and inverses.
TEST(SldsEstimate, TheObjectiveWithThePriorsNeverDecreasesAndEqualsTheDenseValue) {
  const double a[2] = {0.9, -0.6};
  const Series series = simulate_switching(a, 60, 44);
  const LdsPrior prior{5.0, 0.3, 0.2};
  SldsFitOptions options = slds_options(2, 1, 1e-3, 1);
  options.tolerance = 0.0;
  options.iterations = 30;
  options.prior = prior;
  const Eigen::VectorXd v = (series.x.rowwise() - series.x.colwise().mean()).colwise().squaredNorm().transpose() /
                            static_cast<double>(series.x.rows());
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    options.seed = seed;
    const SldsFit fit = fit_slds(series.x, options);
    ASSERT_GE(fit.objectives.size(), 2u);
    for (std::size_t i = 1; i < fit.objectives.size(); ++i)
      EXPECT_GE(fit.objectives[i], fit.objectives[i - 1] - 1e-9 * std::fabs(fit.objectives[i])) << "round " << i;
    const SldsParameters& p = fit.model->parameters();
    const auto term = [&](const Eigen::MatrixXd& s, const Eigen::MatrixXd& centre) {
      return -0.5 * prior.strength * (std::log(s.determinant()) + (s.inverse() * centre).trace());
    };
    const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(1, 1);
    double log_prior =
        term(p.cov0, identity) + term(p.observation_noise, Eigen::MatrixXd((prior.observation_noise * v).asDiagonal()));
    for (const Eigen::MatrixXd& q : p.state_noises) log_prior += term(q, prior.state_noise * identity);
    const double dense = dense_objective(p, fit.paths[0], series.x, 1e-3, options.smoothing) + log_prior;
    EXPECT_NEAR(fit.objectives.back(), dense, 1e-7 * std::fabs(dense)) << "seed " << seed;
  }
}

// The fit with the DEFAULT options for two regimes and state dimension n; its path agrees with the
// true one on >= 90% of the steps up to the label swap (`swapped` as for agreement()).
SldsFit fit_two_regimes(const Series& series, long state_dim, bool& swapped) {
  SldsFitOptions options;
  options.states = 2;
  options.state_dim = state_dim;
  SldsFit fit = fit_slds(series.x, options);
  EXPECT_GE(agreement(fit.paths[0], series.path, swapped), 0.9);
  return fit;
}

TEST(SldsEstimate, RecoversTheRegimesOfALongSeries) {
  const double a[2] = {0.95, -0.5};
  const Series series = simulate_switching(a, 1500, 44);
  bool swapped = false;
  const SldsFit fit = fit_two_regimes(series, 1, swapped);
  const SldsParameters& p = fit.model->parameters();
  // A scalar transition is the same in every state basis. Tolerance 0.1: the least-squares error of
  // a over ~700 steps is about 0.03; the rest is hard EM's bias (steps near a switch misassigned, the
  // state smoothed along one path).
  EXPECT_NEAR(p.state_transitions[swapped ? 1 : 0](0, 0), a[0], 0.1);
  EXPECT_NEAR(p.state_transitions[swapped ? 0 : 1](0, 0), a[1], 0.1);
  // Sticky chain: both stay probabilities near the true 0.98.
  EXPECT_GT(p.transitions(0, 0), 0.9);
  EXPECT_GT(p.transitions(1, 1), 0.9);
}

TEST(SldsEstimate, RecoversTheRegimesOfATwoDimensionalSeries) {
  // Regime 0 turns the state by 0.3 rad and shrinks it by 0.95 (eigenvalues 0.95 e^(+-0.3i)); regime 1
  // flips one coordinate and halves both (eigenvalues -0.5, 0.5); C mixes the coordinates.
  Eigen::MatrixXd a[2] = {Eigen::MatrixXd(2, 2), Eigen::MatrixXd(2, 2)};
  a[0] << 0.95 * std::cos(0.3), -0.95 * std::sin(0.3), 0.95 * std::sin(0.3), 0.95 * std::cos(0.3);
  a[1] << -0.5, 0.0, 0.0, 0.5;
  Eigen::MatrixXd c(2, 2);
  c << 1.0, 0.5, 0.0, 1.0;
  const Series series = simulate_switching(a, c, 1000, 46);
  bool swapped = false;
  const SldsFit fit = fit_two_regimes(series, 2, swapped);
  // The eigenvalues of A_k do not depend on the state basis: each fitted pair within 0.1 of the true
  // pair, matched in the better of the two orders.
  const SldsParameters& p = fit.model->parameters();
  for (int k = 0; k < 2; ++k) {
    const Eigen::VectorXcd fitted = p.state_transitions[static_cast<std::size_t>(swapped ? 1 - k : k)].eigenvalues(),
                           truth = a[k].eigenvalues();
    const double error = std::min(std::max(std::abs(fitted(0) - truth(0)), std::abs(fitted(1) - truth(1))),
                                  std::max(std::abs(fitted(0) - truth(1)), std::abs(fitted(1) - truth(0))));
    EXPECT_LT(error, 0.1) << "regime " << k << ": fitted eigenvalues " << fitted.transpose() << ", true "
                          << truth.transpose();
  }
  EXPECT_GT(p.transitions(0, 0), 0.9);
  EXPECT_GT(p.transitions(1, 1), 0.9);
}

TEST(SldsEstimate, ThroughTheEstimatorInterface) {
  SldsFitOptions options = slds_options(3, 1, 1e-3, 1);
  options.paths = 4;
  options.length = 12;
  const auto estimator = slds_estimator(options);
  EXPECT_EQ(estimator->family(), "slds");
  const double a[2] = {0.9, -0.6};
  const Series series = simulate_switching(a, 40, 45);
  std::vector<SparseVector> vectors;
  for (long t = 0; t < series.x.rows(); ++t) vectors.push_back(sparse({series.x(t, 0)}));
  const auto model = estimate(*estimator, vectors, 1);
  const auto& slds = dynamic_cast<const SldsModel&>(*model);
  EXPECT_EQ(slds.discrete_states(), 3);
  EXPECT_EQ(slds.state_dim(), 1);
  EXPECT_EQ(slds.parameters().paths, 4);
  EXPECT_EQ(slds.parameters().length, 12);
  EXPECT_EQ(slds.parameters().state_transitions, fit_slds(series.x, options).model->parameters().state_transitions);
  Statistics statistics = estimator->statistics(vectors, 1);
  EXPECT_TRUE(mentions(estimation_error([&] { estimator->pool(statistics, statistics, 1.0); }), {"slds"}));
}

TEST(SldsEstimate, RejectsShortSequencesNonFiniteValuesAndBadOptions) {
  const SldsFitOptions options = slds_options(2, 1, 1e-3, 1);
  EXPECT_TRUE(
      mentions(estimation_error([&] { fit_slds(Eigen::MatrixXd::Ones(1, 2), options); }), {"1 vector", "at least 2"}));
  Eigen::MatrixXd x = Eigen::MatrixXd::Ones(5, 2);
  x(3, 1) = std::nan("");
  EXPECT_TRUE(mentions(estimation_error([&] { fit_slds(x, options); }), {"finite"}));
  const auto with = [&](auto change) {
    SldsFitOptions changed = options;
    change(changed);
    return estimation_error([&] { slds_estimator(changed); });
  };
  EXPECT_TRUE(mentions(with([](SldsFitOptions& o) { o.states = 0; }), {"states must be in [1, 1000]"}));
  EXPECT_TRUE(mentions(with([](SldsFitOptions& o) { o.paths = 0; }), {"paths must be in [1, 1000]"}));
  EXPECT_TRUE(mentions(with([](SldsFitOptions& o) { o.paths = 1001; }), {"paths must be in [1, 1000]", "got 1001"}));
  EXPECT_TRUE(mentions(with([](SldsFitOptions& o) { o.states = 1001; }), {"states must be in [1, 1000]", "got 1001"}));
  EXPECT_TRUE(mentions(with([](SldsFitOptions& o) { o.smoothing = -1; }), {"smoothing must be"}));
  EXPECT_TRUE(mentions(with([](SldsFitOptions& o) { o.state_dim = 0; }), {"state_dim must be in [1, 1000]"}));
  EXPECT_TRUE(mentions(with([](SldsFitOptions& o) { o.iterations = 0; }), {"iterations must be at least 1"}));
}

}  // namespace
}  // namespace ppk
