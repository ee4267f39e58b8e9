// Maximum evidence for the strength of Dirichlet / Beta priors (evidence.hpp), against an
// independent oracle: the Polya probability as a direct product of rising factorials,
//   p(c | A, m) / multinomial coefficient = prod_d prod_{j < c_d} (A m_d + j) / prod_{j < N} (A + j),
// and, for Bernoulli rows, the beta-binomial of every feature (all D of them, dense) as the same
// product with D = 2; its maximiser is found by a fine grid in log A refined by golden section.
// Then recovery: on synthetic Dirichlet-multinomial and Beta-Bernoulli data (fixed seeds) the
// chosen strength lies within 2 standard errors of the generating one in all but the expected few
// of the cases (z = (chosen - true) / SE is normal for a calibrated SE: 5% beyond 2), none beyond
// 3.5 SE, and the root mean square of z is near 1 (so the SE is neither too small nor inflated).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/evidence.hpp"

namespace ppk {
namespace {

// log prod_{j < count} (x + j), count a whole number.
double log_rising(double x, int count) {
  double sum = 0;
  for (int j = 0; j < count; ++j) sum += std::log(x + j);
  return sum;
}

// Dense integer count tables: counts[i][d].
using Table = std::vector<std::vector<int>>;

double oracle_multinomial(const Table& counts, const std::vector<double>& base, double a) {
  double total = 0;
  for (const std::vector<int>& row : counts) {
    int n = 0;
    for (std::size_t d = 0; d < row.size(); ++d) {
      total += log_rising(a * base[d], row[d]);
      n += row[d];
    }
    total -= log_rising(a, n);
  }
  return total;
}

// Bernoulli: example i is vectors[i] (dense 0/1 rows); Beta(b, b) per feature, every feature.
using BinaryExample = std::vector<std::vector<int>>;
double oracle_bernoulli(const std::vector<BinaryExample>& examples, int dim, double b) {
  double total = 0;
  for (const BinaryExample& vectors : examples) {
    const int n = static_cast<int>(vectors.size());
    for (int d = 0; d < dim; ++d) {
      int k = 0;
      for (const std::vector<int>& v : vectors) k += v[d];
      total += log_rising(b, k) + log_rising(b, n - k) - log_rising(2 * b, n);
    }
  }
  return total;
}

// The maximiser of f over log A in [lo, hi]: a grid of 4001 points, then golden section on the
// bracket around the best grid point.
double oracle_argmax(const std::function<double(double)>& f, double lo, double hi) {
  const int points = 4001;
  double best_u = lo, best = -INFINITY;
  const double h = (hi - lo) / (points - 1);
  for (int i = 0; i < points; ++i) {
    const double u = lo + i * h;
    const double value = f(std::exp(u));
    if (value > best) best = value, best_u = u;
  }
  double a = best_u - h, b = best_u + h;
  const double g = (std::sqrt(5.0) - 1) / 2;
  while (b - a > 1e-12) {
    const double c = b - g * (b - a), d = a + g * (b - a);
    if (f(std::exp(c)) > f(std::exp(d)))
      b = d;
    else
      a = c;
  }
  return std::exp((a + b) / 2);
}

std::vector<Example> examples_of(const Table& counts) {
  std::vector<Example> examples;
  for (const std::vector<int>& row : counts) {
    Example example;
    // Split each example's counts over two vectors, as qid groups would give them.
    SparseVector first, second;
    for (std::size_t d = 0; d < row.size(); ++d) {
      if (row[d] == 0) continue;
      const int half = row[d] / 2;
      if (half > 0) first.push_back({static_cast<long>(d), static_cast<double>(half)});
      second.push_back({static_cast<long>(d), static_cast<double>(row[d] - half)});
    }
    example.vectors = {first, second};
    examples.push_back(example);
  }
  return examples;
}

std::vector<Example> examples_of(const std::vector<BinaryExample>& binary) {
  std::vector<Example> examples;
  for (const BinaryExample& vectors : binary) {
    Example example;
    for (const std::vector<int>& v : vectors) {
      SparseVector sparse;
      for (std::size_t d = 0; d < v.size(); ++d)
        if (v[d]) sparse.push_back({static_cast<long>(d), 1.0});
      example.vectors.push_back(sparse);
    }
    examples.push_back(example);
  }
  return examples;
}

Eigen::VectorXd to_vector(const std::vector<double>& base) {
  return Eigen::Map<const Eigen::VectorXd>(base.data(), static_cast<Eigen::Index>(base.size()));
}

const Table kSmallCounts = {{3, 0, 1, 0, 2}, {0, 0, 4, 1, 0}, {1, 1, 0, 0, 5}, {0, 2, 2, 0, 0}, {6, 0, 0, 1, 0}};

TEST(PolyaEvidence, ObjectiveMatchesTheRisingFactorialProduct) {
  const std::vector<double> base = {0.1, 0.2, 0.3, 0.15, 0.25};
  const PolyaCounts counts = multinomial_polya_counts(examples_of(kSmallCounts), to_vector(base));
  for (double a : {0.01, 0.3, 1.0, 4.0, 50.0, 1e4}) {
    const double oracle = oracle_multinomial(kSmallCounts, base, a);
    EXPECT_NEAR(polya_log_evidence(counts, a).value, oracle, 1e-10 * std::abs(oracle)) << "A = " << a;
    // The derivatives against central differences of the oracle.
    const double h = 1e-4 * a;
    const double up = oracle_multinomial(kSmallCounts, base, a + h), down = oracle_multinomial(kSmallCounts, base, a - h);
    const LogEvidence f = polya_log_evidence(counts, a);
    EXPECT_NEAR(f.slope, (up - down) / (2 * h), 1e-6 * (std::abs(f.slope) + 1 / a)) << "A = " << a;
    EXPECT_NEAR(f.curvature, (up - 2 * oracle + down) / (h * h), 1e-4 * (std::abs(f.curvature) + 1 / (a * a)))
        << "A = " << a;
  }
}

TEST(PolyaEvidence, MaximiserMatchesTheGridForUniformAndNonUniformBases) {
  for (const std::vector<double>& base : {std::vector<double>(5, 0.2), std::vector<double>{0.1, 0.2, 0.3, 0.15, 0.25}}) {
    const PolyaCounts counts = multinomial_polya_counts(examples_of(kSmallCounts), to_vector(base));
    const EvidenceMaximum best = maximise_polya_evidence(counts);
    const double oracle =
        oracle_argmax([&](double a) { return oracle_multinomial(kSmallCounts, base, a); }, std::log(1e-3), std::log(1e3));
    EXPECT_NEAR(best.concentration, oracle, 1e-6 * oracle);
    EXPECT_NEAR(best.log_evidence, oracle_multinomial(kSmallCounts, base, oracle), 1e-9);
    EXPECT_GT(best.standard_error, 0);
  }
}

TEST(PolyaEvidence, BernoulliObjectiveAndMaximiserMatchTheDenseBetaBinomial) {
  // Three examples of 4, 3 and 5 vectors over D = 6 features; feature 6 is never set.
  const std::vector<BinaryExample> binary = {
      {{1, 0, 1, 0, 0, 0}, {1, 0, 0, 0, 0, 0}, {1, 1, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}},
      {{0, 1, 0, 1, 0, 0}, {0, 1, 0, 1, 1, 0}, {0, 1, 0, 0, 0, 0}},
      {{1, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 1, 0}, {1, 0, 1, 0, 1, 0}, {1, 0, 0, 0, 1, 0}, {0, 1, 0, 0, 0, 0}}};
  const int dim = 6;
  const PolyaCounts counts = bernoulli_polya_counts(examples_of(binary), dim);
  for (double b : {0.05, 0.5, 2.0, 30.0}) {
    const double oracle = oracle_bernoulli(binary, dim, b);
    EXPECT_NEAR(polya_log_evidence(counts, 2 * b).value, oracle, 1e-10 * std::abs(oracle)) << "b = " << b;
  }
  const EvidenceMaximum best = maximise_polya_evidence(counts);
  const double oracle =
      oracle_argmax([&](double b) { return oracle_bernoulli(binary, dim, b); }, std::log(1e-3), std::log(1e3));
  EXPECT_NEAR(best.concentration / 2, oracle, 1e-6 * oracle);
}

// p_i ~ Dirichlet(A m), counts ~ Multinomial(N, p_i).
Table dirichlet_multinomial(std::mt19937_64& random, const std::vector<double>& base, double a, int examples, int n) {
  Table counts;
  for (int i = 0; i < examples; ++i) {
    std::vector<double> p(base.size());
    for (std::size_t d = 0; d < base.size(); ++d) p[d] = std::gamma_distribution<double>(a * base[d], 1.0)(random);
    std::discrete_distribution<int> draw(p.begin(), p.end());
    std::vector<int> row(base.size(), 0);
    for (int j = 0; j < n; ++j) ++row[draw(random)];
    counts.push_back(row);
  }
  return counts;
}

// The standardised errors z of a set of recoveries: at most `beyond_two` with |z| > 2 (the
// expected number is 5% of them), none with |z| > 3.5, and rms(z) in [0.6, 1.4].
void expect_calibrated(const std::vector<double>& z, int beyond_two) {
  int count = 0;
  double squares = 0;
  for (double value : z) {
    count += std::abs(value) > 2;
    EXPECT_LE(std::abs(value), 3.5);
    squares += value * value;
  }
  EXPECT_LE(count, beyond_two);
  const double rms = std::sqrt(squares / static_cast<double>(z.size()));
  EXPECT_GT(rms, 0.6);
  EXPECT_LT(rms, 1.4);
}

TEST(PolyaEvidence, RecoversTheGeneratingConcentrationWithinItsStandardError) {
  // D = 60, 150 documents of 40 words; a uniform and a skewed base (m_d proportional to 1/(d + 5)),
  // A = 6, 60, 600, seeds 1..4: 24 cases, of which 2 are beyond 2 SE (skewed base, seed 4:
  // +2.4 SE at A = 6, -3.25 SE at A = 600). Over 200 seeds per A (uniform base) 4-6% were beyond 2 SE, as a calibrated SE
  // gives.
  const int dim = 60;
  std::vector<double> skewed(dim);
  double sum = 0;
  for (int d = 0; d < dim; ++d) sum += skewed[d] = 1.0 / (d + 5);
  for (double& m : skewed) m /= sum;
  std::vector<double> z;
  for (const std::vector<double>& base : {std::vector<double>(dim, 1.0 / dim), skewed})
    for (double a_true : {6.0, 60.0, 600.0})
      for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        std::mt19937_64 random(seed);
        const Table counts = dirichlet_multinomial(random, base, a_true, 150, 40);
        const EvidenceMaximum best =
            maximise_polya_evidence(multinomial_polya_counts(examples_of(counts), to_vector(base)));
        z.push_back((best.concentration - a_true) / best.standard_error);
      }
  expect_calibrated(z, 2);
}

TEST(PolyaEvidence, BernoulliRecoversTheGeneratingStrengthWithinItsStandardError) {
  // D = 40 features, 120 examples of 8 vectors; g_d ~ Beta(b, b) per example and feature;
  // b = 0.3, 1, 5, seeds 1..4: 12 cases, none beyond 2 SE.
  const int dim = 40;
  std::vector<double> z;
  for (double b_true : {0.3, 1.0, 5.0})
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      std::mt19937_64 random(seed);
      std::vector<BinaryExample> binary;
      for (int i = 0; i < 120; ++i) {
        std::vector<double> g(dim);
        for (double& x : g) {
          const double u = std::gamma_distribution<double>(b_true, 1.0)(random);
          const double v = std::gamma_distribution<double>(b_true, 1.0)(random);
          x = u / (u + v);
        }
        BinaryExample vectors(8, std::vector<int>(dim, 0));
        for (std::vector<int>& v : vectors)
          for (int d = 0; d < dim; ++d) v[d] = std::bernoulli_distribution(g[d])(random) ? 1 : 0;
        binary.push_back(vectors);
      }
      const EvidenceMaximum best = maximise_polya_evidence(bernoulli_polya_counts(examples_of(binary), dim));
      // The Beta's parameter b is half the concentration A = 2b, and so is its standard error.
      z.push_back((best.concentration - 2 * b_true) / best.standard_error);
    }
  expect_calibrated(z, 0);
}

TEST(PolyaEvidence, BoundariesAreRefusedSayingWhy) {
  const std::vector<double> uniform(4, 0.25);
  const auto maximise = [&](const Table& counts) {
    return maximise_polya_evidence(multinomial_polya_counts(examples_of(counts), to_vector(uniform)));
  };
  const auto expect_error = [](const std::function<void()>& call, const std::string& fragment) {
    try {
      call();
      ADD_FAILURE() << "no error; expected one containing '" << fragment << "'";
    } catch (const EstimationError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  // Every word at most once in documents spread evenly: no more dispersed than the base -> A = infinity.
  expect_error([&] { maximise({{1, 1, 1, 1}, {1, 1, 0, 1}, {0, 1, 1, 1}}); }, "grows without bound");
  // One word repeated per document: the evidence is largest as A -> 0.
  expect_error([&] { maximise({{3, 0, 0, 0}, {0, 5, 0, 0}, {0, 0, 2, 0}}); }, "goes to 0");
  // One count per document: the evidence does not depend on A.
  expect_error([&] { maximise({{1, 0, 0, 0}, {0, 1, 0, 0}}); }, "at most 1");
  expect_error([&] { maximise({{0, 0, 0, 0}}); }, "no example has any counts");
  // Bernoulli rows of one vector each: the beta-binomial of one draw is 1/2 whatever b.
  expect_error(
      [&] {
        maximise_polya_evidence(
            bernoulli_polya_counts(examples_of(std::vector<BinaryExample>{{{1, 0, 1}}, {{0, 1, 1}}}), 3));
      },
      "at most 1");
  // Negative counts are not counts.
  Example negative;
  negative.vectors = {{{0, -1.0}}};
  expect_error([&] { multinomial_polya_counts({negative}, to_vector(uniform)); }, "not a finite number >= 0");
}

}  // namespace
}  // namespace ppk
