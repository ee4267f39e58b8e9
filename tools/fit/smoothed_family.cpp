// The smoothing of smoothed_family.hpp: decided on the training file, or reused for a test file.
#include "smoothed_family.hpp"

#include <algorithm>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "parallel.hpp"
#include "smoothing_cv.hpp"

namespace ppk::cli {
namespace {

// The alpha of maximum evidence on INPUT (evidence.hpp): the concentration A maximising the evidence
// of rows.counts, reported as alpha = A / rows.per_alpha with its standard error. InputError naming
// INPUT and `option` (the --alpha or candidate that asked) when the evidence has no interior maximum.
Choice evidence_alpha(const FitContext& context, const SmoothedFamily& rows, const std::string& option) {
  EvidenceMaximum best;
  try {
    best = maximise_polya_evidence(rows.counts());
  } catch (const EstimationError& e) {
    throw InputError(context.source.name + ": --alpha " + option + ": " + message_of(e));
  }
  std::ostringstream how;
  how << std::setprecision(4) << "maximum evidence (standard error " << best.standard_error / rows.per_alpha
      << "; concentration " << rows.units << " = " << best.concentration << ")";
  return Choice{best.concentration / rows.per_alpha, how.str()};
}

// --alpha given as a number, or as 1/D where rows.one_over_d; UsageError otherwise.
double alpha_number(const std::string& text, const SmoothedFamily& rows) {
  const std::optional<double> number = text == "1/D" && rows.one_over_d ? 1.0 / rows.per_alpha : parse_double(text);
  if (!number)
    throw UsageError("--alpha must be a number, " + std::string(rows.one_over_d ? "1/D, " : "") +
                     "auto or evidence, got '" + text + "'");
  return *number;
}

// How bernoulli or multinomial rows are smoothed, as decided on the training file and saved by
// --save-pooled (PoolFile::smoothing): the estimator, its alpha (unused for ml), the --alpha that
// gave it (auto, evidence, 1/D or the number) and how its value was decided.
struct RowSmoothing {
  Method method = Method::posterior;
  double alpha = 0;
  std::string option;
  std::string how;
  nlohmann::json cross_validation;  // --alpha auto's choice and table (smoothing_cv.hpp)

  nlohmann::json record() const {
    nlohmann::json out = {{"estimator", method_name(method)}, {"alpha_option", option}, {"chosen_by", how}};
    if (method != Method::ml) out["alpha"] = alpha;
    if (!cross_validation.is_null()) out["cross_validation"] = cross_validation;
    return out;
  }
  static RowSmoothing from_record(const nlohmann::json& saved) {
    RowSmoothing out{parse_method(saved["estimator"].get<std::string>()), 0, saved["alpha_option"].get<std::string>(),
                     saved["chosen_by"].get<std::string>(), saved.value("cross_validation", nlohmann::json())};
    if (out.method != Method::ml) out.alpha = saved["alpha"].get<double>();
    return out;
  }
  // The options that fitted the rows, for messages: "--estimator ml", "--alpha 0.1",
  // "--alpha evidence (alpha = 0.0023)", "--alpha auto (ml)".
  std::string options() const {
    const bool chosen = option == "auto" || option == "evidence" || option == "1/D";
    if (method == Method::ml && option != "auto") return "--estimator ml";
    std::string text =
        method == Method::posterior || option == "auto" ? "" : "--estimator " + std::string(method_name(method)) + " ";
    text += "--alpha " + option;
    if (chosen) text += " (" + (method == Method::ml ? std::string("ml") : "alpha = " + format_shortest(alpha)) + ")";
    return text;
  }
};

// The smoothing decided on INPUT, a training file, by --estimator and --alpha: a number or 1/D (one
// pseudo-count in all), evidence (the alpha of maximum evidence, evidence_alpha), or auto: the
// smoothing chosen with C by cross-validated accuracy among the candidates of `options`
// (choose_smoothing_by_cv on the rows rows.make gives for each).
RowSmoothing training_smoothing(const FitContext& context, const AlphaOptions& given, const SmoothedFamily& rows) {
  const std::string& text = given.alpha;
  if (text == "evidence") {
    if (context.method == Method::ml)
      throw UsageError("--alpha evidence chooses the prior's strength, but --estimator ml uses no prior");
    const Choice choice = evidence_alpha(context, rows, text);
    return {context.method, choice.value, text, choice.how, {}};
  }
  if (text != "auto") {
    if (text == "1/D" && context.method == Method::map)
      throw UsageError(
          "--estimator map needs --alpha A >= 1 (the Dirichlet's mode is on the boundary otherwise); "
          "--alpha 1/D" +
          std::string(given.alpha_given ? "" : ", the default,") + " serves the posterior mean (--estimator posterior)");
    const double alpha = alpha_number(text, rows);
    return {context.method, alpha, text == "1/D" ? text : format_shortest(alpha), "the command line", {}};
  }
  if (context.request.method)
    throw UsageError("--alpha auto chooses between maximum-likelihood rows and posterior means itself; drop --estimator");
  if (context.request.shrink > 0) throw UsageError("--alpha auto and --shrink exclude each other");
  const Dataset& data = context.input.data();
  std::vector<double> labels;
  for (const Example& example : data.examples) labels.push_back(example.label);
  const unsigned threads = context.request.threads;
  const CvChoice choice = choose_smoothing_by_cv(
      given.cv, labels,
      [&](const std::string& name, std::string& reason) -> std::optional<double> {
        if (name == "1/D") return 1.0 / rows.per_alpha;
        try {
          return evidence_alpha(context, rows, "evidence").value;
        } catch (const InputError& e) {
          reason = message_of(e);
          return std::nullopt;
        }
      },
      [&](const Smoothing& smoothing) {
        std::unique_ptr<Estimator> estimator;
        try {
          estimator = rows.make(smoothing.ml ? Method::ml : Method::posterior, smoothing.alpha);
        } catch (const EstimationError& e) {
          throw InputError(message_of(e));
        }
        return fit_rows(*estimator, data, context.input.dim(), nullptr, 0, threads);
      },
      context.request, context.source.name);
  return {choice.smoothing.ml ? Method::ml : Method::posterior, choice.smoothing.alpha, text, choice.how, choice.record};
}

// The smoothing of a test file fitted with --pooled-from `from`: the training file's, saved there,
// never decided again. An --estimator or --alpha given for the test file that differs from it is
// refused, naming both files and both smoothings.
RowSmoothing reused_smoothing(const FitContext& context, const AlphaOptions& given_alpha, const PoolFile& from,
                              const SmoothedFamily& rows) {
  if (from.smoothing.is_null())  // the family and dimension are checked with the pool file
    throw UsageError(from.path + " holds no smoothing of the training file " + from.source + ": fit it with ppk fit " +
                     rows.name + " --save-pooled " + from.path);
  const RowSmoothing saved = RowSmoothing::from_record(from.smoothing);
  std::string given;  // the test file's own --estimator and --alpha
  bool differs = false;
  if (context.request.method) {
    given = std::string("--estimator ") + method_name(*context.request.method);
    differs = context.method != saved.method;
  }
  if (given_alpha.alpha_given) {
    const std::string& text = given_alpha.alpha;
    given += (given.empty() ? "" : " ") + std::string("--alpha ") + text;
    if (text == "auto" || text == "evidence") {
      differs = differs || text != saved.option;
    } else {
      const double alpha = alpha_number(text, rows);
      if (text == "1/D") given += " (alpha = " + format_shortest(alpha) + ")";
      differs = differs || saved.method == Method::ml || alpha != saved.alpha;
    }
  }
  if (differs)
    throw UsageError("the test file " + context.source.name + " is fitted with " + given + ", but the training file " +
                     from.source + " was fitted with " + saved.options() + " (saved in " + from.path +
                     "): the test rows would be smoothed unlike the training rows; drop " + given +
                     " to reuse the training file's smoothing");
  return saved;
}

}  // namespace

void add_chosen_alpha_option(po::options_description& options, const char* default_text, const char* value_name,
                             const char* candidates, const char* description) {
  options.add_options()("alpha", po::value<std::string>()->default_value(default_text)->value_name(value_name),
                        description);
  add_cv_options(options, candidates);
}

AlphaOptions read_alpha_options(const po::variables_map& values, bool one_over_d) {
  AlphaOptions options;
  options.alpha = values["alpha"].as<std::string>();
  options.alpha_given = !values["alpha"].defaulted();
  const std::string& text = options.alpha;
  if (text == "cv")
    throw UsageError(
        "--alpha cv is now --alpha auto (the smoothing and the SVM's C chosen together by "
        "cross-validated accuracy); --alpha evidence is maximum evidence");
  if (text == "1/D" && !one_over_d)
    throw UsageError(
        "--alpha 1/D (one pseudo-count over the vocabulary) applies to multinomial rows; the "
        "bernoulli prior is Beta(A, A) on every feature: give --alpha A");
  options.cv = read_cv_options(values, one_over_d);
  // Maximum-likelihood rows have no base measure: --base pooled leaves ml out of the default candidates
  // (a --cv-alphas that names it is refused when its rows are fitted).
  std::vector<std::string>& candidates = options.cv.candidates;
  if (values.count("base") && values["base"].as<std::string>() == "pooled" && !options.cv.candidates_given)
    candidates.erase(std::remove(candidates.begin(), candidates.end(), "ml"), candidates.end());
  return options;
}

AlphaOptions parse_alpha_options(const po::variables_map& values, bool one_over_d) {
  AlphaOptions options = read_alpha_options(values, one_over_d);
  check_cv_options_apply(options.cv, !values.count("pooled-from") && options.alpha == "auto");
  return options;
}

std::unique_ptr<Estimator> smoothed_estimator(const FitContext& context, const AlphaOptions& alpha,
                                              const SmoothedFamily& rows) {
  const PoolFile* from = context.choices.pool_from();
  const RowSmoothing smoothing =
      from != nullptr ? reused_smoothing(context, alpha, *from, rows) : training_smoothing(context, alpha, rows);
  if (from != nullptr || smoothing.how != "the command line") {
    const std::string where = from != nullptr ? from->source + " (read from " + from->path + ")" : context.source.name;
    context.request.note(context.request.command + ": " +
                         (smoothing.method == Method::ml ? std::string("maximum-likelihood rows (ml)")
                                                         : "alpha = " + format_shortest(smoothing.alpha)) +
                         ", chosen by " + smoothing.how + " on " + where);
  }
  context.choices.set_smoothing(smoothing.record());
  return rows.make(smoothing.method, smoothing.alpha);
}

}  // namespace ppk::cli
