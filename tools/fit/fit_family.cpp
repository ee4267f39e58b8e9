// The pieces of fit_family.hpp: INPUT's readers, the option readers and fitting every example.
#include "fit_family.hpp"

#include <cstdint>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "parallel.hpp"

namespace ppk::cli {
namespace {

// The models' dimension: --dim, or the largest index in the data.
long model_dimension(const Dataset& data, const po::variables_map& values) {
  if (!values.count("dim")) {
    if (data.max_index == 0 && !data.examples.empty())
      throw InputError(data.source + ": no example has any feature; give --dim D");
    return data.max_index;
  }
  const long dim = values["dim"].as<long>();
  if (dim < 1) throw UsageError("--dim must be at least 1, got " + std::to_string(dim));
  return dim;
}

constexpr FitFormats kRows{true, true, false, false};

}  // namespace

FitInput parse_libsvm_input(const FitSource& source, const po::variables_map& values) {
  FitInput out;
  std::istringstream text(source.text);
  out.data = read_data(text, source.name);
  out.dim = model_dimension(out.data, values);
  return out;
}

FitInput read_libsvm_input(const FitSource& source, const po::variables_map& values, const std::string& command) {
  check_fit_format(source, kRows, command);
  return parse_libsvm_input(source, values);
}

FitInput read_sequence_input(const FitSource& source, const po::variables_map& values, const std::string& command) {
  check_fit_format(source, kSequenceRows, command);
  return parse_libsvm_input(source, values);
}

std::vector<Statistics> example_statistics(const Estimator& estimator, const Dataset& data, long dim) {
  std::vector<Statistics> statistics;
  for (const Example& example : data.examples) {
    try {
      statistics.push_back(estimator.statistics(example.vectors, dim));
    } catch (const EstimationError& e) {
      throw data.error_at(example, message_of(e));
    }
  }
  return statistics;
}

Choice held_out_size(const SizeChoice& choice, const std::string& held_out, const char* symbol) {
  std::ostringstream how;
  how << "the held-out log-likelihood of " << held_out << " (";
  for (std::size_t i = 0; i < choice.grid.size(); ++i)
    how << (i ? ", " : "") << symbol << " = " << choice.grid[i] << ": " << std::fixed << std::setprecision(1)
        << choice.held_out_log_likelihoods[i];
  how << ")";
  return Choice{static_cast<double>(choice.size), how.str()};
}

bool fits_pooled_or_adapted(const po::variables_map& values) {
  return values.count("pooled") || values.count("adapt-from");
}

double option(const po::variables_map& values, const char* name) { return values[name].as<double>(); }

std::optional<double> number_or_auto(const po::variables_map& values, const char* name, const char* fallback) {
  const std::string text = values.count(name) ? values[name].as<std::string>() : fallback;
  if (text == "auto") return std::nullopt;
  const std::optional<double> number = parse_double(text);
  if (!number) throw UsageError(std::string("--") + name + " must be a number or auto, got '" + text + "'");
  return number;
}

CovarianceForm covariance_form(const std::string& form) {
  if (form == "iso") return CovarianceForm::isotropic;
  if (form == "diag") return CovarianceForm::diagonal;
  if (form == "full") return CovarianceForm::full;
  throw UsageError("--cov must be iso, diag or full, got '" + form + "'");
}

std::vector<Row> fit_rows(const Estimator& estimator, const Dataset& data, long dim, const Statistics* pooled,
                          double lambda, unsigned threads) {
  std::vector<Row> rows(data.examples.size());
  for_each_index(data.examples.size(), threads, "fitting", [&](std::size_t i) {
    const Example& example = data.examples[i];
    std::unique_ptr<Model> model;
    try {
      model = estimate(estimator, example.vectors, dim, pooled, lambda);
    } catch (const PoolingUnsupported& e) {
      throw UsageError(message_of(e));
    } catch (const EstimationError& e) {
      throw data.error_at(example, message_of(e));
    }
    rows[i] = encode_row(*model);
  });
  return rows;
}

void add_em_options(po::options_description& options, long iterations, const char* iterations_help) {
  // clang-format off
  options.add_options()
      ("iterations", po::value<long>()->default_value(iterations)->value_name("N"), iterations_help)
      ("tolerance", po::value<double>()->default_value(1e-8)->value_name("T"),
       "stop when the objective gains less than T times its magnitude")
      ("restarts", po::value<long>()->default_value(3)->value_name("N"), "runs from different starts; the best is kept")
      ("seed", po::value<std::uint64_t>()->default_value(1)->value_name("S"), "the random seed");
  // clang-format on
}

}  // namespace ppk::cli
