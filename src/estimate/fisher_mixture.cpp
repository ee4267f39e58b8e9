// Fisher scores (fisher.hpp) of a pooled mixture of Gaussians in one covariance form (x a set of
// vectors, the rows of an n x D matrix). The E-step is the mixture's responsibilities r_t(m)
// (gaussian_em.hpp) under the pooled parameters, t running over the set: the weights' logit scores
// (fisher.hpp) have the expected counts
//     weights      c_m = sum_t r_t(m), N = n,
// and the components the blocks of Gaussian states weighted by r_t(m) (fisher_gaussian.hpp).
// u(x) = U(x) / n, n the set's size.
//
// Feature order: weights[m]; then component by component its means[m][d] and covariance block. The
// selection's names: weights, means, covariances.
#include <memory>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "estimate/fisher_gaussian.hpp"
#include "estimate/fisher_scores.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/estimate/fisher.hpp"
#include "ppk/families/mixture.hpp"

namespace ppk {

namespace {

std::vector<const Model*> components_of(const MixtureModel& mixture) {
  std::vector<const Model*> components;
  for (std::size_t c = 0; c < mixture.size(); ++c) components.push_back(&mixture.component(c));
  return components;
}

class MixtureScores final : public FisherScores {
 public:
  MixtureScores(const MixtureModel& mixture, const AdaptedParameters& parameters)
      : weights_(Eigen::Map<const Eigen::VectorXd>(mixture.weights().data(), static_cast<Eigen::Index>(mixture.size()))),
        gaussians_(components_of(mixture), "the pooled mixture's component", parameters.means, parameters.covariances),
        score_weights_(parameters.weights) {
    check_adapted_parameters(parameters, "mixture", {"weights", "means", "covariances"});
    const long components = static_cast<long>(weights_.size());
    if (score_weights_)
      for (long m = 0; m < components; ++m) names_.push_back(detail::indexed("weights", m));
    for (long m = 0; m < components; ++m) gaussians_.name_state(m, names_);
  }

  Eigen::VectorXd rows_score(const Eigen::MatrixXd& x) const override {
    detail::check_rows(x, gaussians_.dim, "set");
    const detail::MixtureEStep step = detail::mixture_e_step(x, weights_, gaussians_.gaussians);
    detail::check_probability(step.log_rows.sum(), "set");
    Eigen::VectorXd out(static_cast<Eigen::Index>(names_.size()));
    Eigen::Index j = 0;
    if (score_weights_) {
      detail::write_logit_scores(step.responsibilities.colwise().sum().transpose(), weights_,
                                 out.segment(j, weights_.size()));
      j += weights_.size();
    }
    for (std::size_t m = 0; m < gaussians_.gaussians.means.size(); ++m)
      j = gaussians_.write_state(x, step.responsibilities.col(static_cast<Eigen::Index>(m)), m, out, j);
    return out / static_cast<double>(x.rows());
  }

 protected:
  std::string pooled_model() const override { return "the pooled mixture has Gaussian components"; }

 private:
  Eigen::VectorXd weights_;  // w
  detail::GaussianStateScores gaussians_;
  bool score_weights_;
};

}  // namespace

std::unique_ptr<FisherScores> mixture_fisher_scores(const MixtureModel& pooled, const AdaptedParameters& parameters) {
  return std::make_unique<MixtureScores>(pooled, parameters);
}

}  // namespace ppk
