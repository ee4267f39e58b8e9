// Markov chains of order k (families/markov.hpp) from symbol sequences: each sequence's chain is its
// own k-mer counts smoothed toward a base chain, the strength chosen by the data (issue 48 item 2;
// for aligned sequences the chain over positions is the Bayesian network x_0 -> x_1 -> ... of JMLR
// 2004 section 4.3 with a CPT per position). docs/families.md "markov" for the kernel.
//
// A chain of order k over the alphabet 0..A-1 has slots s, each with A^depth(s) contexts of A
// symbols (markov.hpp's layout): homogeneous chains slots 0..k, slot min(t, k) at position t;
// aligned chains over L positions slots 0..L-1, slot t at position t; depth(s) = min(s, k). The
// context of position t is the depth(s) symbols before it.
//
// Fit of one sequence (markov_estimator): n_{s,c,x} the number of positions t of slot s whose
// context is c and whose symbol is x, N_{s,c} = sum_x n_{s,c,x};
//   p(x | s, c) = (n_{s,c,x} + beta b_{s,c,x}) / (N_{s,c} + beta),
// the posterior mean of theta_{s,c} ~ Dirichlet(beta b_{s,c,.}) given the counts: beta >= 0
// pseudo-counts per context toward the base b (each b_{s,c,.} a probability vector). The row keeps
// the counts sparsely (the k-mers that occur), beta and the base.
//
// The base (markov_pooled_base): uniform, b = 1/A, or the pooled chain of a training file,
//   b_{s,c,x} = (M_{s,c,x} + 1/2) / (M_{s,c} + A/2),
// M the counts summed over its sequences: half a pseudo-count per entry (Krichevsky-Trofimov), so
// that no base entry is 0 and a context the training file never shows gets the uniform base.
//
// The strength by maximum evidence (markov_polya_counts, maximise_polya_evidence of evidence.hpp):
// with theta_{e,s,c} ~ Dirichlet(beta b_{s,c,.}) independently for every example e and context, the
// probability of sequence e with theta integrated out is
//   prod_{s,c} G(beta) / G(N_{e,s,c} + beta) prod_x G(n_{e,s,c,x} + beta b_{s,c,x}) / G(beta b_{s,c,x})
// (Polya, Minka 2000; no multinomial coefficient: the order of the symbols is observed), a product
// over the contexts the sequence visits; the contexts it never visits contribute 1. Its logarithm
// summed over the examples is a function of beta alone, maximised by Newton's method in log beta.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/evidence.hpp"
#include "ppk/families/markov.hpp"

namespace ppk {

// The chain's shape is a MarkovParameters whose alphabet, order and positions are set (markov.hpp:
// its layout helpers read only these); counts, base and strength are ignored.

// The shape alone: A symbols, order k, L aligned positions (0: homogeneous), the length L - 1 of an
// aligned chain; no counts, no base, strength 0.
MarkovParameters markov_shape(long alphabet, long order, long positions);
// EstimationError naming {order} unless the shape is a valid chain whose table (markov_table_size)
// a row may hold, checked by the family's constructor before any table of that size exists.
void check_markov_shape(const MarkovParameters& shape);

// A sequence's counts: (flat index, n > 0) at increasing index, the flat index of position t being
// markov_flat_index (markov.hpp).
using MarkovCounts = std::vector<std::pair<long, double>>;
// The counts of one sequence of symbols in 0..A-1 (aligned: of exactly L symbols). EstimationError
// otherwise, naming the position and the symbol, or both lengths and {positions}.
MarkovCounts markov_counts(const std::vector<long>& sequence, const MarkovParameters& shape);

// The pooled chain b = (M + 1/2) / (M_context + A/2) of the counts of every training sequence, as
// a dense table of markov_table_size(shape) entries.
std::vector<double> markov_pooled_base(const std::vector<MarkovCounts>& examples, const MarkovParameters& shape);

// The evidence's table (evidence.hpp): for every example and every context it visits, one total
// N_{e,s,c} and a cell (n, b_{s,c,x}) per symbol seen there; `base` a dense table (empty: uniform).
PolyaCounts markov_polya_counts(const std::vector<MarkovCounts>& examples, const MarkovParameters& shape,
                                const std::vector<double>& base);

// The order k of `orders` under which the pooled chain (smoothed as markov_pooled_base) best
// predicts held-out sequences: `folds`-fold cross-validation over the sequences (sequence i held
// out in fold i mod folds), the score the summed log-likelihood of every held-out sequence under
// the pooled chain of the others. An order whose table a row could not hold is skipped.
// `positions` L > 0: aligned chains (every sequence of L symbols). OptionError naming {order} with
// fewer sequences than folds or no order left.
SizeChoice choose_markov_order(const std::vector<std::vector<long>>& sequences, long alphabet, long positions,
                               const std::vector<long>& orders, int folds = 5);
std::vector<long> default_markov_orders();  // 0, 1, 2, 3, 4, 5

// What markov_estimator fits: the shape, the stored length (homogeneous only; default n - 1 for a
// sequence of n symbols, x_0..x_T as for hmm; aligned chains store L - 1), beta and the base
// (null: uniform; else markov_table_size(shape) entries, each context's A entries summing to 1).
struct MarkovFitOptions {
  MarkovParameters shape;      // alphabet, order and positions
  std::optional<long> length;  // T >= 0
  double strength = 1.0;       // beta >= 0
  std::shared_ptr<const std::vector<double>> base;
};
// The estimator of markov rows: statistics() reads the one-hot vectors of a symbol sequence (as
// for hmm's discrete emissions), fit() counts and smooths. An aligned chain's sequence of another
// length than L is an EstimationError naming both lengths and {positions}.
std::unique_ptr<Estimator> markov_estimator(const MarkovFitOptions& options);

}  // namespace ppk
