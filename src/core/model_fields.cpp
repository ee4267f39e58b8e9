#include "ppk/core/model_fields.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ppk::detail {

std::string format_number(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string whole_numbers(long min, long max) {
  return "a whole number in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

std::string row_field_location(const std::string& family, const std::string& field, long first_index, long count) {
  std::string where = family + " field \"" + field + "\" ";
  if (count <= 1) return where + "(index " + std::to_string(first_index) + ")";
  return where + "(indices " + std::to_string(first_index) + ".." + std::to_string(first_index + count - 1) + ")";
}

long row_whole_number(RowReader& fields, const std::string& family, const char* field, long min, long max) {
  const long index = fields.next_index();
  const double value = fields.real(field);
  if (value != std::floor(value) || value < static_cast<double>(min) || value > static_cast<double>(max))
    throw ModelError(row_field_location(family, field, index, 1) + ": expected " + whole_numbers(min, max) + ", got " +
                     format_number(value));
  return static_cast<long>(value);
}

namespace {
std::string complaint(const std::string& expected, const std::string& got) {
  return ": expected " + expected + (got.empty() ? std::string() : ", got " + got);
}
}  // namespace

FieldError::FieldError(std::string family, std::string field, long element, std::string json_path, std::string expected,
                       std::string got, long elements)
    : ModelError(family + " field \"" + field + "\"" + json_path + complaint(expected, got)),
      family_(std::move(family)),
      field_(std::move(field)),
      element_(element),
      json_path_(std::move(json_path)),
      expected_(std::move(expected)),
      got_(std::move(got)),
      elements_(elements) {}

FieldError element_error(const std::string& family, const std::string& field, long index, const std::string& expected,
                         double got) {
  return FieldError(family, field, index, "[" + std::to_string(index) + "]", expected, format_number(got));
}

FieldError field_error(const std::string& family, const std::string& field, const std::string& expected,
                       const std::string& got) {
  return FieldError(family, field, -1, "", expected, got);
}

ModelError at_row(const FieldError& error, const std::vector<RowFieldSpan>& spans) {
  const auto span =
      std::find_if(spans.begin(), spans.end(), [&](const RowFieldSpan& s) { return error.field() == s.field; });
  if (span == spans.end()) return error;  // not a row field: the constructor's message stands
  const std::string where =
      error.element() >= 0
          ? row_field_location(error.family(), error.field(), span->first_index + span->element_offset + error.element(),
                               error.elements())
          : row_field_location(error.family(), error.field(), span->first_index, span->count);
  return ModelError(where + complaint(error.expected(), error.got()));
}

SparseProbabilities checked_probabilities(const std::string& family, SparseProbabilities p) {
  check_dimension(family, p.dim, 1);
  if (p.value.size() != p.index.size())
    throw field_error(family, "p", "as many listed values as listed coordinates",
                      std::to_string(p.value.size()) + " values for " + std::to_string(p.index.size()) + " coordinates");
  if (!is_probability(p.base)) throw field_error(family, "base", "a probability in [0, 1]", format_number(p.base));
  bool listed_zero = false;
  for (std::size_t i = 0; i < p.index.size(); ++i) {
    const long d = p.index[i];
    if (d < 0 || d >= p.dim || (i > 0 && d <= p.index[i - 1]))
      throw field_error(family, "p", "listed coordinates strictly increasing in [0, " + std::to_string(p.dim) + ")",
                        "coordinate " + std::to_string(d) + (i > 0 ? " after " + std::to_string(p.index[i - 1]) : ""));
    if (!is_probability(p.value[i])) throw element_error(family, "p", d, "a probability in [0, 1]", p.value[i]);
    listed_zero = listed_zero || p.value[i] == 0.0;
  }
  if (listed_zero && p.base != 0.0) return SparseProbabilities::from_dense(p.dense());
  std::size_t kept = 0;
  for (std::size_t i = 0; i < p.index.size(); ++i) {
    if (p.value[i] == p.base) continue;
    p.index[kept] = p.index[i];
    p.value[kept++] = p.value[i];
  }
  p.index.resize(kept);
  p.value.resize(kept);
  return p;
}

void check_dimension(const std::string& family, long dim, long min_dim) {
  if (dim < min_dim || dim > kMaxDimension)
    throw field_error(family, "dim", "a whole number in [" + std::to_string(min_dim) + ", 100000000]",
                      std::to_string(dim));
}

void check_positive_entries(const std::string& family, const char* field, const std::vector<double>& values,
                            bool allow_zero) {
  for (std::size_t d = 0; d < values.size(); ++d) {
    const double v = values[d];
    if (!(allow_zero ? v >= 0.0 && std::isfinite(v) : is_positive_finite(v)))
      throw element_error(family, field, static_cast<long>(d),
                          allow_zero ? "a finite number >= 0" : "a finite number > 0", v);
  }
}

void check_symmetric(const std::string& family, const char* field, const Eigen::MatrixXd& matrix) {
  for (Eigen::Index i = 0; i < matrix.rows(); ++i)
    for (Eigen::Index j = 0; j < matrix.cols(); ++j) {
      const std::string path = "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
      if (!std::isfinite(matrix(i, j)))
        throw FieldError(family, field, lower_triangle_offset(i, j), path, "a finite number",
                         format_number(matrix(i, j)));
      const double scale =
          std::max({std::fabs(matrix(i, j)), std::fabs(matrix(j, i)), std::sqrt(std::fabs(matrix(i, i) * matrix(j, j)))});
      if (std::fabs(matrix(i, j) - matrix(j, i)) > 1e-7 * scale)
        throw FieldError(family, field, -1, path,
                         "a symmetric matrix (entry [" + std::to_string(j) + "][" + std::to_string(i) + "] is " +
                             format_number(matrix(j, i)) + ")",
                         format_number(matrix(i, j)));
    }
}

double log_sum_exp(const double* terms, std::size_t n) {
  const double largest = *std::max_element(terms, terms + n);
  if (!std::isfinite(largest)) return largest;
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += std::exp(terms[i] - largest);
  return largest + std::log(sum);
}

void check_kernel_storage(const std::string& family, const std::string& sizes, double values) {
  if (values <= static_cast<double>(kMaxRowDenseValues)) return;
  throw KernelDomainError(family + " kernel: " + sizes + " = " + format_number(values) + " values, more than the " +
                          std::to_string(kMaxRowDenseValues) +
                          " dense values a row may claim (docs/families.md, \"Limits\"); give smaller sizes or -d T");
}

double check_kernel_work(const std::string& family, const std::string& sizes, double work, const std::string& remedy) {
  if (work <= kMaxKernelWork) return work;
  throw KernelDomainError(family + " kernel: " + sizes + " = " + format_number(work) +
                          " multiply-adds per kernel evaluation, more than the " + format_number(kMaxKernelWork) +
                          " one row may claim (docs/families.md, \"Limits\"); " + remedy);
}

double parts_kernel_work(const std::vector<std::unique_ptr<Model>>& parts) {
  double work = 0.0;
  for (const auto& part : parts) work += 1.0 + part->kernel_work();
  return static_cast<double>(parts.size()) * work;
}

void check_rho(const std::string& family, const KernelParams& params) {
  if (!is_positive_finite(params.rho))
    throw KernelDomainError(family + " kernel: rho (-g) must be a positive finite number, got " +
                            format_number(params.rho));
}

void throw_unprepared_pair(const std::string& family) {
  throw KernelDomainError(family +
                          " kernel: the two models must be prepared with the same rho and have the same sample "
                          "space (see check_compatible)");
}

JsonFields::JsonFields(const nlohmann::json& object, std::string family, const std::vector<const char*>& allowed)
    : object_(object), family_(std::move(family)) {
  if (!object_.is_object()) throw ModelError(family_ + ": expected a JSON object, got " + object_.dump());
  for (const auto& member : object_.items()) {
    const std::string& key = member.key();
    if (key == "family" || key == "label") continue;
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* name) { return key == name; })) {
      std::string names;
      for (const char* name : allowed) names += std::string(names.empty() ? "" : ", ") + "\"" + name + "\"";
      throw ModelError(family_ + " field \"" + key + "\": not a field of this family (expected " + names + ")");
    }
  }
}

bool JsonFields::has(const char* field) const { return object_.contains(field); }

const nlohmann::json& JsonFields::required(const char* field) const {
  const auto it = object_.find(field);
  if (it == object_.end()) throw ModelError(family_ + " field \"" + field + "\": missing");
  return *it;
}

ModelError JsonFields::invalid(const char* field, const std::string& expected) const {
  const auto it = object_.find(field);
  std::string got = it == object_.end() ? "nothing" : it->dump();
  if (got.size() > 80) got = got.substr(0, 77) + "...";
  return ModelError(family_ + " field \"" + field + "\"" + complaint(expected, got));
}

double JsonFields::number(const char* field, const nlohmann::json& value, const std::string& where) const {
  // nlohmann's parser has no NaN or infinity literals, but a json built in C++ may hold them.
  if (!value.is_number() || !std::isfinite(value.get<double>()))
    throw ModelError(family_ + " field \"" + field + "\"" + where + complaint("a finite number", value.dump()));
  return value.get<double>();
}

double JsonFields::real(const char* field) const { return number(field, required(field), ""); }

long JsonFields::whole_number(const char* field, long min, long max) const {
  return whole_number(field, required(field), min, max);
}

long JsonFields::whole_number(const char* field, const nlohmann::json& value, long min, long max) const {
  if (!value.is_number() || value.get<double>() != std::floor(value.get<double>()) ||
      value.get<double>() < static_cast<double>(min) || value.get<double>() > static_cast<double>(max))
    throw invalid(field, whole_numbers(min, max));
  return static_cast<long>(value.get<double>());
}

std::vector<double> JsonFields::reals(const char* field) const {
  const nlohmann::json& array = required(field);
  if (!array.is_array() || array.empty()) throw invalid(field, "a non-empty array of numbers");
  std::vector<double> values;
  values.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) values.push_back(number(field, array[i], "[" + std::to_string(i) + "]"));
  return values;
}

SparseProbabilities JsonFields::probabilities(const char* field) const {
  const std::vector<double> p = reals(field);
  for (std::size_t d = 0; d < p.size(); ++d)
    if (!is_probability(p[d])) throw element_error(family_, field, static_cast<long>(d), "a probability in [0, 1]", p[d]);
  return SparseProbabilities::from_dense(p);
}

std::vector<std::vector<double>> JsonFields::matrix(const char* field) const {
  const nlohmann::json& rows = required(field);
  if (!rows.is_array() || rows.empty()) throw invalid(field, "a non-empty array of rows (arrays of numbers)");
  std::vector<std::vector<double>> matrix;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string row_path = "[" + std::to_string(i) + "]";
    if (!rows[i].is_array())
      throw ModelError(family_ + " field \"" + field + "\"" + row_path +
                       complaint("an array of numbers", rows[i].dump()));
    std::vector<double> row;
    if (i > 0 && rows[i].size() != matrix[0].size())
      throw ModelError(family_ + " field \"" + field + "\"" + row_path +
                       complaint(std::to_string(matrix[0].size()) + " numbers (rows of one length, as row 0)",
                                 std::to_string(rows[i].size())));
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      row.push_back(number(field, rows[i][j], row_path + "[" + std::to_string(j) + "]"));
    matrix.push_back(std::move(row));
  }
  return matrix;
}

}  // namespace ppk::detail
