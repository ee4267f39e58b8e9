// Markov chains of order k from symbol sequences (estimate_markov.hpp): counts, the pooled base,
// the evidence's table, the order by held-out likelihood and the estimator. The layout (slots,
// offsets, contexts) is the family's own (markov.hpp).
#include "ppk/estimate/estimate_markov.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "estimate/estimate_detail.hpp"

namespace ppk {
namespace {

// The dense pooled counts of `examples` over a table of `size` entries.
std::vector<double> dense_counts(const std::vector<const MarkovCounts*>& examples, long size) {
  std::vector<double> total(static_cast<std::size_t>(size), 0.0);
  for (const MarkovCounts* counts : examples)
    for (const auto& [index, n] : *counts) total[static_cast<std::size_t>(index)] += n;
  return total;
}

// b = (M + 1/2) / (M_context + A/2) in place, over every context (A consecutive entries).
void smooth_in_place(std::vector<double>& table, long alphabet) {
  const auto a = static_cast<std::size_t>(alphabet);
  for (std::size_t first = 0; first < table.size(); first += a) {
    double context = 0;
    for (std::size_t x = 0; x < a; ++x) context += table[first + x];
    const double denominator = context + static_cast<double>(alphabet) / 2;
    for (std::size_t x = 0; x < a; ++x) table[first + x] = (table[first + x] + 0.5) / denominator;
  }
}

class MarkovEstimator : public Estimator {
 public:
  explicit MarkovEstimator(const MarkovFitOptions& options) : options_(options) {
    check_markov_shape(options.shape);
    detail::check_option("strength", options.strength, 0, false);
    if (options.base && static_cast<long>(options.base->size()) != markov_table_size(options.shape))
      throw OptionError("the base holds " + std::to_string(options.base->size()) + " entries, but the chain has " +
                        std::to_string(markov_table_size(options.shape)));
    if (options.length && options.shape.positions > 0)
      throw OptionError("{length} applies to homogeneous chains: an aligned chain over L positions stores L - 1");
    if (options.length && (*options.length < 0 || *options.length > kMaxMarkovLength))
      throw OptionError("{length} must be in [0, " + std::to_string(kMaxMarkovLength) + "], got " +
                        std::to_string(*options.length));
  }
  std::string family() const override { return "markov"; }
  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    statistics.sums["symbols"] = detail::one_hot_symbols(
        vectors, "a Markov chain takes a symbol sequence, each vector a single index:1 entry (the symbol's index)");
    return statistics;
  }
  Statistics pool(const Statistics&, const Statistics&, double) const override { detail::reject_pooling(family()); }
  // p(x | s, c) = (n + beta b) / (N + beta): the family stores the counts, beta and the base.
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    const std::vector<long> symbols = detail::symbols_of(statistics);
    MarkovParameters p = options_.shape;
    p.counts = markov_counts(symbols, p);
    p.length = p.positions > 0 ? p.positions - 1 : options_.length.value_or(static_cast<long>(symbols.size()) - 1);
    p.strength = options_.strength;
    if (options_.base) p.base = *options_.base;
    return detail::build_model([&] { return std::make_unique<MarkovModel>(std::move(p)); });
  }

 private:
  MarkovFitOptions options_;
};

}  // namespace

MarkovParameters markov_shape(long alphabet, long order, long positions) {
  MarkovParameters shape;
  shape.alphabet = alphabet;
  shape.order = order;
  shape.positions = positions;
  shape.length = positions > 0 ? positions - 1 : 0;
  return shape;
}

void check_markov_shape(const MarkovParameters& shape) {
  try {
    MarkovModel(markov_shape(shape.alphabet, shape.order, shape.positions));
  } catch (const ModelError& e) {
    throw OptionError("no chain of {order} " + std::to_string(shape.order) + " over " + std::to_string(shape.alphabet) +
                      " symbols" +
                      (shape.positions > 0 ? " and " + std::to_string(shape.positions) + " aligned positions" : "") +
                      ": " + escape_braces(e.what()) + "; lower {order}");
  }
}

MarkovCounts markov_counts(const std::vector<long>& sequence, const MarkovParameters& shape) {
  if (sequence.empty()) throw EstimationError("the sequence is empty");
  if (shape.positions > 0 && static_cast<long>(sequence.size()) != shape.positions)
    throw OptionError("the sequence has " + std::to_string(sequence.size()) +
                      " symbols, but the aligned chain ({positions}) covers L = " + std::to_string(shape.positions) +
                      " positions, the training sequences' length");
  for (std::size_t t = 0; t < sequence.size(); ++t)
    if (sequence[t] < 0 || sequence[t] >= shape.alphabet)
      throw EstimationError("symbol " + std::to_string(sequence[t]) + " at position " + std::to_string(t + 1) +
                            " is outside the alphabet 0.." + std::to_string(shape.alphabet - 1));
  std::vector<long> indices(sequence.size());
  for (std::size_t t = 0; t < sequence.size(); ++t) indices[t] = markov_flat_index(shape, sequence, static_cast<long>(t));
  std::sort(indices.begin(), indices.end());
  MarkovCounts counts;
  for (std::size_t i = 0; i < indices.size();) {
    std::size_t j = i;
    while (j < indices.size() && indices[j] == indices[i]) ++j;
    counts.emplace_back(indices[i], static_cast<double>(j - i));
    i = j;
  }
  return counts;
}

std::vector<double> markov_pooled_base(const std::vector<MarkovCounts>& examples, const MarkovParameters& shape) {
  check_markov_shape(shape);
  std::vector<const MarkovCounts*> all;
  for (const MarkovCounts& counts : examples) all.push_back(&counts);
  std::vector<double> base = dense_counts(all, markov_table_size(shape));
  smooth_in_place(base, shape.alphabet);
  return base;
}

PolyaCounts markov_polya_counts(const std::vector<MarkovCounts>& examples, const MarkovParameters& shape,
                                const std::vector<double>& base) {
  check_markov_shape(shape);
  if (!base.empty() && static_cast<long>(base.size()) != markov_table_size(shape))
    throw EstimationError("the base holds " + std::to_string(base.size()) + " entries, but the chain has " +
                          std::to_string(markov_table_size(shape)));
  const long a = shape.alphabet;
  const double uniform = 1.0 / static_cast<double>(a);
  PolyaCounts counts;
  for (const MarkovCounts& example : examples) {
    // A context's A entries are consecutive in the flat layout: flat index / A numbers the context.
    for (std::size_t i = 0; i < example.size();) {
      const long context = example[i].first / a;
      double total = 0;
      for (; i < example.size() && example[i].first / a == context; ++i) {
        const auto [index, n] = example[i];
        counts.cells.push_back({n, base.empty() ? uniform : base[static_cast<std::size_t>(index)], 1.0});
        total += n;
      }
      counts.totals.push_back({total, 1.0});
    }
  }
  return counts;
}

std::vector<long> default_markov_orders() { return {0, 1, 2, 3, 4, 5}; }

SizeChoice choose_markov_order(const std::vector<std::vector<long>>& sequences, long alphabet, long positions,
                               const std::vector<long>& orders, int folds) {
  if (folds < 2) throw OptionError("choosing {order} needs at least 2 folds");
  if (static_cast<long>(sequences.size()) < folds)
    throw OptionError("choosing {order} by " + std::to_string(folds) + "-fold cross-validation needs at least " +
                      std::to_string(folds) + " sequences, got " + std::to_string(sequences.size()) +
                      "; give {order} a value");
  SizeChoice choice;
  for (long order : orders) {
    const MarkovParameters shape = markov_shape(alphabet, order, positions);
    try {
      check_markov_shape(shape);
    } catch (const OptionError&) {
      continue;  // a table larger than a row holds
    }
    const long size = markov_table_size(shape);
    std::vector<MarkovCounts> counts;
    counts.reserve(sequences.size());
    for (const std::vector<long>& sequence : sequences) counts.push_back(markov_counts(sequence, shape));
    std::vector<const MarkovCounts*> all;
    for (const MarkovCounts& c : counts) all.push_back(&c);
    const std::vector<double> total = dense_counts(all, size);
    double score = 0;
    for (int fold = 0; fold < folds; ++fold) {
      // The pooled chain of the other folds: the total less this fold's counts, smoothed.
      std::vector<const MarkovCounts*> held_out;
      for (std::size_t i = static_cast<std::size_t>(fold); i < counts.size(); i += static_cast<std::size_t>(folds))
        held_out.push_back(&counts[i]);
      std::vector<double> chain = dense_counts(held_out, size);
      for (std::size_t j = 0; j < chain.size(); ++j) chain[j] = total[j] - chain[j];
      smooth_in_place(chain, alphabet);
      for (const MarkovCounts* example : held_out)
        for (const auto& [index, n] : *example) score += n * std::log(chain[static_cast<std::size_t>(index)]);
    }
    choice.grid.push_back(order);
    choice.held_out_log_likelihoods.push_back(score);
    if (choice.grid.size() == 1 || score > choice.best_score) {
      choice.best_score = score;
      choice.size = order;
    }
  }
  if (choice.grid.empty()) throw OptionError("no {order} of the grid gives a chain whose table a row may hold");
  return choice;
}

std::unique_ptr<Estimator> markov_estimator(const MarkovFitOptions& options) {
  return std::make_unique<MarkovEstimator>(options);
}

}  // namespace ppk
