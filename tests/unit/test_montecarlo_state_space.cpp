// The Monte Carlo kernel (montecarlo.hpp, JMLR 2004 section 5) around the continuous-state and
// structured families (sampling.hpp): LDS draws against the dense joint Gaussian (mean m and
// covariance S / rho), log p(x) and log Z(rho) against the dense joint's density and normalizer;
// SLDS log p(x) against its paths' dense joints, fhmm log p(x) against enumeration over hidden paths,
// network log p(x) against the joint written out, and the draws' moments and frequencies;
// convergence of the estimate to the closed forms (error ~ 1/sqrt(N), unbiased at the largest N) for
// lds, linear_gaussian, slds, bayesnet and, against the exact kernel of the equivalent product-state
// HMM, fhmm (an independent check of its mean-field bound); the domain errors outside each family's rho.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "emission_models.hpp"
#include "fhmm_oracles.hpp"
#include "kernel_params.hpp"
#include "lds_sampling.hpp"
#include "montecarlo_checks.hpp"
#include "ppk/families/bayesnet.hpp"
#include "ppk/families/fhmm.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/families/linear_gaussian.hpp"
#include "ppk/families/montecarlo.hpp"
#include "ppk/core/sampling.hpp"
#include "ppk/families/slds.hpp"

namespace ppk {
namespace {

using checks::draws_of;
using checks::expect_converges;
using checks::monte_carlo;

// KernelDomainError from preparing a montecarlo row around `model` at rho, its message naming the
// family and rho.
void expect_domain_error(const Model& model, double rho, const std::string& family, const std::string& rho_text) {
  const auto row = monte_carlo(model, 10);
  try {
    row->prepare(with_rho(rho));
    ADD_FAILURE() << family << " at rho " << rho << ": no error";
  } catch (const KernelDomainError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(family), std::string::npos) << message;
    EXPECT_NE(message.find("rho = " + rho_text), std::string::npos) << message;
  }
}

// ---- LDS ----

// The draws' mean and covariance against the dense joint N(m, S / rho) (n = 2, d = 2, T = 3), each
// entry within 5 standard errors (var of a sample covariance entry: (S_ii S_jj + S_ij^2) / N).
TEST(MonteCarloStateSpace, LdsDrawsHaveTheJointMeanAndCovarianceOverRho) {
  std::mt19937 rng(41);
  const auto model = lds_model(random_lds(rng, 2, 2, 3));
  const auto joint = model->joint_observations();
  constexpr long kDraws = 100000;
  for (double rho : {1.0, 2.0}) {
    const Eigen::MatrixXd x = draws_of(*model, rho, kDraws);
    ASSERT_EQ(x.rows(), 8);
    const Eigen::VectorXd mean = joint->mean();
    const Eigen::MatrixXd cov = joint->covariance() / rho;
    const Eigen::VectorXd sample_mean = x.rowwise().mean();
    const Eigen::MatrixXd centered = x.colwise() - mean;
    const Eigen::MatrixXd sample_cov = centered * centered.transpose() / static_cast<double>(kDraws);
    for (Eigen::Index i = 0; i < 8; ++i) {
      EXPECT_NEAR(sample_mean[i], mean[i], 5.0 * std::sqrt(cov(i, i) / kDraws)) << "rho " << rho << " entry " << i;
      for (Eigen::Index j = 0; j < 8; ++j)
        EXPECT_NEAR(sample_cov(i, j), cov(i, j),
                    5.0 * std::sqrt((cov(i, i) * cov(j, j) + cov(i, j) * cov(i, j)) / kDraws))
            << "rho " << rho << " entry " << i << ", " << j;
    }
  }
}

// log p(x) by the Kalman filter against the dense joint Gaussian's density, and log Z(rho) against
// the dense joint's normalizer, with a singular state noise too (n = 2, d = 1 and 3, T = 0 and 4).
TEST(MonteCarloStateSpace, LdsLogProbabilityAndNormalizerEqualTheDenseJoint) {
  std::mt19937 rng(42);
  for (long d : {1, 3})
    for (long steps : {0, 4})
      for (bool singular_noise : {false, true}) {
        Lds s = random_lds(rng, 2, d, steps);
        if (singular_noise) s.Q = Eigen::Vector2d(1.0, -0.5) * Eigen::RowVector2d(1.0, -0.5);
        const auto model = lds_model(s);
        const auto joint = model->joint_observations();
        const std::string what =
            "d " + std::to_string(d) + " T " + std::to_string(steps) + (singular_noise ? " singular Q" : "");
        for (int i = 0; i < 5; ++i) {
          const Eigen::VectorXd x = joint->mean() + random_matrix(rng, (steps + 1) * d, 1);
          const double dense = joint->log_density(x);
          EXPECT_NEAR(model->log_probability(x), dense, 1e-9 * std::max(1.0, std::fabs(dense))) << what;
        }
        for (double rho : kRhos) {
          const double dense = joint->log_tilted_normalizer(rho);
          EXPECT_NEAR(model->log_tilted_normalizer(rho), dense, 1e-9 * std::max(1.0, std::fabs(dense))) << what;
        }
      }
}

// Pairs of LDSs with state dimensions 2 and 1, d = 2, T = 2.
std::pair<std::unique_ptr<Model>, std::unique_ptr<Model>> random_lds_pair(std::mt19937& rng) {
  std::unique_ptr<Model> a = lds_model(random_lds(rng, 2, 2, 2));
  return {std::move(a), lds_model(random_lds(rng, 1, 2, 2))};
}

// Fewer pairs than the default 40 where one log p(x) costs a filter or a forward pass: a few seconds per test.
constexpr int kStateSpacePairs = 20;

TEST(MonteCarloStateSpace, LdsEstimatesConvergeToTheClosedForm) {
  for (double rho : {0.5, 1.0, 2.0})
    expect_converges("lds rho " + std::to_string(rho), random_lds_pair, with_rho(rho), checks::family_log_kernel,
                     kStateSpacePairs);
}

// ---- Linear Gaussian DAGs ----

// A hidden root h (dimension 2) with two observed children x1 = B1 h + b1 + e1 (dimension 1) and
// x2 = B2 x1 + B3 h + b2 + e2 (dimension 2): the observed marginal correlates x1 and x2 through h.
std::unique_ptr<Model> random_dag_with_hidden_root(std::mt19937& rng) {
  std::vector<LinearGaussianNode> nodes(3);
  nodes[0].dim = 2;
  nodes[0].offset = random_matrix(rng, 2, 1);
  nodes[0].cov = random_covariance(rng, 2, 0.2);
  nodes[1].dim = 1;
  nodes[1].observed = true;
  nodes[1].parents = {0};
  nodes[1].weights = random_matrix(rng, 1, 2);
  nodes[1].offset = random_matrix(rng, 1, 1);
  nodes[1].cov = random_covariance(rng, 1, 0.3);
  nodes[2].dim = 2;
  nodes[2].observed = true;
  nodes[2].parents = {1, 0};
  nodes[2].weights = 0.5 * random_matrix(rng, 2, 3);
  nodes[2].offset = random_matrix(rng, 2, 1);
  nodes[2].cov = random_covariance(rng, 2, 0.3);
  return std::make_unique<LinearGaussianModel>(std::move(nodes));
}

TEST(MonteCarloStateSpace, LinearGaussianWithAHiddenNodeConvergesToTheClosedForm) {
  for (double rho : {0.5, 1.0, 2.0})
    expect_converges("linear_gaussian rho " + std::to_string(rho), checks::pairs_of(random_dag_with_hidden_root),
                     with_rho(rho));
}

// ---- SLDS ----

// K = 2 discrete states, n = 2 and 1, d = 1, T = 2, S = 3 and 4 paths.
std::pair<std::unique_ptr<Model>, std::unique_ptr<Model>> random_slds_pair(std::mt19937& rng) {
  std::unique_ptr<Model> a = std::make_unique<SldsModel>(random_slds(rng, 2, 2, 1, 2, 3));
  return {std::move(a), std::make_unique<SldsModel>(random_slds(rng, 2, 1, 1, 2, 4))};
}

TEST(MonteCarloStateSpace, SldsEstimatesConvergeToTheHybridKernelAtRho1) {
  expect_converges("slds", random_slds_pair, with_rho(1.0), checks::family_log_kernel, kStateSpacePairs);
}

// log p(x) against log (1/S) sum_i N(x; m_i, S_i), the dense joints of the drawn paths; the draws'
// mean against (1/S) sum_i m_i.
TEST(MonteCarloStateSpace, SldsIsTheEqualWeightMixtureOfItsPathConditionedLdss) {
  std::mt19937 rng(43);
  SldsModel model(random_slds(rng, 3, 2, 2, 3, 5));
  model.prepare(with_rho(1.0));
  const long paths = static_cast<long>(model.drawn_paths().size());
  ASSERT_EQ(paths, 5);
  std::vector<std::unique_ptr<GaussianModel>> joints;
  Eigen::VectorXd mixture_mean = Eigen::VectorXd::Zero(8);
  for (long i = 0; i < paths; ++i) {
    joints.push_back(model.joint_observations(static_cast<std::size_t>(i)));
    mixture_mean += joints.back()->mean() / static_cast<double>(paths);
  }
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::VectorXd x = mixture_mean + random_matrix(rng, 8, 1);
    double dense = 0.0;
    for (const auto& joint : joints) dense += std::exp(joint->log_density(x)) / static_cast<double>(paths);
    EXPECT_NEAR(model.log_probability(x), std::log(dense), 1e-9 * std::max(1.0, std::fabs(std::log(dense))));
  }
  constexpr long kDraws = 50000;
  const Eigen::MatrixXd x = draws_of(model, 1.0, kDraws);
  const Eigen::VectorXd sample_mean = x.rowwise().mean();
  const Eigen::MatrixXd centered = x.colwise() - mixture_mean;
  for (Eigen::Index i = 0; i < 8; ++i) {
    const double variance = centered.row(i).squaredNorm() / kDraws;
    EXPECT_NEAR(sample_mean[i], mixture_mean[i], 5.0 * std::sqrt(variance / kDraws)) << i;
  }
}

// ---- Factorial HMMs ----

fhmm_oracles::Fhmm plain_fhmm(const Model& model) {
  const auto& f = dynamic_cast<const FhmmModel&>(model);
  return {f.chains(), f.cov(), f.length()};
}

// The exact k~ = k (rho = 1) through the equivalent HMM over the product states.
double product_hmm_log_kernel(const Model& a, const Model& b, const KernelParams& params) {
  return fhmm_oracles::exact_log_kernel(plain_fhmm(a), plain_fhmm(b), params.rho);
}

// Chains {2, 2} and {3}, d = 2, T = 2, means N(0, spread^2).
std::pair<std::unique_ptr<Model>, std::unique_ptr<Model>> random_fhmm_pair(std::mt19937& rng, double spread) {
  std::unique_ptr<Model> a = fhmm_oracles::fhmm_model(fhmm_oracles::random_fhmm(rng, {2, 2}, 2, 2, spread));
  return {std::move(a), fhmm_oracles::fhmm_model(fhmm_oracles::random_fhmm(rng, {3}, 2, 2, spread))};
}

// (Means N(0, 0.5^2): with N(0, 1) p'(x) over the draws is so skewed that 40 pairs do not show the
// N^-1/2 rate below N = 6400; the gap test below uses those.)
TEST(MonteCarloStateSpace, FhmmEstimatesConvergeToTheExactKernelOfTheProductHmm) {
  expect_converges(
      "fhmm", [](std::mt19937& rng) { return random_fhmm_pair(rng, 0.5); }, with_rho(1.0), product_hmm_log_kernel);
}

// The Monte Carlo estimate (N = 20000) against the mean-field bound B: log k_MC - log B recovers the
// exact gap log k - log B within the estimate's error (4 standard errors of its relative error,
// from the spread of p'(x_i) over the draws, and at least 0.02), and is positive where the gap
// exceeds that error; per time step it stays within docs/tests.md's measured range at rho = 1
// (largest 1.48).
TEST(MonteCarloStateSpace, FhmmEstimateLiesAboveTheMeanFieldBoundByItsGap) {
  std::mt19937 rng(44);
  constexpr long kSamples = 20000;
  double largest_gap = 0.0;
  for (int pair = 0; pair < 8; ++pair) {
    const auto models = random_fhmm_pair(rng, 1.0);
    const KernelParams params = with_rho(1.0);
    const double exact = product_hmm_log_kernel(*models.first, *models.second, params);
    const double bound = fhmm_oracles::bound_log_kernel(plain_fhmm(*models.first), plain_fhmm(*models.second), 1.0);
    const PreparedModel a(monte_carlo(*models.first, kSamples), params), b(monte_carlo(*models.second, kSamples), params);
    const double estimate = log_kernel(a, b);
    // Relative standard error of the pooled estimate from one side's draws: sd(p'(x_i)) / mean / sqrt(N).
    const auto& row = dynamic_cast<const MonteCarloModel&>(a.model());
    const auto* other = as_samplable(*models.second);
    Eigen::ArrayXd values(kSamples);
    for (long i = 0; i < kSamples; ++i) values[i] = std::exp(other->log_probability(row.draws().col(i)) - exact);
    const double relative_error =
        std::sqrt((values - values.mean()).square().mean()) / values.mean() / std::sqrt(kSamples);
    const double tolerance = std::max(0.02, 4.0 * relative_error);
    const double gap = exact - bound, estimated_gap = estimate - bound;
    EXPECT_NEAR(estimated_gap, gap, tolerance) << "pair " << pair;
    if (gap > tolerance) {
      EXPECT_GT(estimated_gap, 0.0) << "pair " << pair;
    }
    largest_gap = std::max(largest_gap, estimated_gap / 3.0);  // T + 1 = 3 steps
  }
  EXPECT_GT(largest_gap, 0.05);
  EXPECT_LT(largest_gap, 1.48 + 0.1);
}

// log p(x) by the forward algorithm over the product states against the sum over every path of
// product states of p(path) prod_t N(x_t; mu_t, Sigma) (chains {2, 3} and {2, 2, 2}, d = 2, T = 2).
TEST(MonteCarloStateSpace, FhmmLogProbabilityEqualsEnumerationOverHiddenPaths) {
  std::mt19937 rng(45);
  for (const std::vector<long>& states : {std::vector<long>{2, 3}, std::vector<long>{2, 2, 2}}) {
    const fhmm_oracles::Fhmm f = fhmm_oracles::random_fhmm(rng, states, 2, 2, 1.0);
    const auto model = fhmm_oracles::fhmm_model(f);
    for (int trial = 0; trial < 3; ++trial) {
      const Eigen::VectorXd x = random_matrix(rng, 6, 1);
      double p = 0.0;
      fhmm_oracles::for_each_path(fhmm_oracles::product_states(f), 2, [&](const std::vector<long>& path) {
        double term = fhmm_oracles::path_probability(f, path);
        for (std::size_t t = 0; t < path.size(); ++t) {
          const std::vector<long> tuple = fhmm_oracles::state_tuple(f, path[t]);
          Eigen::VectorXd mean = Eigen::VectorXd::Zero(2);
          for (std::size_t c = 0; c < tuple.size(); ++c) mean += f.chains[c].means.col(tuple[c]);
          term *= std::exp(GaussianModel::full(mean, f.cov)->log_density(x.segment(static_cast<Eigen::Index>(t) * 2, 2)));
        }
        p += term;
      });
      EXPECT_NEAR(model->log_probability(x), std::log(p), 1e-10 * std::max(1.0, std::fabs(std::log(p))));
    }
  }
}

// Ancestral draws against the equivalent HMM's log p: the mean of log p(x_i) over draws from the
// model is its negative entropy, estimated the same by the product HMM's forward algorithm on the
// same draws; and the draws' mean is E x_t = sum_c W_c pi_c A_c^t.
TEST(MonteCarloStateSpace, FhmmDrawsHaveTheChainsMeans) {
  std::mt19937 rng(46);
  const fhmm_oracles::Fhmm f = fhmm_oracles::random_fhmm(rng, {2, 3}, 2, 3, 1.0);
  const auto model = fhmm_oracles::fhmm_model(f);
  const auto product = fhmm_oracles::product_hmm(f);
  constexpr long kDraws = 50000;
  const Eigen::MatrixXd x = draws_of(*model, 1.0, kDraws);
  ASSERT_EQ(x.rows(), 8);
  Eigen::VectorXd expected(8);
  std::vector<Eigen::RowVectorXd> marginal;
  for (const FhmmChain& chain : f.chains) marginal.push_back(chain.start.transpose());
  for (long t = 0; t <= 3; ++t) {
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(2);
    for (std::size_t c = 0; c < f.chains.size(); ++c) {
      if (t > 0) marginal[c] = marginal[c] * f.chains[c].trans;
      mean += f.chains[c].means * marginal[c].transpose();
    }
    expected.segment(t * 2, 2) = mean;
  }
  const Eigen::VectorXd sample_mean = x.rowwise().mean();
  const Eigen::MatrixXd centered = x.colwise() - expected;
  for (Eigen::Index i = 0; i < 8; ++i)
    EXPECT_NEAR(sample_mean[i], expected[i], 5.0 * std::sqrt(centered.row(i).squaredNorm() / kDraws / kDraws)) << i;
  for (long i = 0; i < 20; ++i)
    EXPECT_NEAR(model->log_probability(x.col(i)), as_samplable(*product)->log_probability(x.col(i)), 1e-9);
}

// ---- Bayesian networks ----

// A hidden node h (2 states) with two observed children: variable 0 discrete (3 states, P(v | h)) and
// variable 1 an emission leaf N(mu_h, s_h^2) over R.
struct SmallNetwork {
  Eigen::Vector2d prior;                 // P(h)
  Eigen::Matrix<double, 2, 3> children;  // P(v | h), row h
  Eigen::Vector2d means, variances;
};

SmallNetwork random_small_network(std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(0.1, 1.0);
  std::normal_distribution<double> normal;
  SmallNetwork n;
  n.prior << uniform(rng), uniform(rng);
  n.prior /= n.prior.sum();
  for (int h = 0; h < 2; ++h) {
    for (int v = 0; v < 3; ++v) n.children(h, v) = uniform(rng);
    n.children.row(h) /= n.children.row(h).sum();
    n.means[h] = normal(rng);
    n.variances[h] = uniform(rng) + 0.3;
  }
  return n;
}

std::unique_ptr<Model> network_model(const SmallNetwork& n) {
  std::vector<BayesNode> nodes(3);
  nodes[0].states = 2;
  nodes[0].cpt = {n.prior[0], n.prior[1]};
  nodes[1].states = 3;
  nodes[1].variable = 0;
  nodes[1].parents = {0};
  for (int h = 0; h < 2; ++h)
    for (int v = 0; v < 3; ++v) nodes[1].cpt.push_back(n.children(h, v));
  nodes[2].variable = 1;
  nodes[2].parents = {0};
  for (int h = 0; h < 2; ++h) nodes[2].emissions.push_back(gaussian_1d({n.means[h], n.variances[h]}));
  return std::make_unique<BayesNetModel>(std::move(nodes));
}

TEST(MonteCarloStateSpace, BayesnetWithAHiddenNodeConvergesToTheClosedFormAtRho1) {
  expect_converges("bayesnet",
                   checks::pairs_of([](std::mt19937& rng) { return network_model(random_small_network(rng)); }),
                   with_rho(1.0));
}

// log p(v, y) = log sum_h P(h) P(v | h) N(y; mu_h, s_h^2), written out; the draws' frequencies of v
// and mean of y against P(v) = sum_h P(h) P(v | h) and sum_h P(h) mu_h.
TEST(MonteCarloStateSpace, BayesnetLogProbabilityAndDrawsMatchTheWrittenOutJoint) {
  std::mt19937 rng(48);
  const SmallNetwork n = random_small_network(rng);
  const auto model = network_model(n);
  const SamplableModel* samplable = as_samplable(*model);
  ASSERT_NE(samplable, nullptr);
  ASSERT_EQ(samplable->sample_size(), 2);
  constexpr double kPi = 3.14159265358979323846;
  for (int v = 0; v < 3; ++v)
    for (double y : {-1.0, 0.5, 2.0}) {
      double p = 0.0;
      for (int h = 0; h < 2; ++h)
        p += n.prior[h] * n.children(h, v) * std::exp(-0.5 * (y - n.means[h]) * (y - n.means[h]) / n.variances[h]) /
             std::sqrt(2.0 * kPi * n.variances[h]);
      EXPECT_NEAR(samplable->log_probability(Eigen::Vector2d(v, y)), std::log(p), 1e-12) << v << " " << y;
    }
  EXPECT_EQ(samplable->log_probability(Eigen::Vector2d(3.0, 0.0)), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(samplable->log_probability(Eigen::Vector2d(0.5, 0.0)), -std::numeric_limits<double>::infinity());
  constexpr long kDraws = 50000;
  const Eigen::MatrixXd x = draws_of(*model, 1.0, kDraws);
  for (int v = 0; v < 3; ++v) {
    const double p = n.prior.dot(n.children.col(v));
    const double frequency = (x.row(0).array() == v).cast<double>().sum() / kDraws;
    EXPECT_NEAR(frequency, p, 5.0 * std::sqrt(p * (1.0 - p) / kDraws)) << v;
  }
  const double mean = n.prior.dot(n.means);
  const double variance = n.prior.dot(n.variances + n.means.cwiseAbs2()) - mean * mean;
  EXPECT_NEAR(x.row(1).mean(), mean, 5.0 * std::sqrt(variance / kDraws));
}

// ---- Domains ----

TEST(MonteCarloStateSpace, RhoOutsideTheDomainIsAKernelDomainErrorNamingTheModelAndRho) {
  std::mt19937 rng(47);
  const SldsModel slds(random_slds(rng, 2, 1, 1, 2, 3));
  expect_domain_error(slds, 2.0, "slds", "2");
  expect_domain_error(slds, 0.5, "slds", "0.5");
  const auto fhmm = fhmm_oracles::fhmm_model(fhmm_oracles::random_fhmm(rng, {2, 2}, 1, 2, 1.0));
  expect_domain_error(*fhmm, 0.5, "fhmm", "0.5");
  // More product states than the forward algorithm takes: 101 x 100 = 10100 > 10000.
  const auto wide = fhmm_oracles::fhmm_model(fhmm_oracles::random_fhmm(rng, {101, 100}, 1, 1, 1.0));
  expect_domain_error(*wide, 1.0, "fhmm", "1");
  try {
    monte_carlo(*wide, 10)->prepare(with_rho(1.0));
  } catch (const KernelDomainError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 10000"), std::string::npos) << e.what();
  }
  expect_domain_error(*network_model(random_small_network(rng)), 2.0, "bayesnet", "2");
  // Any rho > 0 for lds and linear_gaussian.
  for (double rho : kRhos) {
    EXPECT_NO_THROW(monte_carlo(*lds_model(random_lds(rng, 1, 1, 2)), 10)->prepare(with_rho(rho)));
    EXPECT_NO_THROW(monte_carlo(*random_dag_with_hidden_root(rng), 10)->prepare(with_rho(rho)));
  }
}

}  // namespace
}  // namespace ppk
