// Combined kernels: one row holding P models of one example (an HMM of a sequence and a multinomial of
// its k-mers, a Gaussian of a series' frames and an HMM of their dynamics), its kernel a weighted sum of
// the parts' normalized kernels.
//
// Kernel: for rows a and b with parts a_i, b_i and weights w_i >= 0 (the same in both rows),
//     K(a, b) = sum_i w_i k_i(a_i, b_i) / sqrt(k_i(a_i, a_i) k_i(b_i, b_i)),
// each k_i the probability product kernel of part i's family at the kernel's rho and T (-g, -d: parts
// that are sequence models compare x_0..x_T). Each term is the cosine-normalized kernel of a PSD kernel
// (JMLR 2004 section 2: normalizing keeps a kernel positive semidefinite, it is the inner product of
// phi / |phi|), a function of part i alone, so K is a nonnegative sum of PSD kernels on rows: positive
// semidefinite. It is the inner product of the concatenated features (sqrt(w_i) phi_i(a_i) / |phi_i(a_i)|)_i
// (`ppk map`, maps/feature_map.hpp). K(a, a) = sum_i w_i, so ppk_norm is K / sum_i w_i. Each
// normalized term is held to its Cauchy-Schwarz bound 1, as ppk_norm holds a part's value (kernel.hpp),
// so that K is the weighted sum of the parts' `ppk gram -t ppk_norm` values. Evaluated in log space:
//     log K = logsumexp over the parts of positive weight of
//             log w_i + min(0, log k_i(a_i, b_i) - (log k_i(a_i, a_i) + log k_i(b_i, b_i)) / 2),
// each part's log self-kernel computed once, in prepare().
//
// Two combined rows pair part i with part i: they have a kernel when they have the same P, the same
// weights (the kernel is a sum under one weighting: rows of two weightings would mix two kernels, and a
// model trained under one would predict test rows of another silently wrong) and each pair of parts
// has a kernel (check_compatible). Parts are models of any family with an exact kernel (a Gram of
// combined rows must be PSD) other than combined: not fhmm or montecarlo rows, whose values are a
// bound or an estimate.
//
// Row fields (family code 19): 3: P (>= 1)   4..3+P: the weights w_i (>= 0, finite, summing to > 0)
//   then the P nested part models (RowWriter::model: a length, then the part's row from its family
//   code on), as a mixture's components.
// JSON: {"family":"combined","weights":[..],"parts":[{model},..]}
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"

namespace ppk {

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// the row's P, then "weights" and the P nested "parts".
struct CombinedParameters {
  std::vector<double> weights;  // w_i >= 0
  std::vector<std::unique_ptr<Model>> parts;
  template <class Archive>
  void fields(Archive& archive);
};

class CombinedModel : public Model {
 public:
  // Throws ModelError unless P >= 1, there is one finite weight >= 0 per part, the weights sum to more
  // than 0, and every part is a model of an exact family other than combined.
  using Parameters = CombinedParameters;
  explicit CombinedModel(Parameters parameters);
  CombinedModel(std::vector<double> weights, std::vector<std::unique_ptr<Model>> parts)
      : CombinedModel(Parameters{std::move(weights), std::move(parts)}) {}
  const Parameters& parameters() const;
  const std::vector<double>& weights() const;
  std::size_t size() const;  // P
  const Model& part(std::size_t i) const override;
  const std::vector<double>* part_weights() const override { return &weights(); }

  ~CombinedModel() override;
  const FamilyInfo& family() const override;
  // Kind "parts [w_1 x FAMILY_1 over SPACE_1, ...]" (the parts' families and sample spaces, the latter
  // with the prepared T), dimension P: two combined rows whose spaces are equal have a kernel.
  SampleSpace sample_space() const override;
  // Prepares every part with `params` and computes its log self-kernel.
  void prepare(const KernelParams& params) override;
  // `other` is a combined row of the same P and weights whose parts have a kernel with these.
  double log_kernel(const Model& other) const override;
  double kernel_work() const override;  // the parts' summed, part i paired with part i
  // The smallest T of the parts that are sequence models (one -d T serves them all), else nothing.
  std::optional<long> sequence_steps() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& combined_family();

// log K from the parts' log normalized kernels: logsumexp over the parts of positive weight of
// log w_i + log_normalized[i] (what CombinedModel::log_kernel sums; log_weights[i] = log w_i, -inf for a
// weight of 0, and such parts are left out). `terms` is scratch space of P entries.
double combined_log_kernel(const std::vector<double>& log_weights, const double* log_normalized, double* terms);

// Throws KernelDomainError naming what differs unless `a` and `b` have a kernel: both combined rows,
// of the same P and weights, each pair of parts compatible (check_compatible; its message restated
// for "part i"). What check_compatible does when either model is a combined row.
void check_combined_compatible(const Model& a, const Model& b);

// "1,0.5" (the weights as `ppk combine --weights` takes them): for messages.
std::string format_weights(const std::vector<double>& weights, char separator = ',');

}  // namespace ppk
