// Markov chains of order k from symbol sequences (estimate_markov.hpp), against independent oracles:
// the k-mer counts against a brute-force count that reads each position's context digit by digit
// (no rolling update) and lays the slots out from their definition; the pooled base from those
// counts; the evidence's table against the Polya probability as a product of rising factorials
// over the brute-force contexts; the order chosen by held-out likelihood against a direct
// computation; and recovery: per-example chains theta_{e,s,c} ~ Dirichlet(beta0 b_{s,c,.}) around
// a known, non-uniform base, sequences drawn from them, the evidence's beta within 3 standard errors
// of beta0 for several beta0, and the standard error calibrated by repeated draws.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "markov_layout.hpp"
#include "ppk/core/row.hpp"
#include "ppk/estimate/estimate_markov.hpp"

namespace ppk {
namespace {

// A chain's shape: alphabet A, order k, L aligned positions (0: homogeneous).
struct Shape {
  long alphabet, order, positions;
  operator MarkovParameters() const { return markov_shape(alphabet, order, positions); }  // NOLINT: implicit
};

std::map<long, double> oracle_counts(const std::vector<long>& x, const Shape& shape) {
  std::map<long, double> counts;
  for (long t = 0; t < static_cast<long>(x.size()); ++t) counts[markov_layout::flat_index(shape, x, t)] += 1;
  return counts;
}

std::vector<long> random_sequence(std::mt19937_64& random, long alphabet, long length) {
  std::vector<long> x(static_cast<std::size_t>(length));
  for (long& symbol : x) symbol = std::uniform_int_distribution<long>(0, alphabet - 1)(random);
  return x;
}

TEST(MarkovCounts, MatchBruteForceKmerCounts) {
  std::mt19937_64 random(3);
  const std::vector<Shape> shapes = {{3, 0, 0}, {3, 1, 0}, {3, 2, 0}, {2, 3, 0}, {4, 2, 7}, {3, 0, 5}, {2, 4, 6}};
  for (const Shape& shape : shapes) {
    for (int draw = 0; draw < 5; ++draw) {
      const long length = shape.positions > 0 ? shape.positions : 1 + draw * 7;
      const std::vector<long> x = random_sequence(random, shape.alphabet, length);
      const MarkovCounts counts = markov_counts(x, shape);
      const std::map<long, double> oracle = oracle_counts(x, shape);
      ASSERT_EQ(counts.size(), oracle.size()) << "A " << shape.alphabet << " k " << shape.order;
      std::size_t i = 0;
      for (const auto& [index, n] : oracle) {
        EXPECT_EQ(counts[i].first, index);
        EXPECT_EQ(counts[i].second, n);
        ++i;
      }
    }
  }
}

TEST(MarkovCounts, TableSizesAndRefusals) {
  // The pooled base at the realistic sizes, each context summing to 1.
  for (const Shape& shape : {Shape{20, 3, 0}, Shape{4, 2, 60}, Shape{20, 2, 60}}) {
    const long size = markov_layout::table_size(shape);
    std::mt19937_64 random(1);
    const std::vector<MarkovCounts> counts = {
        markov_counts(random_sequence(random, shape.alphabet, shape.positions > 0 ? shape.positions : 500), shape)};
    EXPECT_EQ(static_cast<long>(markov_pooled_base(counts, shape).size()), size);
  }
  EXPECT_THROW(check_markov_shape(Shape{20, 6, 0}), OptionError);  // 20^7 entries: more than a row holds
  EXPECT_THROW(markov_counts({0, 1, 4}, Shape{4, 1, 0}), EstimationError);
  EXPECT_THROW(markov_counts({0, 1}, Shape{4, 1, 3}), OptionError);  // aligned over 3 positions
  EXPECT_THROW(markov_counts({}, Shape{4, 1, 0}), EstimationError);
}

TEST(MarkovBase, PooledChainIsHalfPseudoCountSmoothed) {
  std::mt19937_64 random(5);
  const Shape shape{3, 2, 0};
  std::vector<MarkovCounts> examples;
  std::map<long, double> pooled;
  for (int i = 0; i < 6; ++i) {
    const std::vector<long> x = random_sequence(random, 3, 8 + i);
    examples.push_back(markov_counts(x, shape));
    for (const auto& [index, n] : oracle_counts(x, shape)) pooled[index] += n;
  }
  const std::vector<double> base = markov_pooled_base(examples, shape);
  ASSERT_EQ(static_cast<long>(base.size()), 3 + 9 + 27);
  for (long start = 0; start < static_cast<long>(base.size()); start += 3) {
    double context = 0;
    for (long x = 0; x < 3; ++x) context += pooled.count(start + x) ? pooled[start + x] : 0.0;
    double sum = 0;
    for (long x = 0; x < 3; ++x) {
      const double m = pooled.count(start + x) ? pooled[start + x] : 0.0;
      EXPECT_NEAR(base[static_cast<std::size_t>(start + x)], (m + 0.5) / (context + 1.5), 1e-15);
      EXPECT_GT(base[static_cast<std::size_t>(start + x)], 0);
      sum += base[static_cast<std::size_t>(start + x)];
    }
    EXPECT_NEAR(sum, 1, 1e-14);
  }
}

// log prod_{j < count} (x + j).
double log_rising(double x, double count) {
  double sum = 0;
  for (int j = 0; j < static_cast<int>(count); ++j) sum += std::log(x + j);
  return sum;
}

// The log evidence of the sequences at beta (up to its beta-free part): per sequence and context of
// the brute-force counts, prod_x (beta b)_(n_x) / (beta)_(N), rising factorials.
double oracle_log_evidence(const std::vector<std::vector<long>>& sequences, const Shape& shape,
                           const std::vector<double>& base, double beta) {
  double total = 0;
  for (const std::vector<long>& x : sequences) {
    std::map<long, double> per_context;
    for (const auto& [index, n] : oracle_counts(x, shape)) {
      const double b = base.empty() ? 1.0 / static_cast<double>(shape.alphabet) : base[static_cast<std::size_t>(index)];
      total += log_rising(beta * b, n);
      per_context[index / shape.alphabet] += n;
    }
    for (const auto& [context, n] : per_context) total -= log_rising(beta, n);
  }
  return total;
}

TEST(MarkovEvidence, TableMatchesTheRisingFactorialProduct) {
  std::mt19937_64 random(8);
  for (const Shape& shape : {Shape{3, 1, 0}, Shape{2, 2, 0}, Shape{4, 1, 6}}) {
    std::vector<std::vector<long>> sequences;
    std::vector<MarkovCounts> counts;
    for (int i = 0; i < 7; ++i) {
      sequences.push_back(random_sequence(random, shape.alphabet, shape.positions > 0 ? shape.positions : 10 + i));
      counts.push_back(markov_counts(sequences.back(), shape));
    }
    const std::vector<double> pooled = markov_pooled_base(counts, shape);
    for (const std::vector<double>& base : {std::vector<double>{}, pooled})
      for (double beta : {0.05, 1.0, 7.0, 300.0}) {
        const double oracle = oracle_log_evidence(sequences, shape, base, beta);
        const double value = polya_log_evidence(markov_polya_counts(counts, shape, base), beta).value;
        EXPECT_NEAR(value, oracle, 1e-10 * std::max(1.0, std::abs(oracle))) << "beta " << beta;
      }
  }
}

TEST(MarkovEvidence, AlignedChainsCarryNoInformationOnBeta) {
  // Each aligned sequence visits each position's context once: every total is 1, and the Polya
  // probability of one symbol is b whatever beta, so the evidence cannot choose it.
  std::mt19937_64 random(2);
  const Shape shape{4, 1, 12};
  std::vector<MarkovCounts> counts;
  for (int i = 0; i < 30; ++i) counts.push_back(markov_counts(random_sequence(random, 4, 12), shape));
  EXPECT_THROW(maximise_polya_evidence(markov_polya_counts(counts, shape, markov_pooled_base(counts, shape))),
               EstimationError);
}

// A probability vector drawn from Dirichlet(beta b).
std::vector<double> dirichlet(std::mt19937_64& random, const double* b, long size, double beta) {
  std::vector<double> p(static_cast<std::size_t>(size));
  double sum = 0;
  for (long x = 0; x < size; ++x)
    sum += p[static_cast<std::size_t>(x)] = std::gamma_distribution<double>(beta * b[x], 1.0)(random);
  for (double& v : p) v /= sum;
  return p;
}

// A homogeneous chain of order k = 1 over A symbols (slot 0: the first symbol; slot 1: every other),
// each context's row drawn from Dirichlet(beta0 b), and a sequence of `length` symbols drawn from it.
std::vector<long> draw_sequence(std::mt19937_64& random, const std::vector<double>& base, long alphabet, double beta0,
                                long length) {
  std::vector<std::vector<double>> rows;  // context 0 of slot 0, then contexts 0..A-1 of slot 1
  for (long c = 0; c < 1 + alphabet; ++c)
    rows.push_back(dirichlet(random, &base[static_cast<std::size_t>(c * alphabet)], alphabet, beta0));
  std::vector<long> x;
  for (long t = 0; t < length; ++t) {
    const std::vector<double>& row = rows[t == 0 ? 0 : static_cast<std::size_t>(1 + x.back())];
    x.push_back(std::discrete_distribution<long>(row.begin(), row.end())(random));
  }
  return x;
}

// A fixed non-uniform base for A symbols at order 1: row c proportional to 1 + ((c + x) mod A)^2.
std::vector<double> skewed_base(long alphabet) {
  std::vector<double> base;
  for (long c = 0; c < 1 + alphabet; ++c) {
    double sum = 0;
    std::vector<double> row;
    for (long x = 0; x < alphabet; ++x) {
      row.push_back(1.0 + static_cast<double>(((c + x) % alphabet) * ((c + x) % alphabet)));
      sum += row.back();
    }
    for (double v : row) base.push_back(v / sum);
  }
  return base;
}

EvidenceMaximum recover(std::mt19937_64& random, const std::vector<double>& base, long alphabet, double beta0,
                        int examples, long length) {
  const Shape shape{alphabet, 1, 0};
  std::vector<MarkovCounts> counts;
  for (int i = 0; i < examples; ++i)
    counts.push_back(markov_counts(draw_sequence(random, base, alphabet, beta0, length), shape));
  return maximise_polya_evidence(markov_polya_counts(counts, shape, base));
}

TEST(MarkovEvidence, RecoversTheGeneratingStrengthWithinThreeStandardErrors) {
  // A = 4 and 20, 150 sequences of 120 symbols, beta0 = 1, 5, 25, 100 (seeds 1, 2).
  for (long alphabet : {4L, 20L}) {
    const std::vector<double> base = skewed_base(alphabet);
    for (double beta0 : {1.0, 5.0, 25.0, 100.0})
      for (std::uint64_t seed = 1; seed <= 2; ++seed) {
        std::mt19937_64 random(seed);
        const EvidenceMaximum best = recover(random, base, alphabet, beta0, 150, 120);
        EXPECT_GT(best.standard_error, 0);
        EXPECT_LE(std::abs(best.concentration - beta0), 3 * best.standard_error)
            << "A " << alphabet << " beta0 " << beta0 << " seed " << seed << ": beta " << best.concentration << " SE "
            << best.standard_error;
      }
  }
}

TEST(MarkovEvidence, StandardErrorMatchesTheSpreadOverRepeatedDraws) {
  // 60 data sets (A = 4, beta0 = 10, 60 sequences of 80 symbols): the standard deviation of the
  // chosen beta against the mean observed-information standard error, within 30% of each other.
  const std::vector<double> base = skewed_base(4);
  std::vector<double> estimates;
  double mean_se = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 random(100 + seed);
    const EvidenceMaximum best = recover(random, base, 4, 10.0, 60, 80);
    estimates.push_back(best.concentration);
    mean_se += best.standard_error / 60;
  }
  double mean = 0, variance = 0;
  for (double e : estimates) mean += e / 60;
  for (double e : estimates) variance += (e - mean) * (e - mean) / 59;
  const double spread = std::sqrt(variance);
  EXPECT_GT(spread / mean_se, 0.7) << "spread " << spread << " SE " << mean_se;
  EXPECT_LT(spread / mean_se, 1.3) << "spread " << spread << " SE " << mean_se;
  EXPECT_LT(std::abs(mean - 10.0), 3 * spread / std::sqrt(60.0)) << "mean " << mean;
}

// The held-out score of one order, computed directly: sequence i held out in fold i mod folds and
// scored under the pooled chain of the others, with half a pseudo-count per entry.
double oracle_held_out(const std::vector<std::vector<long>>& sequences, const Shape& shape, int folds) {
  double score = 0;
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    std::map<long, double> pooled;
    for (std::size_t j = 0; j < sequences.size(); ++j)
      if (j % static_cast<std::size_t>(folds) != i % static_cast<std::size_t>(folds))
        for (const auto& [index, n] : oracle_counts(sequences[j], shape)) pooled[index] += n;
    for (long t = 0; t < static_cast<long>(sequences[i].size()); ++t) {
      const long index = markov_layout::flat_index(shape, sequences[i], t), start = index - index % shape.alphabet;
      double context = 0;
      for (long x = 0; x < shape.alphabet; ++x) context += pooled.count(start + x) ? pooled[start + x] : 0.0;
      score += std::log(((pooled.count(index) ? pooled[index] : 0.0) + 0.5) / (context + shape.alphabet / 2.0));
    }
  }
  return score;
}

TEST(MarkovOrder, HeldOutScoresMatchTheDirectComputationAndPickTheGeneratingOrder) {
  // Order-2 data over 3 symbols: x_t = x_{t-1} + x_{t-2} mod 3 with probability 0.8, else uniform.
  std::mt19937_64 random(4);
  std::vector<std::vector<long>> sequences;
  for (int i = 0; i < 23; ++i) {
    std::vector<long> x = random_sequence(random, 3, 2);
    for (int t = 2; t < 40 + i; ++t)
      x.push_back(std::bernoulli_distribution(0.8)(random) ? (x[x.size() - 1] + x[x.size() - 2]) % 3
                                                           : std::uniform_int_distribution<long>(0, 2)(random));
    sequences.push_back(x);
  }
  const SizeChoice choice = choose_markov_order(sequences, 3, 0, {0, 1, 2, 3, 4});
  ASSERT_EQ(choice.grid.size(), 5u);
  for (std::size_t i = 0; i < choice.grid.size(); ++i) {
    const double oracle = oracle_held_out(sequences, {3, choice.grid[i], 0}, 5);
    EXPECT_NEAR(choice.held_out_log_likelihoods[i], oracle, 1e-9 * std::abs(oracle));
  }
  EXPECT_EQ(choice.size, 2);
  // Independent symbols: order 0.
  std::vector<std::vector<long>> flat;
  for (int i = 0; i < 20; ++i) flat.push_back(random_sequence(random, 4, 50));
  EXPECT_EQ(choose_markov_order(flat, 4, 0, default_markov_orders()).size, 0);
  // Aligned: an order whose table outgrows a row is skipped (A = 20, L = 60: order 4 has 1.8e8
  // entries, more than 2^25).
  std::vector<std::vector<long>> aligned;
  for (int i = 0; i < 5; ++i) aligned.push_back(random_sequence(random, 20, 60));
  EXPECT_EQ(choose_markov_order(aligned, 20, 60, {0, 1, 4}).grid, (std::vector<long>{0, 1}));
  EXPECT_THROW(choose_markov_order(flat, 4, 0, {0, 1}, 30), OptionError);
}

// One-hot vectors of a symbol sequence, as ppk fit gives them to the estimator.
std::vector<SparseVector> one_hot(const std::vector<long>& x) {
  std::vector<SparseVector> vectors;
  for (long symbol : x) vectors.push_back(SparseVector{Feature{symbol, 1.0}});
  return vectors;
}

TEST(MarkovEstimator, RowsHoldTheCountsStrengthBaseAndLength) {
  std::mt19937_64 random(9);
  const std::vector<long> x = random_sequence(random, 3, 17);
  for (const Shape& shape : {Shape{3, 2, 0}, Shape{3, 1, 17}}) {
    MarkovFitOptions options;
    options.shape = shape;
    options.strength = 2.5;
    options.base = std::make_shared<const std::vector<double>>(markov_pooled_base({markov_counts(x, shape)}, shape));
    const std::unique_ptr<Model> model = estimate(*markov_estimator(options), one_hot(x), 3);
    const MarkovParameters& p = dynamic_cast<const MarkovModel&>(*model).parameters();
    EXPECT_EQ(p.strength, 2.5);
    EXPECT_EQ(p.base, *options.base);
    EXPECT_EQ(p.length, 16);  // x_0..x_16, homogeneous (n - 1) and aligned (L - 1) alike
    const std::map<long, double> oracle = oracle_counts(x, shape);
    ASSERT_EQ(p.counts.size(), oracle.size());
    std::size_t i = 0;
    for (const auto& [index, n] : oracle) EXPECT_EQ(p.counts[i++], std::make_pair(index, n));
    // p(x | s, c) = (n + beta b) / (N + beta) at a listed entry, from the family's own accessor.
    const long index = p.counts.front().first, first = index - index % 3;
    double context = 0;
    for (long y = 0; y < 3; ++y) context += oracle.count(first + y) ? oracle.at(first + y) : 0.0;
    long slot = 0;
    while (slot + 1 < markov_slots(p) && markov_slot_offset(p, slot + 1) <= index) ++slot;
    EXPECT_NEAR(markov_probability(p, slot, (first - markov_slot_offset(p, slot)) / 3, index % 3),
                (oracle.at(index) + 2.5 * (*options.base)[static_cast<std::size_t>(index)]) / (context + 2.5), 1e-15);
  }
  MarkovFitOptions homogeneous;
  homogeneous.shape = Shape{3, 1, 0};
  homogeneous.length = 40;
  EXPECT_EQ(
      dynamic_cast<const MarkovModel&>(*estimate(*markov_estimator(homogeneous), one_hot(x), 3)).parameters().length, 40);
  MarkovFitOptions aligned;
  aligned.shape = Shape{3, 1, 20};
  EXPECT_THROW(estimate(*markov_estimator(aligned), one_hot(x), 3), OptionError);  // 17 symbols, L = 20
  aligned.length = 5;
  EXPECT_THROW(markov_estimator(aligned), OptionError);  // an aligned chain stores L - 1
  std::vector<SparseVector> not_symbols = one_hot(x);
  not_symbols[3].front().value = 2.0;
  EXPECT_THROW(estimate(*markov_estimator(homogeneous), not_symbols, 3), OptionError);
}

}  // namespace
}  // namespace ppk
