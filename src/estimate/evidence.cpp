// Maximum evidence for the strength of Dirichlet / Beta priors (see evidence.hpp).
#include "ppk/estimate/evidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>

#include "estimate/estimate_detail.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk {
namespace {

using boost::math::digamma;
using boost::math::trigamma;
using detail::short_number;

// The evidence's value and slope in u = log A (the search variable): f(e^u), A f'(A), and its
// curvature A^2 f''(A) + A f'(A).
struct InLogConcentration {
  double value;
  double slope;
  double curvature;
};
InLogConcentration in_log(const PolyaCounts& counts, double concentration) {
  const LogEvidence f = polya_log_evidence(counts, concentration);
  const double a = concentration;
  return {f.value, a * f.slope, a * a * f.curvature + a * f.slope};
}

// Minka's fixed point for the concentration with the base fixed (Minka 2000, the Polya
// distribution): A sum_cells w m [psi(c + A m) - psi(A m)] / sum_e w_e [psi(N_e + A) - psi(A)].
double minka_step(const PolyaCounts& counts, double a) {
  double numerator = 0;
  for (const PolyaCounts::Cell& cell : counts.cells)
    numerator += cell.weight * cell.base * (digamma(cell.count + a * cell.base) - digamma(a * cell.base));
  double denominator = 0;
  for (const PolyaCounts::Total& total : counts.totals)
    denominator += total.weight * (digamma(total.count + a) - digamma(a));
  return a * numerator / denominator;
}

void add_cell(PolyaCounts& counts, double count, double base, double weight) {
  if (count > 0) counts.cells.push_back({count, base, weight});
}

}  // namespace

LogEvidence polya_log_evidence(const PolyaCounts& counts, double a) {
  LogEvidence f{0, 0, 0};
  for (const PolyaCounts::Total& total : counts.totals) {
    f.value += total.weight * (std::lgamma(a) - std::lgamma(total.count + a));
    f.slope += total.weight * (digamma(a) - digamma(total.count + a));
    f.curvature += total.weight * (trigamma(a) - trigamma(total.count + a));
  }
  for (const PolyaCounts::Cell& cell : counts.cells) {
    const double am = a * cell.base;
    f.value += cell.weight * (std::lgamma(cell.count + am) - std::lgamma(am));
    f.slope += cell.weight * cell.base * (digamma(cell.count + am) - digamma(am));
    f.curvature += cell.weight * cell.base * cell.base * (trigamma(cell.count + am) - trigamma(am));
  }
  return f;
}

EvidenceMaximum maximise_polya_evidence(const PolyaCounts& counts) {
  // The boundaries. As A -> infinity, lnG(c + x) - lnG(x) = c ln x + c (c - 1)/(2x) + O(1/x^2), so
  // f(A) = sum_cells w c ln m + dispersion / (2A) + O(1/A^2): when dispersion <= 0 the evidence
  // approaches its limit from below, rising towards A = infinity (the base itself).
  double total_weight = 0, largest_total = 0, pairs_total = 0, pairs_cells = 0, cell_weight = 0, mass = 0;
  for (const PolyaCounts::Total& total : counts.totals) {
    total_weight += total.weight;
    largest_total = std::max(largest_total, total.count);
    pairs_total += total.weight * total.count * (total.count - 1);
    mass += total.weight * total.count;
  }
  for (const PolyaCounts::Cell& cell : counts.cells) {
    cell_weight += cell.weight;
    pairs_cells += cell.weight * cell.count * (cell.count - 1) / cell.base;
  }
  if (!(mass > 0)) throw EstimationError("no example has any counts, so the evidence cannot choose the prior's strength");
  if (largest_total <= 1)
    throw EstimationError(
        "every example has a total count of at most 1, so the evidence is the same for every "
        "strength of the prior: it cannot be chosen by the data; give it yourself");
  if (pairs_cells <= pairs_total)
    throw EstimationError(
        "the counts are no more dispersed than draws from the prior's base measure itself (sum c(c-1)/m = " +
        short_number(pairs_cells) + " <= sum N(N-1) = " + short_number(pairs_total) +
        "), so the evidence grows without bound as the prior's strength goes to infinity, where every example "
        "would be fitted as the base; give the strength yourself");
  // As A -> 0, f(A) = (sum_cells w - sum_e w_e) ln A + O(1): -> -infinity unless no example has two
  // cells, in which case every factor (A m + j)/(A + j) of the evidence falls with A.
  if (cell_weight <= total_weight)
    throw OptionError(
        "no example has counts in two different places, so the evidence is largest as the "
        "prior's strength goes to 0 (the maximum-likelihood fit); use {method} ml");

  const double scale = mass;  // the objective's slope in log A is a sum of terms of at most this size
  double u = 0;               // log A, from A = 1
  InLogConcentration here = in_log(counts, 1.0);
  long iterations = 0;
  for (;; ++iterations) {
    if (iterations == 1000)
      throw EstimationError("the evidence maximisation did not converge in 1000 iterations (last concentration " +
                            short_number(std::exp(u)) + ")");
    if (std::abs(here.slope) <= 1e-13 * scale) break;
    double step;
    if (here.curvature < 0) {
      step = std::clamp(-here.slope / here.curvature, -2.0, 2.0);  // Newton, at most a factor e^2
    } else {
      step = std::log(minka_step(counts, std::exp(u))) - u;  // never lowers the evidence
    }
    // Backtrack until the evidence does not fall (when no step does, u is its maximum to rounding).
    InLogConcentration next{};
    bool accepted = false;
    for (int halving = 0; halving < 60; ++halving, step /= 2) {
      next = in_log(counts, std::exp(u + step));
      if (next.value >= here.value) {
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
    u += step;
    here = next;
    if (!(std::abs(u) < std::log(1e15)))
      throw EstimationError("the evidence maximisation left the range 1e-15 < concentration < 1e15 (at " +
                            short_number(std::exp(u)) + ")");
    if (std::abs(step) < 1e-14) break;
  }
  const double a = std::exp(u);
  const double curvature = polya_log_evidence(counts, a).curvature;
  const double standard_error = curvature < 0 ? 1 / std::sqrt(-curvature) : std::numeric_limits<double>::infinity();
  return {a, standard_error, here.value, iterations};
}

PolyaCounts multinomial_polya_counts(const std::vector<Example>& examples, const Eigen::VectorXd& base) {
  const long dim = base.size();
  if (dim < 1) throw EstimationError("the base measure is empty");
  if (!((base.array() > 0).all() && std::abs(base.sum() - 1) <= 1e-9))
    throw EstimationError("the base measure must be positive and sum to 1");
  PolyaCounts counts;
  std::vector<Feature> entries;
  for (const Example& example : examples) {
    entries.clear();
    for (const SparseVector& vector : example.vectors)
      for (const Feature& entry : vector) {
        if (entry.coord < 0 || entry.coord >= dim)
          throw EstimationError("index " + std::to_string(entry.coord + 1) + " is outside the dimension " +
                                std::to_string(dim));
        if (!(entry.value >= 0 && std::isfinite(entry.value)))
          throw EstimationError("count " + short_number(entry.value) + " at index " + std::to_string(entry.coord + 1) +
                                " is not a finite number >= 0");
        entries.push_back(entry);
      }
    // The example's counts summed over its vectors, one cell per coordinate.
    std::sort(entries.begin(), entries.end(), [](const Feature& x, const Feature& y) { return x.coord < y.coord; });
    double total = 0;
    for (std::size_t i = 0; i < entries.size();) {
      double count = 0;
      const long coord = entries[i].coord;
      for (; i < entries.size() && entries[i].coord == coord; ++i) count += entries[i].value;
      add_cell(counts, count, base(coord), 1.0);
      total += count;
    }
    if (total > 0) counts.totals.push_back({total, 1.0});
  }
  return counts;
}

PolyaCounts bernoulli_polya_counts(const std::vector<Example>& examples, long dim) {
  if (dim < 1) throw EstimationError("the dimension must be >= 1");
  PolyaCounts counts;
  std::vector<long> set;  // the coordinates set in one vector after another
  for (const Example& example : examples) {
    set.clear();
    for (const SparseVector& vector : example.vectors)
      for (const Feature& entry : vector) {
        if (entry.coord < 0 || entry.coord >= dim)
          throw EstimationError("index " + std::to_string(entry.coord + 1) + " is outside the dimension " +
                                std::to_string(dim));
        if (entry.value != 0) set.push_back(entry.coord);
      }
    std::sort(set.begin(), set.end());
    const double n = static_cast<double>(example.vectors.size());
    long features_set = 0;
    for (std::size_t i = 0; i < set.size(); ++features_set) {
      double k = 0;
      const long coord = set[i];
      for (; i < set.size() && set[i] == coord; ++i) k += 1;
      counts.totals.push_back({n, 1.0});
      add_cell(counts, k, 0.5, 1.0);
      add_cell(counts, n - k, 0.5, 1.0);
    }
    // The features the example never sets: k = 0 of n, one term weighted by how many they are.
    const double unset = static_cast<double>(dim - features_set);
    if (unset > 0) {
      counts.totals.push_back({n, unset});
      add_cell(counts, n, 0.5, unset);
    }
  }
  return counts;
}

}  // namespace ppk
