// The Monte Carlo probability product kernel (JMLR 2004 section 5) around any model that can be
// sampled (sampling.hpp): a check on every closed form, and a kernel for models without one.
//
// k_rho(p, p') = integral p^rho p'^rho dx = Z E_{x ~ p^rho/Z}[p'(x)^rho], Z = integral p^rho dx, so with
// N draws x_i from p^rho / Z and N' draws x'_j from p'^rho / Z',
//     k ~ beta/N sum_i Z p'(x_i)^rho + (1 - beta)/N' sum_j Z' p(x'_j)^rho.
// The weight beta makes the estimate symmetric in (p, p'):
//     pooled (the default): beta = N/(N + N'),  k ~ (sum_i Z p'(x_i)^rho + sum_j Z' p(x'_j)^rho) / (N + N');
//     equal:                beta = 1/2.
// A pair uses equal weights when either row asks for them. Each side's sum is computed on its own
// in log space (log-sum-exp over log Z + rho log p'(x_i)) and the two are combined through their
// larger and smaller value, so k(p, p') == k(p', p) bit for bit. Each entry is an unbiased estimate
// with error shrinking like 1/sqrt(N), but a Gram matrix of estimates need not be positive
// semidefinite (JMLR 2004 section 5 says so); a kernel k(p, p) of a model with itself uses its own
// samples on both sides.
//
// Samples: each row draws its N samples once, when prepared, from std::mt19937_64 seeded with the
// FNV-1a 64-bit hash of N and the inner model's row entries (index and value bits), with the
// platform-independent draws of SampleGenerator. The same row thus gets the same samples in every
// file, order and run, whatever rows surround it. (The generator's words and the uniform draws are
// the same on every platform; normal draws also use std::log, and the families' transforms std::pow
// (a^rho), from the platform's math library, which IEEE 754 does not require to round correctly, so
// another math library may change a sample in its last bits.)
// Any two montecarlo rows over one sample space have a kernel, whatever their inner families (a
// Gaussian against a mixture of Gaussians). rho: where the inner family can draw from p^rho / Z with
// Z in closed form: gaussian, bernoulli, one-event multinomial, exponential and poisson (rates up to
// 10^9) at any rho > 0; gamma and dirichlet where every rho (a_d - 1) + 1 > 0 (any rho when every shape
// or alpha is at least 1); mixture and hmm (of those) at rho = 1 only (KernelDomainError otherwise). A montecarlo row has
// no kernel with a plain row: the estimate needs samples from both models.
//
// Row fields (family code 14): 3: N, the number of samples (1..10^5)   4: beta rule (0 pooled, 1 equal)
//   5...: the inner model (RowWriter::model: its length, then its row from the family code on).
// JSON: {"family":"montecarlo","samples":N,"beta":"pooled"|"equal","model":{model}} ("beta" optional).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <Eigen/Core>

#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"

namespace ppk {

enum class BetaRule { pooled = 0, equal = 1 };

// N, and the work c of the inner model's log p(x) (SamplableModel::log_probability_work): a pair
// evaluates each row's log p at the other's draws, N c' + N' c multiply-adds. With N <= 10^5 for every
// row, prepare() refuses a row with 10^5 c > kMaxKernelWork (row.hpp), c > 10^7, so that every pair
// costs at most 2 kMaxKernelWork. The draws, N x the sample size doubles, are also bounded
// (kMaxRowDenseValues).
constexpr long kMaxMonteCarloSamples = 100000;

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// "samples" N, "beta" (0 pooled, 1 equal; JSON "pooled" or "equal", absent: pooled), the nested "model".
struct MonteCarloParameters {
  std::unique_ptr<Model> model;  // the inner model
  long samples = 0;              // N
  BetaRule beta = BetaRule::pooled;
  template <class Archive>
  void fields(Archive& archive);
};

class MonteCarloModel : public Model {
 public:
  // Throws ModelError (a FieldError) unless `model` can be sampled (as_samplable) and 1 <= samples <= 10^5.
  using Parameters = MonteCarloParameters;
  explicit MonteCarloModel(Parameters parameters);
  MonteCarloModel(std::unique_ptr<Model> model, long samples, BetaRule beta = BetaRule::pooled)
      : MonteCarloModel(Parameters{std::move(model), samples, beta}) {}
  const Parameters& parameters() const;
  const Model& inner() const;
  long samples() const;  // N
  BetaRule beta() const;
  // The seed of the sample generator: the hash of N and the inner model's row (see above).
  std::uint64_t seed() const;
  // Once prepared: the N draws from p^rho / Z, one per column, and log Z(rho).
  const Eigen::MatrixXd& draws() const;
  double log_tilted_normalizer() const;

  ~MonteCarloModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;  // the inner model's
  // Prepares the inner model, then draws the samples. KernelDomainError where the inner family cannot
  // draw from p^rho / Z (a mixture or HMM at rho != 1).
  void prepare(const KernelParams& params) override;
  double log_kernel(const Model& other) const override;
  double kernel_work() const override;  // the most draws x the inner log p's work (prepare)
  // inner()
  const Model& estimated_model() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& montecarlo_family();

}  // namespace ppk
