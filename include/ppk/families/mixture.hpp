// Mixtures p(x) = sum_m w_m p_m(x) of models of any family over one sample space.
//
// Kernel (JMLR 2004 section 4.1; docs/design.md): the k~ of latent-variable models, the power applied
// to the joint of the component label and x,
//     k~ = sum_{m,n} (w_m w'_n)^rho k_rho(p_m, p'_n),
// which is k_rho of the mixture densities at rho = 1. A mixture against a plain model p' of its
// sample space is the mixture against the one-component mixture of p'; a one-component mixture
// equals its component. Evaluated in log space (log-sum-exp over the M x N pairs).
//
// Sampling (sampling.hpp), rho = 1 only (p^rho / Z is not a mixture of tilted components, and
// Z(rho) has no closed form): component m with probability w_m, then a draw from it; Z(1) = 1.
// Every component must be samplable.
//
// Row fields (family code 8): 3: M (>= 1)   4..3+M: weights (>= 0, summing to 1 within 1e-6)
//   then M nested component models (RowWriter::model: a length, then the component's row from
//   its family code on).
// JSON: {"family":"mixture","weights":[..],"components":[{model},..]}
#pragma once

#include <memory>
#include <vector>

#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// the row's M, then "weights" and the M nested "components".
struct MixtureParameters {
  std::vector<double> weights;  // w_m, summing to 1
  std::vector<std::unique_ptr<Model>> components;
  template <class Archive>
  void fields(Archive& archive);
};

class MixtureModel : public Model, public SamplableModel {
 public:
  // Throws ModelError unless M >= 1, the weights are probabilities summing to 1 (within 1e-6;
  // then renormalised), and every component is a non-mixture model over one sample space.
  using Parameters = MixtureParameters;
  explicit MixtureModel(Parameters parameters);
  MixtureModel(std::vector<double> weights, std::vector<std::unique_ptr<Model>> components)
      : MixtureModel(Parameters{std::move(weights), std::move(components)}) {}
  const Parameters& parameters() const;
  const std::vector<double>& weights() const;
  std::size_t size() const;
  const Model& component(std::size_t m) const;

  ~MixtureModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;          // the components' sample space
  void prepare(const KernelParams& params) override;  // prepares every component
  // `other` is a mixture, or a plain model of the components' sample space.
  double log_kernel(const Model& other) const override;
  double kernel_work() const override;  // the M x M' component kernels' (prepare)

  // SamplableModel interface: see sampling.hpp. A sample is a component's sample.
  bool can_sample() const override;  // every component can
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;  // KernelDomainError unless rho = 1
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double log_probability_work() const override;  // the components' summed

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& mixture_family();

}  // namespace ppk
