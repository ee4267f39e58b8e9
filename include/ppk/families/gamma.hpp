// Gamma models over positive real vectors, independent per dimension:
//     p(x) = prod_d x_d^(a_d - 1) exp(-x_d / b_d) / (Gamma(a_d) b_d^a_d),   a_d shape, b_d scale.
//
// Kernel (JMLR 2004 section 3; docs/design.md), per dimension:
//     a+ = rho (a + a' - 2) + 1,   1/b+ = rho (1/b + 1/b'),
//     k = Gamma(a+) b+^a+ / [Gamma(a) b^a Gamma(a') b'^a']^rho,
// defined when a+ > 0. The self pair is the worst pair (see exponential_family.hpp): every kernel
// of a model with shapes a_d exists iff rho (2 a_d - 2) + 1 > 0 for each d, i.e. rho < 1 / (2 (1 - a_d))
// for shapes below 1. prepare() rejects other rho with that bound.
// Natural form: theta = (a_d - 1, -1/b_d) for each d, K = sum_d log Gamma(a_d) + a_d log b_d, A = 0.
//
// Sampling (sampling.hpp): p^rho / Z is the gamma model of shapes rho (a_d - 1) + 1 and scales b_d / rho
// (natural parameters rho theta), a density iff every rho (a_d - 1) + 1 > 0: any rho > 0 when every
// shape a_d >= 1, else rho < 1 / (1 - a_d) for each a_d < 1 (log_tilted_normalizer throws
// KernelDomainError otherwise). A sample is the vector x.
//
// Row fields (family code 6): 3: D (>= 1)   4..3+D: shape a_d > 0   4+D..3+2D: scale b_d > 0.
// JSON: {"family":"gamma","shape":[..],"scale":[..]}
#pragma once

#include <vector>

#include "ppk/families/exponential_family.hpp"
#include "ppk/core/family.hpp"

namespace ppk {

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// the row's "dim" D, then "shape" and "scale".
struct GammaParameters {
  std::vector<double> shape;  // a_d
  std::vector<double> scale;  // b_d
  template <class Archive>
  void fields(Archive& archive);
};

class GammaModel : public SamplableExponentialFamilyModel {
 public:
  // Throws ModelError (field errors on "dim", "shape", "scale") unless 1 <= D <= 10^8 (D = the
  // number of shapes), both vectors have length D, and every entry is finite and > 0.
  using Parameters = GammaParameters;
  explicit GammaModel(Parameters parameters);
  GammaModel(std::vector<double> shapes, std::vector<double> scales)
      : GammaModel(Parameters{std::move(shapes), std::move(scales)}) {}
  const Parameters& parameters() const;
  const std::vector<double>& shapes() const;
  const std::vector<double>& scales() const;

  ~GammaModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;          // "positive real vectors" of dimension D
  void prepare(const KernelParams& params) override;  // KernelDomainError with the bound on rho
  // `other` is a GammaModel, or an ExponentialModel: the gamma model of shapes 1 and the same scales
  // (the exponential-gamma kernel of kernel.cpp), taken at this model's rho.
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

const FamilyInfo& gamma_family();

}  // namespace ppk
