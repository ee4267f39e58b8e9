// The kernel of any exponential family from its log-partition function (see exponential_family.hpp).
#include "ppk/families/exponential_family.hpp"

#include <cmath>
#include <utility>

#include "ppk/core/model_fields.hpp"
#include "ppk/core/family.hpp"

namespace ppk {

ExponentialFamilyModel::ExponentialFamilyModel(Eigen::VectorXd theta) : theta_(std::move(theta)) {}

std::optional<MeasureScaling> ExponentialFamilyModel::measure_scaling(double rho) const {
  if (rho == 0.5) return MeasureScaling{};
  return std::nullopt;
}

void ExponentialFamilyModel::prepare(const KernelParams& params) {
  detail::check_rho(family().name, params);
  log_kernel_from_log_partition(*this, *this, params.rho);  // throws for a rho outside the domain
  rho_ = params.rho;
}

double ExponentialFamilyModel::log_kernel(const Model& other) const {
  const auto& b = static_cast<const ExponentialFamilyModel&>(other);
  if (rho_ <= 0.0 || rho_ != b.rho_) detail::throw_unprepared_pair(family().name);
  return log_kernel_from_log_partition(*this, b, rho_);
}

long SamplableExponentialFamilyModel::sample_size() const { return sample_space().dim; }

Eigen::VectorXd SamplableExponentialFamilyModel::tilted_natural_parameters(double rho) const {
  const std::string what = family().name + " over " + sample_space().describe() +
                           ": Monte Carlo draws from p^rho / Z at rho = " + detail::format_number(rho);
  const std::optional<MeasureScaling> scaling = measure_scaling(0.5 * rho);
  if (!scaling)
    throw KernelDomainError(what +
                            ": the measure A(x) of the family does not scale (exp(rho A(x)) = c exp(A(eta x))), "
                            "so Z(rho) = integral p^rho has no closed form");
  Eigen::VectorXd tilted = (rho / scaling->eta) * natural_parameters();
  if (!in_natural_domain(tilted))
    throw KernelDomainError(what +
                            ": the natural parameters (rho/eta) theta lie outside the family's natural "
                            "parameter space, so Z(rho) = integral p^rho diverges");
  return tilted;
}

// log Z(rho) = K((rho/eta) theta) + log c - D log eta - rho K(theta) (top of exponential_family.hpp).
double SamplableExponentialFamilyModel::log_tilted_normalizer(double rho) const {
  const Eigen::VectorXd tilted = tilted_natural_parameters(rho);
  return log_partition(tilted) + measure_scaling(0.5 * rho)->log_factor - rho * log_partition(natural_parameters());
}

double log_kernel_from_log_partition(const ExponentialFamilyModel& a, const ExponentialFamilyModel& b, double rho) {
  const std::string& name = a.family().name;
  if (&a.family() != &b.family() || a.natural_parameters().size() != b.natural_parameters().size())
    detail::throw_unprepared_pair(name);
  const std::optional<MeasureScaling> scaling = a.measure_scaling(rho);
  if (!scaling)
    throw KernelDomainError(name + " kernel from the log-partition function: at rho = " + detail::format_number(rho) +
                            " the measure A(x) of the family does not scale (exp(2 rho A(x)) = c exp(A(eta x))), "
                            "so only rho = 1/2 has this closed form");
  const Eigen::VectorXd joint = (rho / scaling->eta) * (a.natural_parameters() + b.natural_parameters());
  if (!a.in_natural_domain(joint) || !a.in_natural_domain(a.natural_parameters()) ||
      !a.in_natural_domain(b.natural_parameters()))
    throw KernelDomainError(name + " kernel from the log-partition function at rho = " + detail::format_number(rho) +
                            ": the natural parameters (rho/eta)(theta + theta') lie outside the family's natural "
                            "parameter space, so the integral diverges");
  // JMLR 2004 section 3 (with rho K(theta), not the text's rho/2 K(theta)).
  return a.log_partition(joint) + scaling->log_factor - rho * a.log_partition(a.natural_parameters()) -
         rho * a.log_partition(b.natural_parameters());
}

}  // namespace ppk
