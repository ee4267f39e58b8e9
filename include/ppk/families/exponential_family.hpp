// Exponential families in natural form (JMLR 2004, section 3):
//     p(x | theta) = exp(A(x) + theta . T(x) - K(theta)),
// A the measure, T the sufficient statistics, K the log-partition (cumulant generating) function,
// theta in the natural parameter space Theta = {theta : K(theta) finite} (a convex set).
//
// The probability product kernel follows from K alone (JMLR 2004, section 3):
//   rho = 1/2, every family:   k = exp(K((theta + theta')/2) - K(theta)/2 - K(theta')/2).
//   other rho, when the measure scales as exp(2 rho A(x)) = c exp(A(eta x)) and T(eta x) = eta T(x):
//       log k = K((rho/eta)(theta + theta')) + log c - D log eta - rho K(theta) - rho K(theta'),
//   D the dimension of x. (The JMLR text writes rho/2 K(theta) for the last two terms; that is a
//   slip: p^rho carries exp(-rho K(theta)), and its own rho = 1/2 formula needs K(theta)/2.)
//   A constant measure (exponential, gamma, Dirichlet, Bernoulli) scales with eta = 1 at every
//   rho; the Poisson measure 1/x! scales only at rho = 1/2.
//
// Domain: the kernel exists when (rho/eta)(theta + theta') lies in Theta. Theta is convex, so
// (rho/eta)(theta + theta') is the midpoint of (2 rho/eta) theta and (2 rho/eta) theta': if every
// model's kernel with itself exists, so does every pair's. prepare() therefore checks the model
// paired with itself, and a row that passes can be paired with any other row that passes.
//
// A family that derives from ExponentialFamilyModel supplies its natural parameters, K, Theta and
// the measure's scaling; it then has the kernel above at every rho the measure allows. Families
// with a faster or wider closed form (Poisson at every rho, gamma, ...) override prepare() and
// log_kernel(), and keep log_kernel_from_log_partition() as the path tests compare against.
//
// Sampling (sampling.hpp, the Monte Carlo kernel of JMLR 2004 section 5): Z(rho) = integral p^rho dx
// is the kernel of the model with itself at rho/2, so when the measure scales at rho/2,
// exp(rho A(x)) = c exp(A(eta x)),
//     log Z(rho) = K((rho/eta) theta) + log c - D log eta - rho K(theta),
// finite iff (rho/eta) theta lies in Theta. With a constant measure (eta = 1, c = 1: exponential,
// gamma, Dirichlet) p^rho / Z = exp(rho theta . T(x) - K(rho theta)) is the family's own model at the
// natural parameters rho theta, which each family draws from in its sample_tilted(). A family that
// can be sampled derives from SamplableExponentialFamilyModel, which supplies this log Z; one whose
// measure does not scale (Poisson) overrides log_tilted_normalizer().
#pragma once

#include <optional>
#include <string>

#include <Eigen/Core>

#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

// exp(2 rho A(x)) = c exp(A(eta x)), with T(eta x) = eta T(x).
struct MeasureScaling {
  double eta = 1.0;         // eta > 0
  double log_factor = 0.0;  // log c - D log eta
};

class ExponentialFamilyModel : public Model {
 public:
  // The natural parameters theta (entries may be -inf where a parameter sits on the boundary of
  // the family, e.g. a Poisson rate of 0; such a model has only the family's own closed form).
  const Eigen::VectorXd& natural_parameters() const { return theta_; }

  // K(theta) at any theta in Theta.
  virtual double log_partition(const Eigen::VectorXd& theta) const = 0;
  // Whether theta lies in Theta (false for NaN or infinite entries).
  virtual bool in_natural_domain(const Eigen::VectorXd& theta) const = 0;
  // The measure's scaling at rho, or nothing when exp(2 rho A) is not of the form above. The
  // default knows only rho = 1/2 (eta = 1, c = 1), where every family qualifies.
  virtual std::optional<MeasureScaling> measure_scaling(double rho) const;

  // Checks rho (the measure condition, and the self-pair in Theta; KernelDomainError otherwise).
  void prepare(const KernelParams& params) override;
  // The generic kernel from the log-partition function.
  double log_kernel(const Model& other) const override;

 protected:
  explicit ExponentialFamilyModel(Eigen::VectorXd theta);

 private:
  Eigen::VectorXd theta_;
  double rho_ = 0.0;  // set by prepare()
};

// An exponential family that can be sampled (sampling.hpp): log Z(rho) from the log-partition
// function (above); the family adds sample_tilted() and log_probability().
class SamplableExponentialFamilyModel : public ExponentialFamilyModel, public SamplableModel {
 public:
  long sample_size() const override;  // the dimension of the sample space
  // log Z(rho) above; KernelDomainError from tilted_natural_parameters().
  double log_tilted_normalizer(double rho) const override;

 protected:
  using ExponentialFamilyModel::ExponentialFamilyModel;
  // (rho/eta) theta, the natural parameters of p^rho / Z when the measure is constant. Throws
  // KernelDomainError, naming the model and rho, when the measure does not scale at rho/2 or
  // (rho/eta) theta lies outside Theta (then Z(rho) = integral p^rho diverges).
  Eigen::VectorXd tilted_natural_parameters(double rho) const;
};

// log k_rho(a, b) from the log-partition function (the formulas above), for two models of one
// family with natural parameters of equal length. Throws KernelDomainError when the measure does
// not scale at rho or (rho/eta)(theta + theta') is outside Theta; the message names the family.
double log_kernel_from_log_partition(const ExponentialFamilyModel& a, const ExponentialFamilyModel& b, double rho);

}  // namespace ppk
