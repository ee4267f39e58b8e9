// Multinomial models with event probabilities a_1..a_D (sum 1).
//
// Kernels (JMLR 2004, section 3.3):
//   one event (X = one of D categories), any rho:  k = sum_d (a_d a'_d)^rho
//   s trials (counts summing to s), rho = 1/2:     k = (sum_d sqrt(a_d a'_d))^s          (eq. 6)
//   summed over all s, rho = 1/2:                  k = sum_s (lambda B)^s = 1 / (1 - lambda B),
//       B = sum_d sqrt(a_d a'_d), lambda = decay in (0, 1]. The paper's sum is lambda = 1,
//       which diverges for identical models (B = 1), so its self-kernel is infinite:
//       rows with "all" need a decay < 1 to be used in an SVM.
// With a_d = base + u_d, the sum is D (b b')^rho + b^rho U' + b'^rho U + sum over
// common listed d of u_d u'_d (u_d = a_d^rho - b^rho), so sparse rows cost O(listed).
//
// Sampling (sampling.hpp), any rho > 0. One event: p^rho / Z picks category d with probability
// a_d^rho / Z, Z(rho) = sum_d a_d^rho; a sample is the category d (0-based). s trials: p^rho / Z over
// the count vectors c (summing to s) has Z(rho) = sum_c pmf(c)^rho, summed exactly by dynamic
// programming over the coordinates (multinomial.cpp) when D (s + 1)^2 / 2 <= 10^7 (KernelDomainError
// otherwise); a sample is the count vector c. (The kernel over counts itself needs rho = 1/2.) All
// trial counts: not samplable (the sum over s is not a distribution).
//
// Row fields (family code 3): 3: D (>= 1)   4: trials (0 one event, s >= 1 fixed, -1 all)
//   5: decay for "all" (0 or absent means 1)   6: base probability
//   7..6+D: a_d for coordinates that differ from the base (absent or 0 means base).
#pragma once

#include <cstddef>
#include <memory>

#include "ppk/family.hpp"
#include "ppk/model.hpp"
#include "ppk/sampling.hpp"
#include "ppk/sparse_probabilities.hpp"

namespace ppk {

struct Trials {
  enum Kind { one_event, fixed, all };
  Kind kind = one_event;
  long count = 0;      // s, for kind == fixed
  double decay = 1.0;  // lambda, for kind == all
};

class MultinomialModel : public Model, public SamplableModel {
 public:
  // Throws ModelError unless every a_d is in [0, 1], they sum to 1 (within 1e-6;
  // then renormalised), s >= 1 and decay in (0, 1].
  MultinomialModel(SparseProbabilities a, Trials trials);
  const SparseProbabilities& probabilities() const;
  const Trials& trials() const;

  ~MultinomialModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;
  void prepare(const KernelParams& params) override;  // KernelDomainError: trials need rho = 1/2
  double log_kernel(const Model& other) const override;
  double kernel(const Model& other) const override;
  // One pass over this model's listed coordinates per call, then O(listed) per other model.
  void kernel_many(const Model* const* others, std::size_t n, double* out) const override;
  void log_kernel_many(const Model* const* others, std::size_t n, double* out) const override;
  void encode_fields(RowWriter& out) const override;
  void to_json(nlohmann::json& out) const override;

  // SamplableModel interface: see sampling.hpp (one event or s trials).
  bool can_sample() const override;
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;

 private:
  struct Impl;
  static const Impl& impl_of(const Model& other);  // other: a multinomial (the dispatcher checks)
  template <class FromSum>
  void batch(const Model* const* others, std::size_t n, double* out, FromSum from_sum) const;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& multinomial_family();

}  // namespace ppk
