// Exponential models over positive real vectors, independent per dimension:
//     p(x) = prod_d exp(-x_d / b_d) / b_d,   x in (0, inf)^D,  b_d the scale (the mean).
//
// Kernel, every rho > 0 (JMLR 2004 section 3; the gamma kernel at shape 1):
//     k = prod_d 1 / (rho (1/b_d + 1/b'_d) (b_d b'_d)^rho).
// Natural form: theta_d = -1/b_d, K(theta) = -sum_d log(-theta_d), A = 0 (scales at every rho).
// An exponential model has a kernel with a gamma model of the same dimension too (kernel.cpp): it is
// the gamma model of shapes 1.
//
// Sampling (sampling.hpp), every rho > 0: p^rho / Z is the exponential model of scales b_d / rho
// (rate rho / b_d), Z(rho) = prod_d 1 / (rho b_d^(rho - 1)). A sample is the vector x.
//
// Row fields (family code 5): 3: D (>= 1)   4..3+D: scale b_d > 0.
// JSON: {"family":"exponential","scale":[..]}
#pragma once

#include <vector>

#include "ppk/families/exponential_family.hpp"
#include "ppk/core/family.hpp"

namespace ppk {

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// the row's "dim" D, then "scale".
struct ExponentialParameters {
  std::vector<double> scale;  // b_d
  template <class Archive>
  void fields(Archive& archive);
};

class ExponentialModel : public SamplableExponentialFamilyModel {
 public:
  // Throws ModelError (a field error on "dim" or "scale") unless 1 <= D <= 10^8 and every scale is
  // finite and > 0.
  using Parameters = ExponentialParameters;
  explicit ExponentialModel(Parameters parameters);
  explicit ExponentialModel(std::vector<double> scales) : ExponentialModel(Parameters{std::move(scales)}) {}
  const Parameters& parameters() const;
  const std::vector<double>& scales() const;

  ~ExponentialModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;  // "positive real vectors" of dimension D
  void prepare(const KernelParams& params) override;
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

const FamilyInfo& exponential_family();

}  // namespace ppk
