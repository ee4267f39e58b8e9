// Combined kernels: a weighted sum of the normalized kernels of the parts of two rows (see combined.hpp).
//
// K(a, b) = sum_i w_i k_i(a_i, b_i) / sqrt(k_i(a_i, a_i) k_i(b_i, b_i)): each term the cosine-normalized
// probability product kernel of part i (JMLR 2004 section 2), PSD as the inner product of
// phi_i / |phi_i|, so that the nonnegative sum is PSD. In log space:
//     log K = logsumexp_{i: w_i > 0} [log w_i + min(0, log k_i(a_i, b_i) - (log k_i(a_i, a_i) + log k_i(b_i, b_i)) / 2)],
// the min the Cauchy-Schwarz bound that ppk_norm holds each part's value to (kernel.hpp).
#include "ppk/families/combined.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk {

namespace {
const char* const kFamily = "combined";
}  // namespace

template <class Archive>
void CombinedParameters::fields(Archive& archive) {
  const auto size = archive.dimension("P", static_cast<long>(parts.size()), 1, INT_MAX);
  archive.reals("weights", weights, size);
  archive.models("parts", parts, size);
}

struct CombinedModel::Impl : CombinedParameters {
  // Set by prepare(): log w_i (-inf for a weight of 0: such parts are skipped) and log k_i(a_i, a_i).
  bool prepared = false;
  std::vector<double> log_weights;
  std::vector<double> log_self;
  double kernel_work = 0.0;  // kernel_work()
};

CombinedModel::CombinedModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  std::vector<double>& weights = parameters.weights;
  const std::vector<std::unique_ptr<Model>>& parts = parameters.parts;
  if (parts.empty()) throw detail::field_error(kFamily, "parts", "at least one part model");
  if (weights.size() != parts.size())
    throw detail::field_error(kFamily, "weights", "one weight per part (" + std::to_string(parts.size()) + ")",
                              std::to_string(weights.size()) + " weights");
  double sum = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (!(weights[i] >= 0.0 && std::isfinite(weights[i])))
      throw detail::element_error(kFamily, "weights", static_cast<long>(i), "a finite weight >= 0", weights[i]);
    weights[i] += 0.0;  // -0 becomes 0: the weights are written and compared as they read
    sum += weights[i];
  }
  if (!(sum > 0.0)) throw detail::field_error(kFamily, "weights", "weights summing to more than 0", "all 0");
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string path = "[" + std::to_string(i) + "]";
    if (!parts[i]) throw detail::FieldError(kFamily, "parts", static_cast<long>(i), path, "a part model", "nothing");
    const FamilyInfo& family = parts[i]->family();
    if (&family == &combined_family() || !family.exact())
      throw detail::FieldError(kFamily, "parts", static_cast<long>(i), path,
                               "a model of a family with an exact kernel other than combined (combined rows do not "
                               "nest, and their Gram matrices are positive semidefinite only with exact parts)",
                               "a " + family.name + " model");
  }
  static_cast<CombinedParameters&>(*impl_) = std::move(parameters);
}

CombinedModel::~CombinedModel() = default;

const CombinedParameters& CombinedModel::parameters() const { return *impl_; }
const std::vector<double>& CombinedModel::weights() const { return impl_->weights; }
std::size_t CombinedModel::size() const { return impl_->parts.size(); }
const Model& CombinedModel::part(std::size_t i) const { return *impl_->parts.at(i); }

const FamilyInfo& CombinedModel::family() const { return combined_family(); }

SampleSpace CombinedModel::sample_space() const {
  std::string kind = "parts [";
  for (std::size_t i = 0; i < impl_->parts.size(); ++i) {
    const Model& part = *impl_->parts[i];
    kind += (i == 0 ? "" : ", ") + detail::format_number(impl_->weights[i]) + " x " + part.family().name + " over " +
            part.sample_space().describe();
  }
  return {kind + "]", static_cast<long>(impl_->parts.size())};
}

void CombinedModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.prepared = false;
  m.log_weights.resize(m.parts.size());
  m.log_self.resize(m.parts.size());
  double work = 0.0;
  for (std::size_t i = 0; i < m.parts.size(); ++i) {
    Model& part = *m.parts[i];
    part.prepare(params);
    m.log_self[i] = ppk::log_kernel(part, part);
    if (!std::isfinite(m.log_self[i]))
      throw KernelDomainError(
          std::string(kFamily) + " part " + std::to_string(i + 1) + " (" + part.family().name + " over " +
          part.sample_space().describe() + "): its self-kernel k(p, p) at rho = " + detail::format_number(params.rho) +
          " has the log " + detail::format_number(m.log_self[i]) + ", so its kernel cannot be normalized");
    m.log_weights[i] = m.weights[i] > 0.0 ? std::log(m.weights[i]) : -std::numeric_limits<double>::infinity();
    work += 1.0 + part.kernel_work();
  }
  // Part i meets part i of the other row only: one kernel per part.
  m.kernel_work = detail::check_kernel_work(kFamily, "the P part kernels (P = " + std::to_string(m.parts.size()) + ")",
                                            work, "give fewer or smaller parts, or a smaller -d T");
  m.prepared = true;
}

double CombinedModel::kernel_work() const { return impl_->kernel_work; }
std::optional<long> CombinedModel::sequence_steps() const {
  std::optional<long> shortest;
  for (const auto& part : impl_->parts)
    if (const std::optional<long> steps = part->sequence_steps())
      shortest = shortest ? std::min(*shortest, *steps) : *steps;
  return shortest;
}

double combined_log_kernel(const std::vector<double>& log_weights, const double* log_normalized, double* terms) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < log_weights.size(); ++i)
    if (log_weights[i] > -std::numeric_limits<double>::infinity()) terms[count++] = log_weights[i] + log_normalized[i];
  return detail::log_sum_exp(terms, count);  // not empty: a weight is positive
}

double CombinedModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const auto* other_combined = dynamic_cast<const CombinedModel*>(&other);
  if (!a.prepared || other_combined == nullptr || !other_combined->impl_->prepared ||
      other_combined->size() != a.parts.size())
    detail::throw_unprepared_pair(kFamily);
  const Impl& b = *other_combined->impl_;
  if (b.weights != a.weights) check_combined_compatible(*this, other);  // throws the message naming both weightings
  // Two buffers of P per thread, grown once: no allocation per evaluation.
  thread_local std::vector<double> normalized, terms;
  normalized.resize(a.parts.size());
  terms.resize(a.parts.size());
  for (std::size_t i = 0; i < a.parts.size(); ++i) {
    if (a.weights[i] == 0.0) continue;
    const double log_normalized = ppk::log_kernel(*a.parts[i], *b.parts[i]) - 0.5 * (a.log_self[i] + b.log_self[i]);
    normalized[i] = log_normalized > 0.0 ? 0.0 : log_normalized;  // a NaN stays NaN
  }
  return combined_log_kernel(a.log_weights, normalized.data(), terms.data());
}

std::string format_weights(const std::vector<double>& weights, char separator) {
  std::string text;
  for (std::size_t i = 0; i < weights.size(); ++i)
    text += (i == 0 ? "" : std::string(1, separator)) + detail::format_number(weights[i]);
  return text;
}

void check_combined_compatible(const Model& a, const Model& b) {
  const auto* combined_a = dynamic_cast<const CombinedModel*>(&a);
  const auto* combined_b = dynamic_cast<const CombinedModel*>(&b);
  if (combined_a == nullptr || combined_b == nullptr) {
    const Model& plain = combined_a == nullptr ? a : b;
    throw KernelDomainError("a combined row and a " + plain.family().name +
                            " row: no kernel; a combined row pairs only with combined rows of as many parts");
  }
  if (combined_a->size() != combined_b->size())
    throw KernelDomainError("combined rows of " + std::to_string(combined_a->size()) + " and " +
                            std::to_string(combined_b->size()) +
                            " parts: no kernel; combined rows pair part i with part i, so they need as many parts");
  if (combined_a->weights() != combined_b->weights())
    throw KernelDomainError("combined rows with the weights " + format_weights(combined_a->weights()) + " and " +
                            format_weights(combined_b->weights()) +
                            ": no kernel; the kernel is a sum under one weighting, so every row needs the same "
                            "weights: combine the training and the test rows alike (a model that ppk select trains holds "
                            "the weights it chose)");
  for (std::size_t i = 0; i < combined_a->size(); ++i) {
    try {
      check_compatible(combined_a->part(i), combined_b->part(i));
    } catch (const KernelDomainError& e) {
      throw KernelDomainError("combined part " + std::to_string(i + 1) + ": " + e.what());
    }
  }
}

const FamilyInfo& combined_family() {
  static const FamilyInfo info = [] {
    FamilyInfo family = make_family<CombinedModel>(kFamily, 19);
    family.check_compatible = &check_combined_compatible;  // part i with part i under one weighting
    family.weighted_parts = true;
    return family;
  }();
  return info;
}

}  // namespace ppk
