// Markov chains of order k over symbol sequences (fully observed; JMLR 2004 section 4.3: the chain
// x_0 -> x_1 -> ... is the Bayesian network whose node x_t has the previous k symbols as its parents),
// homogeneous (one CPT for every t >= k, sequences x_0..x_T of any length) or position-specific
// (aligned sequences x_0..x_{L-1}, one CPT per position), each CPT smoothed toward a base chain.
//
// Slots. The chain's CPTs are stored in slots s, slot s with depth d_s (the number of previous symbols
// it conditions on):
//   homogeneous (positions = 0): slots s = 0..k, d_s = s; position t uses slot min(t, k);
//   aligned (positions = L >= 1): slots s = 0..L-1, d_s = min(s, k); position t uses slot t.
// Either way position t conditions on the previous min(t, k) symbols.
//
// Flat layout. Slot s holds A^{d_s} contexts x A symbols; the entry of symbol x after context c is
//     flat index = offset(s) + c A + x,   offset(s) = sum_{s' < s} A^{d_s' + 1},
// where the context c of position t reads the previous d = d_s symbols as a base-A number whose LEAST
// significant digit is the most recent symbol:
//     c = x_{t-1} + x_{t-2} A + ... + x_{t-d} A^{d-1}.
// So c A + x = x + x_{t-1} A + ... is the context of position t + 1 when d_{s+1} = d + 1, and its
// remainder mod A^d when the depth stays d (the oldest symbol drops out); and a chain of lower order
// k' < k reads context c as c mod A^{k'}. The table's size S = offset(slots) is at most 2^25
// (kMaxRowDenseValues): one step of the kernel visits A^{d+1} entries of each chain, and a pass over
// all positions of an aligned chain visits all S of them.
//
// Probabilities (Dirichlet smoothing toward the base, strength beta pseudo-counts per context):
//     p(x | s, c) = (n_{s,c,x} + beta b_{s,c,x}) / (N_{s,c} + beta),   N_{s,c} = sum_x n_{s,c,x};
// a context with N_{s,c} + beta = 0 (no counts, beta = 0) takes its base row b_{s,c,.}. The base b is
// the uniform 1/A (`base` empty) or a dense table in the flat layout (the pooled chain), each context's A
// entries summing to 1. The counts n are sparse: only the listed (flat index, n > 0) entries.
//
// Kernel (JMLR 2004 eq. 2 over the sequences x_0..x_T, evaluated exactly): with the pair weights
// w_t(j) = p(x | s_t, c)^rho q(x | s'_t, c)^rho at j = c A + x,
//     alpha_0 = 1 (the empty context),
//     alpha_{t+1}(j mod A^{d_{t+1}}) += alpha_t(c) w_t(c A + x)   over contexts c and symbols x,
//     k_rho(p, q) = sum_x p(x)^rho q(x)^rho = sum alpha_{T+1},
// the sum over all A^{T+1} sequences as a forward recursion over the last min(t, k) symbols (the
// one-step discrete kernel sum_x (p_x q_x)^rho of JMLR 2004 section 3 per context), O(T A^{k+1}): linear in
// the length. alpha is divided by a power of two whenever its sum leaves [2^-256, 2^256] and the
// exponents summed, so log k stays exact for long sequences; two homogeneous chains of at most 64
// contexts with positive weights jump over long stretches by repeated squaring of their common step
// (markov.cpp), O(log T A^{3K}). Chains of different orders are compared
// at the larger order K (a chain of order k' < K at depth d reads its entry at j mod A^{min(d, k')+1}).
// Homogeneous and aligned chains over the same number of symbols compare: each uses its own slot at t.
// T: aligned chains T = L - 1 (-d does not change it); homogeneous T = -d when > 0, else the row's own
// length. The sample space is "sequences of T + 1 categories" over A symbols, an HMM's with one-event
// multinomial emissions (two such rows of different families have no kernel: refused by name).
//
// Sampling (sampling.hpp), any rho: p^rho / Z is again a Markov chain over x_0..x_T (not homogeneous),
// with transitions p(x | c)^rho h_{t+1}(c') / h_t(c), h the backward sums h_{T+1} = 1,
// h_t(c) = sum_x p(x | s_t, c)^rho h_{t+1}(c'), Z = h_0; at rho = 1, h = 1 and Z = 1. A sample is the T + 1
// symbols as doubles 0..A-1.
//
// Row fields (family code 18): 3: A   4: k   5: L (0: homogeneous)   6: length T   7: beta
//   8: 1 when a dense base follows, 0 for the uniform base   [9..8+S: the base table, when 8 is 1]
//   then the S-long block of the counts, n_j at its offset j (zeros omitted: the listed counts only).
// JSON: {"family":"markov","alphabet":A,"order":k,"positions":L,"length":T,"strength":beta,
//        "base":[S numbers] (absent: uniform),"counts":{"index":[j..],"n":[n_j..]} (absent: none)}
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

constexpr long kMaxMarkovAlphabet = 33554432;   // 2^25: an order-0 table of A entries
constexpr long kMaxMarkovOrder = 64;            // (A >= 2 is bounded by the table's size far below)
constexpr long kMaxMarkovPositions = 1000000;   // L
constexpr long kMaxMarkovLength = 100000000;    // homogeneous T, 10^8 as the hmm family's
constexpr long kMaxMarkovTableSize = 33554432;  // S <= 2^25 = kMaxRowDenseValues (row.hpp)

struct MarkovParameters {
  long alphabet = 0;         // A >= 1 symbols 0..A-1
  long order = 0;            // k >= 0
  long positions = 0;        // L >= 1: position-specific chain over aligned sequences x_0..x_{L-1}; 0: homogeneous
  long length = 0;           // homogeneous: the default T (x_0..x_T; -d T overrides when > 0); aligned: L - 1
  double strength = 0;       // beta >= 0: Dirichlet pseudo-counts per context toward the base
  std::vector<double> base;  // empty: the uniform base 1/A; else the dense table in the flat layout
  std::vector<std::pair<long, double>> counts;  // sparse counts (flat index, n > 0), strictly increasing index
  template <class Archive>
  void fields(Archive& archive);
};

// The layout above, from alphabet, order and positions alone (valid sizes assumed: the constructor
// checks them). Slots: k + 1 homogeneous, L aligned.
long markov_slots(const MarkovParameters& parameters);
// d_s: s homogeneous, min(s, k) aligned.
long markov_slot_depth(const MarkovParameters& parameters, long slot);
// The flat index of (slot, context 0, symbol 0); markov_slot_offset(p, markov_slots(p)) is S.
long markov_slot_offset(const MarkovParameters& parameters, long slot);
// S, the number of entries of the table (of the base, of the counts' index range).
long markov_table_size(const MarkovParameters& parameters);
// The slot position t uses: min(t, k) homogeneous, t aligned (t < L).
long markov_slot_at(const MarkovParameters& parameters, long t);
// The flat index of the symbol symbols[t] at position t of the sequence `symbols` (values 0..A-1):
// offset(slot_at(t)) + c A + symbols[t], c the context of the previous min(t, k) symbols (the header).
// What a fit adds its counts at.
long markov_flat_index(const MarkovParameters& parameters, const std::vector<long>& symbols, long t);
// p(x | s, c) by the smoothing formula above, from the sparse counts (a binary search) and the base.
double markov_probability(const MarkovParameters& parameters, long slot, long context, long symbol);
// The dense table of p(x | s, c) over the flat layout (S values): every context's row of probabilities.
std::vector<double> markov_probability_table(const MarkovParameters& parameters);

class MarkovModel : public Model, public SamplableModel {
 public:
  using Parameters = MarkovParameters;
  // Throws a FieldError naming the field and element unless 1 <= A <= kMaxMarkovAlphabet, 0 <= k <=
  // kMaxMarkovOrder, 0 <= L <= kMaxMarkovPositions, S <= 2^25 ("order"), length in [0, 10^8] and equal to
  // L - 1 for an aligned chain, beta finite and >= 0, the base empty or S probabilities whose every
  // context's A entries sum to 1 within 1e-6 (then renormalised), and the counts at strictly increasing
  // indices in [0, S), each finite and > 0.
  explicit MarkovModel(Parameters parameters);
  ~MarkovModel() override;
  const Parameters& parameters() const;
  bool aligned() const;  // positions > 0
  long steps() const;    // the T of the kernel once prepared (aligned: L - 1); the stored length before

  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;          // "sequences of T + 1 categories" of dimension A
  void prepare(const KernelParams& params) override;  // the dense table of p^rho; T of -d (homogeneous)
  double log_kernel(const Model& other) const override;
  // Homogeneous chains: every T up to the prepared one from one forward pass (alpha_t does not depend on
  // T). Aligned chains (either model): false, their T is L - 1.
  bool log_kernel_over_lengths(const Model& other, const int* lengths, std::size_t n, double* out) const override;
  // The entries the forward recursion visits, sum_{t=0..T} A^{min(t,k)+1} (two multiply-adds each per pair).
  double kernel_work() const override;
  // steps() of a homogeneous chain; nothing for an aligned one, whose positions are fixed (-d does not
  // change them, as it does not change a network's variables).
  std::optional<long> sequence_steps() const override;

  // SamplableModel interface (sampling.hpp): the tilted chain above, any rho > 0.
  long sample_size() const override;  // steps() + 1
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double log_probability_work() const override;  // (T + 1) A: a context's row per symbol

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& markov_family();

}  // namespace ppk
