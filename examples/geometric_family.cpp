// A worked example family (docs/adding-a-family.md quotes this file): geometric models over count
// vectors, independent per dimension,
//     p(x) = prod_d (1 - q_d) q_d^x_d,   x in {0, 1, 2, ...}^D,   0 <= q_d < 1.
// The probability product kernel (JMLR 2004 eq. 2) is a geometric series per dimension:
//     k_rho = prod_d sum_x ((1 - q_d)(1 - q'_d))^rho (q_d q'_d)^(rho x)
//           = prod_d ((1 - q_d)(1 - q'_d))^rho / (1 - (q_d q'_d)^rho),
// summed in log space: log k = sum_d rho [log1p(-q_d) + log1p(-q'_d)] - log1p(-(q_d q'_d)^rho).
// Row fields: 3: D (>= 1)   4..3+D: q_d (absent means 0).   JSON: {"family":"geometric","q":[..]}
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"

namespace ppk {

// The parameters, declared once: the row writer, the row reader and the JSON writer and reader
// are the archives of family_fields.hpp applied to fields().
struct GeometricParameters {
  std::vector<double> q;  // q_d = P(x_d >= 1)
  template <class Archive>
  void fields(Archive& archive) {
    const auto dim = archive.dimension("dim", static_cast<long>(q.size()), 1, detail::kMaxDimension);
    archive.reals("q", q, dim);
  }
};

class GeometricModel : public Model {
 public:
  using Parameters = GeometricParameters;

  // Validation, once for rows, JSON and C++ callers: a FieldError names the field and the element,
  // which the row reader restates at the row's index.
  explicit GeometricModel(Parameters parameters) : parameters_(std::move(parameters)) {
    if (parameters_.q.empty()) throw detail::field_error("geometric", "q", "at least one probability");
    for (std::size_t d = 0; d < parameters_.q.size(); ++d)
      if (!(parameters_.q[d] >= 0.0 && parameters_.q[d] < 1.0))
        throw detail::element_error("geometric", "q", static_cast<long>(d), "a probability in [0, 1)", parameters_.q[d]);
  }
  const Parameters& parameters() const { return parameters_; }

  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override { return {"count vectors", static_cast<long>(parameters_.q.size())}; }
  void prepare(const KernelParams& params) override {
    detail::check_rho("geometric", params);
    rho_ = params.rho;
  }
  double log_kernel(const Model& other) const override {
    const std::vector<double>& q = parameters_.q;
    const std::vector<double>& r = static_cast<const GeometricModel&>(other).parameters_.q;
    double log_k = 0.0;
    for (std::size_t d = 0; d < q.size(); ++d)
      log_k += rho_ * (std::log1p(-q[d]) + std::log1p(-r[d])) - std::log1p(-std::pow(q[d] * r[d], rho_));
    return log_k;
  }

 private:
  Parameters parameters_;
  double rho_ = 0.0;
};

// The family: its name, its row code and its four conversions, made from the fields above.
const FamilyInfo& geometric_family() {
  static const FamilyInfo info = make_family<GeometricModel>("geometric", 17);
  return info;
}

const FamilyInfo& GeometricModel::family() const { return geometric_family(); }

}  // namespace ppk
