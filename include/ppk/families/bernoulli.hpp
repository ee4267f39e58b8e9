// Bernoulli ("naive Bayes") models over {0,1}^D: p(x) = prod_d g_d^x_d (1-g_d)^(1-x_d).
//
// Kernel (JMLR 2004, section 3.2): k_rho = prod_d [ (g_d g'_d)^rho + ((1-g_d)(1-g'_d))^rho ],
// evaluated as a sum of logs. Coordinates at the row's base probability on both
// sides contribute one precomputed factor each, so sparse rows cost O(listed).
//
// Sampling (sampling.hpp): p^rho / Z is the Bernoulli model of g_d^rho / (g_d^rho + (1-g_d)^rho),
// Z(rho) = prod_d [g_d^rho + (1-g_d)^rho], any rho > 0.
//
// Exact map (exact_map.hpp): p(x)^rho over the 2^D binary vectors, phi_x = prod_d (g_d^rho)^x_d
// ((1-g_d)^rho)^(1-x_d), feature index x read as a binary number (x_0 its lowest bit); for D <= 20 only
// (2^20 features), a Nystrom map beyond.
//
// Row fields (family code 2): 3: D (>= 1)   4: base probability
//   5..4+D: g_d for coordinates that differ from the base (absent or 0 means base).
#pragma once

#include <memory>

#include "ppk/core/exact_map.hpp"
#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"
#include "ppk/core/sparse_probabilities.hpp"

namespace ppk {

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// the row's "dim" D, then "base" and the listed "p"; JSON: "p" dense.
struct BernoulliParameters {
  SparseProbabilities p;  // p_d = g_d = P(x_d = 1)
  template <class Archive>
  void fields(Archive& archive);
};

class BernoulliModel : public Model, public SamplableModel, public MappableModel {
 public:
  // Throws ModelError unless every g_d is in [0, 1] and finite.
  using Parameters = BernoulliParameters;
  explicit BernoulliModel(Parameters parameters);
  explicit BernoulliModel(SparseProbabilities g) : BernoulliModel(Parameters{std::move(g)}) {}
  const Parameters& parameters() const;
  const SparseProbabilities& probabilities() const;

  ~BernoulliModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;
  void prepare(const KernelParams& params) override;
  double log_kernel(const Model& other) const override;

  // SamplableModel interface: see sampling.hpp. A sample is the D-vector of 0s and 1s.
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  // MappableModel interface: see the top of this file (KernelDomainError for D > 20).
  ExactFeatures exact_features() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& bernoulli_family();

}  // namespace ppk
