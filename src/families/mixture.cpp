// Mixtures of models over one sample space and their kernel (see mixture.hpp).
//
// JMLR 2004 section 4.1: for latent-variable models the power is applied to the joint p(m) p_m(x) of
// the component label m and x, and the kernel sums over both labels:
//     k~ = sum_{m,n} (w_m w'_n)^rho k_rho(p_m, p'_n),
// the inner product of the feature maps sum_m w_m^rho p_m^rho (hence positive semidefinite). At
// rho = 1 it is integral p(x) p'(x) dx of the mixture densities. The M x N terms are summed in
// log space: log k~ = logsumexp_{m,n} [rho log w_m + rho log w'_n + log k_rho(p_m, p'_n)].
#include "ppk/families/mixture.hpp"

#include <climits>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk {

namespace {
const char* const kFamily = "mixture";
constexpr double kWeightSumTolerance = 1e-6;
}  // namespace

template <class Archive>
void MixtureParameters::fields(Archive& archive) {
  const auto size = archive.dimension("M", static_cast<long>(components.size()), 1, INT_MAX);
  archive.reals("weights", weights, size);
  archive.models("components", components, size);
}

struct MixtureModel::Impl : MixtureParameters {
  // Set by prepare(): rho log w_m (-inf for a weight of 0: such components are skipped).
  double rho = 0.0;
  std::vector<double> rho_log_weights;
  double kernel_work = 0.0;  // kernel_work()
};

MixtureModel::MixtureModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  std::vector<double>& weights = parameters.weights;
  std::vector<std::unique_ptr<Model>>& components = parameters.components;
  if (components.empty()) throw detail::field_error(kFamily, "components", "at least one component model");
  if (weights.size() != components.size())
    throw detail::field_error(kFamily, "weights", "one weight per component (" + std::to_string(components.size()) + ")",
                              std::to_string(weights.size()) + " weights");
  double sum = 0.0;
  for (std::size_t m = 0; m < weights.size(); ++m) {
    if (!detail::is_probability(weights[m]))
      throw detail::element_error(kFamily, "weights", static_cast<long>(m), "a probability in [0, 1]", weights[m]);
    sum += weights[m];
  }
  if (!(std::fabs(sum - 1.0) <= kWeightSumTolerance))
    throw detail::field_error(kFamily, "weights", "probabilities summing to 1 (within 1e-6)",
                              "a sum of " + detail::format_number(sum));
  for (double& w : weights) w /= sum;
  for (std::size_t m = 0; m < components.size(); ++m) {
    const std::string path = "[" + std::to_string(m) + "]";
    if (!components[m])
      throw detail::FieldError(kFamily, "components", static_cast<long>(m), path, "a component model", "nothing");
    if (&components[m]->family() == &mixture_family())
      throw detail::FieldError(kFamily, "components", static_cast<long>(m), path,
                               "a model of a family other than mixture (mixtures do not nest)", "a mixture");
    const SampleSpace space = components[m]->sample_space();
    if (space != components[0]->sample_space())
      throw detail::FieldError(
          kFamily, "components", static_cast<long>(m), path,
          "a model over the sample space of component 0 (" + components[0]->sample_space().describe() + ")",
          "a " + components[m]->family().name + " model over " + space.describe());
  }
  static_cast<MixtureParameters&>(*impl_) = std::move(parameters);
}

MixtureModel::~MixtureModel() = default;

const std::vector<double>& MixtureModel::weights() const { return impl_->weights; }
const MixtureParameters& MixtureModel::parameters() const { return *impl_; }
std::size_t MixtureModel::size() const { return impl_->components.size(); }
const Model& MixtureModel::component(std::size_t m) const { return *impl_->components.at(m); }

const FamilyInfo& MixtureModel::family() const { return mixture_family(); }

SampleSpace MixtureModel::sample_space() const { return impl_->components.front()->sample_space(); }

void MixtureModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  for (const auto& component : m.components) component->prepare(params);
  // M x M' component kernels per evaluation (detail::parts_kernel_work): 100 HMM components of 10^9
  // multiply-adds each would take hours in a row of a few hundred kB.
  m.kernel_work = detail::check_kernel_work(
      kFamily, "the M x M' component kernels (M = " + std::to_string(m.components.size()) + ")",
      detail::parts_kernel_work(m.components), "give fewer or smaller components, or a smaller -d T");
  m.rho = params.rho;
  m.rho_log_weights.resize(m.weights.size());
  for (std::size_t i = 0; i < m.weights.size(); ++i)
    m.rho_log_weights[i] = m.weights[i] > 0.0 ? m.rho * std::log(m.weights[i]) : -std::numeric_limits<double>::infinity();
}

// log k~ = logsumexp over the pairs (m, n) of positive weight of rho log w_m + rho log w'_n +
// log k_rho(p_m, p'_n); a plain `other` is the one-component mixture (w'_0 = 1, p'_0 = other).
double MixtureModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const auto* other_mixture = dynamic_cast<const MixtureModel*>(&other);
  if (a.rho <= 0.0 || (other_mixture != nullptr && other_mixture->impl_->rho != a.rho))
    detail::throw_unprepared_pair(kFamily);
  const std::size_t other_size = other_mixture ? other_mixture->size() : 1;
  std::vector<double> terms;
  terms.reserve(a.components.size() * other_size);
  for (std::size_t m = 0; m < a.components.size(); ++m) {
    if (a.weights[m] == 0.0) continue;
    for (std::size_t n = 0; n < other_size; ++n) {
      if (other_mixture && other_mixture->impl_->weights[n] == 0.0) continue;
      const double rho_log_weight_n = other_mixture ? other_mixture->impl_->rho_log_weights[n] : 0.0;
      const Model& component_n = other_mixture ? other_mixture->component(n) : other;
      terms.push_back(a.rho_log_weights[m] + rho_log_weight_n + ppk::log_kernel(*a.components[m], component_n));
    }
  }
  return detail::log_sum_exp(terms);  // not empty: a weight is positive on each side
}

bool MixtureModel::can_sample() const {
  for (const auto& component : impl_->components)
    if (as_samplable(*component) == nullptr) return false;
  return true;
}

long MixtureModel::sample_size() const { return as_samplable(*impl_->components.front())->sample_size(); }

double MixtureModel::log_tilted_normalizer(double rho) const {
  require_rho_one(*this, "a mixture",
                  "p^rho / Z is not a mixture of its components' tilted models and Z has no closed form", rho);
  return 0.0;
}

// Component labels first (one categorical draw per sample), then each component's draws.
void MixtureModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const Impl& m = *impl_;
  std::vector<double> cumulative(m.weights.size());
  std::partial_sum(m.weights.begin(), m.weights.end(), cumulative.begin());
  std::vector<std::size_t> labels(static_cast<std::size_t>(samples.cols()));
  for (std::size_t& label : labels) label = generator.categorical(cumulative.data(), cumulative.size());
  std::vector<const SamplableModel*> components;
  for (const auto& component : m.components) components.push_back(as_samplable(*component));
  sample_parts(components, labels, rho, generator, samples);
}

// log p(x) = logsumexp over the components of positive weight of log w_m + log p_m(x).
double MixtureModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Impl& m = *impl_;
  std::vector<double> terms;
  for (std::size_t i = 0; i < m.components.size(); ++i)
    if (m.weights[i] > 0.0) terms.push_back(std::log(m.weights[i]) + as_samplable(*m.components[i])->log_probability(x));
  return detail::log_sum_exp(terms);
}

double MixtureModel::kernel_work() const { return impl_->kernel_work; }

double MixtureModel::log_probability_work() const {
  double work = 0.0;
  for (const auto& component : impl_->components) work += as_samplable(*component)->log_probability_work();
  return work;
}

const FamilyInfo& mixture_family() {
  static const FamilyInfo info = [] {
    FamilyInfo family = make_family<MixtureModel>(kFamily, 8);
    // A plain model of the mixture's sample space is the one-component mixture (mixture.hpp), and
    // MixtureModel::log_kernel takes it as its other model.
    family.kernel_with_any_family = true;
    return family;
  }();
  return info;
}

}  // namespace ppk
