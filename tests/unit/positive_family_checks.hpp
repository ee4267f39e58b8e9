// What the exponential, gamma and Dirichlet tests share: quadrature on (0, inf) and (0, 1) for
// integrands with endpoint singularities, and the messages of rejected models.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <nlohmann/json.hpp>

#include "error_message.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"

namespace ppk::checks {

// integral over (0, inf) of f(x) dx by exp_sinh quadrature, which samples doubly exponentially close
// to 0 (an integrable singularity x^(s - 1), s > 0, is fine) and far into the tail.
inline double integrate_positive_reals(const std::function<double(double)>& f) {
  // (Not const: Boost 1.74 declares integrate() const but defines some overloads without it.)
  static boost::math::quadrature::exp_sinh<double> integrator;
  return integrator.integrate(f, 1e-14);
}

// integral over (0, 1) of f(x, 1 - x) dx by tanh_sinh quadrature on each half, the right half mirrored
// (x = 1 - y): both endpoints are approached through an exact small argument, so singularities
// x^(s - 1) and (1 - x)^(t - 1) are resolved to full precision. f gets x and 1 - x separately.
inline double integrate_unit_interval(const std::function<double(double, double)>& f, double tolerance = 1e-14) {
  boost::math::quadrature::tanh_sinh<double> integrator;
  return integrator.integrate([&](double x) { return f(x, 1.0 - x); }, 0.0, 0.5, tolerance) +
         integrator.integrate([&](double y) { return f(1.0 - y, y); }, 0.0, 0.5, tolerance);
}

// |x - y| / |y|.
inline double relative_error(double x, double y) { return std::fabs(x - y) / std::fabs(y); }

// The message of the ModelError that decoding `row` throws ("" if it decodes).
inline std::string row_error(const Row& row) {
  return error_message<ModelError>([&] { decode_row(row); });
}

// The message of the ModelError that reading the JSON `text` throws ("" if it is a valid model).
inline std::string json_error(const std::string& text) {
  return error_message<ModelError>([&] { model_from_json(nlohmann::json::parse(text)); });
}

// The message of the ModelError that `construct` throws ("" if none).
inline std::string constructor_error(const std::function<void()>& construct) {
  return error_message<ModelError>(construct);
}

// The message of the KernelDomainError that preparing `model` at rho throws ("" if none).
inline std::string domain_error(std::unique_ptr<Model> model, double rho) {
  return error_message<KernelDomainError>([&] {
    KernelParams params;
    params.rho = rho;
    PreparedModel prepared(std::move(model), params);
  });
}

// The message of the KernelDomainError that model.prepare(params) throws ("" if it prepares).
inline std::string prepare_error(Model& model, const KernelParams& params) {
  return error_message<KernelDomainError>([&] { model.prepare(params); });
}

// `row` with the value at `index` replaced (the index must be present).
inline Row with_value(Row row, int index, double value) {
  for (RowEntry& entry : row)
    if (entry.index == index) {
      entry.value = value;
      return row;
    }
  ADD_FAILURE() << "no index " << index;
  return row;
}

// `text` with the first occurrence of `from` replaced by `to` (which must occur).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no " << from << " in " << text;
    return text;
  }
  return text.replace(at, from.size(), to);
}

// The row entries of a model, encoded and decoded again, are the same bit for bit; so is the model
// read back from its JSON text.
inline void expect_round_trips(const Model& model) {
  const Row row = encode_row(model);
  const auto decoded = decode_row(row);
  const Row again = encode_row(*decoded);
  ASSERT_EQ(again.size(), row.size());
  for (std::size_t i = 0; i < row.size(); ++i) {
    EXPECT_EQ(again[i].index, row[i].index);
    EXPECT_EQ(again[i].value, row[i].value) << "index " << row[i].index;  // == on doubles: bit for bit here
  }
  const std::string text = model_to_json(model).dump();
  const auto reparsed = model_from_json(nlohmann::json::parse(text));
  EXPECT_EQ(model_to_json(*reparsed).dump(), text);
  EXPECT_EQ(format_entries(encode_row(*reparsed)), format_entries(row)) << text;
}

}  // namespace ppk::checks
