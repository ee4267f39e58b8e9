// Markov chains of order k and their kernel (see markov.hpp).
//
// JMLR 2004 section 4.3: the chain is the Bayesian network x_0 -> x_1 -> ... whose node x_t has the
// previous min(t, k) symbols as its parents, p(x_0..x_T) = prod_t p(x_t | s_t, c_t), c_t the context of
// x_t. The product of two such chains raised to rho factorises the same way,
//     p(x)^rho q(x)^rho = prod_t w_t(c_t A + x_t),   w_t(j) = p(j | s_t)^rho q(j | s'_t)^rho,
// so the sum over all A^{T+1} sequences eliminates x_0, x_1, ... in order, carrying the last min(t, K)
// symbols (K the larger order) as the state:
//     alpha_0(empty context) = 1,
//     alpha_{t+1}(j mod A^{d_{t+1}}) = sum over (c, x) with j = c A + x of alpha_t(c) w_t(j),
//     k = sum alpha_{T+1}.
// In matrix form, with the A x A^d matrix W_t (column c: the A weights after context c):
//     B_t = W_t diag(alpha_t)   (A x A^d; read column by column it is the vector over j = c A + x),
//     alpha_{t+1} = B_t as a vector          when the depth grows (d_{t+1} = d + 1),
//     alpha_{t+1} = B_t as an A^d x A matrix, its rows summed   when it stays d (the oldest symbol,
//                   the most significant digit of j, summed out),
// A^{d+1} multiply-adds per step: O(T A^{K+1}) in all. A chain of order k' < K reads its weight at
// j mod A^{min(t, k') + 1}: its A x A^{d'} block repeated A^{d - d'} times across the columns.
#include "ppk/families/markov.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk {

namespace {

const char* const kFamily = "markov";

// A^e for the sizes the constructor allows (A^e <= 2^25 wherever it is called on a valid chain).
long power_of(long base, long exponent) {
  long value = 1;
  for (long i = 0; i < exponent; ++i) value *= base;
  return value;
}

// S in double, for the check before any table of that size exists: sum over slots of A^{d_s + 1}.
double table_size_in_double(const MarkovParameters& p) {
  const double a = static_cast<double>(p.alphabet);
  const long slots = p.positions > 0 ? p.positions : p.order + 1;
  double size = 0.0, entries = a;  // A^{d + 1} at depth d = 0
  for (long s = 0; s < slots; ++s) {
    size += entries;
    if (s < p.order) entries *= a;  // the next slot is one symbol deeper
  }
  return size;
}

// FieldError on "order" unless the table of the chain's slots holds at most 2^25 entries: run by the
// readers before the base and the counts, whose sizes are S, are read.
void check_table_size(const MarkovParameters& p) {
  const double size = table_size_in_double(p);
  if (size > static_cast<double>(kMaxMarkovTableSize))
    throw detail::field_error(
        kFamily, "order",
        "a table of at most " + std::to_string(kMaxMarkovTableSize) + " entries (A^(d+1) per slot of depth d: A = " +
            std::to_string(p.alphabet) + ", order " + std::to_string(p.order) + ", " +
            (p.positions > 0 ? std::to_string(p.positions) + " positions" : std::string("homogeneous")) +
            "; docs/families.md, \"Limits\")",
        size > 1e15 ? std::string("more than 10^15") : detail::format_number(size));
}

}  // namespace

template <class Archive>
void MarkovParameters::fields(Archive& archive) {
  archive.whole_number("alphabet", alphabet, 1, kMaxMarkovAlphabet);
  archive.whole_number("order", order, 0, kMaxMarkovOrder);
  archive.optional_whole_number("positions", positions, 1, kMaxMarkovPositions);
  archive.whole_number("length", length, 0, kMaxMarkovLength);
  archive.real("strength", strength);
  archive.validate([&] { check_table_size(*this); });
  const detail::Dimension table{markov_table_size(*this), 0, kMaxMarkovTableSize, "order"};
  archive.optional_reals("base", base, table);
  archive.sparse_reals("counts", counts, table, "n");
}

long markov_slots(const MarkovParameters& p) { return p.positions > 0 ? p.positions : p.order + 1; }

long markov_slot_depth(const MarkovParameters& p, long slot) { return std::min(slot, p.order); }

long markov_slot_offset(const MarkovParameters& p, long slot) {
  // Slots of depth d < k: A^{d+1} each (d = 0..min(slot, k) - 1), then A^{k+1} for each slot of depth k.
  const long growing = std::min(slot, p.order);
  long offset = 0;
  for (long d = 0; d < growing; ++d) offset += power_of(p.alphabet, d + 1);
  return slot > growing ? offset + (slot - growing) * power_of(p.alphabet, p.order + 1) : offset;
}

long markov_table_size(const MarkovParameters& p) { return markov_slot_offset(p, markov_slots(p)); }

long markov_slot_at(const MarkovParameters& p, long t) { return p.positions > 0 ? t : std::min(t, p.order); }

long markov_flat_index(const MarkovParameters& p, const std::vector<long>& symbols, long t) {
  const long slot = markov_slot_at(p, t);
  long context = 0;
  for (long j = markov_slot_depth(p, slot); j >= 1; --j) context = context * p.alphabet + symbols[t - j];
  return markov_slot_offset(p, slot) + context * p.alphabet + symbols[t];
}

namespace {

// The base b_j of the flat index j.
double base_of(const MarkovParameters& p, long j) {
  return p.base.empty() ? 1.0 / static_cast<double>(p.alphabet) : p.base[j];
}

// The smoothing formula of markov.hpp: (n + beta b) / (N + beta), or b when N + beta = 0.
double smoothed(const MarkovParameters& p, double total, double count, double base) {
  return total + p.strength > 0.0 ? (count + p.strength * base) / (total + p.strength) : base;
}

// p(x | s, c) for the A entries of one context row from `first` (its flat index of x = 0) into `out`,
// given the listed counts [begin, end) of that row.
void context_row(const MarkovParameters& p, long first, const std::pair<long, double>* begin,
                 const std::pair<long, double>* end, double* out) {
  double total = 0.0;
  for (const auto* entry = begin; entry != end; ++entry) total += entry->second;
  for (long x = 0; x < p.alphabet; ++x) {
    const double count = begin != end && begin->first == first + x ? (begin++)->second : 0.0;
    out[x] = smoothed(p, total, count, base_of(p, first + x));
  }
}

// The listed counts of the context row [first, first + A).
std::pair<const std::pair<long, double>*, const std::pair<long, double>*> counts_of_row(const MarkovParameters& p,
                                                                                        long first) {
  const auto by_index = [](const std::pair<long, double>& entry, long index) { return entry.first < index; };
  const auto* begin = std::lower_bound(p.counts.data(), p.counts.data() + p.counts.size(), first, by_index);
  const auto* end = std::lower_bound(begin, p.counts.data() + p.counts.size(), first + p.alphabet, by_index);
  return {begin, end};
}

}  // namespace

double markov_probability(const MarkovParameters& p, long slot, long context, long symbol) {
  const long first = markov_slot_offset(p, slot) + context * p.alphabet;
  const auto [begin, end] = counts_of_row(p, first);
  double total = 0.0, count = 0.0;
  for (const auto* entry = begin; entry != end; ++entry) {
    total += entry->second;
    if (entry->first == first + symbol) count = entry->second;
  }
  return smoothed(p, total, count, base_of(p, first + symbol));
}

std::vector<double> markov_probability_table(const MarkovParameters& p) {
  const long size = markov_table_size(p);
  std::vector<double> table(static_cast<std::size_t>(size));
  const auto* entry = p.counts.data();
  const auto* const last = p.counts.data() + p.counts.size();
  for (long first = 0; first < size; first += p.alphabet) {
    const auto* begin = entry;
    while (entry != last && entry->first < first + p.alphabet) ++entry;
    context_row(p, first, begin, entry, table.data() + first);
  }
  return table;
}

struct MarkovModel::Impl : MarkovParameters {
  std::vector<long> offsets;  // markov_slot_offset of slots 0..slots (the last: S)
  // Set by prepare():
  double rho = 0.0;
  long steps = -1;            // the T of the kernel
  double kernel_work = 0.0;   // kernel_work()
  std::vector<double> power;  // p(j)^rho over the flat layout

  bool aligned() const { return positions > 0; }
  long steps_or_length() const { return steps >= 0 ? steps : length; }
  // The slot of position t's entries in `table` (the flat layout).
  const double* at(const std::vector<double>& table, long t) const {
    return table.data() + offsets[static_cast<std::size_t>(markov_slot_at(*this, t))];
  }
};

MarkovModel::MarkovModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  Parameters& p = parameters;
  if (p.alphabet < 1 || p.alphabet > kMaxMarkovAlphabet)
    throw detail::field_error(kFamily, "alphabet", detail::whole_numbers(1, kMaxMarkovAlphabet),
                              std::to_string(p.alphabet));
  if (p.order < 0 || p.order > kMaxMarkovOrder)
    throw detail::field_error(kFamily, "order", detail::whole_numbers(0, kMaxMarkovOrder), std::to_string(p.order));
  if (p.positions < 0 || p.positions > kMaxMarkovPositions)
    throw detail::field_error(kFamily, "positions", "0 (homogeneous) or " + detail::whole_numbers(1, kMaxMarkovPositions),
                              std::to_string(p.positions));
  if (p.length < 0 || p.length > kMaxMarkovLength)
    throw detail::field_error(kFamily, "length", detail::whole_numbers(0, kMaxMarkovLength), std::to_string(p.length));
  if (p.positions > 0 && p.length != p.positions - 1)
    throw detail::field_error(kFamily, "length",
                              "L - 1 = " + std::to_string(p.positions - 1) + " for an aligned chain of " +
                                  std::to_string(p.positions) + " positions (x_0..x_{L-1})",
                              std::to_string(p.length));
  if (!(p.strength >= 0.0 && std::isfinite(p.strength)))
    throw detail::field_error(kFamily, "strength", "a finite number >= 0 (pseudo-counts per context)",
                              detail::format_number(p.strength));
  check_table_size(p);
  const long size = markov_table_size(p);
  if (!p.base.empty()) {
    if (static_cast<long>(p.base.size()) != size)
      throw detail::field_error(kFamily, "base",
                                std::to_string(size) + " probabilities (the flat layout of markov.hpp) or none",
                                std::to_string(p.base.size()) + " values");
    for (long first = 0; first < size; first += p.alphabet) {
      Eigen::Map<Eigen::VectorXd> row(p.base.data() + first, p.alphabet);
      for (long x = 0; x < p.alphabet; ++x)
        if (!detail::is_probability(row[x]))
          throw detail::element_error(kFamily, "base", first + x, "a probability in [0, 1]", row[x]);
      const double sum = row.sum();
      if (!(std::fabs(sum - 1.0) <= detail::kProbabilitySumTolerance))
        throw detail::FieldError(kFamily, "base", first, "[" + std::to_string(first) + "]",
                                 "the " + std::to_string(p.alphabet) + " probabilities of one context (flat indices " +
                                     std::to_string(first) + ".." + std::to_string(first + p.alphabet - 1) +
                                     ") summing to 1 within 1e-6",
                                 "a sum of " + detail::format_number(sum), p.alphabet);
      // As normalise_probabilities: only a sum off by more than rounding is divided out.
      if (std::fabs(sum - 1.0) > static_cast<double>(p.alphabet) * std::numeric_limits<double>::epsilon()) row /= sum;
    }
  }
  // Elements of "counts" are their flat indices (a row's block holds count j at its offset j).
  for (std::size_t i = 0; i < p.counts.size(); ++i) {
    const auto [index, n] = p.counts[i];
    const std::string where = "[" + std::to_string(i) + "]";
    if (index < 0 || index >= size)
      throw detail::FieldError(kFamily, "counts", std::clamp(index, 0L, size - 1), ".index" + where,
                               "a flat index in [0, " + std::to_string(size) + ")", std::to_string(index));
    if (i > 0 && index <= p.counts[i - 1].first)
      throw detail::FieldError(kFamily, "counts", index, ".index" + where,
                               "flat indices strictly increasing (after " + std::to_string(p.counts[i - 1].first) + ")",
                               std::to_string(index));
    if (!(n > 0.0 && std::isfinite(n)))
      throw detail::FieldError(kFamily, "counts", index, ".n" + where, "a count > 0 (finite)", detail::format_number(n));
  }
  static_cast<MarkovParameters&>(*impl_) = std::move(parameters);
  for (long slot = 0; slot <= markov_slots(*impl_); ++slot) impl_->offsets.push_back(markov_slot_offset(*impl_, slot));
}

MarkovModel::~MarkovModel() = default;

const MarkovParameters& MarkovModel::parameters() const { return *impl_; }
bool MarkovModel::aligned() const { return impl_->aligned(); }
long MarkovModel::steps() const { return impl_->steps_or_length(); }

const FamilyInfo& MarkovModel::family() const { return markov_family(); }

// x_0..x_T, T + 1 symbols: the wording of an HMM over one-event multinomials and of a network's
// sequences, so that the rows' spaces read alike (there is no kernel between the families).
SampleSpace MarkovModel::sample_space() const {
  return {"sequences of " + std::to_string(steps() + 1) + " categories", impl_->alphabet};
}

void MarkovModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.rho = params.rho;
  m.steps = m.aligned() ? m.length : (params.length > 0 ? params.length : m.length);
  // sum_{t=0..T} A^{min(t,k)+1}: the entries of this chain's table a pair's recursion visits.
  double work = 0.0, entries = static_cast<double>(m.alphabet);
  for (long t = 0; t <= m.steps; ++t) {
    if (t >= m.order) {
      work += static_cast<double>(m.steps - t + 1) * entries;
      break;
    }
    work += entries;
    entries *= static_cast<double>(m.alphabet);
  }
  m.kernel_work =
      detail::check_kernel_work(kFamily,
                                "the sum over t = 0..T (T = " + std::to_string(m.steps) +
                                    ", the length or -d T) of A^(min(t, k) + 1) (A = " + std::to_string(m.alphabet) +
                                    ", order k = " + std::to_string(m.order) + ")",
                                work, "give a smaller -d T or a lower order");
  m.power = markov_probability_table(m);
  if (m.rho != 1.0)
    for (double& entry : m.power) entry = std::pow(entry, m.rho);
}

namespace {

// Two homogeneous chains at full depth (t >= K) take the same step at every t: alpha_{t+1} = M alpha_t with
// the A^K x A^K matrix M(c', c) = sum over x with (c A + x) mod A^K = c' of w(c A + x). Over n steps the
// recursion is M^n alpha, n matrix-vector steps of A^{K+1} or about 2 log2(n) products of (A^K)^3 by
// repeated squaring, the latter used for small A^K (<= kMaxPoweredContexts, whose products need no heap)
// when it costs less. M^n is rescaled by a power of two after each squaring; no entry of it is lost to
// underflow when every weight is positive and (w_max / w_min)^{2K} < 2^900. For m <= K steps a context
// has one path to each context it reaches, so an entry of M^m is 0 (unreachable) or the product of m
// weights, in [w_min^m, w_max^m]; for n >= 2K, M^n = M^K M^{n-2K} M^K puts every entry between w_min^{2K}
// and w_max^{2K} times the sum of the entries of M^{n-2K} (K < n < 2K: M^K M^{n-K}, within the same
// ratio), so no entry is below 2^-900 of the largest.
constexpr long kMaxPoweredContexts = 64;

struct StationaryStep {
  Eigen::Map<Eigen::MatrixXd> m, power, product;  // M, M^(2^i), scratch
  Eigen::Map<Eigen::VectorXd> vector;             // scratch
};

// M from the weights (a's slot k_a, b's slot k_b read at c mod A^{k_b}); false when repeated squaring
// could lose entries to underflow (above).
bool build_stationary_step(const double* p, const double* q, Eigen::Index symbols, Eigen::Index contexts,
                           Eigen::Index contexts_b, long order, Eigen::Map<Eigen::MatrixXd>& m) {
  m.setZero();
  double smallest = std::numeric_limits<double>::infinity(), largest = 0.0;
  for (Eigen::Index c = 0; c < contexts; ++c)
    for (Eigen::Index x = 0; x < symbols; ++x) {
      const double w = p[c * symbols + x] * q[(c % contexts_b) * symbols + x];
      m((c * symbols + x) % contexts, c) += w;
      smallest = std::min(smallest, w);
      largest = std::max(largest, w);
    }
  if (order == 0) return true;  // one context: M is a number
  return smallest > 0.0 && 2.0 * static_cast<double>(order) * std::log2(largest / smallest) < 900.0;
}

// alpha <- M^n alpha (n >= 1), the powers of two divided out of alpha and of M's powers added to `exponents`.
void apply_stationary_steps(StationaryStep& s, long n, Eigen::Ref<Eigen::VectorXd> alpha, long& exponents) {
  s.power = s.m;
  long power_exponent = 0;  // M^(2^i) = power 2^power_exponent
  for (;;) {
    if (n & 1) {
      s.vector.noalias() = s.power * alpha;
      int exponent = 0;
      std::frexp(s.vector.sum(), &exponent);
      alpha = s.vector * std::ldexp(1.0, -exponent);
      exponents += power_exponent + exponent;
    }
    n >>= 1;
    if (n == 0) return;
    s.product.noalias() = s.power * s.power;
    int exponent = 0;
    std::frexp(s.product.maxCoeff(), &exponent);
    s.power = s.product * std::ldexp(1.0, -exponent);
    power_exponent = 2 * power_exponent + exponent;
  }
}

// The forward recursion of the file comment for prepared chains a and b (MarkovModel::Impl) of one
// alphabet, a of the larger order, both prepared for T >= lengths[count - 1]. For each T = lengths[k]
// (strictly ascending) writes log k at T into out[k]; -inf once alpha is 0. alpha is divided by 2^e
// whenever its sum leaves [2^-256, 2^256] (exact: a power of two) and the exponents e summed; a step
// changes the sum by at most a factor A, so no entry comes near overflow. Homogeneous pairs jump from
// t >= K to the next T by repeated squaring where that is cheaper (above). The buffers are reused per
// thread (the kernel runs for many pairs under OpenMP): no allocation once they have grown.
template <class Chain>
void log_forward(const Chain& a, const Chain& b, const int* lengths, std::size_t count, double* out) {
  using Eigen::Index;
  const Index symbols = a.alphabet;
  // alpha_t and B_t, each with room for A^{k+1} entries: when the depth grows, B_t is alpha_{t+1} and
  // the two swap.
  thread_local Eigen::VectorXd alpha, weighted;
  // The deepest context the pass reaches: min(T, k_a) symbols (an aligned chain may have fewer positions
  // than its order).
  const Index full = power_of(a.alphabet, std::min<long>(a.order, lengths[count - 1])), most = full * symbols;
  if (alpha.size() < most) alpha.resize(most);
  if (weighted.size() < most) weighted.resize(most);
  // M, its powers and the scratch of apply_stationary_steps, for pairs that may jump.
  bool jumps = !a.aligned() && !b.aligned() && full <= kMaxPoweredContexts, built = false;
  thread_local std::vector<double> stationary_storage;
  const Index side = jumps ? full : 0;  // (empty maps for pairs that do not jump)
  if (static_cast<Index>(stationary_storage.size()) < 3 * side * side + side)
    stationary_storage.resize(static_cast<std::size_t>(3 * side * side + side));
  double* const storage = stationary_storage.data();
  StationaryStep stationary{{storage, side, side},
                            {storage + side * side, side, side},
                            {storage + 2 * side * side, side, side},
                            {storage + 3 * side * side, side}};
  alpha[0] = 1.0;
  long exponents = 0;
  std::size_t done = 0;
  long stop = lengths[0];              // the next T
  Index contexts = 1, contexts_b = 1;  // A^{min(t, k_a)} and A^{min(t, k_b)} at step t
  constexpr double kSmall = 0x1p-256, kLarge = 0x1p256;
  for (long t = 0;; ++t) {
    const Eigen::Map<const Eigen::MatrixXd> p(a.at(a.power, t), symbols, contexts);
    const Eigen::Map<const Eigen::MatrixXd> q(b.at(b.power, t), symbols, contexts_b);
    const long n = stop - t + 1;  // the steps to the next T
    if (jumps && t >= a.order && n > 1 && !built) {
      jumps = build_stationary_step(p.data(), q.data(), symbols, contexts, contexts_b, a.order, stationary.m);
      built = true;
    }
    const double repeated_squaring = 2.0 * std::log2(static_cast<double>(n)) + 1.0;
    if (jumps && built && n > 1 &&
        repeated_squaring * static_cast<double>(contexts * contexts) < static_cast<double>(n * symbols)) {
      apply_stationary_steps(stationary, n, alpha.head(contexts), exponents);
      t = stop;
    } else {
      Eigen::Map<Eigen::MatrixXd> step(weighted.data(), symbols, contexts);  // B_t = W_t diag(alpha_t)
      // W_t's columns in blocks of b's A^{d_b} contexts, each block with b's whole slot (c mod A^{d_b}).
      for (Index first = 0; first < contexts; first += contexts_b)
        step.middleCols(first, contexts_b) = (p.middleCols(first, contexts_b).array() * q.array()).rowwise() *
                                             alpha.segment(first, contexts_b).transpose().array();
      if (t < a.order) {  // the depth grows: alpha_{t+1} is B_t read as a vector
        contexts *= symbols;
        alpha.swap(weighted);
      } else {  // the oldest symbol, the most significant digit of c A + x, summed out
        alpha.head(contexts) = weighted.head(contexts);
        for (Index oldest = 1; oldest < symbols; ++oldest)
          alpha.head(contexts) += weighted.segment(oldest * contexts, contexts);
      }
      if (t < b.order) contexts_b *= symbols;
    }
    const double sum = alpha.head(contexts).sum();
    if (t == stop) {
      out[done] = sum > 0.0 ? std::log(sum) + static_cast<double>(exponents) * std::log(2.0)
                            : -std::numeric_limits<double>::infinity();
      if (++done == count) return;
      stop = lengths[done];
    }
    if (!(sum >= kSmall && sum <= kLarge)) {
      if (!(sum > 0.0)) {  // alpha = 0, and so is every later alpha
        std::fill(out + done, out + count, -std::numeric_limits<double>::infinity());
        return;
      }
      int exponent = 0;
      std::frexp(sum, &exponent);
      alpha.head(contexts) *= std::ldexp(1.0, -exponent);
      exponents += exponent;
    }
  }
}

// The pair's recursion with the chain of the larger order first (the kernel is symmetric).
template <class Chain>
void pair_log_kernels(const Chain& a, const Chain& b, const int* lengths, std::size_t count, double* out) {
  if (a.rho <= 0.0 || a.rho != b.rho || a.steps != b.steps || a.alphabet != b.alphabet)
    detail::throw_unprepared_pair(kFamily);
  if (a.order >= b.order)
    log_forward(a, b, lengths, count, out);
  else
    log_forward(b, a, lengths, count, out);
}

}  // namespace

double MarkovModel::log_kernel(const Model& other) const {
  const int steps = static_cast<int>(impl_->steps);  // <= kMaxMarkovLength
  double value = 0.0;
  pair_log_kernels(*impl_, *static_cast<const MarkovModel&>(other).impl_, &steps, 1, &value);
  return value;
}

// alpha_t does not depend on the T it is run to: one pass to the largest T reads every smaller T's
// value at its step. Aligned chains have the one T = L - 1.
bool MarkovModel::log_kernel_over_lengths(const Model& other, const int* lengths, std::size_t count, double* out) const {
  const Impl& b = *static_cast<const MarkovModel&>(other).impl_;
  if (impl_->aligned() || b.aligned()) return false;
  check_kernel_lengths(lengths, count, impl_->steps);
  pair_log_kernels(*impl_, b, lengths, count, out);
  return true;
}

double MarkovModel::kernel_work() const { return impl_->kernel_work; }
std::optional<long> MarkovModel::sequence_steps() const {
  if (aligned()) return std::nullopt;
  return steps();
}

namespace {

// The table of p(j)^rho: the prepared one at its rho, else made here.
template <class Chain>
std::vector<double> power_table(const Chain& m, double rho) {
  if (rho == m.rho) return m.power;
  std::vector<double> table = markov_probability_table(m);
  if (rho != 1.0)
    for (double& entry : table) entry = std::pow(entry, rho);
  return table;
}

// The backward sums of the tilted chain over x_0..x_T (markov.hpp): h_{T+1} = 1,
//     h_t(c) = sum_x w_t(c A + x) h_{t+1}((c A + x) mod A^{d_{t+1}}),   w_t = p^rho at position t,
// as a matrix product per step, H_{t+1} the A x A^{d_t} matrix whose column c holds the h_{t+1} of the
// contexts that follow c: h_t = colsum(W_t .* H_{t+1}). Each h_t is divided by its largest entry;
// returns log Z = log h_0 + the logs of those factors. With `kept`, h_t (scaled) for t = 0..T + 1 is
// stored there from (*starts)[t].
template <class Chain>
double backward(const Chain& m, const std::vector<double>& power, std::vector<double>* kept, std::vector<long>* starts) {
  using Eigen::Index;
  const long steps = m.steps_or_length(), symbols = m.alphabet;
  const auto contexts_at = [&](long t) { return power_of(symbols, std::min(t, m.order)); };
  std::vector<double> scratch;
  if (kept != nullptr) {
    starts->assign(static_cast<std::size_t>(steps) + 3, 0);
    for (long t = 0; t <= steps + 1; ++t) (*starts)[t + 1] = (*starts)[t] + contexts_at(t);
    kept->assign(static_cast<std::size_t>(starts->back()), 0.0);
  } else {
    scratch.assign(static_cast<std::size_t>(2 * contexts_at(steps + 1)), 0.0);  // the deepest
  }
  // h_t's storage: its place in `kept`, or one of scratch's two halves by parity.
  const auto slot = [&](long t) {
    return kept != nullptr ? kept->data() + (*starts)[t]
                           : scratch.data() + (t % 2) * static_cast<long>(scratch.size() / 2);
  };
  Eigen::Map<Eigen::VectorXd>(slot(steps + 1), contexts_at(steps + 1)).setOnes();
  double log_scales = 0.0;
  Eigen::MatrixXd lifted;
  for (long t = steps; t >= 0; --t) {
    const Index n = contexts_at(t), next = contexts_at(t + 1);
    const Eigen::Map<const Eigen::MatrixXd> w(m.at(power, t), symbols, n);
    const double* h_next = slot(t + 1);
    if (next == n * symbols)  // the context grows by x: column c is h_{t+1}(c A + 0..A-1)
      lifted = Eigen::Map<const Eigen::MatrixXd>(h_next, symbols, n);
    else if (m.order == 0)  // one context
      lifted = Eigen::MatrixXd::Constant(symbols, 1, h_next[0]);
    else  // the oldest symbol drops: c A + x mod A^d is (c mod A^{d-1}) A + x
      lifted = Eigen::Map<const Eigen::MatrixXd>(h_next, symbols, n / symbols).replicate(1, symbols);
    Eigen::Map<Eigen::VectorXd> h(slot(t), n);
    h = (w.array() * lifted.array()).colwise().sum().transpose();
    const double largest = h.maxCoeff();  // > 0: every context's row of p has a positive entry
    h /= largest;
    log_scales += std::log(largest);
  }
  return log_scales + std::log(slot(0)[0]);
}

}  // namespace

long MarkovModel::sample_size() const { return steps() + 1; }

// Z(1) = 1: every context's probabilities sum to 1.
double MarkovModel::log_tilted_normalizer(double rho) const {
  if (!(rho > 0.0 && std::isfinite(rho)))
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": p^rho / Z needs a finite rho > 0, got " + detail::format_number(rho));
  if (rho == 1.0) return 0.0;
  return backward(*impl_, power_table(*impl_, rho), nullptr, nullptr);
}

// x_t from p(x | s_t, c_t)^rho h_{t+1}(c_{t+1}) (markov.hpp), t = 0..T; at rho = 1 h = 1.
void MarkovModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const Impl& m = *impl_;
  const long steps = m.steps_or_length(), symbols = m.alphabet;
  if (rho != 1.0) log_tilted_normalizer(rho);  // the domain check
  const std::vector<double> power = power_table(m, rho);
  std::vector<double> h;
  std::vector<long> starts;
  if (rho != 1.0) {
    double stored = 0.0;
    for (long t = 0; t <= steps + 1; ++t) stored += static_cast<double>(power_of(symbols, std::min(t, m.order)));
    detail::check_kernel_storage(
        kFamily, "the backward sums of the tilted chain over T + 1 = " + std::to_string(steps + 1) + " positions",
        stored);
    backward(m, power, &h, &starts);
  }
  std::vector<double> cumulative(static_cast<std::size_t>(symbols));
  for (Eigen::Index column = 0; column < samples.cols(); ++column) {
    long context = 0, contexts = 1;  // c_t and A^{min(t, k)}
    for (long t = 0; t <= steps; ++t) {
      const double* w = m.at(power, t) + context * symbols;
      const long next = t < m.order ? contexts * symbols : contexts;
      double total = 0.0;
      for (long x = 0; x < symbols; ++x) {
        const long following = (context * symbols + x) % next;
        total += w[x] * (h.empty() ? 1.0 : h[static_cast<std::size_t>(starts[t + 1] + following)]);
        cumulative[static_cast<std::size_t>(x)] = total;
      }
      const long x = static_cast<long>(generator.categorical(cumulative.data(), cumulative.size()));
      samples(t, column) = static_cast<double>(x);
      context = (context * symbols + x) % next;
      contexts = next;
    }
  }
}

// sum_t log p(x_t | s_t, c_t); -inf for a symbol that is not one of 0..A-1 or has probability 0.
double MarkovModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Impl& m = *impl_;
  const long symbols = m.alphabet;
  double log_p = 0.0;
  long context = 0, contexts = 1;
  for (long t = 0; t <= m.steps_or_length(); ++t) {
    const double value = x[t];
    if (!(value >= 0.0 && value < static_cast<double>(symbols)) || value != std::floor(value))
      return -std::numeric_limits<double>::infinity();
    const long symbol = static_cast<long>(value);
    log_p += std::log(markov_probability(m, markov_slot_at(m, t), context, symbol));
    const long next = t < m.order ? contexts * symbols : contexts;
    context = (context * symbols + symbol) % next;
    contexts = next;
  }
  return log_p;
}

double MarkovModel::log_probability_work() const {
  return static_cast<double>(steps() + 1) * static_cast<double>(impl_->alphabet);
}

const FamilyInfo& markov_family() {
  static const FamilyInfo info = make_family<MarkovModel>(kFamily, 18);
  return info;
}

}  // namespace ppk
