// The LDS estimator (estimate_lds.hpp): the Kalman filter's log-likelihood against the dense joint
// Gaussian of the observations; the smoother's moments against the conditional moments of the dense
// joint Gaussian of states and observations, built here from the model's equations; EM never
// decreases log p(X) (or the ridge-penalised objective), each iteration's value recomputed densely
// from the model EM had reached; LDSs recovered from long simulated series through quantities that
// do not depend on the state's basis (eigenvalues of A, observation autocovariances, R); restarts,
// determinism, and rejected sequences and options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>

#include "estimate_helpers.hpp"
#include "lds_sampling.hpp"
#include "positive_family_checks.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/lds.hpp"

namespace ppk {
namespace {

using checks::mentions;

TEST(LdsEstimate, KalmanLogLikelihoodEqualsTheDenseJointDensity) {
  std::mt19937 rng(31);
  for (long n = 1; n <= 3; ++n)
    for (long d = 1; d <= 3; ++d) {
      const long count = 7;
      const Lds s = random_lds(rng, n, d, count - 1);
      const Eigen::MatrixXd x = simulate_rows(s, count, 100 + n * 10 + d);
      const auto model = lds_model(s);
      const double dense = dense_log_likelihood(*model, x);
      // And by the joint written out in this test.
      const DenseJoint joint = dense_joint(s, count);
      const double written_out =
          GaussianModel::full(joint.observation_mean, joint.observation_cov)->log_density(stacked(x));
      const double filtered = smooth_lds(*model, x).log_likelihood;
      EXPECT_NEAR(filtered, dense, 1e-9 * std::max(1.0, std::fabs(dense))) << "n " << n << ", d " << d;
      EXPECT_NEAR(filtered, written_out, 1e-9 * std::max(1.0, std::fabs(dense))) << "n " << n << ", d " << d;
    }
}

// The smoother's moments of s (simulated rows x_0..x_{count-1}) against the conditional moments of the
// dense joint (dense_posterior).
void expect_dense_smoother_moments(const Lds& s, const Eigen::MatrixXd& x, const std::string& what) {
  const long count = x.rows(), n = s.A.rows();
  const DensePosterior dense = dense_posterior(s, x);
  const Eigen::VectorXd& mean = dense.mean;
  const Eigen::MatrixXd& cov = dense.cov;
  const LdsPosterior posterior = smooth_lds(*lds_model(s), x);
  ASSERT_EQ(posterior.means.size(), static_cast<std::size_t>(count));
  ASSERT_EQ(posterior.lag_covariances.size(), static_cast<std::size_t>(count - 1));
  for (long t = 0; t < count; ++t) {
    EXPECT_LE((posterior.means[t] - mean.segment(t * n, n)).norm(), 1e-9) << what << ", t " << t;
    EXPECT_LE((posterior.covariances[t] - cov.block(t * n, t * n, n, n)).norm(), 1e-9) << what << ", t " << t;
    if (t > 0) {
      EXPECT_LE((posterior.lag_covariances[t - 1] - cov.block(t * n, (t - 1) * n, n, n)).norm(), 1e-9)
          << what << ", Cov(s_t, s_t-1), t " << t;
    }
  }
}

TEST(LdsEstimate, SmootherMomentsEqualTheDenseConditionalMoments) {
  std::mt19937 rng(32);
  for (long n = 1; n <= 3; ++n)
    for (long d : {1L, 2L}) {
      const long count = 6;
      const Lds s = random_lds(rng, n, d, count - 1);
      expect_dense_smoother_moments(s, simulate_rows(s, count, 200 + n * 10 + d),
                                    "n " + std::to_string(n) + ", d " + std::to_string(d));
    }
}

// The filter updates in information form when n < d and in covariance form otherwise (lds_em.cpp):
// both against the dense joint, log p(X) and the smoother's moments, at n < d (up to d = 13, the
// spoken-word fits' dimension), n = d and n > d, and with a singular cov0 (v v', v_0 = 0), whose
// first step the information form cannot factor.
TEST(LdsEstimate, InformationAndCovarianceFormsEqualTheDenseJoint) {
  std::mt19937 rng(33);
  const std::vector<std::pair<long, long>> dims = {{2, 13}, {4, 13}, {1, 5}, {3, 3}, {4, 2}};
  for (const auto& [n, d] : dims)
    for (const bool singular_cov0 : {false, true}) {
      const long count = 12;
      Lds s = random_lds(rng, n, d, count - 1);
      if (singular_cov0) {
        Eigen::VectorXd v = random_matrix(rng, n, 1);
        v(0) = 0.0;
        s.cov0 = v * v.transpose();
      }
      const Eigen::MatrixXd x = simulate_rows(s, count, 300 + static_cast<unsigned>(n * 20 + d));
      const std::string what =
          "n " + std::to_string(n) + ", d " + std::to_string(d) + (singular_cov0 ? ", singular cov0" : "");
      const DenseJoint joint = dense_joint(s, count);
      const double dense = GaussianModel::full(joint.observation_mean, joint.observation_cov)->log_density(stacked(x));
      EXPECT_NEAR(smooth_lds(*lds_model(s), x).log_likelihood, dense, 1e-9 * std::max(1.0, std::fabs(dense))) << what;
      expect_dense_smoother_moments(s, x, what);
    }
}

// (r/2) (tr(cov0^-1) + tr(Q^-1) + tr(R^-1)), the penalty of the objective, by dense inverses.
double ridge_penalty(const LdsModel& m, double ridge) {
  return 0.5 * ridge *
         (m.cov0().inverse().trace() + m.state_noise().inverse().trace() + m.observation_noise().inverse().trace());
}

LdsFitOptions em_options(long states, double ridge, long iterations, std::uint64_t seed) {
  LdsFitOptions options;
  options.state_dim = states;
  options.ridge = ridge;
  options.iterations = iterations;
  options.tolerance = 0;
  options.restarts = 1;
  options.seed = seed;
  return options;
}

// EM stopped after k iterations is the model EM had reached at step k of a longer run (one restart,
// the same seed): its objective, recomputed from the dense joint Gaussian, must equal L[k] and never
// decrease in k.
TEST(LdsEstimate, EmNeverDecreasesTheDenseLogLikelihood) {
  std::mt19937 rng(33);
  const long iterations = 25;
  for (long n : {1L, 2L, 3L})
    for (double ridge : {0.0, 0.05}) {
      const Lds s = random_lds(rng, 2, 2, 0);
      const Eigen::MatrixXd x = simulate_rows(s, 60, static_cast<unsigned>(300 + n));
      const std::string what = "n " + std::to_string(n) + ", ridge " + std::to_string(ridge);
      const LdsFit full = fit_lds(x, em_options(n, ridge, iterations, 5));
      ASSERT_EQ(full.log_likelihoods.size(), static_cast<std::size_t>(iterations + 1)) << what;
      double previous = -INFINITY;
      for (long k = 1; k <= iterations; ++k) {
        const LdsFit partial = fit_lds(x, em_options(n, ridge, k, 5));
        const double dense = dense_log_likelihood(*partial.model, x) - ridge_penalty(*partial.model, ridge);
        EXPECT_NEAR(dense, full.log_likelihoods[k], 1e-9 * std::fabs(dense)) << what << ", iteration " << k;
        EXPECT_GE(dense, previous - 1e-10 * std::fabs(dense)) << what << ", iteration " << k;
        previous = dense;
      }
      EXPECT_GT(full.log_likelihoods.back(), full.log_likelihoods.front() + 1.0) << what;  // EM did move
    }
}

// The inverse-Wishart log prior of estimate_lds.hpp, -(nu/2) sum_S (log|S| + tr(S^-1 Psi_S)), by dense
// determinants and inverses: Psi = I for cov0, psi I for Q, phi diag(v) for R (v the coordinates'
// variances about their means).
double dense_log_prior(const LdsModel& m, const Eigen::MatrixXd& x, const LdsPrior& prior) {
  const Eigen::VectorXd v =
      (x.rowwise() - x.colwise().mean()).colwise().squaredNorm().transpose() / static_cast<double>(x.rows());
  const auto term = [&](const Eigen::MatrixXd& s, const Eigen::MatrixXd& centre) {
    return -0.5 * prior.strength * (std::log(s.determinant()) + (s.inverse() * centre).trace());
  };
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(m.state_dim(), m.state_dim());
  return term(m.cov0(), identity) + term(m.state_noise(), prior.state_noise * identity) +
         term(m.observation_noise(), Eigen::MatrixXd((prior.observation_noise * v).asDiagonal()));
}

// With the priors (nu = 4, psi = 0.4, phi = 0.2) EM maximises the MAP objective: recomputed densely
// it equals L[k] and never decreases, and the constraints (rho(A) <= 0.999, R >= 0.01 diag(v)) hold.
TEST(LdsEstimate, EmWithThePriorsNeverDecreasesTheDenseMapObjective) {
  std::mt19937 rng(35);
  const long iterations = 15;
  const LdsPrior prior{4.0, 0.4, 0.2};
  for (long n : {1L, 2L}) {
    const Lds s = random_lds(rng, 2, 2, 0);
    const Eigen::MatrixXd x = simulate_rows(s, 30, static_cast<unsigned>(400 + n));
    LdsFitOptions options = em_options(n, 0.01, iterations, 5);
    options.prior = prior;
    const LdsFit full = fit_lds(x, options);
    ASSERT_EQ(full.log_likelihoods.size(), static_cast<std::size_t>(iterations + 1));
    double previous = -INFINITY;
    for (long k = 1; k <= iterations; ++k) {
      options.iterations = k;
      const LdsFit partial = fit_lds(x, options);
      const double dense = dense_log_likelihood(*partial.model, x) - ridge_penalty(*partial.model, 0.01) +
                           dense_log_prior(*partial.model, x, prior);
      EXPECT_NEAR(dense, full.log_likelihoods[k], 1e-9 * std::fabs(dense)) << "n " << n << ", iteration " << k;
      EXPECT_GE(dense, previous - 1e-10 * std::fabs(dense)) << "n " << n << ", iteration " << k;
      previous = dense;
    }
    const LdsModel& m = *full.model;
    EXPECT_LE(Eigen::EigenSolver<Eigen::MatrixXd>(m.transition()).eigenvalues().cwiseAbs().maxCoeff(), 0.999 + 1e-12);
    const Eigen::VectorXd v =
        (x.rowwise() - x.colwise().mean()).colwise().squaredNorm().transpose() / static_cast<double>(x.rows());
    const Eigen::VectorXd w = (0.01 * v).cwiseSqrt().cwiseInverse();
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(w.asDiagonal() * m.observation_noise() * w.asDiagonal())
                  .eigenvalues()
                  .minCoeff(),
              1.0 - 1e-9);
  }
}

// When the priors dominate (nu = 1e8 pseudo-observations against 40 vectors), the MAP covariances are
// their centres: cov0 = I, Q = psi I, R = phi diag(v), to the data's share (about 40 / 1e8).
TEST(LdsEstimate, ADominatingPriorGivesItsCentres) {
  std::mt19937 rng(36);
  const Lds s = random_lds(rng, 2, 2, 0);
  const Eigen::MatrixXd x = simulate_rows(s, 40, 17u);
  LdsFitOptions options = em_options(2, 0.0, 30, 3);
  options.prior = LdsPrior{1e8, 0.3, 0.25};
  const LdsFit fit = fit_lds(x, options);
  const LdsModel& m = *fit.model;
  const Eigen::VectorXd v =
      (x.rowwise() - x.colwise().mean()).colwise().squaredNorm().transpose() / static_cast<double>(x.rows());
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(2, 2);
  EXPECT_LE((m.cov0() - identity).norm(), 1e-5);
  EXPECT_LE((m.state_noise() - 0.3 * identity).norm(), 1e-5);
  EXPECT_LE((m.observation_noise() - Eigen::MatrixXd((0.25 * v).asDiagonal())).norm(), 1e-5 * v.norm());
}

// choose_lds_prior: the chosen strength is the grid value of the largest returned held-out score, and
// that score is the sum over the sequences of log p(last third as a fresh sequence) under the fit
// to the first two thirds, recomputed densely here.
TEST(LdsEstimate, TheChosenStrengthMaximisesTheDenseHeldOutLikelihood) {
  std::mt19937 rng(37);
  std::vector<Eigen::MatrixXd> sequences;
  for (unsigned i = 0; i < 4; ++i) sequences.push_back(simulate_rows(random_lds(rng, 2, 2, 0), 24, 500u + i));
  LdsFitOptions options = em_options(2, 1e-6, 40, 1);
  options.tolerance = 1e-6;  // the chooser's fits: one restart, at most 100 iterations, tolerance >= 1e-6
  const std::vector<double> strengths = {0.0, 1.0, 10.0};
  const LdsPriorChoice choice = choose_lds_prior(sequences, options, strengths, 10);
  ASSERT_EQ(choice.held_out_log_likelihoods.size(), strengths.size());
  EXPECT_EQ(choice.sequences_used, 4);
  for (std::size_t j = 0; j < strengths.size(); ++j) {
    LdsFitOptions fit_options = options;
    fit_options.prior = choice.prior;
    fit_options.prior.strength = strengths[j];
    fit_options.length = 7;  // the dense joint of the 8 held-out vectors (the stored T does not change the fit)
    double score = 0;
    for (const Eigen::MatrixXd& x : sequences) {
      const LdsFit fit = fit_lds(x.topRows(16), fit_options);
      score += dense_log_likelihood(*fit.model, x.bottomRows(8));
    }
    EXPECT_NEAR(choice.held_out_log_likelihoods[j], score, 1e-8 * std::fabs(score)) << "strength " << strengths[j];
  }
  const auto best = std::max_element(choice.held_out_log_likelihoods.begin(), choice.held_out_log_likelihoods.end());
  EXPECT_EQ(choice.prior.strength, strengths[static_cast<std::size_t>(best - choice.held_out_log_likelihoods.begin())]);
}

TEST(LdsEstimate, EmNeverDecreasesOverManyIterations) {
  std::mt19937 rng(34);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const Lds s = random_lds(rng, 2, 3, 0);
    const Eigen::MatrixXd x = simulate_rows(s, 150, static_cast<unsigned>(seed));
    expect_never_decreases(fit_lds(x, em_options(2, 1e-4, 150, seed)).log_likelihoods, 150,
                           "seed " + std::to_string(seed));
  }
}

// The stationary state covariance Sigma = A Sigma A' + Q: vec(Sigma) = (I - A kron A)^-1 vec(Q).
Eigen::MatrixXd stationary_covariance(const Eigen::MatrixXd& a, const Eigen::MatrixXd& q) {
  const long n = a.rows();
  Eigen::MatrixXd kron(n * n, n * n);
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) kron.block(i * n, j * n, n, n) = a(i, j) * a;
  const Eigen::VectorXd vec = (Eigen::MatrixXd::Identity(n * n, n * n) - kron)
                                  .partialPivLu()
                                  .solve(Eigen::Map<const Eigen::VectorXd>(q.data(), n * n));
  return Eigen::Map<const Eigen::MatrixXd>(vec.data(), n, n);
}

// The stationary autocovariance Cov(x_t+k, x_t) = C A^k Sigma C' (+ R at k = 0): the same for every
// basis of the state.
Eigen::MatrixXd autocovariance(const Eigen::MatrixXd& a, const Eigen::MatrixXd& q, const Eigen::MatrixXd& c,
                               const Eigen::MatrixXd& r, int lag) {
  Eigen::MatrixXd power = Eigen::MatrixXd::Identity(a.rows(), a.cols());
  for (int k = 0; k < lag; ++k) power = a * power;
  return c * power * stationary_covariance(a, q) * c.transpose() +
         (lag == 0 ? r : Eigen::MatrixXd::Zero(r.rows(), r.cols()));
}

// The eigenvalues of A sorted by real part, then imaginary part.
std::vector<std::complex<double>> sorted_eigenvalues(const Eigen::MatrixXd& a) {
  const Eigen::VectorXcd values = Eigen::EigenSolver<Eigen::MatrixXd>(a, false).eigenvalues();
  std::vector<std::complex<double>> out(values.data(), values.data() + values.size());
  std::sort(out.begin(), out.end(),
            [](auto u, auto v) { return u.real() != v.real() ? u.real() < v.real() : u.imag() < v.imag(); });
  return out;
}

// Fits a long series (N = 4000) of a known stationary LDS and compares what does not depend on the
// state's basis. EM must reach a log-likelihood at least that of the true parameters (it maximises
// it). Tolerances from the sampling error: a lag-k autocovariance estimated from N observations of a
// state with pole a has a standard deviation of about sqrt(2 (1 + a^2) / ((1 - a^2) N)) times the
// state's variance (Bartlett), 0.05 for a = 0.85, so 0.2 of the scale (the largest entry of the true
// lag-0 autocovariance) is 4 of them; the eigenvalues of A within 0.06 (the estimate of a pole has a
// standard deviation near sqrt((1 - a^2) / N) = 0.008 plus the noise's share); R, when identified, is
// estimated from the spread of all N innovations, to within a few multiples of R sqrt(2 / N) = 0.007.
void expect_recovered(const Lds& truth, bool noise_identifiable, unsigned seed) {
  const long count = 4000;
  const Eigen::MatrixXd x = simulate_rows(truth, count, seed);
  LdsFitOptions options;
  options.state_dim = truth.A.rows();
  options.iterations = 400;
  options.tolerance = 1e-10;
  options.restarts = 1;
  const LdsFit fit = fit_lds(x, options);
  const LdsModel& m = *fit.model;
  const std::string what = "n " + std::to_string(truth.A.rows()) + ", seed " + std::to_string(seed);
  EXPECT_GE(smooth_lds(m, x).log_likelihood, smooth_lds(*lds_model(truth), x).log_likelihood) << what;
  const std::vector<std::complex<double>> want = sorted_eigenvalues(truth.A), got = sorted_eigenvalues(m.transition());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_LE(std::abs(got[i] - want[i]), 0.06) << what << ": eigenvalue " << i << " " << got[i] << ", want " << want[i];
  const double scale = autocovariance(truth.A, truth.Q, truth.C, truth.R, 0).cwiseAbs().maxCoeff();
  for (int lag = 0; lag <= 2; ++lag) {
    const Eigen::MatrixXd want_cov = autocovariance(truth.A, truth.Q, truth.C, truth.R, lag);
    const Eigen::MatrixXd got_cov =
        autocovariance(m.transition(), m.state_noise(), m.observation(), m.observation_noise(), lag);
    EXPECT_LE((got_cov - want_cov).cwiseAbs().maxCoeff(), 0.2 * scale) << what << ", lag " << lag << ":\n"
                                                                       << got_cov << "\nwant\n"
                                                                       << want_cov;
  }
  if (noise_identifiable) {
    EXPECT_LE((m.observation_noise() - truth.R).cwiseAbs().maxCoeff(), 0.04) << what << ": R\n"
                                                                             << m.observation_noise() << "\nwant\n"
                                                                             << truth.R;
  }
  EXPECT_EQ(m.length(), count - 1);
}

// A stationary start: mean0 = 0, cov0 the stationary covariance.
Lds stationary(Eigen::MatrixXd a, Eigen::MatrixXd q, Eigen::MatrixXd c, Eigen::MatrixXd r) {
  Lds s;
  s.mean0 = Eigen::VectorXd::Zero(a.rows());
  s.cov0 = stationary_covariance(a, q);
  s.A = std::move(a);
  s.Q = std::move(q);
  s.C = std::move(c);
  s.R = std::move(r);
  return s;
}

TEST(LdsEstimate, RecoversAScalarStateObservedInTwoDimensions) {
  // n = 1 < d = 2: C C' sigma is rank one, so R is identified by the lag-0 autocovariance.
  Eigen::MatrixXd a(1, 1), q(1, 1), c(2, 1), r(2, 2);
  a << 0.85;
  q << 0.5;
  c << 1.0, -0.6;
  r << 0.3, 0.05, 0.05, 0.2;
  expect_recovered(stationary(a, q, c, r), true, 1);
}

TEST(LdsEstimate, RecoversATwoDimensionalState) {
  Eigen::MatrixXd a(2, 2), q(2, 2), c(2, 2), r(2, 2);
  a << 0.85, 0.2, 0.0, 0.5;  // eigenvalues 0.85 and 0.5
  q << 0.3, 0.05, 0.05, 0.4;
  c << 1.0, 0.5, -0.4, 1.0;
  r << 0.2, 0.0, 0.0, 0.15;
  expect_recovered(stationary(a, q, c, r), false, 2);
}

// Finite kernels by construction (estimate_lds.hpp): LDSs fitted with --state-dim 4 to short 13-D
// utterances (24-40 frames, lds_sampling.hpp provoking_utterance), where unconstrained EM returns
// explosive transitions and near-singular R, meet the constraints: spectral radius <= 0.999, R above
// its floor 0.01 diag(coordinate variances) (computed here from the data), Q positive definite; L
// never decreases; and the data do provoke (some fit sits at a bound). Their kernels are then finite
// at every T and rho (fitted_kernels_are_finite), and the linear-time kernel equals the dense joint
// Gaussians' at T = 10.
TEST(LdsEstimate, ShortHighDimensionalSequencesGiveStableModelsWithNoiseFloors) {
  std::mt19937 rng(41);
  std::uniform_int_distribution<long> frames(24, 40);
  std::vector<std::unique_ptr<Model>> models;
  bool bound_reached = false;
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    const Eigen::MatrixXd x = provoking_utterance(rng, frames(rng), 13);
    LdsFitOptions options;
    options.state_dim = 4;
    options.seed = seed;
    LdsFit fit = fit_lds(x, options);
    const LdsModel& m = *fit.model;
    const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(x.rows()) + " frames";
    const double radius = Eigen::EigenSolver<Eigen::MatrixXd>(m.transition(), false).eigenvalues().cwiseAbs().maxCoeff();
    EXPECT_LE(radius, 0.999 + 1e-9) << what;
    const Eigen::VectorXd floor =
        0.01 * ((x.rowwise() - x.colwise().mean()).colwise().squaredNorm() / static_cast<double>(x.rows())).transpose();
    const Eigen::VectorXd whitened = floor.cwiseSqrt().cwiseInverse();
    const double r_ratio = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(whitened.asDiagonal() * m.observation_noise() *
                                                                          whitened.asDiagonal())
                               .eigenvalues()
                               .minCoeff();
    EXPECT_GE(r_ratio, 1.0 - 1e-9) << what;
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(m.state_noise()).eigenvalues().minCoeff(), 0.0) << what;
    for (std::size_t k = 1; k < fit.log_likelihoods.size(); ++k)
      EXPECT_GE(fit.log_likelihoods[k], fit.log_likelihoods[k - 1] - 1e-10 * std::fabs(fit.log_likelihoods[k - 1]))
          << what << ", iteration " << k;
    bound_reached |= radius > 0.998 || r_ratio < 1.0 + 1e-6;
    models.push_back(std::move(fit.model));
  }
  EXPECT_TRUE(bound_reached) << "the sequences did not provoke any constraint";
  fitted_kernels_are_finite(models);
  KernelParams params;
  params.rho = 0.5;
  params.length = 10;
  for (std::size_t i = 0; i + 1 < models.size(); ++i) {
    LdsModel& a = dynamic_cast<LdsModel&>(*models[i]);
    LdsModel& b = dynamic_cast<LdsModel&>(*models[i + 1]);
    a.prepare(params);
    b.prepare(params);
    for (const LdsModel* other : {&a, &b}) {
      const double dense = dense_log_kernel(a, *other);
      EXPECT_NEAR(a.log_kernel(*other), dense, 1e-7 * std::max(1.0, std::fabs(dense))) << "models " << i;
    }
  }
}

TEST(LdsEstimate, RestartsKeepTheBestAndFitsAreReproducible) {
  std::mt19937 rng(35);
  const Lds s = random_lds(rng, 2, 2, 0);
  const Eigen::MatrixXd x = simulate_rows(s, 80, 9);
  LdsFitOptions options;
  options.state_dim = 2;
  options.iterations = 30;
  options.restarts = 1;
  const LdsFit one = fit_lds(x, options);
  options.restarts = 4;
  const LdsFit four = fit_lds(x, options);
  // The first of four restarts is the single restart (the same stream); the best is kept.
  EXPECT_GE(four.log_likelihoods.back(), one.log_likelihoods.back());
  const LdsFit again = fit_lds(x, options);
  EXPECT_EQ(again.log_likelihoods, four.log_likelihoods);
  EXPECT_EQ(again.model->transition(), four.model->transition());
  EXPECT_EQ(again.model->observation(), four.model->observation());
  options.seed = 2;
  EXPECT_NE(fit_lds(x, options).model->observation(), four.model->observation());
  // The stored length.
  options.length = 9;
  EXPECT_EQ(fit_lds(x, options).model->length(), 9);
}

TEST(LdsEstimate, ThroughTheEstimatorInterface) {
  const auto estimator = lds_estimator(em_options(1, 1e-3, 20, 1));
  EXPECT_EQ(estimator->family(), "lds");
  std::mt19937 rng(36);
  const Eigen::MatrixXd x = simulate_rows(random_lds(rng, 1, 2, 0), 30, 1);
  std::vector<SparseVector> vectors;
  for (long t = 0; t < x.rows(); ++t) vectors.push_back(sparse({x(t, 0), x(t, 1)}));
  const auto model = estimate(*estimator, vectors, 2);
  const auto& lds = dynamic_cast<const LdsModel&>(*model);
  EXPECT_EQ(lds.observation_dim(), 2);
  EXPECT_EQ(lds.state_dim(), 1);
  EXPECT_EQ(lds.length(), 29);
  // The same as fitting the matrix.
  EXPECT_EQ(lds.observation(), fit_lds(x, em_options(1, 1e-3, 20, 1)).model->observation());
  EXPECT_TRUE(
      mentions(estimation_error([&] { estimate(*estimator, vectors, 1); }), {"index 2", "larger than the dimension 1"}));
  Statistics statistics = estimator->statistics(vectors, 2);
  EXPECT_TRUE(mentions(estimation_error([&] { estimator->pool(statistics, statistics, 1.0); }), {"lds"}));
}

TEST(LdsEstimate, RejectsShortSequencesNonFiniteValuesAndBadOptions) {
  const LdsFitOptions options = em_options(1, 1e-3, 10, 1);
  EXPECT_TRUE(
      mentions(estimation_error([&] { fit_lds(Eigen::MatrixXd::Ones(1, 2), options); }), {"1 vector", "at least 2"}));
  Eigen::MatrixXd x = Eigen::MatrixXd::Ones(5, 2);
  x(3, 1) = std::nan("");
  EXPECT_TRUE(mentions(estimation_error([&] { fit_lds(x, options); }), {"finite"}));
  const Eigen::MatrixXd y = Eigen::MatrixXd::Random(10, 2);
  const auto with = [&](auto change) {
    LdsFitOptions changed = options;
    change(changed);
    return estimation_error([&] { fit_lds(y, changed); });
  };
  EXPECT_TRUE(mentions(with([](LdsFitOptions& o) { o.state_dim = 0; }), {"state_dim must be in [1, 1000]"}));
  EXPECT_TRUE(
      mentions(with([](LdsFitOptions& o) { o.state_dim = 1001; }), {"state_dim must be in [1, 1000]", "got 1001"}));
  EXPECT_TRUE(mentions(with([](LdsFitOptions& o) { o.length = 1000001; }), {"length must be in [0, 1000000]"}));
  EXPECT_TRUE(mentions(with([](LdsFitOptions& o) { o.ridge = -1.0; }), {"ridge must be", ">= 0"}));
  EXPECT_TRUE(mentions(with([](LdsFitOptions& o) { o.iterations = 0; }), {"iterations must be at least 1"}));
  EXPECT_TRUE(mentions(with([](LdsFitOptions& o) { o.restarts = 0; }), {"restarts must be at least 1"}));
  EXPECT_TRUE(mentions(with([](LdsFitOptions& o) { o.tolerance = -1; }), {"tolerance must be"}));
  EXPECT_TRUE(mentions(with([](LdsFitOptions& o) { o.length = -1; }), {"length must be in [0, 1000000]"}));
  // The smoother checks the dimension.
  std::mt19937 rng(37);
  const auto model = lds_model(random_lds(rng, 1, 3, 0));
  EXPECT_TRUE(mentions(estimation_error([&] { smooth_lds(*model, y); }), {"dimension d = 3"}));
  // Noise-free data on a line, x_t = c s_t.
  Eigen::MatrixXd line(40, 2);
  for (long t = 0; t < 40; ++t) line.row(t) << std::sin(0.3 * t), -0.5 * std::sin(0.3 * t);
  // The R floor (estimate_lds.hpp) keeps the fit defined even without a ridge.
  EXPECT_TRUE(std::isfinite(fit_lds(line, em_options(1, 0.0, 50, 1)).log_likelihoods.back()));
  LdsFitOptions default_ridge = em_options(1, 0.0, 50, 1);
  default_ridge.ridge.reset();
  EXPECT_TRUE(std::isfinite(fit_lds(line, default_ridge).log_likelihoods.back()));
  // Constant data: the ridge keeps the fit defined (R = r I / N ...), every value finite.
  const LdsFit constant = fit_lds(Eigen::MatrixXd::Zero(20, 2), options);
  EXPECT_TRUE(std::isfinite(constant.log_likelihoods.back()));
}

}  // namespace
}  // namespace ppk
