// Factorial hidden Markov models over sequences x_0 .. x_T of real d-vectors (Ghahramani & Jordan
// 1997; JMLR 2004 section 6.1): C independent Markov chains, chain c with M_c states, start
// probabilities pi_c and transitions A_c, and one Gaussian emission whose mean adds one vector per
// chain and whose covariance is shared:
//     x_t | q_t^1..q_t^C ~ N(sum_c W_c[:, q_t^c], Sigma),   W_c the d x M_c matrix of chain c's means.
//
// Kernel: the k~ of the HMM family (JMLR 2004 section 4.2, the power on the joint of hidden and
// observed variables; k~ = k at rho = 1),
//     k~(p, p') = sum_{q, q'} integral [p(X, q) p'(X, q')]^rho dX,
// is a sum over prod_c M_c x prod_c M'_c state tuples per step, exponential in C. The kernel value
// returned is instead the structured mean-field LOWER BOUND of JMLR 2004 section 6,
//     log B(Q) = rho E_Q[log p(X, q) p'(X, q')] + H(Q) <= log k~,
// maximised by coordinate ascent over Q = prod_t Q(x_t) prod_c Q_c(q^c) prod_c Q'_c(q'^c) (fhmm.cpp
// derives the updates). It is a lower bound, not k~: Gram matrices of B need not be positive
// semidefinite (LIBSVM's SMO solver still runs on them, to a local optimum), and ppk_norm may exceed 1.
// T is the kernel's -d when > 0, else the model's own length (as for HMMs); at most 10^6 (the mean field
// keeps the marginals of every step).
//
// Row fields (family code 15): 3: C chains (>= 1)   4: d (>= 1)   5: length T (0..10^6)
//   6..5+C: M_1..M_C (each >= 1); then for each chain c in turn: start (M_c values), trans (M_c^2,
//   row by row: row p from state p), means (M_c vectors of d values, state by state: W_c[:, k]);
//   then Sigma as its lower triangle row by row (d(d+1)/2 values).
// JSON: {"family":"fhmm","chains":[{"start":[..],"trans":[[..],..],"means":[[..],..]},..],
//        "cov":[[..],..],"length":T}     ("means": one d-vector per state)
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

// The most product states prod_c M_c whose forward algorithm the Monte Carlo kernel runs (log p(x)).
constexpr long kMaxSampledProductStates = 10000;
// The longest T of a factorial-HMM row or -d T: 10^6; the mean field keeps every step's marginals,
// O(T (sum_c M_c + d)) memory (bounded per row by kMaxRowDenseValues at prepare()).
constexpr long kMaxFhmmLength = 1000000;

// One Markov chain of a factorial HMM, declared field by field in row order (include/ppk/core/family_fields.hpp,
// a record of "chains"): "start", "trans", "means" (column by column), sized by `sizes` (M_c and d).
struct FhmmChain {
  Eigen::VectorXd start;  // pi_c (M_c)
  Eigen::MatrixXd trans;  // A_c (M_c x M_c), A_c(p, q) = P(q_t^c = q | q_{t-1}^c = p)
  Eigen::MatrixXd means;  // W_c (d x M_c): column k is chain c's contribution to the mean in state k
  template <class Archive, class Sizes>
  void fields(Archive& archive, const Sizes& sizes, long c);
};

// The parameters: the row's C and d, "length", the row's M_1..M_C, "chains", "cov" (Sigma).
struct FhmmParameters {
  std::vector<FhmmChain> chains;
  Eigen::MatrixXd cov;
  long length = 0;
  template <class Archive>
  void fields(Archive& archive);
};

// The course of the coordinate ascent for one pair.
struct MeanFieldTrace {
  std::vector<double> log_bounds;  // log B after the initialisation, then after each sweep
  bool converged = false;          // the last sweep gained less than the tolerance
};

class FhmmModel : public Model, public SamplableModel {
 public:
  // Throws ModelError (a FieldError naming the chain, field and element) unless there is at least one
  // chain, each start and transition row is a probability vector (summing to 1 within 1e-6; then
  // renormalised), each means matrix is d x M_c and finite (d = the size of Sigma), Sigma is
  // symmetric positive definite, and length >= 0.
  using Parameters = FhmmParameters;
  explicit FhmmModel(Parameters parameters);
  FhmmModel(std::vector<FhmmChain> chains, Eigen::MatrixXd cov, long length)
      : FhmmModel(Parameters{std::move(chains), std::move(cov), length}) {}
  const Parameters& parameters() const;  // as validated (probabilities renormalised, Sigma symmetrised)
  const std::vector<FhmmChain>& chains() const;
  const Eigen::MatrixXd& cov() const;  // Sigma
  long dim() const;                    // d
  long length() const;                 // the stored default T
  long steps() const;                  // the T of the kernel once prepared (-d if > 0, else length()); length() before

  ~FhmmModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;  // uses the prepared T once prepared
  void prepare(const KernelParams& params) override;
  // log B of the converged mean field. Not at every T from one pass (log_kernel_over_lengths: false): the
  // mean field is optimised over the whole sequence, so a prefix of the run at T is not the run at T' < T.
  double log_kernel(const Model& other) const override;
  double kernel_work() const override;  // the most sweeps' (prepare)
  // steps()
  std::optional<long> sequence_steps() const override;

  // SamplableModel interface (sampling.hpp), rho = 1 only (k~ = k there, so the Monte Carlo estimate
  // converges to the exact kernel that B bounds from below). A draw is ancestral: per step each
  // chain's state from its start or transition row, then x_t ~ N(sum_c W_c[:, q_t^c], Sigma). log p(x)
  // by the scaled forward algorithm over the prod_c M_c product states (the transition applied chain by
  // chain, O(T prod_c M_c (sum_c M_c + d)) per evaluation), for at most kMaxSampledProductStates
  // (10000) product states: a model with more, or another rho, gives KernelDomainError. A sample is
  // x_0..x_T stacked ((T + 1) d values).
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double log_probability_work() const override;  // the forward algorithm over the S product states

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend MeanFieldTrace mean_field_trace(const FhmmModel& a, const FhmmModel& b);
};

// The mean-field iterations behind a.log_kernel(b) (the same rho and T): log_bounds.back() is the
// kernel value. For tests and diagnostics.
MeanFieldTrace mean_field_trace(const FhmmModel& a, const FhmmModel& b);

const FamilyInfo& fhmm_family();

}  // namespace ppk
