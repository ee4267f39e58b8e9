// Gaussian models N(mu, Sigma) over R^D with isotropic, diagonal or full covariance.
//
// Kernel (JMLR 2004, eq. 5), with P = Sigma^-1, P' = Sigma'^-1, S+ = (P + P')^-1,
// m+ = P mu + P' mu':
//   k_rho = (2 pi)^((1-2rho)D/2) rho^(-D/2) |S+|^(1/2) |Sigma|^(-rho/2) |Sigma'|^(-rho/2)
//           exp(-rho/2 (mu'P mu + mu''P' mu' - m+' S+ m+)).
// Any rho > 0. Isotropic and diagonal pairs use the per-dimension form; a pair
// involving a full covariance uses a Cholesky factorisation of P + P'.
//
// Sampling (sampling.hpp): p^rho / Z is N(mu, Sigma / rho) and
//   Z(rho) = (2 pi)^((1-rho)D/2) |Sigma|^((1-rho)/2) rho^(-D/2), any rho > 0.
//
// Row fields (family code 1), after the header:
//   3: D (>= 1)   4: form (1 isotropic, 2 diagonal, 3 full)   5..4+D: mean
//   then isotropic: 1 value (variance); diagonal: D variances;
//   full: the lower triangle of Sigma row by row (D(D+1)/2 values: S11, S21, S22, S31, ...).
#pragma once

#include <cstddef>
#include <memory>

#include <Eigen/Core>

#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

enum class CovarianceForm { isotropic = 1, diagonal = 2, full = 3 };

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp): the row's D and
// "form", then "mean" and the form's one covariance field, "var", "diag" or "cov" (JSON: which of
// them is present says the form).
struct GaussianParameters {
  Eigen::VectorXd mean;
  CovarianceForm form = CovarianceForm::isotropic;
  double variance = 0.0;       // isotropic: S = variance I
  Eigen::VectorXd variances;   // diagonal: S = diag(variances)
  Eigen::MatrixXd covariance;  // full
  template <class Archive>
  void fields(Archive& archive);
};

class GaussianModel : public Model, public SamplableModel {
 public:
  using Parameters = GaussianParameters;
  // Throw ModelError for non-finite values, non-positive variances or a covariance
  // that is not symmetric positive definite (the covariance field of the other forms is ignored).
  explicit GaussianModel(Parameters parameters);
  static std::unique_ptr<GaussianModel> isotropic(Eigen::VectorXd mean, double variance);
  static std::unique_ptr<GaussianModel> diagonal(Eigen::VectorXd mean, Eigen::VectorXd variances);
  static std::unique_ptr<GaussianModel> full(Eigen::VectorXd mean, Eigen::MatrixXd covariance);

  const Parameters& parameters() const;
  CovarianceForm form() const;
  long dim() const;
  const Eigen::VectorXd& mean() const;
  // The covariance as a dense D x D matrix (whatever the form).
  Eigen::MatrixXd covariance() const;
  // Density at x (used by tests and samplers).
  double log_density(const Eigen::Ref<const Eigen::VectorXd>& x) const;

  // Model interface: see model.hpp.
  ~GaussianModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;
  void prepare(const KernelParams& params) override;
  double log_kernel(const Model& other) const override;
  double kernel_work() const override;  // D^3 for a full covariance (the Cholesky factor of S + S'), else 0
  void kernel_many(const Model* const* others, std::size_t n, double* out) const override;
  void log_kernel_many(const Model* const* others, std::size_t n, double* out) const override;

  // SamplableModel interface: see sampling.hpp. A sample is the vector x.
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double log_probability_work() const override;  // D^2 for a full covariance (a triangular solve), else D

 private:
  struct Impl;
  static const Impl& impl_of(const Model& other);  // other: a Gaussian (the dispatcher checks)
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& gaussian_family();

}  // namespace ppk
