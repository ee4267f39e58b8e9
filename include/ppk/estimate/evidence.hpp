// The strength of a Dirichlet / Beta prior chosen by maximum evidence over the training file's
// examples (the marginal likelihood of their counts, with each example's probabilities integrated
// out), for multinomial and Bernoulli rows. See docs/documents-smoothing.md.
//
// Multinomial rows: a_i ~ Dirichlet(A m) (A the concentration, m the base measure, a vector of D
// probabilities), c_i | a_i ~ Multinomial(N_i, a_i). The log evidence of one example is, up to a
// term free of A (Minka 2000, "Estimating a Dirichlet distribution", the Polya distribution),
//   log p(c_i | A, m) = lnG(A) - lnG(N_i + A) + sum_{d: c_id > 0} [lnG(c_id + A m_d) - lnG(A m_d)].
// Bernoulli rows: g_d ~ Beta(a, a) per feature, k_d of the example's n vectors set feature d; per
// feature the beta-binomial lnB(k_d + a, n - k_d + a) - lnB(a, a), which is the case D = 2,
// m = (1/2, 1/2), A = 2a, counts (k_d, n - k_d) of the multinomial's evidence.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "ppk/core/data.hpp"

namespace ppk {

// One table of weighted Polya (Dirichlet-multinomial) examples whose evidence is a function of the
// concentration A alone: example e has total N_e and weight w_e (how many identical examples it
// stands for); its listed cells have counts c > 0 and base probabilities m (the base is fixed).
struct PolyaCounts {
  struct Cell {
    double count;  // c > 0
    double base;   // m_d in (0, 1]
    double weight;
  };
  struct Total {
    double count;  // N = the sum of the example's cell counts
    double weight;
  };
  std::vector<Total> totals;
  std::vector<Cell> cells;
};

// The log evidence sum_e w_e [lnG(A) - lnG(N_e + A)] + sum_cells w [lnG(c + A m) - lnG(A m)] and
// its first two derivatives in A. Cost O(totals + cells).
struct LogEvidence {
  double value;
  double slope;      // d/dA
  double curvature;  // d^2/dA^2
};
LogEvidence polya_log_evidence(const PolyaCounts& counts, double concentration);

// The concentration that maximises the evidence, and its standard error 1/sqrt(-d^2/dA^2 log
// evidence) (the observed information at the maximum).
struct EvidenceMaximum {
  double concentration;
  double standard_error;
  double log_evidence;  // at the maximum (up to the term free of A)
  long iterations;
};
// Newton's method in log A with a backtracking line search (no step lowers the evidence), from
// A = 1, falling back to Minka's fixed point
//   A_new = A sum_cells w m [psi(c + A m) - psi(A m)] / sum_e w_e [psi(N_e + A) - psi(A)]
// (which never lowers the evidence) where the evidence is not concave in log A; stops when its
// slope in log A is below 1e-13 of the total count. EstimationError, saying why, when the
// evidence has no finite maximum: it grows as A -> infinity when the counts are no more dispersed
// than draws from the base (sum_cells w c (c - 1) / m <= sum_e w_e N_e (N_e - 1), the sign of the
// 1/A term of its expansion), or as A -> 0 when no example has two distinct cells; and when every
// example's total is at most 1 (the evidence is then the same for every A).
EvidenceMaximum maximise_polya_evidence(const PolyaCounts& counts);

// Multinomial rows: each example's counts (summed over its vectors) under Dirichlet(A base),
// `base` a vector of D = dim probabilities (each > 0, summing to 1; uniform: 1/D each). Every
// listed count must be >= 0 (EstimationError otherwise). Cost O(listed entries), not O(D) per example.
PolyaCounts multinomial_polya_counts(const std::vector<Example>& examples, const Eigen::VectorXd& base);
// Bernoulli rows: each example's n vectors and the number k_d setting each feature d (value != 0),
// under Beta(a, a) per feature, as the case A = 2a, m = (1/2, 1/2); the D - (features set) features
// an example never sets enter as one weighted k = 0 term, not one per feature.
PolyaCounts bernoulli_polya_counts(const std::vector<Example>& examples, long dim);

}  // namespace ppk
