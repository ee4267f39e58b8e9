// ppk fit multinomial: counts under a Dirichlet prior (smoothed_family.hpp), its base uniform or pooled.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "fit_family.hpp"
#include "smoothed_family.hpp"
#include "ppk/estimate/estimate_multinomial.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kMultinomialHelp = R"(
multinomial: counts c_d >= 0 (summed over the example's vectors), N = sum c_d;
  prior a ~ Dirichlet(A, .., A):
  posterior (default): a_d = (c_d + A) / (N + A D), the Dirichlet-multinomial mean
  --alpha 1/D (default): one pseudo-count in all (A D = 1, Perks's prior), a
  share 1/(N + 1) of each row whatever the vocabulary; a fixed A puts A D
  pseudo-counts against every document (A = 1 on 20,000 words swamps a
  40-word document), and measured on two real corpora and the demo corpus
  1/D was within 0.7 points of ML rows and 6 to 27 points above A = 1.
  map: a_d = (c_d + A - 1) / (N + D (A - 1))  (A >= 1);  ml: a_d = c_d / N.
  --alpha auto: the smoothing and the SVM's C chosen together by the k-fold
  cross-validated accuracy of the kernel SVM on INPUT (LIBSVM's
  svm_cross_validation, as svm-train -v K -c C -t KERNEL -g RHO on the rows):
  every candidate of --cv-alphas (default evidence,1/D,ml,1,0.1,0.01,0.001;
  evidence is skipped when the evidence has no maximum, ml under --base pooled)
  at every C of --cv-c.
  The table and the choice are printed on stderr, the chosen rows written;
  --save-pooled saves the smoothing, C and kernel settings, and --pooled-from
  applies the smoothing to a test file. Costs candidates x C values x K SVM
  trainings. On a real corpus of short documents (WordNet glosses) it chose
  ml, the most accurate held out, where evidence was 1.3 points below.
  --alpha evidence: A D maximises the evidence (the Dirichlet-multinomial
  likelihood of the training file, each document's a integrated out), printed
  with its standard error. It is the best generative fit, not the best for
  classification: on short documents it smooths more than the SVM wants
  (docs/documents-smoothing.md).
  Whatever smoothing --save-pooled saves (--estimator and --alpha, chosen or
  given) is reused by --pooled-from; a test file given other ones is refused.
  Rows list only the words that occur, so a short document over a large
  vocabulary stays sparse. --trials selects the model: one = a single draw (any
  rho), S = S draws, all = summed over all draw counts with decay L (both need
  rho = 1/2: svm-train -g 0.5).
  --base pooled centres the prior on the training file's word frequencies
  (Dirichlet(A D m), a_d = (c_d + A D m_d) / (N + A D); Zhai & Lafferty 2001):
  m_d = (C_d + 1/2) / (C + D/2) from the pooled counts C_d, quantised to at most
  32 levels so that rows stay sparse and the kernel exact (docs/base-measure.md).
  Fit the training file with --base pooled --save-pooled POOL and the test file
  with --base pooled --pooled-from POOL (and the same --dim): both share one base.
)";

void add_multinomial_options(po::options_description& options) {
  add_chosen_alpha_option(options, "1/D", "A|1/D|auto|evidence", "evidence,1/D,ml,1,0.1,0.01,0.001",
                          "the Dirichlet(A) prior: a_d = (c_d + A) / (N + A D) (posterior); 1/D: one "
                          "pseudo-count in all, A D = 1 (Perks's prior), whatever the vocabulary; auto: the "
                          "smoothing (A or ml) chosen with C by cross-validated SVM accuracy on the training file; "
                          "evidence: A chosen by maximum evidence");
  // clang-format off
  options.add_options()
      ("trials", po::value<std::string>()->default_value("one")->value_name("one|S|all"),
       "the model's number of draws: one, a whole number S >= 1, or all")
      ("decay", po::value<double>()->value_name("L"),
       "with --trials all (required there): the kernel is 1/(1 - L B), B = sum_d "
       "sqrt(a_d a'_d), 0 < L <= 1; L = 1 makes every self-kernel infinite, so an SVM "
       "needs L < 1")
      ("base", po::value<std::string>()->default_value("uniform")->value_name("uniform|pooled"),
       "the prior's centre: uniform (m_d = 1/D) or pooled (the training file's smoothed word "
       "frequencies; needs --save-pooled or --pooled-from)");
  // clang-format on
}

// The fields of MultinomialFitOptions that these flags set.
const OptionFlags kMultinomialFlags{{"base", "--base pooled"}};

// --base pooled: the training file's base, computed on INPUT (with --save-pooled) or read from the
// --pooled-from file, and recorded for the pool file; null for --base uniform. UsageError when the
// two files disagree about the base or when a pooled base could not be shared with the test file.
std::shared_ptr<const LeveledBase> base_option(const FitContext& context, bool pooled_base) {
  const PoolFile* from = context.choices.pool_from();
  const std::string& input = context.source.name;
  if (!pooled_base) {
    if (from != nullptr && !from->base.is_null())
      throw UsageError(from->path + " holds the pooled base of the training file " + from->source +
                       " (fitted with --base pooled), but " + input +
                       " is fitted with --base uniform: give it --base pooled too");
    return nullptr;
  }
  auto leveled = std::make_shared<LeveledBase>();
  if (from != nullptr) {
    const nlohmann::json& saved = from->base;
    if (saved.is_null())
      throw UsageError(input + " is fitted with --base pooled, but " + from->path + " (from the training file " +
                       from->source + ") holds no pooled base: fit " + from->source +
                       " with --base pooled --save-pooled " + from->path);
    try {
      leveled->levels.value = saved.at("level_values").get<std::vector<double>>();
      leveled->levels.count = saved.at("level_counts").get<std::vector<long>>();
      leveled->word_level = saved.at("word_levels").get<std::vector<int>>();
    } catch (const nlohmann::json::exception&) {
      throw InputError(from->path + ": \"base\": expected {\"level_values\", \"level_counts\", \"word_levels\"}");
    }
    if (static_cast<long>(leveled->word_level.size()) != context.input.dim())
      throw UsageError(from->path + " holds the pooled base of " + from->source + " over " +
                       std::to_string(leveled->word_level.size()) + " words, but " + input +
                       " has D = " + std::to_string(context.input.dim()) + " (give both files the same --dim)");
    // The table is checked as a row's would be (a model with no listed word), and every word's level
    // against it: the level counts are the number of words at each level.
    std::vector<long> words_at(leveled->levels.count.size(), 0);
    for (int level : leveled->word_level) {
      if (level < 0 || static_cast<std::size_t>(level) >= words_at.size())
        throw InputError(from->path + ": \"base\": a word level outside the level table");
      ++words_at[static_cast<std::size_t>(level)];
    }
    if (words_at != leveled->levels.count)
      throw InputError(from->path + ": \"base\": \"level_counts\" differ from the number of words at each level");
    try {
      MultinomialModel(LeveledProbabilities{context.input.dim(), 1.0, leveled->levels, {}, {}, {}}, Trials());
    } catch (const ModelError& e) {
      throw InputError(from->path + ": \"base\": " + message_of(e));
    }
  } else {
    if (!context.request.save_pooled)
      throw UsageError("--base pooled on " + input +
                       " needs --save-pooled POOL (the training file, whose base the "
                       "test file must share) or --pooled-from POOL (a test file)");
    const Dataset& data = context.input.data();
    std::vector<double> pooled(static_cast<std::size_t>(context.input.dim()), 0.0);
    for (const Example& example : data.examples)
      for (const SparseVector& vector : example.vectors)
        for (const Feature& feature : vector) {
          if (feature.value < 0)
            throw data.error_at(example, "count " + format_double(feature.value) + " at index " +
                                             std::to_string(feature.coord + 1) +
                                             " is negative; multinomial counts "
                                             "must be >= 0");
          pooled[static_cast<std::size_t>(feature.coord)] += feature.value;
        }
    *leveled = quantised_pooled_base(pooled);
    context.request.note("ppk fit multinomial: pooled base of " + input + " quantised to " +
                         std::to_string(leveled->levels.value.size()) + " levels");
  }
  context.choices.set_base({{"kind", "pooled"},
                            {"smoothing", "(C_d + 1/2) / (C + D/2)"},
                            {"level_values", leveled->levels.value},
                            {"level_counts", leveled->levels.count},
                            {"word_levels", leveled->word_level}});
  return leveled;
}

Trials trials_option(const po::variables_map& values) {
  Trials trials;
  const std::string text = values["trials"].as<std::string>();
  if (text == "one") {
    trials.kind = Trials::one_event;
  } else if (text == "all") {
    trials.kind = Trials::all;
  } else {
    const std::optional<long> count = parse_long(text);
    if (!count || *count < 1) throw UsageError("--trials must be one, all or a whole number >= 1, got '" + text + "'");
    trials.kind = Trials::fixed;
    trials.count = *count;
  }
  if (values.count("decay")) {
    if (trials.kind != Trials::all) throw UsageError("--decay applies only to --trials all");
    trials.decay = option(values, "decay");
    if (!(trials.decay > 0 && trials.decay <= 1))
      throw UsageError("--decay must be in (0, 1], got " + format_double(trials.decay));
  } else if (trials.kind == Trials::all) {
    throw UsageError(
        "--trials all needs --decay L: the kernel sums (L B)^s over all s, which "
        "is 1/(1 - L B); with L = 1 every self-kernel is infinite, so an SVM "
        "needs 0 < L < 1");
  }
  return trials;
}

// The options of ppk fit multinomial: --alpha and those of --alpha auto, --trials with --decay, and
// --base pooled (else uniform).
struct MultinomialOptions {
  AlphaOptions smoothing;
  Trials trials;
  bool pooled_base = false;
};

MultinomialOptions parse_multinomial_options(const po::variables_map& values) {
  MultinomialOptions options;
  const std::string base = values["base"].as<std::string>();
  if (base != "uniform" && base != "pooled") throw UsageError("--base must be uniform or pooled, got '" + base + "'");
  options.pooled_base = base == "pooled";
  options.trials = trials_option(values);
  options.smoothing = parse_alpha_options(values, true);
  return options;
}

std::unique_ptr<Estimator> make_multinomial(const FitContext& context, const MultinomialOptions& options) {
  const long dim = context.input.dim();
  std::shared_ptr<const LeveledBase> base = base_option(context, options.pooled_base);
  const Trials& trials = options.trials;
  return smoothed_estimator(
      context, options.smoothing,
      SmoothedFamily{"multinomial",
                     [&] {
                       // The prior Dirichlet(A m), A = alpha D: m_d = 1/D, or the pooled base's level of word d.
                       Eigen::VectorXd m = Eigen::VectorXd::Constant(dim, 1.0 / static_cast<double>(dim));
                       if (base)
                         for (long d = 0; d < dim; ++d) m[d] = base->levels.value[base->word_level[d]];
                       return multinomial_polya_counts(context.input.data().examples, m);
                     },
                     static_cast<double>(dim), "alpha D", true,
                     [&](Method method, double alpha) {
                       return multinomial_estimator(MultinomialFitOptions{method, alpha, trials, base});
                     }});
}

}  // namespace

FitFamily multinomial_family() {
  return {"multinomial",
          "word counts: one draw, S draws or all",
          kMultinomialHelp,
          Method::posterior,
          nullptr,
          true,
          add_multinomial_options,
          typed_options<MultinomialOptions, parse_multinomial_options, make_multinomial, read_libsvm_input>,
          {kAlphaFlags, kMultinomialFlags}};
}

}  // namespace ppk::cli
