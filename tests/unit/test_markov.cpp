// Markov chains of order k (markov.hpp): the kernel against brute-force sums over every sequence, its
// values at every T from one pass, long sequences against a log-space recursion, order-0 aligned chains
// against the multinomial family's one-event kernels, Gram matrices, sampling, round trips and
// rejected rows.
//
// The oracles here compute p(x) from the CPT formula of markov.hpp on their own: the slots, offsets and
// contexts from the documented layout (markov_layout.hpp, shared with test_estimate_markov.cpp), the counts
// looked up in a std::map.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <Eigen/Dense>

#include "gram_checks.hpp"
#include "kernel_params.hpp"
#include "markov_layout.hpp"
#include "montecarlo_checks.hpp"
#include "positive_family_checks.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/bayesnet.hpp"
#include "ppk/families/markov.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk {
namespace {

using checks::mentions;
using checks::relative_error;

// A chain in plain numbers, as the header describes it.
struct Chain {
  long alphabet = 2, order = 0, positions = 0, length = 0;
  double strength = 0.0;
  std::vector<double> base;       // empty: uniform
  std::map<long, double> counts;  // flat index -> n
};

std::unique_ptr<MarkovModel> markov_model(const Chain& c) {
  MarkovParameters p;
  p.alphabet = c.alphabet;
  p.order = c.order;
  p.positions = c.positions;
  p.length = c.length;
  p.strength = c.strength;
  p.base = c.base;
  p.counts.assign(c.counts.begin(), c.counts.end());
  return std::make_unique<MarkovModel>(std::move(p));
}

using markov_layout::offset_of;
using markov_layout::power;
using markov_layout::table_size;

// p(x_t | its past) by the formula (n + beta b) / (N + beta), or b when N + beta = 0, where x[i - j] is
// x_{t-j} (i = t: x is the whole sequence; a shorter x holds the symbols up to x_t).
double conditional(const Chain& c, const std::vector<long>& x, long t, long i) {
  const long first = markov_layout::flat_index(c, x, t, i) - x[i];  // the context's entry of symbol 0
  double total = 0.0;
  for (long y = 0; y < c.alphabet; ++y) {
    const auto found = c.counts.find(first + y);
    if (found != c.counts.end()) total += found->second;
  }
  const auto found = c.counts.find(first + x[i]);
  const double n = found != c.counts.end() ? found->second : 0.0;
  const double b = c.base.empty() ? 1.0 / static_cast<double>(c.alphabet) : c.base[first + x[i]];
  return total + c.strength > 0.0 ? (n + c.strength * b) / (total + c.strength) : b;
}
double conditional(const Chain& c, const std::vector<long>& x, long t) { return conditional(c, x, t, t); }

double sequence_probability(const Chain& c, const std::vector<long>& x) {
  double p = 1.0;
  for (long t = 0; t < static_cast<long>(x.size()); ++t) p *= conditional(c, x, t);
  return p;
}

// Calls f(x) for every x in {0..A-1}^length.
void for_each_sequence(long alphabet, long length, const std::function<void(const std::vector<long>&)>& f) {
  std::vector<long> x(static_cast<std::size_t>(length), 0);
  while (true) {
    f(x);
    std::size_t i = 0;
    while (i < x.size() && ++x[i] == alphabet) x[i++] = 0;
    if (i == x.size()) return;
  }
}

// sum over all sequences x_0..x_T of p(x)^rho q(x)^rho.
double brute_force_kernel(const Chain& a, const Chain& b, double rho, long steps) {
  double k = 0.0;
  for_each_sequence(a.alphabet, steps + 1, [&](const std::vector<long>& x) {
    k += std::pow(sequence_probability(a, x), rho) * std::pow(sequence_probability(b, x), rho);
  });
  return k;
}

// A random chain: counts at about a third of the table's entries (some contexts without any), a dense
// base of random rows or none, strength 0, 0.5 or 2.
Chain random_chain(std::mt19937& rng, long alphabet, long order, long positions, long length, bool with_base) {
  Chain c;
  c.alphabet = alphabet;
  c.order = order;
  c.positions = positions;
  c.length = positions > 0 ? positions - 1 : length;
  c.strength = std::vector<double>{0.0, 0.5, 2.0}[std::uniform_int_distribution<int>(0, 2)(rng)];
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  const long size = table_size(c);
  if (with_base) {
    c.base.resize(static_cast<std::size_t>(size));
    for (long first = 0; first < size; first += alphabet) {
      double sum = 0.0;
      for (long x = 0; x < alphabet; ++x) sum += c.base[first + x] = uniform(rng);
      for (long x = 0; x < alphabet; ++x) c.base[first + x] /= sum;
    }
  }
  std::bernoulli_distribution listed(0.35);
  for (long j = 0; j < size; ++j)
    if (listed(rng))
      c.counts[j] = std::uniform_int_distribution<int>(0, 1)(rng) ? std::floor(1 + 4 * uniform(rng)) : 3 * uniform(rng);
  // strength 0 and a context with no counts: the base row; make sure one context of slot 0 has counts.
  if (c.counts.empty()) c.counts[0] = 1.0;
  return c;
}

// log k from the family against k by enumeration: relative error below 1e-12, or both 0 (chains of
// strength 0 can give no sequence positive probability under both).
void expect_kernel(double log_k, double expected, const std::string& what) {
  if (expected == 0.0)
    EXPECT_EQ(log_k, -std::numeric_limits<double>::infinity()) << what;
  else
    EXPECT_LT(relative_error(std::exp(log_k), expected), 1e-12) << what;
}

double model_log_kernel(const Chain& a, const Chain& b, double rho, int length = 0) {
  const PreparedModel pa(markov_model(a), with_rho_and_length(rho, length)),
      pb(markov_model(b), with_rho_and_length(rho, length));
  return log_kernel(pa, pb);
}

TEST(Markov, FlatIndexIsTheDocumentedLayout) {
  // A = 3, order 2, homogeneous: slot 0 (depth 0) at 0..2, slot 1 (depth 1) at 3..11, slot 2 at 12..38.
  Chain c;
  c.alphabet = 3;
  c.order = 2;
  const auto model = markov_model(c);
  const MarkovParameters& p = model->parameters();
  EXPECT_EQ(markov_slots(p), 3);
  EXPECT_EQ(markov_slot_offset(p, 1), 3);
  EXPECT_EQ(markov_slot_offset(p, 2), 12);
  EXPECT_EQ(markov_table_size(p), 39);
  EXPECT_EQ(markov_slot_at(p, 7), 2);
  const std::vector<long> x{2, 0, 1, 2};
  EXPECT_EQ(markov_flat_index(p, x, 0), 2);
  EXPECT_EQ(markov_flat_index(p, x, 1), 3 + 2 * 3 + 0);  // context x_0 = 2
  // Position 3: x_2 = 1 most recent (least significant), x_1 = 0: c = 1 + 0 * 3 = 1.
  EXPECT_EQ(markov_flat_index(p, x, 3), 12 + 1 * 3 + 2);
  EXPECT_EQ(markov_flat_index(p, x, 2), 12 + (0 + 2 * 3) * 3 + 1);
  // Aligned, L = 4, order 1: depths 0, 1, 1, 1.
  c.order = 1;
  c.positions = 4;
  c.length = 3;
  const auto aligned = markov_model(c);
  const MarkovParameters& q = aligned->parameters();
  EXPECT_EQ(markov_slots(q), 4);
  EXPECT_EQ(markov_slot_depth(q, 0), 0);
  EXPECT_EQ(markov_slot_depth(q, 3), 1);
  EXPECT_EQ(markov_table_size(q), 3 + 3 * 9);
  EXPECT_EQ(markov_flat_index(q, x, 3), 3 + 2 * 9 + 1 * 3 + 2);
}

TEST(Markov, ProbabilityIsTheSmoothingFormula) {
  std::mt19937 rng(11);
  for (bool with_base : {false, true}) {
    const Chain c = random_chain(rng, 3, 2, 0, 4, with_base);
    const auto model = markov_model(c);
    const std::vector<double> table = markov_probability_table(model->parameters());
    ASSERT_EQ(static_cast<long>(table.size()), table_size(c));
    for_each_sequence(3, 3, [&](const std::vector<long>& x) {
      const long t = 2, first = markov_flat_index(model->parameters(), x, t) - x[t];
      const long context = (first - offset_of(c, 2)) / 3;
      EXPECT_NEAR(markov_probability(model->parameters(), 2, context, x[t]), conditional(c, x, t), 1e-15);
      EXPECT_NEAR(table[first + x[t]], conditional(c, x, t), 1e-15);
    });
  }
}

// The kernel is the sum over all A^{T+1} sequences, for A = 2, 3, orders 0..2, homogeneous and aligned
// chains, with and without a base, pairs of different orders and a homogeneous chain against an aligned
// one of as many positions.
TEST(Markov, KernelIsTheSumOverAllSequences) {
  std::mt19937 rng(2004);
  int checked = 0, positive = 0;
  for (long alphabet : {2L, 3L})
    for (long order : {0L, 1L, 2L})
      for (long steps = 0; steps <= 6; ++steps)
        for (bool with_base : {false, true})
          for (double rho : {0.5, 1.0, 1.7}) {
            const long other_order = std::uniform_int_distribution<long>(0, 2)(rng);
            const Chain homogeneous = random_chain(rng, alphabet, order, 0, steps, with_base);
            const Chain aligned = random_chain(rng, alphabet, order, steps + 1, 0, with_base);
            const Chain other = random_chain(rng, alphabet, other_order, 0, steps, !with_base);
            const Chain other_aligned = random_chain(rng, alphabet, other_order, steps + 1, 0, with_base);
            const std::string what = "A " + std::to_string(alphabet) + " k " + std::to_string(order) + " k' " +
                                     std::to_string(other_order) + " T " + std::to_string(steps) + " base " +
                                     std::to_string(with_base) + " rho " + std::to_string(rho);
            for (const auto& [a, b] :
                 {std::pair{&homogeneous, &other}, std::pair{&aligned, &other_aligned}, std::pair{&homogeneous, &aligned},
                  std::pair{&aligned, &other}, std::pair{&homogeneous, &homogeneous}, std::pair{&aligned, &aligned}}) {
              const double expected = brute_force_kernel(*a, *b, rho, steps);
              expect_kernel(model_log_kernel(*a, *b, rho), expected, what);
              ++checked;
              positive += expected > 0.0;
            }
          }
  EXPECT_EQ(checked, 2 * 3 * 7 * 2 * 3 * 6);
  EXPECT_GT(positive, checked * 9 / 10) << positive << " of " << checked << " pairs share a sequence";
}

// At rho = 1/2 the self-kernel of any chain is sum_x p(x) = 1.
TEST(Markov, BhattacharyyaSelfKernelIsOne) {
  std::mt19937 rng(5);
  for (long positions : {0L, 20L}) {
    const Chain c = random_chain(rng, 4, 3, positions, 50, true);
    EXPECT_NEAR(model_log_kernel(c, c, 0.5), 0.0, 1e-12);
  }
}

// An aligned chain may have fewer positions than its order (position t reads min(t, k) symbols): its
// table stops at depth L - 1, and so do the kernel's and the sampler's contexts, whatever A^k would be.
TEST(Markov, AlignedChainsShorterThanTheirOrder) {
  std::mt19937 rng(6);
  const Chain a = random_chain(rng, 3, 5, 3, 0, true), b = random_chain(rng, 3, 2, 3, 0, false);
  for (double rho : {0.5, 1.7}) expect_kernel(model_log_kernel(a, b, rho), brute_force_kernel(a, b, rho, 2), "L 3 k 5");
  auto model = markov_model(a);
  model->prepare(with_rho(1.0));
  EXPECT_NEAR(model->log_tilted_normalizer(0.5),
              std::log(brute_force_kernel(a, Chain{3, 0, 3, 2, 0.0, {}, {}}, 0.5, 2) * std::pow(3.0, 1.5)),
              1e-12);  // Z(1/2) = sum sqrt(p), against the uniform chain u(x) = 3^-3: sum sqrt(p u) 3^(3/2)
  // 64 symbols, order 60 (A^61 overflows any integer), 3 positions: S = 64 + 64^2 + 64^3.
  Chain wide;
  wide.alphabet = 64;
  wide.order = 60;
  wide.positions = 3;
  wide.length = 2;
  wide.strength = 1.0;
  wide.counts = {{5, 2.0}, {64 + 5 * 64 + 7, 1.0}};
  EXPECT_NEAR(model_log_kernel(wide, wide, 0.5), 0.0, 1e-10);  // the Bhattacharyya self-kernel (262208 terms)
}

// -d T changes a homogeneous chain's T and not an aligned chain's.
TEST(Markov, LengthOptionOverridesTheStoredLengthOfHomogeneousChains) {
  std::mt19937 rng(9);
  Chain a = random_chain(rng, 2, 1, 0, 3, false), b = random_chain(rng, 2, 2, 0, 5, true);
  expect_kernel(model_log_kernel(a, b, 0.7, 4), brute_force_kernel(a, b, 0.7, 4), "-d 4");
  const PreparedModel pa(markov_model(a), with_rho(1.0)), pb(markov_model(b), with_rho(1.0));
  try {
    check_compatible(pa.model(), pb.model());
    ADD_FAILURE() << "chains of lengths 3 and 5 are compatible";
  } catch (const KernelDomainError& error) {
    EXPECT_TRUE(mentions(error.what(), {"sequences of 4 categories", "sequences of 6 categories", "-d 3"}));
  }
  const Chain aligned = random_chain(rng, 2, 1, 4, 0, false);
  const PreparedModel prepared(markov_model(aligned), with_rho_and_length(1.0, 7));
  EXPECT_EQ(static_cast<const MarkovModel&>(prepared.model()).steps(), 3);
  EXPECT_FALSE(prepared.model().sequence_steps().has_value());
  EXPECT_EQ(pa.model().sequence_steps(), 3);
  // Another alphabet: another sample space.
  const Chain three = random_chain(rng, 3, 1, 0, 3, false);
  const PreparedModel pc(markov_model(three), with_rho(1.0));
  EXPECT_THROW(check_compatible(pa.model(), pc.model()), KernelDomainError);
}

// Every T from one pass equals the kernel of the chains prepared for that T, to 1e-12.
TEST(Markov, KernelOverLengthsEqualsTheKernelAtEachLength) {
  std::mt19937 rng(48);
  constexpr int kLongest = 40;
  std::vector<int> lengths(kLongest + 1);
  for (int t = 0; t <= kLongest; ++t) lengths[t] = t;
  for (long order : {0L, 1L, 3L})
    for (double rho : {0.5, 1.0, 1.7}) {
      Chain a = random_chain(rng, 3, order, 0, kLongest, true), b = random_chain(rng, 3, 2, 0, kLongest, false);
      const PreparedModel pa(markov_model(a), with_rho(rho)), pb(markov_model(b), with_rho(rho));
      std::vector<double> out(lengths.size());
      ASSERT_TRUE(log_kernels_over_lengths(pa, pb, lengths, out.data()));
      for (int t = 0; t <= kLongest; ++t) {
        a.length = b.length = t;  // T = 0 as the stored length (-d 0 is "each row's own")
        const double expected = model_log_kernel(a, b, rho);
        EXPECT_NEAR(out[t], expected, 1e-12 * std::max(1.0, std::fabs(expected))) << "T " << t << " k " << order;
      }
    }
  // Aligned chains have one T.
  const Chain aligned = random_chain(rng, 3, 1, 10, 0, false);
  const PreparedModel pa(markov_model(aligned), with_rho(1.0));
  std::vector<double> out(3);
  EXPECT_FALSE(log_kernels_over_lengths(pa, pa, {1, 2, 9}, out.data()));
}

// log k at T = 10,000 (about exp(-4000) here) against the same sum over sequences written as a
// recursion over the last k symbols in log space (log-sum-exp, no rescaling), from the oracle's CPTs.
// log k at each T of `stops` (ascending).
std::vector<double> log_space_kernels(const Chain& a, const Chain& b, double rho, const std::vector<long>& stops) {
  const long order = std::max(a.order, b.order), symbols = a.alphabet;
  // State: the last min(t, K) symbols, as a vector of symbols (most recent last).
  std::map<std::vector<long>, double> log_alpha{{{}, 0.0}};
  const auto log_sum = [](const std::vector<double>& logs) {
    const double largest = *std::max_element(logs.begin(), logs.end());
    double sum = 0.0;
    for (double v : logs) sum += std::exp(v - largest);
    return largest + std::log(sum);
  };
  std::vector<double> values;
  for (long t = 0; t <= stops.back(); ++t) {
    std::map<std::vector<long>, std::vector<double>> terms;
    for (const auto& [state, value] : log_alpha)
      for (long x = 0; x < symbols; ++x) {
        // The last min(t, K) symbols, then x_t = x: all that position t reads.
        std::vector<long> next = state;
        next.push_back(x);
        const long i = static_cast<long>(state.size());
        const double weight = rho * (std::log(conditional(a, next, t, i)) + std::log(conditional(b, next, t, i)));
        if (static_cast<long>(next.size()) > order) next.erase(next.begin());
        terms[next].push_back(value + weight);
      }
    log_alpha.clear();
    std::vector<double> all;
    for (const auto& [state, logs] : terms) all.push_back(log_alpha[state] = log_sum(logs));
    if (std::find(stops.begin(), stops.end(), t) != stops.end()) values.push_back(log_sum(all));
  }
  return values;
}
double log_space_kernel(const Chain& a, const Chain& b, double rho, long steps) {
  return log_space_kernels(a, b, rho, {steps}).front();
}

TEST(Markov, LongSequencesStayExactInLogSpace) {
  std::mt19937 rng(10000);
  constexpr long kSteps = 10000;
  for (long order : {1L, 2L}) {
    const Chain a = random_chain(rng, 3, order, 0, kSteps, true), b = random_chain(rng, 3, 1, 0, kSteps, false);
    for (double rho : {0.5, 1.7}) {
      const double expected = log_space_kernel(a, b, rho, kSteps);
      const double value = model_log_kernel(a, b, rho);
      ASSERT_TRUE(std::isfinite(value));
      EXPECT_LT(value, -100.0);  // exp(value) itself underflows for rho = 1.7 (and is small at 1/2)
      EXPECT_NEAR(value, expected, 1e-10 * std::fabs(expected)) << "k " << order << " rho " << rho;
    }
  }
}

// Homogeneous chains with positive weights jump from t = K to the next T by repeated squaring of the
// stationary step (markov.cpp): against the log-space recursion at T = 12,000, and at every T of a
// grid from one pass (jumps between the T's, single steps where they are cheaper), for contexts of
// 1 to 16 (A^K) and both orders of the pair.
TEST(Markov, LongHomogeneousChainsJumpByRepeatedSquaring) {
  std::mt19937 rng(20000);
  const std::vector<long> stops{3, 4, 250, 251, 5000, 12000};
  const std::vector<int> lengths(stops.begin(), stops.end());
  for (const auto& [symbols, order, other] :
       {std::tuple{2L, 0L, 0L}, std::tuple{2L, 3L, 1L}, std::tuple{3L, 2L, 2L}, std::tuple{4L, 2L, 0L}})
    for (double rho : {0.5, 1.7}) {
      Chain a = random_chain(rng, symbols, order, 0, 12000, true), b = random_chain(rng, symbols, other, 0, 12000, false);
      a.strength = 2.0;  // positive weights (b: toward the uniform base)
      b.strength = 0.5;
      const std::vector<double> expected = log_space_kernels(a, b, rho, stops);
      EXPECT_NEAR(model_log_kernel(a, b, rho), expected.back(), 1e-10 * std::fabs(expected.back()));
      const PreparedModel pa(markov_model(a), with_rho(rho)), pb(markov_model(b), with_rho(rho));
      for (const auto* pair : {&pa, &pb}) {
        std::vector<double> out(lengths.size());
        ASSERT_TRUE(log_kernels_over_lengths(*pair, pair == &pa ? pb : pa, lengths, out.data()));
        for (std::size_t k = 0; k < stops.size(); ++k)
          EXPECT_NEAR(out[k], expected[k], 1e-10 * std::max(1.0, std::fabs(expected[k])))
              << "A " << symbols << " k " << order << " k' " << other << " rho " << rho << " T " << stops[k];
      }
    }
}

// An aligned chain of order 0 is a product over positions of one-event multinomials (JMLR 2004 section
// 3: k = prod_t sum_x (p_t(x) q_t(x))^rho), computed here with the multinomial family.
TEST(Markov, OrderZeroAlignedChainIsAProductOfMultinomialKernels) {
  std::mt19937 rng(3);
  for (double rho : {0.5, 1.0, 1.7})
    for (bool with_base : {false, true}) {
      Chain a = random_chain(rng, 4, 0, 60, 0, with_base), b = random_chain(rng, 4, 0, 60, 0, !with_base);
      a.strength = 1.0;  // (positive probabilities: a finite kernel)
      b.strength = 0.5;
      double expected = 0.0;
      for (long t = 0; t < 60; ++t) {
        std::vector<double> p(4), q(4);
        for (long x = 0; x < 4; ++x) {
          std::vector<long> sequence(static_cast<std::size_t>(t), 0);
          sequence.push_back(x);
          p[x] = conditional(a, sequence, t);
          q[x] = conditional(b, sequence, t);
        }
        const PreparedModel mp(std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(p), Trials{}),
                               with_rho(rho));
        const PreparedModel mq(std::make_unique<MultinomialModel>(SparseProbabilities::from_dense(q), Trials{}),
                               with_rho(rho));
        expected += log_kernel(mp, mq);
      }
      EXPECT_NEAR(model_log_kernel(a, b, rho), expected, 1e-12 * std::fabs(expected)) << "rho " << rho;
    }
}

// An aligned chain is the Bayesian network x_0 -> x_1 -> ... whose node t has parents x_{t-d}..x_{t-1}
// (JMLR 2004 section 4.3): the bayesnet family's variable elimination gives the same kernel. Parents
// listed oldest first, so that the network's configuration (the last parent fastest) is the context c;
// the CPT rows from the oracle's formula.
TEST(Markov, AlignedChainIsTheBayesianNetworkOfItsPositions) {
  std::mt19937 rng(43);
  for (long order : {1L, 2L})
    for (double rho : {0.5, 1.0, 1.7}) {
      const long positions = 12;
      Chain a = random_chain(rng, 3, order, positions, 0, true), b = random_chain(rng, 3, 1, positions, 0, false);
      a.strength = 1.0;
      b.strength = 0.5;
      const auto network = [&](const Chain& c) {
        std::vector<BayesNode> nodes;
        for (long t = 0; t < positions; ++t) {
          BayesNode node;
          node.states = 3;
          node.variable = t;
          const long depth = std::min(t, c.order);
          for (long parent = t - depth; parent < t; ++parent) node.parents.push_back(parent);
          std::vector<long> window(static_cast<std::size_t>(depth) + 1, 0);  // x_{t-d}..x_t
          for (long configuration = 0; configuration < power(3, depth); ++configuration)
            for (long x = 0; x < 3; ++x) {
              for (long j = 0; j < depth; ++j) window[j] = configuration / power(3, depth - 1 - j) % 3;
              window[depth] = x;
              node.cpt.push_back(conditional(c, window, t, depth));
            }
          nodes.push_back(std::move(node));
        }
        return std::make_unique<BayesNetModel>(std::move(nodes));
      };
      const PreparedModel na(network(a), with_rho(rho)), nb(network(b), with_rho(rho));
      const double expected = log_kernel(na, nb);
      EXPECT_NEAR(model_log_kernel(a, b, rho), expected, 1e-12 * std::fabs(expected)) << "k " << order << " rho " << rho;
    }
}

// Gram matrices of ppk and ppk_norm: smallest eigenvalue >= -1e-10 x the largest.
void expect_gram_psd(const std::vector<Chain>& chains, double rho, const std::string& what) {
  std::vector<PreparedModel> models;
  for (const Chain& c : chains) models.emplace_back(markov_model(c), with_rho(rho));
  expect_positive_semidefinite(models, what, 1e-10);
}

TEST(Markov, GramMatricesArePositiveSemidefinite) {
  std::mt19937 rng(20041);
  for (double rho : {0.5, 1.0, 1.7}) {
    std::vector<Chain> homogeneous, aligned;
    for (int i = 0; i < 25; ++i) {
      homogeneous.push_back(random_chain(rng, 4, i % 4, 0, 30, i % 2 == 0));
      aligned.push_back(random_chain(rng, 4, i % 3, 12, 0, i % 3 == 0));
    }
    expect_gram_psd(homogeneous, rho, "homogeneous rho " + std::to_string(rho));
    expect_gram_psd(aligned, rho, "aligned rho " + std::to_string(rho));
    // Both kinds over sequences of 12 symbols: one sample space.
    for (Chain c : std::vector<Chain>(homogeneous.begin(), homogeneous.begin() + 10)) {
      c.length = 11;
      aligned.push_back(c);
    }
    expect_gram_psd(aligned, rho, "mixed rho " + std::to_string(rho));
  }
}

// Sampling: draws of a small chain at rho = 1 and 1/2 against p(x)^rho / Z by enumeration; Z and
// log p(x) against the oracle.
TEST(Markov, SamplesFollowTheTiltedChain) {
  std::mt19937 rng(77);
  for (long positions : {0L, 4L})
    for (double rho : {1.0, 0.5, 1.7}) {
      const Chain c = random_chain(rng, 2, 2, positions, 3, true);
      auto model = markov_model(c);
      model->prepare(with_rho(rho));
      double z = 0.0;
      std::map<std::vector<double>, double> probabilities;
      for_each_sequence(2, 4, [&](const std::vector<long>& x) {
        const double p = sequence_probability(c, x);
        z += std::pow(p, rho);
        probabilities[std::vector<double>(x.begin(), x.end())] = std::pow(p, rho);
        const Eigen::VectorXd sample =
            Eigen::Map<const Eigen::Matrix<long, Eigen::Dynamic, 1>>(x.data(), 4).cast<double>();
        if (p > 0.0)
          EXPECT_NEAR(model->log_probability(sample), std::log(p), 1e-12);
        else
          EXPECT_EQ(model->log_probability(sample), -std::numeric_limits<double>::infinity());
      });
      for (auto& [x, p] : probabilities) p /= z;
      EXPECT_NEAR(model->log_tilted_normalizer(rho), std::log(z), 1e-12);
      checks::expect_frequencies(probabilities, checks::draws_of(*model, rho, 20000),
                                 "L " + std::to_string(positions) + " rho " + std::to_string(rho));
    }
}

// The Monte Carlo row of a chain converges to the exact kernel (montecarlo_checks.hpp).
TEST(Markov, MonteCarloEstimatesConvergeToTheKernel) {
  for (double rho : {1.0, 0.5})
    checks::expect_converges(
        "markov rho " + std::to_string(rho),
        // The chains drawn one after the other (the order of a call's arguments is the compiler's),
        // again while either has strength 0: such a chain puts all its mass on the few sequences its
        // counts allow, k may be 0 or rest on rare draws, and the relative error of the estimate is
        // then undefined or far from its N^-1/2 regime at these N.
        [](std::mt19937& rng) {
          for (;;) {
            const Chain a = random_chain(rng, 3, 1, 0, 6, true);
            const Chain b = random_chain(rng, 3, 2, 0, 6, false);
            if (a.strength > 0.0 && b.strength > 0.0)
              return std::make_pair<std::unique_ptr<Model>, std::unique_ptr<Model>>(markov_model(a), markov_model(b));
          }
        },
        with_rho(rho), checks::family_log_kernel, 20);
}

// The stored form of markov.hpp: 3: A = 2, 4: k = 1, 5: L = 0, 6: T = 3, 7: beta = 1.5, 8: 0 (uniform
// base), then the counts block from 9: S = 2 + 4 = 6 entries, n_1 = 2 at 10 and n_5 = 1 at 14.
const Row kHandRow{{1, 1}, {2, 18}, {3, 2}, {4, 1}, {6, 3}, {7, 1.5}, {10, 2}, {14, 1}};

TEST(Markov, RowLayoutIsTheDocumentedOne) {
  const auto model = decode_row(kHandRow);
  const MarkovParameters& p = static_cast<const MarkovModel&>(*model).parameters();
  EXPECT_EQ(p.alphabet, 2);
  EXPECT_EQ(p.order, 1);
  EXPECT_EQ(p.positions, 0);
  EXPECT_EQ(p.length, 3);
  EXPECT_EQ(p.strength, 1.5);
  EXPECT_TRUE(p.base.empty());
  EXPECT_EQ(p.counts, (std::vector<std::pair<long, double>>{{1, 2.0}, {5, 1.0}}));
  EXPECT_EQ(format_entries(encode_row(*model)), format_entries(kHandRow));
  // With a dense base: 8: 1, 9..14 the base, the counts from 15.
  Chain c;
  c.alphabet = 2;
  c.order = 1;
  c.positions = 2;
  c.length = 1;
  c.base = {0.5, 0.5, 0.25, 0.75, 0.5, 0.5};
  c.counts = {{3, 4.0}};
  const Row row = encode_row(*markov_model(c));
  EXPECT_EQ(format_entries(row), format_entries(Row{{1, 1},
                                                    {2, 18},
                                                    {3, 2},
                                                    {4, 1},
                                                    {5, 2},
                                                    {6, 1},
                                                    {8, 1},
                                                    {9, 0.5},
                                                    {10, 0.5},
                                                    {11, 0.25},
                                                    {12, 0.75},
                                                    {13, 0.5},
                                                    {14, 0.5},
                                                    {18, 4}}));
}

TEST(Markov, RowsAndJsonRoundTrip) {
  std::mt19937 rng(1);
  for (long positions : {0L, 7L})
    for (bool with_base : {false, true})
      checks::expect_round_trips(*markov_model(random_chain(rng, 4, 2, positions, 9, with_base)));
  EXPECT_EQ(model_to_json(*decode_row(kHandRow)).dump(),
            R"({"alphabet":2,"counts":{"index":[1,5],"n":[2.0,1.0]},"family":"markov","length":3,"order":1,)"
            R"("strength":1.5})");
}

const char* const kValidJson =
    R"({"family":"markov","alphabet":2,"order":1,"positions":3,"length":2,"strength":0.5,)"
    R"("base":[0.5,0.5,0.25,0.75,0.5,0.5,0.5,0.5,0.5,0.5],"counts":{"index":[1,4,9],"n":[1,2,3]}})";

TEST(Markov, MalformedJsonNamesTheField) {
  using checks::json_error;
  using checks::replaced;
  EXPECT_EQ(json_error(kValidJson), "");
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "0.25,0.75", "0.25,0.7")),
                       {"markov field \"base\"[2]", "context (flat indices 2..3)", "summing to 1", "0.95"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "0.25,0.75", "-0.25,1.25")),
                       {"markov field \"base\"[2]", "a probability in [0, 1]", "-0.25"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "0.5,0.5,0.5,0.5]", "0.5,0.5]")),
                       {"markov field \"base\"", "10 probabilities", "8 values"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "[1,4,9]", "[1,4,10]")),
                       {"markov field \"counts\".index[2]", "a flat index in [0, 10)", "got 10"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "[1,4,9]", "[1,9,4]")),
                       {"markov field \"counts\".index[2]", "strictly increasing (after 9)", "got 4"}));
  EXPECT_TRUE(
      mentions(json_error(replaced(kValidJson, "[1,2,3]", "[1,0,3]")), {"markov field \"counts\".n[1]", "a count > 0"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "[1,2,3]", "[1,2]")),
                       {"markov field \"counts\"", "\"index\" and \"n\" of one length"}));
  EXPECT_TRUE(
      mentions(json_error(replaced(kValidJson, "[1,4,9]", "[1,4.5,9]")), {"markov field \"counts\"", "whole numbers"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "\"strength\":0.5", "\"strength\":-1")),
                       {"markov field \"strength\"", "a finite number >= 0", "got -1"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "\"length\":2", "\"length\":3")),
                       {"markov field \"length\"", "L - 1 = 2", "3 positions", "got 3"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "\"alphabet\":2", "\"alphabet\":0")),
                       {"markov field \"alphabet\"", "a whole number in [1, 33554432]"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"markov","alphabet":4,"order":12,"length":3,"strength":0})"),
                       {"markov field \"order\"", "a table of at most 33554432 entries", "got 89478484"}));
  EXPECT_TRUE(mentions(json_error(replaced(kValidJson, "\"strength\"", "\"strenght\"")), {"strenght"}));
}

TEST(Markov, MalformedRowsNameTheFieldAndIndex) {
  using checks::row_error;
  using checks::with_value;
  EXPECT_EQ(row_error(kHandRow), "");
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 7, -1)), {"markov field \"strength\" (index 7)", "got -1"}));
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 10, -2)), {"markov field \"counts\" (index 10)", "a count > 0"}));
  // A count beyond the table: an index after the last field.
  Row beyond = kHandRow;
  beyond.push_back({15, 1.0});
  EXPECT_TRUE(mentions(row_error(beyond), {"15"}));
  // An aligned chain of 3 positions (5: L = 3) with T = 3 (6): not L - 1.
  Row aligned{{1, 1}, {2, 18}, {3, 2}, {4, 1}, {5, 3}, {6, 3}, {7, 1.5}};
  EXPECT_TRUE(mentions(row_error(aligned), {"markov field \"length\" (index 6)", "L - 1 = 2"}));
  // A base whose slot 1, context 0 (flat 2..3, indices 11..12) sums to 0.9.
  Row based{{1, 1},   {2, 18},   {3, 2},     {4, 1},     {5, 2},    {6, 1},   {8, 1},
            {9, 0.5}, {10, 0.5}, {11, 0.25}, {12, 0.65}, {13, 0.5}, {14, 0.5}};
  EXPECT_TRUE(mentions(row_error(based), {"markov field \"base\" (indices 11..12)", "summing to 1", "0.9"}));
  based = with_value(based, 12, 0.75);
  EXPECT_EQ(row_error(based), "");
  EXPECT_TRUE(mentions(row_error(with_value(based, 13, 1.5)), {"markov field \"base\" (index 13)", "a probability"}));
  EXPECT_TRUE(mentions(row_error(with_value(based, 8, 2)), {"markov field \"base\" (index 8)", "[0, 1]"}));
  EXPECT_TRUE(mentions(row_error(with_value(kHandRow, 4, 30)), {"markov field \"order\" (index 4)", "at most 33554432"}));
}

// The forward recursion visits sum_t A^{min(t,k)+1} entries per chain: prepare() refuses more than
// kMaxKernelWork = 10^12 before anything runs. A = 20, order 3: 20 + 400 + 8000 + (T - 2) 160000.
TEST(Markov, KernelWorkPerEvaluationIsBounded) {
  Chain c;
  c.alphabet = 20;
  c.order = 3;
  c.length = 100000000 - 1;
  auto model = markov_model(c);
  EXPECT_TRUE(mentions(checks::prepare_error(*model, with_rho(1.0)),
                       {"markov kernel: the sum over t = 0..T (T = 99999999", "A = 20, order k = 3",
                        "= 15999999528420 multiply-adds", "more than the 1e+12"}));
  EXPECT_EQ(checks::prepare_error(*model, with_rho_and_length(1.0, 1000)), "");
  EXPECT_EQ(model->kernel_work(), 8420.0 + 998.0 * 160000.0);
}

// The stationary limit, and why the family does not offer it as a kernel: for homogeneous chains of
// order 1 whose pair matrix W(c, x) = p(x | c)^rho q(x | c)^rho (c -> x) is irreducible, log k_T grows
// like T log lambda_max(W) (here: the increments log k_{T+1} - log k_T converge to it), but
// lambda_max(W) is not a positive semidefinite function of the pair: for these four chains its Gram
// matrix has a negative eigenvalue, a sixth of the largest, while every k_T's Gram is PSD.
TEST(Markov, StationaryRateIsTheSpectralRadiusAndNotAKernel) {
  const std::vector<std::vector<double>> transitions{{0.0972435, 0.902756, 0.900022, 0.0999785},
                                                     {0.946045, 0.0539551, 0.0457547, 0.954245},
                                                     {0.999985, 1.48817e-05, 0.994792, 0.00520776},
                                                     {0.00331546, 0.996685, 0.0142379, 0.985762}};
  std::vector<Chain> chains;
  for (const auto& rows : transitions) {
    Chain c;
    c.order = 1;
    c.length = 20000;
    c.strength = 1.0;  // no counts: p is the base
    c.base = {0.5, 0.5};
    for (long row = 0; row < 2; ++row) {
      const double sum = rows[2 * row] + rows[2 * row + 1];
      c.base.push_back(rows[2 * row] / sum);
      c.base.push_back(rows[2 * row + 1] / sum);
    }
    chains.push_back(c);
  }
  const double rho = 1.0;
  Eigen::Matrix4d rates;
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      Eigen::Matrix2d w;
      for (long c = 0; c < 2; ++c)
        for (long x = 0; x < 2; ++x)
          w(c, x) = std::pow(chains[i].base[2 + 2 * c + x] * chains[j].base[2 + 2 * c + x], rho);
      rates(i, j) = w.eigenvalues().cwiseAbs().maxCoeff();
      const PreparedModel a(markov_model(chains[i]), with_rho(rho)), b(markov_model(chains[j]), with_rho(rho));
      std::vector<double> out(2);
      ASSERT_TRUE(log_kernels_over_lengths(a, b, {19999, 20000}, out.data()));
      EXPECT_NEAR(out[1] - out[0], std::log(rates(i, j)), 1e-9) << i << " " << j;
    }
  const Eigen::Vector4d eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::Matrix4d>(rates).eigenvalues();
  EXPECT_LT(eigenvalues.minCoeff(), -0.1 * eigenvalues.maxCoeff()) << eigenvalues.transpose();
  for (Chain& c : chains) c.length = 50;  // (at T = 20000 the ppk values underflow)
  expect_gram_psd(chains, rho, "the chains at T = 50");
}

}  // namespace
}  // namespace ppk
