// Platform-independent random draws and the samplable-model lookup (see sampling.hpp).
#include "ppk/core/sampling.hpp"

#include <algorithm>
#include <cmath>

#include "ppk/core/model_fields.hpp"
#include "ppk/core/family.hpp"

namespace ppk {

double SampleGenerator::uniform() {
  constexpr double kTwoToMinus53 = 0x1p-53;
  return (static_cast<double>(engine_() >> 11) + 0.5) * kTwoToMinus53;
}

double SampleGenerator::normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return u * factor;
}

std::size_t SampleGenerator::categorical(const double* cumulative, std::size_t n) {
  const double target = uniform() * cumulative[n - 1];
  std::size_t i = static_cast<std::size_t>(std::upper_bound(cumulative, cumulative + n, target) - cumulative);
  // target rounds up to the total only when u is within an ulp of 1: take the last index of positive weight.
  if (i == n)
    for (i = n - 1; i > 0 && cumulative[i - 1] == cumulative[n - 1];) --i;
  return i;
}

double SampleGenerator::log_gamma_variate(double shape) {
  if (shape < 1.0) return log_gamma_variate(shape + 1.0) + std::log(uniform()) / shape;
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double z = normal(), root = 1.0 + c * z;
    if (root <= 0.0) continue;
    const double v = root * root * root, u = uniform(), z2 = z * z;
    if (u < 1.0 - 0.0331 * z2 * z2 || std::log(u) < 0.5 * z2 + d * (1.0 - v + std::log(v))) return std::log(d * v);
  }
}

void sample_parts(const std::vector<const SamplableModel*>& parts, const std::vector<std::size_t>& labels, double rho,
                  SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) {
  for (std::size_t part = 0; part < parts.size(); ++part) {
    std::vector<Eigen::Index> columns;
    for (std::size_t k = 0; k < labels.size(); ++k)
      if (labels[k] == part) columns.push_back(static_cast<Eigen::Index>(k));
    if (columns.empty()) continue;
    Eigen::MatrixXd draws(samples.rows(), static_cast<Eigen::Index>(columns.size()));
    parts[part]->sample_tilted(rho, generator, draws);
    for (std::size_t c = 0; c < columns.size(); ++c) samples.col(columns[c]) = draws.col(static_cast<Eigen::Index>(c));
  }
}

const SamplableModel* as_samplable(const Model& model) {
  const auto* samplable = dynamic_cast<const SamplableModel*>(&model);
  return samplable != nullptr && samplable->can_sample() ? samplable : nullptr;
}

void require_rho_one(const Model& model, const std::string& what, const std::string& why, double rho) {
  if (rho != 1.0)
    throw KernelDomainError(model.family().name + " over " + model.sample_space().describe() +
                            ": Monte Carlo draws from " + what + " only at rho = 1 (" + why +
                            "); got rho = " + detail::format_number(rho));
}

}  // namespace ppk
