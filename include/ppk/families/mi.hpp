// Mutual-information (MI) kernels (Seeger, NIPS 2001, sections 2 and 2.1) as rows of the family `mi`.
//
// With a likelihood P(x | theta) and a mediator distribution P_med(theta) over the parameters,
//     Q(x1, x2) = integral P(x1 | theta) P(x2 | theta) P_med(theta) dtheta,            (Seeger eq. 2)
//     K(x1, x2) = Q(x1, x2) / sqrt(Q(x1, x1) Q(x2, x2))                                (Seeger eq. 3).
// Writing g_x(theta) = P(x | theta) P_med(theta)^(1/2), Q(x1, x2) = <g_x1, g_x2> is the rho = 1
// (expected-likelihood) product kernel between the functions g_x on theta-space. So each datum x
// becomes one row holding g_x, `-t ppk -g 1` gives Q and `-t ppk_norm -g 1` the MI kernel K.
//
// The family `mi` (code 16): a weighted sum over K disjoint blocks of parameter space,
//     g = (+)_s exp(lw_s) b_s,
// each block b_s a model of an existing family (a gaussian or dirichlet model here; any family
// other than mixture, montecarlo and mi whose kernel is exact and defined at rho = 1). Blocks are
// disjoint, so the kernel has no cross terms:
//     log k(g, g') = logsumexp_s [lw_s + lw'_s + log k_1(b_s, b'_s)],
// the inner product of the two functions: exact and positive semidefinite. Defined only at
// rho = 1, between mi rows with the same K and pairwise equal block sample spaces. A row of K
// blocks is what the diagonal mixture MI kernel (Seeger section 2.2, eq. 6 with
// W = diag E[pi_s]) needs: block s is component s's parameter space.
//
// Row fields (family code 16): 3: K (>= 1)   4..3+K: the log weights lw_s (finite)
//   then K nested block models, as a mixture's components (RowWriter::model: a length, then the
//   block's row from its family code on).
// JSON: {"family":"mi","log_weights":[..],"blocks":[{model},..]}
//
// The mediators that make the rows (Seeger section 2.1, model-trust scaling eq. 5):
//   gaussian likelihood N(x | theta, s I), mediator N(theta | m, a I): K = exp(-a |x1-x2|^2 / (2 s (s + 2a)));
//   multinomial likelihood over count vectors, mediator Dirichlet(alpha):
//     Q(x1, x2) = C(x1) C(x2) B(alpha + x1 + x2) / B(alpha), C the multinomial coefficients.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"

namespace ppk {

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// the row's K, then "log_weights" and the K nested "blocks".
struct MiParameters {
  std::vector<double> log_weights;             // lw_s, finite
  std::vector<std::unique_ptr<Model>> blocks;  // b_s
  template <class Archive>
  void fields(Archive& archive);
};

class MiModel : public Model {
 public:
  // Throws ModelError unless K >= 1, there is one finite log weight per block, and every block is a
  // model of an exact family other than mixture, montecarlo and mi.
  using Parameters = MiParameters;
  explicit MiModel(Parameters parameters);
  MiModel(std::vector<double> log_weights, std::vector<std::unique_ptr<Model>> blocks)
      : MiModel(Parameters{std::move(log_weights), std::move(blocks)}) {}
  const Parameters& parameters() const;
  const std::vector<double>& log_weights() const;
  std::size_t size() const;  // K
  const Model& block(std::size_t s) const;

  ~MiModel() override;
  const FamilyInfo& family() const override;
  // Kind "MI functions on blocks [space_1, ..., space_K]", dimension K: two mi rows are compatible
  // exactly when they have the same K and pairwise equal block sample spaces.
  SampleSpace sample_space() const override;
  void prepare(const KernelParams& params) override;  // KernelDomainError unless rho = 1
  double log_kernel(const Model& other) const override;
  double kernel_work() const override;  // the blocks' summed, block s paired with block s

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& mi_family();

// One block of an MI row: g(theta) = exp(log_weight) block(theta).
struct MiBlock {
  double log_weight = 0.0;
  std::unique_ptr<Model> block;
};

// The Gaussian likelihood's block: g_x(theta) = N(x | theta, Sigma) N(theta | m, V)^(1/2) over
// theta in R^D. With N(theta | m, V)^(1/2) = c N(theta | m, 2V), c = (2 pi)^(D/4) 2^(D/2) |V|^(1/4),
//     N(x | theta, Sigma) N(theta | m, 2V) = N(x | m, Sigma + 2V) N(theta | mu_x, P),
//     P = (Sigma^-1 + (2V)^-1)^-1,   mu_x = P (Sigma^-1 x + (2V)^-1 m),
// so the block is the gaussian model N(mu_x, P) (isotropic when Sigma and V are multiples of the
// identity, full otherwise) with log weight log c + log N(x | m, Sigma + 2V). Throws ModelError
// unless the dimensions agree and Sigma, V are symmetric positive definite.
MiBlock gaussian_mi_block(const Eigen::VectorXd& x, const Eigen::MatrixXd& Sigma, const Eigen::VectorXd& m,
                          const Eigen::MatrixXd& V);

// ---- Mediators: the per-datum rows of one likelihood and mediator distribution ----------------

// A likelihood P(x | theta) with its mediator P_med(theta) over data vectors of dimension D: it turns
// each datum x into the mi row of g_x(theta) = P(x | theta) P_med(theta)^(1/2). Train and test data
// must be turned into rows by the same mediator (save it with to_json).
class MiMediator {
 public:
  virtual ~MiMediator() = default;
  virtual long dim() const = 0;
  // The mi row of the datum x (dim() entries); ModelError when x is not a datum of the likelihood
  // (naming the coordinate, 0-based) or has the wrong dimension.
  virtual std::unique_ptr<MiModel> row(const Eigen::VectorXd& x) const = 0;
  // {"mediator": the likelihood's name, "dim": D, then the likelihood's and the mediator's parameters}.
  virtual nlohmann::json to_json() const = 0;
};

// A mediator fit's complaint about one unlabeled point: `point` is its position in the list (0-based).
class MiPointError : public ModelError {
 public:
  MiPointError(std::size_t point, const std::string& what) : ModelError(what), point_(point) {}
  std::size_t point() const { return point_; }

 private:
  std::size_t point_;
};

// A Gaussian prior N(theta | m0 1, a0 I) on the mean; a0 = infinity is the flat prior P(theta) = 1.
struct GaussianMiPrior {
  double mean = 0.0;
  double variance = std::numeric_limits<double>::infinity();
};

// Gaussian likelihood N(x | theta, s I) with the mediator N(theta | m, a I):
//     K(x1, x2) = exp(-a |x1 - x2|^2 / (2 s (s + 2a)))   (Seeger 2001, the example after eq. 4).
// JSON: {"mediator":"gaussian","dim":D,"likelihood_variance":s,"mean":[m],"variance":a}.
class GaussianMiMediator : public MiMediator {
 public:
  // Throws ModelError unless s and a are finite and > 0 and m is finite.
  GaussianMiMediator(double likelihood_variance, Eigen::VectorXd mean, double variance);
  // Model-trust scaling (Seeger eq. 5): P_med(theta) ~ P(theta) prod_i N(x_i | theta, s I)^(lambda/n)
  // over the n unlabeled points x_i (dimension `dim`), lambda from 0 (the prior) to n (the posterior):
  //     1/a = 1/a0 + lambda/s,   m = a (m0/a0 + lambda x-bar/s).
  // No unlabeled points: the prior itself (lambda is irrelevant). Throws ModelError when the
  // mediator would be improper (a flat prior with lambda = 0 or no unlabeled points) or an argument
  // is invalid (s, a0 > 0, lambda >= 0 finite).
  static GaussianMiMediator fit(long dim, double likelihood_variance, const GaussianMiPrior& prior,
                                const std::vector<Eigen::VectorXd>& unlabeled, double lambda);
  // Throws ModelError naming the field.
  static GaussianMiMediator from_json(const nlohmann::json& object);

  double likelihood_variance() const { return s_; }
  const Eigen::VectorXd& mean() const { return m_; }
  double variance() const { return a_; }
  long dim() const override { return m_.size(); }
  // One block: gaussian_mi_block(x, s I, m, a I).
  std::unique_ptr<MiModel> row(const Eigen::VectorXd& x) const override;
  nlohmann::json to_json() const override;

 private:
  double s_;
  Eigen::VectorXd m_;
  double a_;
};

// Multinomial likelihood over count vectors x (whole numbers >= 0, n = sum_d x_d),
// P(x | theta) = C(x) prod_d theta_d^x_d with C(x) = n! / prod_d x_d!, and the mediator
// Dirichlet(theta | alpha), D >= 2. Then
//     g_x(theta) = C(x) prod_d theta_d^(x_d + (alpha_d - 1)/2) / B(alpha)^(1/2)
//                = exp(lw_x) Dirichlet(theta | x + (alpha + 1)/2),
//     lw_x = log C(x) + log B(x + (alpha + 1)/2) - log B(alpha)/2,
// one dirichlet block, and the rho = 1 kernel between two rows is
//     Q(x1, x2) = C(x1) C(x2) B(alpha + x1 + x2) / B(alpha),   B(a) = prod_d Gamma(a_d) / Gamma(sum_d a_d).
// JSON: {"mediator":"multinomial","dim":D,"alpha":[..]}.
class MultinomialMiMediator : public MiMediator {
 public:
  // Throws ModelError unless D >= 2 and every alpha_d is finite and > 0.
  explicit MultinomialMiMediator(Eigen::VectorXd alpha);
  // Model-trust scaling (Seeger eq. 5) with the conjugate prior Dirichlet(alpha0 1):
  //     alpha = alpha0 + (lambda/n) sum_i x_i   over the n unlabeled count vectors x_i.
  // No unlabeled points: the prior. Throws MiPointError for an unlabeled point that is not a count
  // vector, ModelError for invalid arguments.
  static MultinomialMiMediator fit(long dim, double prior_alpha, const std::vector<Eigen::VectorXd>& unlabeled,
                                   double lambda);
  static MultinomialMiMediator from_json(const nlohmann::json& object);

  const Eigen::VectorXd& alpha() const { return alpha_; }
  long dim() const override { return alpha_.size(); }
  std::unique_ptr<MiModel> row(const Eigen::VectorXd& counts) const override;
  nlohmann::json to_json() const override;

 private:
  Eigen::VectorXd alpha_;
};

}  // namespace ppk
