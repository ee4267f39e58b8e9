// Dirichlet models over probability vectors (the simplex x_d > 0, sum_d x_d = 1), D >= 2:
//     p(x) = prod_d x_d^(a_d - 1) / B(a),   B(a) = prod_d Gamma(a_d) / Gamma(sum_d a_d).
// A Beta(a, b) model over proportions is the two-dimensional case alpha = (a, b).
//
// Kernel (JMLR 2004 section 3; docs/design.md):  k = B(rho (a + a' - 2) + 1) / (B(a) B(a'))^rho,
// defined when every rho (a_d + a'_d - 2) + 1 > 0. The self pair is the worst pair (see
// exponential_family.hpp): every kernel of a model exists iff rho < 1 / (2 (1 - a_d)) for each
// a_d < 1. prepare() rejects other rho with that bound.
// Natural form: theta_d = a_d - 1, K(theta) = log B(theta + 1), A = 0 (Lebesgue measure on the simplex).
//
// Sampling (sampling.hpp): p^rho / Z is the Dirichlet model of alpha rho (a_d - 1) + 1 (natural
// parameters rho theta), a density iff every rho (a_d - 1) + 1 > 0: any rho > 0 when every a_d >= 1,
// else rho < 1 / (1 - a_d) for each a_d < 1 (log_tilted_normalizer throws KernelDomainError otherwise).
// A sample is the vector x (its D entries, summing to 1); densities are with respect to Lebesgue
// measure on the first D - 1 coordinates, as the kernel's integral is.
//
// Row fields (family code 7): 3: D (>= 2)   4..3+D: alpha_d > 0.
// JSON: {"family":"dirichlet","alpha":[..]}
#pragma once

#include <vector>

#include "ppk/families/exponential_family.hpp"
#include "ppk/core/family.hpp"

namespace ppk {

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// the row's "dim" D >= 2, then "alpha".
struct DirichletParameters {
  std::vector<double> alpha;  // a_d
  template <class Archive>
  void fields(Archive& archive);
};

class DirichletModel : public SamplableExponentialFamilyModel {
 public:
  // Throws ModelError (a field error on "dim" or "alpha") unless 2 <= D <= 10^8 and every alpha_d is
  // finite and > 0.
  using Parameters = DirichletParameters;
  explicit DirichletModel(Parameters parameters);
  explicit DirichletModel(std::vector<double> alpha) : DirichletModel(Parameters{std::move(alpha)}) {}
  const Parameters& parameters() const;
  const std::vector<double>& alpha() const;

  ~DirichletModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;          // "probability vectors" of dimension D
  void prepare(const KernelParams& params) override;  // KernelDomainError with the bound on rho
  double log_kernel(const Model& other) const override;

  double log_partition(const Eigen::VectorXd& theta) const override;
  bool in_natural_domain(const Eigen::VectorXd& theta) const override;
  std::optional<MeasureScaling> measure_scaling(double rho) const override;  // eta = 1, c = 1

  // SamplableModel interface: see sampling.hpp and exponential_family.hpp.
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& dirichlet_family();

}  // namespace ppk
