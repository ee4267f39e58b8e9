// The estimation framework (see estimate.hpp): methods, statistics, pooling and shrinkage.
#include "ppk/estimate/estimate.hpp"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "estimate/estimate_detail.hpp"
#include "ppk/core/family.hpp"

namespace ppk {

namespace detail {

std::string short_number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

std::string vector_count(double n) { return short_number(n) + (n == 1 ? " vector" : " vectors"); }

void check_example(const std::vector<SparseVector>& vectors, long dim) {
  if (vectors.empty()) throw EstimationError("the example has no vectors");
  if (dim < 1) throw EstimationError("the dimension must be at least 1");
  for (std::size_t i = 0; i < vectors.size(); ++i)
    if (!vectors[i].empty() && vectors[i].back().coord >= dim)
      throw OptionError("index " + std::to_string(vectors[i].back().coord + 1) +
                        (vectors.size() > 1 ? " (in vector " + std::to_string(i + 1) + ")" : "") +
                        " is larger than the dimension " + std::to_string(dim) + " ({dim})");
}

void check_option(const char* field, double value, double minimum, bool strict) {
  if (!std::isfinite(value) || (strict ? !(value > minimum) : !(value >= minimum)))
    throw OptionError("{" + std::string(field) + "} must be a finite number " + (strict ? "> " : ">= ") +
                      short_number(minimum) + ", got " + short_number(value));
}

void check_working_memory(double bytes, const std::string& need, const std::string& remedy) {
  const double limit = memory_limit_bytes();
  if (bytes > limit)
    throw WorkingMemoryError(
        need + " needs about " + byte_count(bytes) + " of working memory, more than the " + byte_count(limit) +
        " this process may allocate (the machine's memory, or its address-space limit: ulimit -v); " + remedy);
}

double prior_shift(Method method, double alpha) {
  if (method == Method::ml) return 0.0;
  if (method == Method::posterior) return alpha;
  if (alpha < 1)
    throw OptionError(
        "MAP under a Beta/Dirichlet(alpha) prior needs alpha >= 1 (its mode is at the boundary "
        "otherwise), got " +
        short_number(alpha) + "; use {method} posterior");
  return alpha - 1;
}

Statistics empty_statistics(const std::string& family, long dim, const std::vector<SparseVector>& vectors) {
  Statistics statistics;
  statistics.family = family;
  statistics.dim = dim;
  statistics.count = static_cast<double>(vectors.size());
  return statistics;
}

std::string value_at(double value, std::size_t vector, long coord, std::size_t vectors) {
  return "value " + short_number(value) + " at index " + std::to_string(coord + 1) +
         (vectors > 1 ? " (vector " + std::to_string(vector + 1) + ")" : "");
}

const Eigen::MatrixXd& sum_of(const Statistics& statistics, const std::string& name) {
  const auto it = statistics.sums.find(name);
  if (it == statistics.sums.end())
    throw EstimationError("the " + statistics.family + " statistics lack \"" + name + "\"");
  return it->second;
}

void reject_pooling(const std::string& family) {
  throw PoolingUnsupported("the " + family +
                           " fit is not an exponential family: it has no sufficient statistics to pool, so {lambda} "
                           "and pooled statistics are not supported");
}

const Eigen::MatrixXd& data_of(const Statistics& statistics) {
  const Eigen::MatrixXd& x = sum_of(statistics, "x");
  if (x.cols() != statistics.dim) throw EstimationError("the statistic \"x\" must have one column per dimension");
  return x;
}

Eigen::MatrixXd one_hot_symbols(const std::vector<SparseVector>& vectors, const std::string& remedy) {
  Eigen::MatrixXd symbols(static_cast<Eigen::Index>(vectors.size()), 1);
  for (std::size_t t = 0; t < vectors.size(); ++t) {
    if (vectors[t].size() != 1 || vectors[t][0].value != 1.0)
      throw OptionError("observation " + std::to_string(t + 1) + " is not one symbol: " + remedy);
    symbols(static_cast<Eigen::Index>(t), 0) = static_cast<double>(vectors[t][0].coord);
  }
  return symbols;
}

std::vector<long> symbols_of(const Statistics& statistics) {
  const Eigen::MatrixXd& symbols = sum_of(statistics, "symbols");
  return std::vector<long>(symbols.data(), symbols.data() + symbols.size());
}

std::string with_article(const std::string& family) {
  const FamilyInfo* info = find_family(family);
  if (info != nullptr && info->article != nullptr) return info->article + (" " + family);
  const bool vowel = !family.empty() && std::string("aeiou").find(family[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + family;
}

}  // namespace detail

const char* method_name(Method method) {
  switch (method) {
    case Method::ml: return "ml";
    case Method::map: return "map";
    case Method::posterior: return "posterior";
  }
  return "?";
}

Method parse_method(const std::string& name) {
  for (Method method : {Method::ml, Method::map, Method::posterior})
    if (name == method_name(method)) return method;
  throw EstimationError("the estimator must be ml, map or posterior, got '" + name + "'");
}

Statistics Estimator::pool(const Statistics& a, const Statistics& b, double weight) const {
  Statistics pooled = a;
  pooled.count += weight * b.count;
  for (auto& [name, sum] : pooled.sums) {
    const Eigen::MatrixXd& other = detail::sum_of(b, name);
    if (other.rows() != sum.rows() || other.cols() != sum.cols())
      throw EstimationError("the pooled \"" + name + "\" has the wrong shape for dimension " + std::to_string(a.dim));
    sum += weight * other;
  }
  return pooled;
}

namespace {

[[noreturn]] void reject_latent_fit(const std::string& family) {
  throw OptionError(detail::with_article(family) +
                    " fit has no hidden states or components to pool and adapt: {pooled} and {adapt_from} take the "
                    "latent-variable models (docs/latent-models.md)");
}

// "16 x 1": a statistic's shape, for messages.
std::string shape(const Eigen::MatrixXd& sum) { return std::to_string(sum.rows()) + " x " + std::to_string(sum.cols()); }

}  // namespace

std::unique_ptr<Model> Estimator::fit_pooled(const std::vector<Statistics>&, unsigned) const {
  reject_latent_fit(family());
}

std::unique_ptr<Model> Estimator::adapt(const Model&, const Statistics&, const AdaptationOptions&) const {
  reject_latent_fit(family());
}

std::unique_ptr<Model> estimate(const Estimator& estimator, const std::vector<SparseVector>& vectors, long dim,
                                const Statistics* pooled, double lambda) {
  const Statistics own = estimator.statistics(vectors, dim);
  if (pooled == nullptr || lambda == 0.0) return estimator.fit(own);
  if (!(lambda > 0) || !std::isfinite(lambda))
    throw EstimationError("the shrinkage weight lambda must be a finite number >= 0, got " +
                          detail::short_number(lambda));
  if (pooled->family != own.family || pooled->dim != dim)
    throw EstimationError("the pooled statistics are of a " + pooled->family + " over dimension " +
                          std::to_string(pooled->dim) + ", but this fit is a " + own.family + " over dimension " +
                          std::to_string(dim));
  // The pooled statistics, read back from a pool file, have the shapes the file gave them.
  for (const auto& [name, sum] : own.sums) {
    const auto found = pooled->sums.find(name);
    if (found == pooled->sums.end())
      throw EstimationError("the pooled statistics lack \"" + name + "\", which this " + own.family +
                            " fit has: they were made with other options");
    if (found->second.rows() != sum.rows() || found->second.cols() != sum.cols())
      throw EstimationError("the pooled statistic \"" + name + "\" is " + shape(found->second) + ", this " + own.family +
                            " fit's is " + shape(sum) + ": they were made with other options (or another structure)");
  }
  return estimator.fit(estimator.pool(own, *pooled, lambda));
}

void statistics_to_json(const Statistics& statistics, nlohmann::json& out) {
  out = nlohmann::json::object();
  out["family"] = statistics.family;
  out["dim"] = statistics.dim;
  out["count"] = statistics.count;
  nlohmann::json& sums = out["statistics"] = nlohmann::json::object();
  for (const auto& [name, sum] : statistics.sums) {
    nlohmann::json value = nlohmann::json::array();
    if (sum.cols() == 1) {
      for (Eigen::Index r = 0; r < sum.rows(); ++r) value.push_back(sum(r, 0));
    } else {
      for (Eigen::Index r = 0; r < sum.rows(); ++r) {
        nlohmann::json row = nlohmann::json::array();
        for (Eigen::Index c = 0; c < sum.cols(); ++c) row.push_back(sum(r, c));
        value.push_back(std::move(row));
      }
    }
    sums[name] = std::move(value);
  }
}

namespace {

double finite_number(const nlohmann::json& value, const std::string& where) {
  if (!value.is_number() || !std::isfinite(value.get<double>()))
    throw EstimationError(where + ": expected a finite number, got " + value.dump().substr(0, 40));
  return value.get<double>();
}

// A statistic, its shape as written (statistics_to_json): an array of n numbers (n x 1) or of r
// arrays of c numbers each (r x c). Its size is the family's own (D for a mean, D x D for a scatter,
// a network node's C K CPT entries), so it is not checked against "dim" here: estimate() checks
// every pooled statistic against the fit's own of the same name.
Eigen::MatrixXd statistic_from_json(const nlohmann::json& value, const std::string& where) {
  if (!value.is_array() || value.empty())
    throw EstimationError(where + ": expected a non-empty array of numbers or of rows of numbers");
  const bool matrix = value[0].is_array();
  const auto rows = static_cast<Eigen::Index>(value.size());
  const auto columns = static_cast<Eigen::Index>(matrix ? value[0].size() : 1);
  if (columns == 0) throw EstimationError(where + "[0]: expected a non-empty array of numbers");
  Eigen::MatrixXd sum(rows, columns);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const nlohmann::json& row = value[static_cast<std::size_t>(r)];
    const std::string row_where = where + "[" + std::to_string(r) + "]";
    if (!matrix) {
      sum(r, 0) = finite_number(row, row_where);
      continue;
    }
    if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != columns)
      throw EstimationError(row_where + ": expected an array of " + std::to_string(columns) +
                            " numbers (as long as row 0)");
    for (Eigen::Index c = 0; c < columns; ++c)
      sum(r, c) = finite_number(row[static_cast<std::size_t>(c)], row_where + "[" + std::to_string(c) + "]");
  }
  return sum;
}

}  // namespace

Statistics statistics_from_json(const nlohmann::json& object) {
  if (!object.is_object()) throw EstimationError("expected a JSON object with pooled statistics");
  for (const char* key : {"family", "dim", "count", "statistics"})
    if (!object.contains(key)) throw EstimationError(std::string("the pooled statistics lack \"") + key + "\"");
  Statistics statistics;
  if (!object["family"].is_string()) throw EstimationError("\"family\": expected a string");
  statistics.family = object["family"].get<std::string>();
  const double dim = finite_number(object["dim"], "\"dim\"");
  if (dim < 1 || dim != std::floor(dim) || dim > 1e8) throw EstimationError("\"dim\": expected a whole number >= 1");
  statistics.dim = static_cast<long>(dim);
  statistics.count = finite_number(object["count"], "\"count\"");
  if (!(statistics.count > 0)) throw EstimationError("\"count\": expected a number > 0");
  if (!object["statistics"].is_object()) throw EstimationError("\"statistics\": expected an object");
  for (const auto& item : object["statistics"].items())
    statistics.sums[item.key()] = statistic_from_json(item.value(), "\"statistics\".\"" + item.key() + "\"");
  return statistics;
}

}  // namespace ppk
