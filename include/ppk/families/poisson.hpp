// Poisson models over count vectors, independent per dimension:
//     p(x) = prod_d rate_d^x_d exp(-rate_d) / x_d!,   x in {0, 1, 2, ...}^D.
//
// Kernel, a product over dimensions of (JMLR 2004 section 3; docs/design.md):
//   rho = 1/2:  exp(-(sqrt(l) - sqrt(l'))^2 / 2)
//   rho = 1:    exp(-(l + l')) I0(2 sqrt(l l'))
//   other rho:  exp(-rho (l + l')) sum_x (l l')^(rho x) / (x!)^(2 rho), a series summed to full
//               double precision with the truncation bound proven in poisson.cpp.
// Natural form: theta_d = log rate_d, K(theta) = sum_d exp(theta_d), A(x) = -sum_d log x_d!,
// which scales only at rho = 1/2 (log_kernel_from_log_partition then agrees with the above).
// A rate of 0 (the point mass at 0) is allowed: its kernels are the limits of the formulas.
//
// Sampling (sampling.hpp), every rho > 0 and rates up to 10^9: p^rho / Z has the pmf
// prod_d pmf(x_d; l_d)^rho / Z_d, a Poisson only at rho = 1; Z_d = sum_x pmf(x; l_d)^rho is the
// kernel's series (the self-kernel at rho/2), and the sampler draws by inverse CDF over its terms.
// A sample is the count vector x.
//
// Row fields (family code 4): 3: D (>= 1)   4..3+D: rate_d >= 0 (absent means 0).
// JSON: {"family":"poisson","rate":[..]}
#pragma once

#include <utility>
#include <vector>

#include "ppk/families/exponential_family.hpp"
#include "ppk/core/family.hpp"

namespace ppk {

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// the row's "dim" D, then "rate".
struct PoissonParameters {
  std::vector<double> rate;
  template <class Archive>
  void fields(Archive& archive);
};

class PoissonModel : public SamplableExponentialFamilyModel {
 public:
  using Parameters = PoissonParameters;
  // Throws ModelError (a field error on "rate") unless 1 <= D <= 10^8 and every rate is finite and >= 0.
  explicit PoissonModel(Parameters parameters);
  explicit PoissonModel(std::vector<double> rates) : PoissonModel(Parameters{std::move(rates)}) {}
  const std::vector<double>& rates() const;
  const Parameters& parameters() const;

  ~PoissonModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;  // "count vectors" of dimension D
  // Any rho > 0; KernelDomainError for a rate above 10^9 unless rho is 1/2 or 1 (the closed forms).
  void prepare(const KernelParams& params) override;
  double log_kernel(const Model& other) const override;

  double log_partition(const Eigen::VectorXd& theta) const override;
  bool in_natural_domain(const Eigen::VectorXd& theta) const override;

  // SamplableModel interface: see sampling.hpp. KernelDomainError for a rate above 10^9.
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& poisson_family();

}  // namespace ppk
