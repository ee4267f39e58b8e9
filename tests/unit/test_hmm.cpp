// Hidden Markov models (hmm.hpp): the kernel k~ of JMLR 2004 section 4.2 against brute-force sums over
// every observation sequence and every pair of hidden paths (discrete emissions), against sums over path
// pairs with the Gaussian closed form per time step (Gaussian emissions), against the co-emission
// probability from a forward algorithm at rho = 1, against a log-space recursion at T = 10,000; -d,
// Gram matrices, round trips and rejected models.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "emission_models.hpp"
#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "positive_family_checks.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk {
namespace {

using checks::mentions;
using checks::relative_error;
using checks::replaced;
using checks::with_value;

// An HMM in plain numbers: per state, either a distribution over an alphabet (discrete) or the
// mean and variance of a 1-D Gaussian.
struct Hmm {
  std::vector<double> start;
  std::vector<std::vector<double>> trans;
  std::vector<std::vector<double>> emissions;  // discrete: p(symbol); Gaussian: {mean, variance}
  long length = 0;
};

using EmissionBuilder = std::function<std::unique_ptr<Model>(const std::vector<double>&)>;

std::unique_ptr<HmmModel> hmm_model(const Hmm& h, const EmissionBuilder& emission = one_event_multinomial) {
  const Eigen::Index m = static_cast<Eigen::Index>(h.start.size());
  Eigen::VectorXd start = Eigen::Map<const Eigen::VectorXd>(h.start.data(), m);
  Eigen::MatrixXd trans(m, m);
  for (Eigen::Index p = 0; p < m; ++p)
    for (Eigen::Index q = 0; q < m; ++q) trans(p, q) = h.trans[p][q];
  std::vector<std::unique_ptr<Model>> emissions;
  for (const auto& e : h.emissions) emissions.push_back(emission(e));
  return std::make_unique<HmmModel>(start, trans, std::move(emissions), h.length);
}

// Calls f(v) for every v in {0..base-1}^size.
void for_each_tuple(std::size_t size, std::size_t base, const std::function<void(const std::vector<std::size_t>&)>& f) {
  std::vector<std::size_t> v(size, 0);
  while (true) {
    f(v);
    std::size_t i = 0;
    while (i < size && ++v[i] == base) v[i++] = 0;
    if (i == size) return;
  }
}

// The path part of the joint: pi_{s_0} prod_{t >= 1} A_{s_{t-1} s_t}.
double path_probability(const Hmm& h, const std::vector<std::size_t>& s) {
  double p = h.start[s[0]];
  for (std::size_t t = 1; t < s.size(); ++t) p *= h.trans[s[t - 1]][s[t]];
  return p;
}

// p(s, X) for discrete emissions.
double joint(const Hmm& h, const std::vector<std::size_t>& s, const std::vector<std::size_t>& x) {
  double p = path_probability(h, s);
  for (std::size_t t = 0; t < x.size(); ++t) p *= h.emissions[s[t]][x[t]];
  return p;
}

// k~ = sum_X sum_{s, s'} [p(s, X) p'(s', X)]^rho by enumeration, X in alphabet^(T+1).
double brute_force_kernel(const Hmm& a, const Hmm& b, double rho, std::size_t steps) {
  const std::size_t alphabet = a.emissions[0].size();
  double k = 0.0;
  for_each_tuple(steps + 1, alphabet, [&](const std::vector<std::size_t>& x) {
    for_each_tuple(steps + 1, a.start.size(), [&](const std::vector<std::size_t>& s) {
      for_each_tuple(steps + 1, b.start.size(),
                     [&](const std::vector<std::size_t>& r) { k += std::pow(joint(a, s, x) * joint(b, r, x), rho); });
    });
  });
  return k;
}

// p(X) = sum_s p(s, X) by the forward algorithm: alpha_0(q) = pi_q e_q(x_0),
// alpha_t(q) = sum_p alpha_{t-1}(p) A_pq e_q(x_t), p(X) = sum_q alpha_T(q).
double forward_probability(const Hmm& h, const std::vector<std::size_t>& x) {
  const std::size_t m = h.start.size();
  std::vector<double> alpha(m), next(m);
  for (std::size_t q = 0; q < m; ++q) alpha[q] = h.start[q] * h.emissions[q][x[0]];
  for (std::size_t t = 1; t < x.size(); ++t) {
    for (std::size_t q = 0; q < m; ++q) {
      next[q] = 0.0;
      for (std::size_t p = 0; p < m; ++p) next[q] += alpha[p] * h.trans[p][q];
      next[q] *= h.emissions[q][x[t]];
    }
    alpha.swap(next);
  }
  double sum = 0.0;
  for (double v : alpha) sum += v;
  return sum;
}

// The co-emission probability sum_X p(X) p'(X).
double co_emission_probability(const Hmm& a, const Hmm& b, std::size_t steps) {
  double k = 0.0;
  for_each_tuple(steps + 1, a.emissions[0].size(),
                 [&](const std::vector<std::size_t>& x) { k += forward_probability(a, x) * forward_probability(b, x); });
  return k;
}

const Hmm kTwoStates{{0.6, 0.4}, {{0.7, 0.3}, {0.2, 0.8}}, {{0.5, 0.3, 0.2}, {0.1, 0.1, 0.8}}, 3};
const Hmm kThreeStates{{0.2, 0.5, 0.3},
                       {{0.1, 0.6, 0.3}, {0.4, 0.4, 0.2}, {0.25, 0.25, 0.5}},
                       {{0.3, 0.3, 0.4}, {0.9, 0.05, 0.05}, {0.25, 0.625, 0.125}},
                       3};
// A zero start probability, a forbidden transition and a symbol state 1 never emits.
const Hmm kSparse{{1.0, 0.0}, {{0.0, 1.0}, {0.5, 0.5}}, {{0.5, 0.5, 0.0}, {0.0, 0.25, 0.75}}, 2};
const Hmm kBinaryTwo{{0.5, 0.5}, {{0.9, 0.1}, {0.3, 0.7}}, {{0.8, 0.2}, {0.35, 0.65}}, 1};
const Hmm kBinaryThree{
    {0.3, 0.3, 0.4}, {{0.2, 0.2, 0.6}, {0.5, 0.1, 0.4}, {0.3, 0.3, 0.4}}, {{0.6, 0.4}, {0.1, 0.9}, {0.5, 0.5}}, 1};

double model_kernel(const Hmm& a, const Hmm& b, double rho, int steps,
                    const EmissionBuilder& emission = one_event_multinomial) {
  return kernel(PreparedModel(hmm_model(a, emission), with_rho_and_length(rho, steps)),
                PreparedModel(hmm_model(b, emission), with_rho_and_length(rho, steps)));
}

TEST(Hmm, DiscreteKernelIsTheSumOverSequencesAndPathPairs) {
  const std::pair<Hmm, Hmm> pairs[] = {{kTwoStates, kThreeStates}, {kThreeStates, kTwoStates},
                                       {kTwoStates, kTwoStates},   {kSparse, kThreeStates},
                                       {kSparse, kSparse},         {kBinaryTwo, kBinaryThree}};
  for (const auto& [a, b] : pairs)
    for (double rho : kRhos)
      for (int steps = 0; steps <= 4; ++steps) {
        const double expected = brute_force_kernel(a, b, rho, static_cast<std::size_t>(steps));
        // -d 0 means the stored length: T = 0 is checked through the stored length.
        Hmm a_stored = a, b_stored = b;
        a_stored.length = b_stored.length = steps;
        EXPECT_LT(relative_error(model_kernel(a_stored, b_stored, rho, 0), expected), 1e-10)
            << "rho " << rho << " T " << steps;
      }
}

// Up to 4 states the recursion runs on fixed-size matrices, from 5 on on dynamic ones: both, and
// the mixed pairs, against enumeration.
TEST(Hmm, FixedAndDynamicSizesAgreeWithEnumeration) {
  const Hmm one{{1.0}, {{1.0}}, {{0.3, 0.7}}, 2};
  const Hmm five{{0.1, 0.2, 0.3, 0.25, 0.15},
                 {{0.2, 0.2, 0.2, 0.2, 0.2},
                  {0.5, 0.1, 0.1, 0.1, 0.2},
                  {0.05, 0.05, 0.3, 0.3, 0.3},
                  {0.0, 0.5, 0.0, 0.5, 0.0},
                  {0.25, 0.25, 0.25, 0.0, 0.25}},
                 {{0.9, 0.1}, {0.2, 0.8}, {0.5, 0.5}, {0.65, 0.35}, {0.05, 0.95}},
                 2};
  const std::pair<Hmm, Hmm> pairs[] = {{one, five},          {five, one},  {five, kBinaryTwo},
                                       {kBinaryThree, five}, {five, five}, {one, kBinaryThree}};
  for (auto [a, b] : pairs) {
    a.length = b.length = 2;
    for (double rho : kRhos)
      for (int d = 0; d <= 2; ++d) {
        const std::size_t steps = d > 0 ? static_cast<std::size_t>(d) : 2;  // -d 0: the stored length 2
        EXPECT_LT(relative_error(model_kernel(a, b, rho, d), brute_force_kernel(a, b, rho, steps)), 1e-10)
            << a.start.size() << " x " << b.start.size() << " states, rho " << rho << " -d " << d;
      }
  }
}

TEST(Hmm, AtRhoOneTheKernelIsTheCoEmissionProbability) {
  for (const auto& [a, b] :
       {std::pair{kTwoStates, kThreeStates}, std::pair{kSparse, kTwoStates}, std::pair{kBinaryThree, kBinaryTwo}})
    for (int steps = 1; steps <= 4; ++steps)
      EXPECT_LT(relative_error(model_kernel(a, b, 1.0, steps), co_emission_probability(a, b, steps)), 1e-10)
          << "T " << steps;
}

TEST(Hmm, ZeroKernelWhenNoSequenceIsSharedAndSelfKernelPositive) {
  // The first model emits only symbol 0, the second only symbol 1: k = 0 exactly, log k = -inf.
  const Hmm only_zero{{1.0}, {{1.0}}, {{1.0, 0.0}}, 2};
  const Hmm only_one{{0.5, 0.5}, {{0.5, 0.5}, {0.5, 0.5}}, {{0.0, 1.0}, {0.0, 1.0}}, 2};
  const PreparedModel a(hmm_model(only_zero), with_rho(0.5)), b(hmm_model(only_one), with_rho(0.5));
  EXPECT_EQ(log_kernel(a, b), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(kernel(a, b), 0.0);
  EXPECT_EQ(normalized_kernel(a, b), 0.0);
  EXPECT_NEAR(normalized_kernel(a, a), 1.0, 1e-15);
  // The same when another emission pair has a positive kernel that no path pair reaches: the first
  // model never leaves its symbol-0 state, so its symbol-1 state meets only_one's emissions in vain.
  const Hmm stays_on_zero{{1.0, 0.0}, {{1.0, 0.0}, {0.0, 1.0}}, {{1.0, 0.0}, {0.0, 1.0}}, 2};
  const PreparedModel c(hmm_model(stays_on_zero), with_rho(0.5));
  EXPECT_EQ(log_kernel(c, b), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(kernel(c, b), 0.0);
}

// Given both paths, the integral over X factorises per time step:
// k~ = sum_{s, s'} (path(s) path'(s'))^rho prod_t k_rho(e_{s_t}, e'_{s'_t}).
double gaussian_path_sum(const Hmm& a, const Hmm& b, double rho, std::size_t steps) {
  double k = 0.0;
  for_each_tuple(steps + 1, a.start.size(), [&](const std::vector<std::size_t>& s) {
    for_each_tuple(steps + 1, b.start.size(), [&](const std::vector<std::size_t>& r) {
      double term = std::pow(path_probability(a, s) * path_probability(b, r), rho);
      for (std::size_t t = 0; t <= steps; ++t) term *= gaussian_1d_kernel(a.emissions[s[t]], b.emissions[r[t]], rho);
      k += term;
    });
  });
  return k;
}

const Hmm kGaussianTwo{{0.3, 0.7}, {{0.8, 0.2}, {0.4, 0.6}}, {{-1.0, 0.5}, {2.0, 1.5}}, 4};
const Hmm kGaussianThree{
    {0.5, 0.25, 0.25}, {{0.6, 0.3, 0.1}, {0.2, 0.2, 0.6}, {0.1, 0.1, 0.8}}, {{0.0, 1.0}, {1.5, 0.25}, {-2.0, 3.0}}, 4};

TEST(Hmm, GaussianEmissionsGiveTheSumOverPathPairsOfPerStepKernels) {
  for (double rho : kRhos)
    for (int steps = 0; steps <= 4; ++steps) {
      Hmm a = kGaussianTwo, b = kGaussianThree;
      a.length = b.length = steps;
      EXPECT_LT(relative_error(model_kernel(a, b, rho, 0, gaussian_1d),
                               gaussian_path_sum(a, b, rho, static_cast<std::size_t>(steps))),
                1e-10)
          << "rho " << rho << " T " << steps;
    }
}

// log k~ by the same recursion written in log space: log Phi_t(q, q') = logsumexp over (p, p') of
// rho log(A_pq A'_p'q') + log psi(p, p') + log Phi_{t-1}(p, p'), log k~ = logsumexp(log psi + log Phi_T).
double log_space_kernel(const Hmm& a, const Hmm& b, double rho, long steps) {
  const std::size_t m = a.start.size(), n = b.start.size();
  const auto log_sum_exp = [](const std::vector<double>& v) {
    double top = -std::numeric_limits<double>::infinity();
    for (double x : v) top = std::max(top, x);
    double sum = 0.0;
    for (double x : v) sum += std::exp(x - top);
    return top + std::log(sum);
  };
  std::vector<std::vector<double>> log_psi(m, std::vector<double>(n)), log_phi(m, std::vector<double>(n));
  for (std::size_t q = 0; q < m; ++q)
    for (std::size_t r = 0; r < n; ++r) {
      double psi = 0.0;
      for (std::size_t x = 0; x < a.emissions[q].size(); ++x) psi += std::pow(a.emissions[q][x] * b.emissions[r][x], rho);
      log_psi[q][r] = std::log(psi);
      log_phi[q][r] = rho * std::log(a.start[q] * b.start[r]);
    }
  std::vector<double> terms(m * n);
  for (long t = 1; t <= steps; ++t) {
    std::vector<std::vector<double>> next(m, std::vector<double>(n));
    for (std::size_t q = 0; q < m; ++q)
      for (std::size_t r = 0; r < n; ++r) {
        for (std::size_t p = 0; p < m; ++p)
          for (std::size_t s = 0; s < n; ++s)
            terms[p * n + s] = rho * std::log(a.trans[p][q] * b.trans[s][r]) + log_psi[p][s] + log_phi[p][s];
        next[q][r] = log_sum_exp(terms);
      }
    log_phi.swap(next);
  }
  for (std::size_t q = 0; q < m; ++q)
    for (std::size_t r = 0; r < n; ++r) terms[q * n + r] = log_psi[q][r] + log_phi[q][r];
  return log_sum_exp(terms);
}

TEST(Hmm, FarApartEmissionsStayExactWhenTheBestPairOfStatesIsUnreachable) {
  // The first model never leaves state 0, whose emission N(0, 1) is 60 standard deviations from the
  // second model's N(60, 1); its unreachable state 1 matches it exactly. The only path pair has
  // log k = (T + 1) log k_rho(N(0, 1), N(60, 1)), about -900 rho per step: more than 700 nats below
  // the unreachable pair's, where the emission kernels divided by their largest underflow.
  const auto log_gaussian_1d_kernel = [](double m, double v, double m2, double v2, double rho) {
    const double s_plus = 1.0 / (1.0 / v + 1.0 / v2), m_plus = m / v + m2 / v2;
    return (1.0 - 2.0 * rho) / 2.0 * std::log(2.0 * M_PI) - 0.5 * std::log(rho) + 0.5 * std::log(s_plus) -
           rho / 2.0 * std::log(v * v2) - rho / 2.0 * (m * m / v + m2 * m2 / v2 - m_plus * m_plus * s_plus);
  };
  for (double rho : {0.5, 1.0, 2.0})
    for (long steps : {0L, 3L}) {
      const Hmm stays{{1.0, 0.0}, {{1.0, 0.0}, {0.0, 1.0}}, {{0.0, 1.0}, {60.0, 1.0}}, steps};
      const Hmm far{{1.0}, {{1.0}}, {{60.0, 1.0}}, steps};
      const double expected = static_cast<double>(steps + 1) * log_gaussian_1d_kernel(0.0, 1.0, 60.0, 1.0, rho);
      const PreparedModel a(hmm_model(stays, gaussian_1d), with_rho(rho)), b(hmm_model(far, gaussian_1d), with_rho(rho));
      EXPECT_NEAR(log_kernel(a, b), expected, 1e-9 * std::fabs(expected)) << "rho " << rho << " T " << steps;
    }
}

TEST(Hmm, LongSequencesStayExactInLogSpace) {
  constexpr int kSteps = 10000;
  // Two close models, so that their normalised kernel stays well above the smallest double.
  const Hmm a{{0.5, 0.5}, {{0.9, 0.1}, {0.2, 0.8}}, {{0.6, 0.3, 0.1}, {0.2, 0.3, 0.5}}, 3};
  const Hmm b{{0.4, 0.4, 0.2},
              {{0.88, 0.1, 0.02}, {0.2, 0.78, 0.02}, {0.3, 0.3, 0.4}},
              {{0.61, 0.29, 0.1}, {0.2, 0.31, 0.49}, {0.34, 0.33, 0.33}},
              3};
  for (double rho : {0.5, 1.0}) {
    const PreparedModel pa(hmm_model(a), with_rho_and_length(rho, kSteps)),
        pb(hmm_model(b), with_rho_and_length(rho, kSteps));
    const double normalised = normalized_kernel(pa, pb);
    const double expected_log = log_space_kernel(a, b, rho, kSteps) -
                                0.5 * (log_space_kernel(a, a, rho, kSteps) + log_space_kernel(b, b, rho, kSteps));
    EXPECT_TRUE(std::isfinite(log_kernel(pa, pb)));
    EXPECT_GT(normalised, 0.0) << "rho " << rho;
    EXPECT_LE(normalised, 1.0) << "rho " << rho;
    EXPECT_LT(relative_error(normalised, std::exp(expected_log)), 1e-8) << "rho " << rho;
    EXPECT_LT(std::fabs(log_kernel(pa, pb) - log_space_kernel(a, b, rho, kSteps)),
              1e-9 * std::fabs(log_space_kernel(a, b, rho, kSteps)))
        << "rho " << rho;
    EXPECT_NEAR(normalized_kernel(pa, pa), 1.0, 1e-12);
  }
}

TEST(Hmm, LengthOptionOverridesTheStoredLength) {
  Hmm a = kTwoStates, b = kThreeStates;
  a.length = 3;
  b.length = 5;
  // -d 2: both models are taken over x_0..x_2.
  EXPECT_LT(relative_error(model_kernel(a, b, 0.5, 2), brute_force_kernel(a, b, 0.5, 2)), 1e-10);
  // -d 0: their own lengths, 3 and 5, differ: no kernel.
  const PreparedModel pa(hmm_model(a), with_rho_and_length(1.0, 0)), pb(hmm_model(b), with_rho_and_length(1.0, 0));
  try {
    check_compatible(pa.model(), pb.model());
    ADD_FAILURE() << "models of lengths 3 and 5 are compatible";
  } catch (const KernelDomainError& error) {
    EXPECT_TRUE(
        mentions(error.what(), {"sequences of 4 categories", "sequences of 6 categories", "different sample spaces"}));
  }
  // -d 5: both over x_0..x_5.
  const PreparedModel pa5(hmm_model(a), with_rho_and_length(1.0, 5)), pb5(hmm_model(b), with_rho_and_length(1.0, 5));
  EXPECT_NO_THROW(check_compatible(pa5.model(), pb5.model()));
  EXPECT_LT(relative_error(kernel(pa5, pb5), co_emission_probability(a, b, 5)), 1e-10);
}

// A random HMM with 1..3 states over an alphabet of 3 symbols, T = 3.
Hmm random_hmm(std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  const auto distribution = [&](std::size_t size) {
    std::vector<double> p(size);
    double sum = 0.0;
    for (double& v : p) sum += v = uniform(rng);
    for (double& v : p) v /= sum;
    return p;
  };
  const std::size_t states = std::uniform_int_distribution<std::size_t>(1, 3)(rng);
  Hmm h;
  h.start = distribution(states);
  for (std::size_t q = 0; q < states; ++q) {
    h.trans.push_back(distribution(states));
    h.emissions.push_back(distribution(3));
  }
  h.length = 3;
  return h;
}

TEST(Hmm, GramMatricesArePositiveSemidefinite) {
  std::mt19937 rng(20040402);
  std::vector<Hmm> hmms;
  for (int i = 0; i < 20; ++i) hmms.push_back(random_hmm(rng));
  for (double rho : {0.5, 1.0, 2.0}) {
    std::vector<PreparedModel> models;
    for (const Hmm& h : hmms) models.emplace_back(hmm_model(h), with_rho(rho));
    expect_positive_semidefinite(models, "rho " + std::to_string(rho));
  }
}

TEST(Hmm, RowsAndJsonRoundTrip) {
  checks::expect_round_trips(*hmm_model(kTwoStates));
  checks::expect_round_trips(*hmm_model(kThreeStates));
  checks::expect_round_trips(*hmm_model(kSparse));
  checks::expect_round_trips(*hmm_model(kGaussianThree, gaussian_1d));
}

const char* const kValidJson =
    R"({"family":"hmm","start":[0.5,0.5],"trans":[[0.5,0.5],[0.25,0.75]],)"
    R"("emissions":[{"family":"multinomial","p":[0.5,0.5]},{"family":"multinomial","p":[1,0]}],"length":2})";

TEST(Hmm, MalformedJsonNamesTheField) {
  using checks::json_error;
  EXPECT_EQ(json_error(kValidJson), "");
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "[0.25,0.75]", "[0.25,0.7]")),
                       {"hmm field \"trans\"[1]", "transition row 1", "summing to 1", "0.95"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "[0.25,0.75]", "[-0.25,1.25]")),
                       {"hmm field \"trans\"[1][0]", "a probability in [0, 1]", "-0.25"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "\"start\":[0.5,0.5]", "\"start\":[0.5,0.4]")),
                       {"hmm field \"start\"", "summing to 1", "0.9"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, ",{\"family\":\"multinomial\",\"p\":[1,0]}", "")),
                       {"hmm field \"emissions\"", "2 emission models", "got 1"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "\"p\":[1,0]", "\"p\":[1,0,0]")),
                       {"hmm field \"emissions\"[1]", "categories of dimension 2", "categories of dimension 3"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "\"p\":[1,0]", "\"p\":[1,1]")),
                       {"hmm field \"emissions\"[1]", "multinomial"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "{\"family\":\"multinomial\",\"p\":[1,0]}",
                                           R"({"family":"hmm","start":[1],"trans":[[1]],)"
                                           R"("emissions":[{"family":"multinomial","p":[1,0]}],"length":2})")),
                       {"hmm field \"emissions\"[1]", "not an HMM"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "[[0.5,0.5],[0.25,0.75]]", "[[0.5,0.5]]")),
                       {"hmm field \"trans\"", "2 x 2 matrix"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "\"length\":2", "\"length\":2.5")),
                       {"hmm field \"length\"", "a whole number"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "\"length\":2", "\"length\":-1")),
                       {"hmm field \"length\"", "a whole number"}));
}

// A row written out from the layout of hmm.hpp: 3: M = 2, 4: T = 2, 5..6: start, 7..10: trans row by
// row, then each emission as its length (7) and its own row from the family code on (multinomial.hpp:
// code 3, D = 2, trials 0, decay 0, base 0, p): emission 0 at indices 11..18, emission 1 at 19..26.
const Row kHandRow{{1, 1},  {2, 9},  {3, 2},  {4, 2},    {5, 0.5},  {6, 0.5}, {7, 0.5}, {8, 0.5}, {9, 0.25},  {10, 0.75},
                   {11, 7}, {12, 3}, {13, 2}, {17, 0.5}, {18, 0.5}, {19, 7},  {20, 3},  {21, 2},  {25, 0.25}, {26, 0.75}};

TEST(Hmm, RowLayoutIsTheDocumentedOne) {
  const auto model = decode_row(kHandRow);
  const HmmModel& hmm = static_cast<const HmmModel&>(*model);
  EXPECT_EQ(hmm.states(), 2u);
  EXPECT_EQ(hmm.length(), 2);
  EXPECT_EQ(hmm.start(), Eigen::Vector2d(0.5, 0.5));
  EXPECT_EQ(hmm.transitions(), (Eigen::Matrix2d() << 0.5, 0.5, 0.25, 0.75).finished());
  EXPECT_EQ(static_cast<const MultinomialModel&>(hmm.emission(1)).probabilities().dense(),
            (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(format_entries(encode_row(hmm)), format_entries(kHandRow));
}

TEST(Hmm, MalformedRowsNameTheFieldAndIndex) {
  using checks::row_error;
  EXPECT_EQ(row_error(kHandRow), "");
  // Transition row 1 (indices 9..10) sums to 0.95.
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 10, 0.7)),
                       {"hmm field \"trans\" (index 9)", "transition row 1", "summing to 1", "0.95"}));
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 8, 1.5)),
                       {"hmm field \"trans\" (index 8)", "a probability in [0, 1]", "got 1.5"}));
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 6, 0.25)), {"hmm field \"start\" (index 5)", "summing to 1"}));
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 3, 0)), {"hmm field \"states\" (index 3)", "[1, 10000]"}));
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 4, -2)), {"hmm field \"length\" (index 4)", "got -2"}));
  // Emission 1's "p"[0] (index 25) outside [0, 1]: the nested error, at absolute indices.
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 25, 2)),
                       {"hmm field \"emissions\" (indices 19..26)", "multinomial field \"p\" (index 25)"}));
  // Emission 1 over 3 categories (D at index 21, length 8) while emission 0 has 2.
  Row three_categories = with_value(with_value(kHandRow, 21, 3), 19, 8);
  three_categories.push_back({27, 0.0});
  EXPECT_TRUE(mentions(row_error(three_categories), {"hmm field \"emissions\" (indices 19..27)",
                                                     "categories of dimension 2", "got categories of dimension 3"}));
  // An HMM as emission 1: its length at index 19, its row from the family code on at 20...
  Row nested(kHandRow.begin(), kHandRow.begin() + 15);
  const Row inner = encode_row(*hmm_model({{1.0}, {{1.0}}, {{0.5, 0.5}}, 0}));
  nested.push_back({19, static_cast<double>(inner.back().index - 1)});
  for (const RowEntry& entry : inner)
    if (entry.index >= kFamilyIndex) nested.push_back({entry.index + 18, entry.value});
  EXPECT_TRUE(mentions(row_error(nested), {"hmm field \"emissions\" (indices 19..", "not an HMM"}));
}

// The forward recursion costs T (M^2 M' + M M'^2) <= T (M^3 + M'^3) multiply-adds and the M x M'
// emission kernels M M' + M' W + M W' (W the emissions' summed kernel_work()): prepare() refuses a row
// with (T + 1) M^3 + M (M + W) > kMaxKernelWork = 10^12 before anything runs. 100 isotropic Gaussians
// (W = 0): (T + 1) 10^6 + 10^4, so T + 1 = 999999 is within and 10^6 is not; the stored length 10^8 - 1
// (a few bytes of row) asks for 10^14 + 10^4.
TEST(Hmm, KernelWorkPerEvaluationIsBounded) {
  const long states = 100;
  Eigen::VectorXd start = Eigen::VectorXd::Constant(states, 1.0 / states);
  std::vector<std::unique_ptr<Model>> emissions;
  for (long q = 0; q < states; ++q) emissions.push_back(gaussian_1d({static_cast<double>(q), 1.0}));
  HmmModel model(start, Eigen::MatrixXd::Identity(states, states), std::move(emissions), 99999999);
  EXPECT_TRUE(mentions(checks::prepare_error(model, with_rho(1.0)),
                       {"hmm kernel: T + 1 (100000000, the length or -d T) x M^3 (M = 100 states) + 10000 for the "
                        "emission kernels = 100000000010000 multiply-adds per kernel evaluation, more than the 1e+12 "
                        "one row may claim",
                        "Limits", "give a smaller -d T, fewer states or smaller emission models"}));
  EXPECT_EQ(checks::prepare_error(model, with_rho_and_length(1.0, 999998)), "");
  EXPECT_EQ(model.kernel_work(), 999999e6 + 1e4);
  EXPECT_TRUE(mentions(checks::prepare_error(model, with_rho_and_length(1.0, 999999)),
                       {"T + 1 (1000000, the length or -d T)", "= 1000000010000 multiply-adds"}));
}

// Full-covariance emissions cost D^3 per pair (the Cholesky factor of S + S'), so 10 of them in
// D = 100 add M (M + W) = 10 (10 + 10 x 10^6) = 100000100 to the (T + 1) 10^3 of the recursion: T + 1 =
// 999899999 is within 10^12, one step more is not (without the emissions both would be).
TEST(Hmm, EmissionKernelsCountTowardTheKernelWork) {
  const long states = 10, dim = 100;
  std::vector<std::unique_ptr<Model>> emissions;
  for (long q = 0; q < states; ++q)
    emissions.push_back(
        GaussianModel::full(Eigen::VectorXd::Constant(dim, static_cast<double>(q)), Eigen::MatrixXd::Identity(dim, dim)));
  HmmModel model(Eigen::VectorXd::Constant(states, 1.0 / states), Eigen::MatrixXd::Constant(states, states, 0.1),
                 std::move(emissions), 1);
  EXPECT_EQ(checks::prepare_error(model, with_rho_and_length(1.0, 999899998)), "");
  EXPECT_EQ(model.kernel_work(), 999899999e3 + 100000100.0);
  EXPECT_TRUE(mentions(checks::prepare_error(model, with_rho_and_length(1.0, 999899999)),
                       {"hmm kernel: T + 1 (999900000, the length or -d T) x M^3 (M = 10 states) + 100000100 for the "
                        "emission kernels = 1000000000100 multiply-adds"}));
}

TEST(Hmm, ConstructorChecksEmissions) {
  std::vector<std::unique_ptr<Model>> mixed;
  mixed.push_back(one_event_multinomial({0.5, 0.5}));
  mixed.push_back(gaussian_1d({0.0, 1.0}));
  EXPECT_TRUE(mentions(checks::constructor_error([&] {
                         HmmModel(Eigen::Vector2d(0.5, 0.5), Eigen::Matrix2d::Constant(0.5), std::move(mixed), 1);
                       }),
                       {"hmm field \"emissions\"[1]", "real vectors of dimension 1"}));
}

}  // namespace
}  // namespace ppk
