// The family `mi`: per-datum functions g_x on parameter space for mutual-information kernels
// (see mi.hpp; Seeger, NIPS 2001, sections 2 and 2.2).
//
// g = (+)_s exp(lw_s) b_s over K disjoint blocks, so
//     <g, g'> = sum_s exp(lw_s + lw'_s) integral b_s b'_s = sum_s exp(lw_s + lw'_s) k_1(b_s, b'_s),
// evaluated in log space: log k = logsumexp_s [lw_s + lw'_s + log k_1(b_s, b'_s)].
#include "ppk/families/mi.hpp"

#include <climits>
#include <cmath>
#include <string>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/families/montecarlo.hpp"

namespace ppk {

namespace {
const char* const kFamily = "mi";
}  // namespace

template <class Archive>
void MiParameters::fields(Archive& archive) {
  const auto size = archive.dimension("K", static_cast<long>(blocks.size()), 1, INT_MAX);
  archive.reals("log_weights", log_weights, size);
  archive.models("blocks", blocks, size);
}

struct MiModel::Impl : MiParameters {
  bool prepared = false;
};

MiModel::MiModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  const std::vector<double>& log_weights = parameters.log_weights;
  const std::vector<std::unique_ptr<Model>>& blocks = parameters.blocks;
  if (blocks.empty()) throw detail::field_error(kFamily, "blocks", "at least one block model");
  if (log_weights.size() != blocks.size())
    throw detail::field_error(kFamily, "log_weights", "one log weight per block (" + std::to_string(blocks.size()) + ")",
                              std::to_string(log_weights.size()) + " log weights");
  for (std::size_t s = 0; s < log_weights.size(); ++s)
    if (!std::isfinite(log_weights[s]))
      throw detail::element_error(kFamily, "log_weights", static_cast<long>(s), "a finite log weight", log_weights[s]);
  for (std::size_t s = 0; s < blocks.size(); ++s) {
    const std::string path = "[" + std::to_string(s) + "]";
    if (!blocks[s]) throw detail::FieldError(kFamily, "blocks", static_cast<long>(s), path, "a block model", "nothing");
    const FamilyInfo& family = blocks[s]->family();
    if (&family == &mi_family() || &family == &mixture_family() || &family == &montecarlo_family() || !family.exact())
      throw detail::FieldError(kFamily, "blocks", static_cast<long>(s), path,
                               "a model of a family with an exact kernel other than mixture, montecarlo and mi",
                               "a " + family.name + " model");
  }
  static_cast<MiParameters&>(*impl_) = std::move(parameters);
}

MiModel::~MiModel() = default;

const std::vector<double>& MiModel::log_weights() const { return impl_->log_weights; }
const MiParameters& MiModel::parameters() const { return *impl_; }
std::size_t MiModel::size() const { return impl_->blocks.size(); }
const Model& MiModel::block(std::size_t s) const { return *impl_->blocks.at(s); }

const FamilyInfo& MiModel::family() const { return mi_family(); }

SampleSpace MiModel::sample_space() const {
  std::string kind = "MI functions on blocks [";
  for (std::size_t s = 0; s < impl_->blocks.size(); ++s)
    kind += (s == 0 ? "" : ", ") + impl_->blocks[s]->sample_space().describe();
  return {kind + "]", static_cast<long>(impl_->blocks.size())};
}

void MiModel::prepare(const KernelParams& params) {
  if (params.rho != 1.0)
    throw KernelDomainError(std::string(kFamily) +
                            " kernel: defined only at rho = 1 (-g 1): the MI kernel is the rho = 1 inner product "
                            "<g_x1, g_x2> of the per-datum functions g_x(theta) = P(x | theta) P_med(theta)^(1/2); "
                            "got rho = " +
                            detail::format_number(params.rho));
  for (const auto& block : impl_->blocks) block->prepare(params);
  impl_->prepared = true;
}

// Block s meets block s of the other model only: the blocks' works summed.
double MiModel::kernel_work() const {
  double work = 0.0;
  for (const auto& block : impl_->blocks) work += block->kernel_work();
  return work;
}

double MiModel::log_kernel(const Model& other) const {
  const auto* other_mi = dynamic_cast<const MiModel*>(&other);
  if (!impl_->prepared || other_mi == nullptr || !other_mi->impl_->prepared || other_mi->size() != size())
    detail::throw_unprepared_pair(kFamily);
  const Impl& b = *other_mi->impl_;
  std::vector<double> terms(size());
  for (std::size_t s = 0; s < terms.size(); ++s)
    terms[s] = impl_->log_weights[s] + b.log_weights[s] + ppk::log_kernel(*impl_->blocks[s], *b.blocks[s]);
  return detail::log_sum_exp(terms);
}

const FamilyInfo& mi_family() {
  static const FamilyInfo info = make_family<MiModel>(kFamily, 16);
  return info;
}

}  // namespace ppk
