// The kernel dispatcher: kernels between decoded models, the cosine-normalised
// kernel, and the compatibility rules between families, from what each family declares (its
// FamilyInfo, family.hpp, and the virtuals of its Model): it names no family.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ppk/core/model.hpp"

namespace ppk {

// A model ready for kernel evaluation: decoded once, prepared for the kernel
// parameters once, its self-kernel log k(p, p) computed once.
class PreparedModel {
 public:
  // Throws KernelDomainError if the self-kernel is not finite and positive.
  PreparedModel(std::unique_ptr<Model> model, const KernelParams& params);
  const Model& model() const { return *model_; }
  const FamilyInfo& family() const { return *family_; }
  const KernelParams& params() const { return params_; }
  double log_self_kernel() const { return log_self_; }
  // sqrt(k(p, p)) = exp(log k(p, p) / 2): the model's factor of the Cauchy-Schwarz bound on ppk values.
  double root_self_kernel() const { return root_self_; }
  // model().sample_space(), made once: check_compatible compares the spaces of every pair of a Gram.
  const SampleSpace& sample_space() const { return sample_space_; }

 private:
  std::unique_ptr<Model> model_;
  const FamilyInfo* family_;  // model_->family(), looked up once: the hot loop compares families
  SampleSpace sample_space_;
  KernelParams params_;
  double log_self_;
  double root_self_;
};

enum class KernelKind { ppk = 5, ppk_norm = 6 };

// Throws KernelDomainError when `kind` is ppk and k(p, p) overflows a double. Every value between
// models that pass this check is then finite or NaN: kernel() and normalized_kernel() hold their
// values to the Cauchy-Schwarz bound k(p, q) <= sqrt(k(p, p) k(q, q)) (ppk_norm <= 1), which an exact
// kernel obeys up to rounding and an inexact family's value (a lower bound, an estimate) may not.
void check_finite_kernel_values(KernelKind kind, const PreparedModel& model);

// The one-line warning for rows of a family whose kernel is not exact (FamilyInfo::approximation):
// "fhmm rows: the kernel values are <approximation>, not k itself; the Gram matrix may not be
// positive semidefinite". Empty for a family whose kernel is exact.
std::string inexact_kernel_warning(const FamilyInfo& family);

// Throws KernelDomainError naming both sample spaces when the pair has no kernel.
void check_compatible(const Model& a, const Model& b);
// The same for prepared models, without making their sample spaces again: models of one family over one
// sample space always have a kernel.
void check_compatible(const PreparedModel& a, const PreparedModel& b);

// log k_rho(a, b). Requires check_compatible(a, b).
double log_kernel(const PreparedModel& a, const PreparedModel& b);
// The same between two models prepared with the same parameters: what models made of other
// models (mixture components, HMM emissions) call for their parts.
double log_kernel(const Model& a, const Model& b);
// k_rho(a, b), at most sqrt(k(a, a) k(b, b)) (check_finite_kernel_values); NaN stays NaN.
double kernel(const PreparedModel& a, const PreparedModel& b);
// k(a,b) / sqrt(k(a,a) k(b,b)), in log space: exp(min(0, log k(a,b) - (log k(a,a) + log k(b,b)) / 2)).
double normalized_kernel(const PreparedModel& a, const PreparedModel& b);
double evaluate(KernelKind kind, const PreparedModel& a, const PreparedModel& b);
// What evaluate(kind, a, b) gives for a pair whose log k(a, b) is log_k and whose self-kernels are
// log k(a, a) = log_self_a and log k(b, b) = log_self_b, by the rules of kernel() and normalized_kernel(),
// which call it: ppk min(exp(log_k), exp(log_self_a / 2) exp(log_self_b / 2)) (the Cauchy-Schwarz bound);
// ppk_norm exp(min(0, log_k - (log_self_a + log_self_b) / 2)). NaN stays NaN.
double kernel_value(KernelKind kind, double log_k, double log_self_a, double log_self_b);
// log k(a, b) at each T = lengths[k] into out[k], from one pass of the pair's recursion over time steps
// (Model::log_kernel_over_lengths; a and b prepared with one rho and T >= lengths.back()); the self-kernels
// at each T are the calls with b = a, and kernel_value turns the three logs into the Gram entry at T.
// False (nothing written) for a pair of two families, or of a family that does not give every T from one
// pass. Throws std::invalid_argument for lengths out of order or beyond the prepared T.
bool log_kernels_over_lengths(const PreparedModel& a, const PreparedModel& b, const std::vector<int>& lengths,
                              double* out);
// out[k] = evaluate(kind, a, *b[k]) for k < n, the same values bit for bit, with the families'
// batch kernels (one setup for a per call). Requires check_compatible(a, b[k]) for every k.
void evaluate_many(KernelKind kind, const PreparedModel& a, const PreparedModel* const* b, std::size_t n, double* out);

}  // namespace ppk
