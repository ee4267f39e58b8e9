// Bernoulli ("naive Bayes") models over {0,1}^D: p(x) = prod_d g_d^x_d (1-g_d)^(1-x_d).
//
// Kernel (JMLR 2004, section 3.2): k_rho = prod_d [ (g_d g'_d)^rho + ((1-g_d)(1-g'_d))^rho ],
// evaluated as a sum of logs. Coordinates at the row's base probability on both
// sides contribute one precomputed factor each, so sparse rows cost O(listed).
//
// Sampling (sampling.hpp): p^rho / Z is the Bernoulli model of g_d^rho / (g_d^rho + (1-g_d)^rho),
// Z(rho) = prod_d [g_d^rho + (1-g_d)^rho], any rho > 0.
//
// Row fields (family code 2): 3: D (>= 1)   4: base probability
//   5..4+D: g_d for coordinates that differ from the base (absent or 0 means base).
#pragma once

#include <memory>

#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"
#include "ppk/core/sparse_probabilities.hpp"

namespace ppk {

class BernoulliModel : public Model, public SamplableModel {
 public:
  // Throws ModelError unless every g_d is in [0, 1] and finite.
  explicit BernoulliModel(SparseProbabilities g);
  const SparseProbabilities& probabilities() const;

  ~BernoulliModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;
  void prepare(const KernelParams& params) override;
  double log_kernel(const Model& other) const override;
  void encode_fields(RowWriter& out) const override;
  void to_json(nlohmann::json& out) const override;

  // SamplableModel interface: see sampling.hpp. A sample is the D-vector of 0s and 1s.
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& bernoulli_family();

}  // namespace ppk
