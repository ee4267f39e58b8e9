// Hidden Markov models over sequences x_0 .. x_T (JMLR 2004 section 4.2): M hidden states with
// start probabilities pi, transitions A (M x M, rows summing to 1), one emission model per state
// (any family, all over one sample space), and a default length T (T transitions, T + 1 emissions).
//
// Kernel (the k~ of JMLR 2004 section 4.2: the power applied to the joint of hidden and observed
// variables), for HMMs with M and N states:
//     psi(q, q') = k_rho(emission_q, emission'_q'),  Phi_0(q, q') = (pi_q pi'_q')^rho,
//     Phi_t = (A^rho)' (psi .* Phi_{t-1}) A'^rho  (elementwise powers),  k = sum_{q,q'} psi .* Phi_T,
// in O(T (M^2 N + M N^2)). Each step is rescaled by its largest entry and the log scales summed,
// so log k stays exact for long sequences (T = 10,000 and beyond). At rho = 1 this is the
// co-emission probability sum_X p(X) p'(X).
// T is the kernel's -d when > 0, else the model's own length; the sample space is "sequences of
// T + 1 <emission sample space>", so two HMMs have a kernel when their T and emission spaces agree.
//
// Sampling (sampling.hpp), rho = 1 only (like mixtures): a path s_0 ~ pi, s_t ~ A_{s_(t-1) .}, then
// x_t from emission s_t, t = 0..T (the prepared T); Z(1) = 1; log p(X) by the scaled forward
// algorithm. Every emission must be samplable.
//
// Row fields (family code 9): 3: M (>= 1)   4: length T (>= 0)   5..4+M: start
//   5+M..4+M+M^2: transitions, row by row   then M nested emission models (RowWriter::model).
// JSON: {"family":"hmm","start":[..],"trans":[[..],..],"emissions":[{model},..],"length":T}
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

// The most hidden states M that `ppk fit hmm --states` takes: the largest M whose start, transitions
// and emission models (M + M^2 + M values) fit in one row (kMaxRowDenseValues = 2^25, row.hpp); the
// emissions' own values come on top, and a fit whose row would not fit is refused when it is written.
constexpr long kMaxHmmFitStates = 5791;
// The longest stored T of an HMM row: 10^8 (its kernel runs T steps of M x M products).
constexpr long kMaxHmmLength = 100000000;

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// the row's M, then "length", "start", "trans" and the M nested "emissions".
struct HmmParameters {
  Eigen::VectorXd start;                          // pi_q
  Eigen::MatrixXd trans;                          // A_pq = P(s_t = q | s_{t-1} = p)
  std::vector<std::unique_ptr<Model>> emissions;  // one per state
  long length = 0;                                // the stored default T
  template <class Archive>
  void fields(Archive& archive);
};

class HmmModel : public Model, public SamplableModel {
 public:
  static constexpr const char* kNameArticle = "an";  // an HMM: the name is read letter by letter
  // Throws ModelError unless M >= 1, start and every transition row are probability vectors
  // (summing to 1 within 1e-6; then renormalised), there are M emissions over one sample space,
  // none of them an HMM, and length >= 0.
  using Parameters = HmmParameters;
  explicit HmmModel(Parameters parameters);
  HmmModel(Eigen::VectorXd start, Eigen::MatrixXd transitions, std::vector<std::unique_ptr<Model>> emissions, long length)
      : HmmModel(Parameters{std::move(start), std::move(transitions), std::move(emissions), length}) {}
  const Parameters& parameters() const;
  const Eigen::VectorXd& start() const;
  const Eigen::MatrixXd& transitions() const;
  std::size_t states() const;
  const Model& emission(std::size_t q) const;
  long length() const;  // the stored default T
  long steps() const;   // the T of the kernel once prepared (-d if > 0, else length()); length() before

  ~HmmModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;          // uses the prepared T once prepared
  void prepare(const KernelParams& params) override;  // T = params.length if > 0; prepares emissions
  double log_kernel(const Model& other) const override;
  // Every T up to the prepared one from one forward recursion (its Phi_t does not depend on T), at the cost
  // of the kernel at the largest T. The emissions are of the families that take no T (docs/families.md).
  bool log_kernel_over_lengths(const Model& other, const int* lengths, std::size_t n, double* out) const override;
  double kernel_work() const override;  // (T + 1) M^3 and the M x M' emission kernels' (prepare)
  // steps(), and the emissions' space as each step's.
  std::optional<long> sequence_steps() const override;
  std::optional<SampleSpace> step_space() const override;

  // SamplableModel interface: see sampling.hpp. A sample is x_0..x_T, the emissions' samples stacked.
  bool can_sample() const override;                         // every emission can
  long sample_size() const override;                        // (steps() + 1) times an emission's
  double log_tilted_normalizer(double rho) const override;  // KernelDomainError unless rho = 1
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  // (T + 1) (M^2 + the emissions' summed): per step, A' alpha and every emission's log p(x_t).
  double log_probability_work() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& hmm_family();

}  // namespace ppk
