#include "smoothing_cv.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <set>
#include <sstream>

#include "gram_matrix.hpp"
#include "kernel_cross_validation.hpp"
#include "parallel.hpp"
#include "svm.h"

namespace ppk::cli {
namespace {

const char* const kCvOptionNames[] = {"cv-alphas", "cv-c", "cv-kernel", "cv-gamma", "cv-folds"};

// "%g", as svm-train prints its accuracy.
std::string format_short(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

// A finite number > 0 written as the whole of `text`, else a UsageError naming `option`.
double positive_number(const std::string& text, const std::string& option) {
  const std::optional<double> number = parse_double(text);
  if (!number || !(*number > 0) || !std::isfinite(*number))
    throw UsageError("--" + option + ": expected a finite number > 0, got '" + text + "'");
  return *number;
}

// The comma-separated list of option `name`, without empty items.
std::vector<std::string> list_option(const po::variables_map& values, const std::string& name) {
  const std::vector<std::string> items = split(values[name].as<std::string>(), ',');
  for (const std::string& item : items)
    if (item.empty()) throw UsageError("--" + name + ": an empty item in '" + values[name].as<std::string>() + "'");
  return items;
}

// svm-train's parameters for -t kernel -g gamma (its defaults otherwise; the plugin kernel type's
// own default -d).
svm_parameter svm_train_parameters(const svm_kernel_type& kernel, double gamma) {
  svm_parameter parameters{};
  parameters.svm_type = C_SVC;
  parameters.kernel_type = kernel.number;
  parameters.degree = kernel.default_degree;
  parameters.gamma = gamma;
  parameters.nu = 0.5;
  parameters.cache_size = 100;
  parameters.C = 1;
  parameters.eps = 1e-3;
  parameters.p = 0.1;
  parameters.shrinking = 1;
  return parameters;
}

// The k-fold cross-validated accuracy (percent) of the rows at every C of `costs`, as svm-train -v
// computes it on the written rows: one kernel matrix of the rows (their values as LIBSVM reads them
// back), then LIBSVM's folds and solver at each C (kernel_cross_validation.hpp). InputError naming
// `what` when a row or LIBSVM refuses them.
std::vector<double> cross_validated_accuracies(const std::vector<Row>& rows, const std::vector<double>& labels,
                                               const svm_parameter& parameters, KernelKind kind,
                                               const std::vector<double>& costs, int folds, const std::string& what) {
  std::vector<LabeledRow> read_back;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Row row;
    for (const RowEntry& entry : rows[i]) row.push_back({entry.index, libsvm_readable(entry.value)});
    read_back.push_back({labels[i], std::move(row)});
  }
  KernelParams params;
  params.rho = parameters.gamma;
  params.length = parameters.degree;
  const PreparedFile file = prepare_rows(read_back, what, kind, params);  // errors name `what` and the row
  const unsigned threads = default_threads();
  const GramMatrix gram = compute_gram(kind, file, file, true, threads);
  std::vector<std::vector<double>> predictions;
  try {
    predictions = libsvm_cross_validated_predictions(gram, labels, folds, parameters, costs, threads);
  } catch (const InputError& e) {
    throw InputError(what + ": " + e.what());
  }
  std::vector<double> accuracies;
  for (const std::vector<double>& held_out : predictions)
    accuracies.push_back(cross_validation_score(held_out, labels, C_SVC).accuracy);
  return accuracies;
}

}  // namespace

void add_cv_options(po::options_description& options, const char* default_candidates) {
  // clang-format off
  options.add_options()
      ("cv-alphas", po::value<std::string>()->default_value(default_candidates)->value_name("LIST"),
       "--alpha auto: the candidate smoothings, in order (the first of equal accuracies wins): evidence "
       "(maximum evidence), ml (maximum likelihood) or alpha values")
      ("cv-c", po::value<std::string>()->default_value("1,10,100,1000")->value_name("LIST"),
       "--alpha auto: the SVM's C values tried for every candidate")
      ("cv-kernel", po::value<std::string>()->default_value("ppk")->value_name("ppk|ppk_norm"),
       "--alpha auto: the kernel (svm-train -t)")
      ("cv-gamma", po::value<double>()->default_value(0.5)->value_name("RHO"),
       "--alpha auto: the kernel's rho (svm-train -g; 0.5 = Bhattacharyya)")
      ("cv-folds", po::value<int>()->default_value(5)->value_name("K"),
       "--alpha auto: the number of cross-validation folds (svm-train -v K), K >= 2");
  // clang-format on
}

CvOptions read_cv_options(const po::variables_map& values, bool one_over_d) {
  CvOptions options;
  for (const char* name : kCvOptionNames)
    if (!options.first_given && !values[name].defaulted()) options.first_given = name;
  options.candidates = list_option(values, "cv-alphas");
  options.candidates_given = !values["cv-alphas"].defaulted();
  for (const std::string& candidate : options.candidates) {
    if (candidate == "1/D" && !one_over_d)
      throw UsageError(
          "--cv-alphas: the candidate 1/D (one pseudo-count over the vocabulary) applies to multinomial "
          "rows; give alpha values");
    if (candidate != "evidence" && candidate != "ml" && candidate != "1/D") positive_number(candidate, "cv-alphas");
  }
  for (const std::string& cost : list_option(values, "cv-c")) options.costs.push_back(positive_number(cost, "cv-c"));
  options.kernel = values["cv-kernel"].as<std::string>();
  if (options.kernel != "ppk" && options.kernel != "ppk_norm")
    throw UsageError("--cv-kernel must be ppk or ppk_norm, got '" + options.kernel + "'");
  options.gamma = values["cv-gamma"].as<double>();
  if (!(options.gamma > 0) || !std::isfinite(options.gamma))
    throw UsageError("--cv-gamma: expected a finite number > 0, got " + format_double(options.gamma));
  options.folds = values["cv-folds"].as<int>();
  if (options.folds < 2)
    throw UsageError("--cv-folds must be at least 2 (the number of cross-validation folds), got " +
                     std::to_string(options.folds));
  return options;
}

void check_cv_options_apply(const CvOptions& options, bool cross_validated) {
  if (!cross_validated && options.first_given)
    throw UsageError(std::string("--") + options.first_given +
                     " applies to --alpha auto on a training file (a test file fitted "
                     "with --pooled-from reuses the training file's choice)");
}

CvChoice choose_smoothing_by_cv(
    const CvOptions& options, const std::vector<double>& labels,
    const std::function<std::optional<double>(const std::string& name, std::string& reason)>& named_alpha,
    const std::function<std::vector<Row>(const Smoothing&)>& fit_rows, const FitRequest& request,
    const std::string& input) {
  const std::string& command = request.command;
  const std::set<double> classes(labels.begin(), labels.end());
  if (classes.size() < 2)
    throw UsageError("--alpha auto chooses the smoothing by the cross-validated accuracy of a classifier, but " + input +
                     " holds " +
                     (labels.empty() ? "no examples" : "one class only (label " + format_double(labels.front()) + ")") +
                     "; give --alpha a number or evidence");
  const int kernel_number = svm_kernel_type_from_string(options.kernel.c_str());
  const svm_kernel_type* kernel = svm_find_kernel_type(kernel_number);
  const KernelKind kind = options.kernel == "ppk_norm" ? KernelKind::ppk_norm : KernelKind::ppk;
  if (kernel == nullptr)
    throw InputError("--alpha auto: LIBSVM has no kernel type " + options.kernel +
                     ": its plugin (libsvm-plugins/ppk.so next to libsvm.so.3) was not loaded");

  std::ostringstream settings;
  settings << "svm-train -t " << options.kernel << " -g " << format_short(options.gamma) << " -v " << options.folds;
  request.note(command + ": --alpha auto on " + input + ": " + std::to_string(options.folds) +
               "-fold cross-validated accuracy (" + settings.str() + " -c C)\n" +
               "  candidate  alpha          C  accuracy");
  CvChoice best;
  nlohmann::json table = nlohmann::json::array();
  bool scored = false;
  for (const std::string& candidate : options.candidates) {
    Smoothing smoothing{candidate, candidate == "ml", 0};
    if (candidate == "evidence" || candidate == "1/D") {
      std::string reason;
      const std::optional<double> alpha = named_alpha(candidate, reason);
      if (!alpha) {
        request.note(command + ": --alpha auto: candidate " + candidate + " skipped: " + reason);
        continue;
      }
      smoothing.alpha = *alpha;
    } else if (!smoothing.ml) {
      smoothing.alpha = *parse_double(candidate);
    }
    const std::string what = "--alpha auto: candidate " + candidate;
    std::vector<Row> rows;
    try {
      rows = fit_rows(smoothing);
    } catch (const InputError& e) {
      throw InputError(what + ": " + message_of(e) + " (leave " + candidate + " out of --cv-alphas)");
    }
    const std::string alpha_text = smoothing.ml ? "-" : format_short(smoothing.alpha);
    const std::vector<double> accuracies = cross_validated_accuracies(
        rows, labels, svm_train_parameters(*kernel, options.gamma), kind, options.costs, options.folds, what);
    for (std::size_t c = 0; c < options.costs.size(); ++c) {
      const double cost = options.costs[c], accuracy = accuracies[c];
      std::ostringstream row;
      row << "  " << std::left << std::setw(9) << candidate << "  " << std::setw(11) << alpha_text << " " << std::right
          << std::setw(5) << format_short(cost) << "  " << format_short(accuracy) << "%";
      request.note(row.str());
      nlohmann::json entry = {{"candidate", candidate}, {"C", cost}, {"accuracy", accuracy}};
      if (!smoothing.ml) entry["alpha"] = smoothing.alpha;
      table.push_back(std::move(entry));
      if (!scored || accuracy > best.accuracy) {
        best.smoothing = smoothing;
        best.cost = cost;
        best.accuracy = accuracy;
        scored = true;
      }
    }
  }
  if (!scored) throw UsageError("--alpha auto: no candidate smoothing is left to choose from (--cv-alphas)");

  const std::string chosen =
      best.smoothing.ml ? std::string("maximum likelihood (ml)")
                        : "alpha = " + format_shortest(best.smoothing.alpha) + " (" + best.smoothing.candidate + ")";
  best.how = "cross-validated accuracy (" + format_short(best.accuracy) + "%, " + settings.str() + " -c " +
             format_short(best.cost) + ")";
  request.note(command + ": --alpha auto chose " + chosen + " at C = " + format_short(best.cost) + ": " +
               format_short(best.accuracy) + "% on " + input);
  best.record = {{"smoothing", best.smoothing.ml ? "ml" : "posterior"},
                 {"candidate", best.smoothing.candidate},
                 {"C", best.cost},
                 {"accuracy", best.accuracy},
                 {"kernel", options.kernel},
                 {"gamma", options.gamma},
                 {"folds", options.folds},
                 {"table", std::move(table)}};
  if (!best.smoothing.ml) best.record["alpha"] = best.smoothing.alpha;
  return best;
}

}  // namespace ppk::cli
