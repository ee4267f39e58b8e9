// Switching linear dynamical systems over sequences x_0 .. x_T of real d-vectors (JMLR 2004 section 5.1):
// a Markov chain of discrete states q_0..q_T over K states (start pi, transitions trans), and per
// discrete state k a linear dynamics (A_k, Q_k) of an n-dimensional continuous state:
//     q_0 ~ pi,  q_t ~ trans[q_{t-1}],  s_0 ~ N(mean0, cov0),  s_t = A_{q_t} s_{t-1} + w_t,  w_t ~ N(0, Q_{q_t}),
//     x_t = C s_t + v_t,  v_t ~ N(0, R),  t = 0..T.
// Given a discrete path q, the model is a non-stationary LDS and X = (x_0..x_T) is jointly Gaussian.
//
// Kernel (hybrid sampling, docs/design.md "Mathematics", SLDS): each model draws a fixed set of S discrete paths
// q^(1)..q^(S) from its own chain; with k_rho the exact probability product kernel between the joint
// Gaussians of X given one path of each model (lds.hpp, here with time-varying A_t = A_{q_t},
// Q_t = Q_{q_t}),
//     k = 1/(S S') sum_{i = 1..S} sum_{j = 1..S'} k_rho(p(X | q^(i)), p'(X | q'^(j))),
// the mean over ALL S x S' pairs: the inner product of the mean feature maps (1/S) sum_i phi(p(. | q^(i)))
// and (1/S') sum_j phi(p'(. | q'^(j))), so Gram matrices are positive semidefinite for any S (pairing
// path i with path i only, as the JMLR text does, is not). Each pair costs one Kalman filter over the
// coupled pair of state chains, O(T (n + n' + d)^3); identical paths of one model are evaluated once
// (weighted by their count), so with K = 1 this is the LDS kernel at the cost of one pair. log k is a
// log-sum-exp over the pairs.
//
// The paths are drawn at prepare() for the kernel's T (-d when > 0, else the stored length), by a
// std::mt19937_64 (its output is fixed by the C++ standard) seeded with path_seed(): a hash of the
// model's row, so a row always gets the same paths, whatever the order of the rows, the thread count or
// the platform. Uniforms are u = (64 random bits >> 11) 2^-53 in [0, 1); a discrete state is the first
// whose cumulative probability exceeds u. Path i uses uniforms i(T+1) .. i(T+1)+T: q_0 from pi, then
// q_t from trans[q_{t-1}].
//
// Row fields (family code 13): 3: K (discrete states, 1..1000)   4: n   5: d (both 1..1000)
//   6: length T (>= 0)   7: paths S (1..1000)
//   then start (K values), trans (K x K, row by row), A (K matrices n x n, each row by row, A_0 first),
//   Q (K lower triangles of n(n+1)/2 values: S11, S21, S22, S31, ..., Q_0 first), mean0 (n values),
//   cov0 (lower triangle), C (d x n, row by row), R (lower triangle, d(d+1)/2 values).
// JSON: {"family":"slds","start":[..],"trans":[[..],..],"A":[[[..],..],..],"Q":[[[..],..],..],"mean0":[..],
//        "cov0":[[..],..],"C":[[..],..],"R":[[..],..],"length":T,"paths":S}
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/family.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

// The regimes K of an SLDS row (K^2 transitions; and `ppk fit slds --states`) and its kernel paths S (a
// kernel evaluation runs up to S S' Kalman filters; `--paths`).
constexpr long kMaxSldsStates = 1000;
constexpr long kMaxSldsPaths = 1000;
// The Kalman-filter steps of one kernel evaluation, (distinct paths)^2 (T + 1) of each row, at most those
// of one LDS kernel at the longest T (kMaxSequenceLength + 1, lds.hpp): S S' <= max(S, S')^2, so a bound
// on each row's own pairs bounds every pair. prepare() refuses a row beyond it (docs/families.md, "Limits").
constexpr double kMaxSldsKernelSteps = static_cast<double>(kMaxSequenceLength + 1);

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp): the row's K, n
// and d, then "length", "paths", "start", "trans", "A", "Q", "mean0", "cov0", "C", "R".
struct SldsParameters {
  Eigen::VectorXd start;                           // pi, K values
  Eigen::MatrixXd transitions;                     // K x K: P(q_t = k | q_{t-1} = j) in row j
  std::vector<Eigen::MatrixXd> state_transitions;  // A_k, K matrices n x n
  std::vector<Eigen::MatrixXd> state_noises;       // Q_k, K matrices n x n
  Eigen::VectorXd mean0;                           // n
  Eigen::MatrixXd cov0;                            // n x n
  Eigen::MatrixXd observation;                     // C, d x n
  Eigen::MatrixXd observation_noise;               // R, d x d
  long length = 0;                                 // the stored default T
  long paths = 1;                                  // S
  template <class Archive>
  void fields(Archive& archive);
};

class SldsModel final : public Model, public SamplableModel {  // final: the constructor hashes its own row
 public:
  static constexpr const char* kNameArticle = "an";  // an SLDS: the name is read letter by letter
  // Throws ModelError (a FieldError naming field and element) unless K, n, d >= 1, start and every
  // transition row are probability vectors (summing to 1 within 1e-6; then renormalised), there are K
  // matrices A_k and Q_k of shape n x n, every value is finite, cov0 and each Q_k are symmetric
  // positive semidefinite, R is symmetric positive definite, C is d x n, length >= 0 and paths >= 1.
  using Parameters = SldsParameters;
  explicit SldsModel(Parameters parameters);
  const SldsParameters& parameters() const;  // as validated (renormalised, symmetrised)
  long discrete_states() const;              // K
  long state_dim() const;                    // n
  long observation_dim() const;              // d
  long steps() const;                        // the T of the kernel once prepared (-d if > 0, else length); length before

  // The seed of the path draw: FNV-1a over the row's entries (index, then the value's IEEE bits, each
  // byte from least significant), then splitmix64's finaliser.
  std::uint64_t path_seed() const;
  // The S discrete paths q_0..q_T drawn by prepare() (empty before), in draw order.
  const std::vector<std::vector<int>>& drawn_paths() const;
  // The joint Gaussian of X = (x_0..x_T) given drawn path i, built densely (the test oracle).
  std::unique_ptr<GaussianModel> joint_observations(std::size_t path) const;

  ~SldsModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;          // uses the prepared T once prepared
  void prepare(const KernelParams& params) override;  // draws the paths; log|S| of each distinct path
  // Not at every T from one pass (log_kernel_over_lengths: false): the paths are drawn for the prepared T
  // (path i takes uniforms i(T+1) .. i(T+1)+T), so the paths drawn for T' < T are not the prefixes of
  // those drawn for T, and the kernel at T' is not the one at T read at step T'.
  double log_kernel(const Model& other) const override;
  double kernel_work() const override;  // (distinct paths)^2 (T + 1) (2n + d)^3 (prepare)
  // steps()
  std::optional<long> sequence_steps() const override;

  // SamplableModel interface (sampling.hpp), rho = 1 only, once prepared (the drawn paths). At rho = 1
  // the hybrid kernel above is the expected likelihood kernel between the equal-weight mixtures
  // (1/S) sum_i p(X | q^(i)) and (1/S') sum_j p'(X | q'^(j)) (each k_1 term is the integral of a
  // product), so as a samplable model the row IS that mixture of its S path-conditioned
  // non-stationary LDSs: a draw picks one of the S paths uniformly, then draws x_0..x_T from the LDS
  // along it; log p(x) is the log-mean-exp over the S paths of the Kalman filter's log-likelihood;
  // Z(1) = 1. Other rho: KernelDomainError (p^rho / Z is not such a mixture). A sample is x_0..x_T
  // stacked ((T + 1) d values).
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double log_probability_work() const override;  // a filter per drawn path: S (T + 1) (n + d)^3

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& slds_family();

}  // namespace ppk
