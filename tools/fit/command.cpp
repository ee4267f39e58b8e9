// ppk fit FAMILY [options] INPUT [-o OUTPUT]: one model row per example. The command: its usage,
// the options every family shares (--estimator, --shrink, --save-pooled, --pooled-from, --threads),
// the pool files and the fit of every example. Each family is a file of its own (families.cpp).
#include <cmath>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "fisher_features.hpp"
#include "fit_call.hpp"
#include "fit_family.hpp"
#include "parallel.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/json.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/fisher.hpp"
#include "ppk/core/row.hpp"
#include "training_choices.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kFitInput = R"(
Fits one model per example of INPUT, a LIBSVM data file ('-' = standard input),
and writes one model row per example, in input order, with the example's label.
An example is one line 'label index:value ...', or, when the lines carry qid:
(the SVMlight convention), the run of consecutive lines sharing 'label qid:N'.
The sequence families (hmm, fhmm, lds, slds) need qid groups: one sequence per
group. hmm also reads symbol sequences (FASTA or 'LABEL SEQUENCE' lines), and
markov reads only those.
INPUT's format is detected from its first line that is neither blank nor a '#'
comment: a FASTA header '>...', a LIBSVM row (a label, alone or with qid:N or
index:value fields) or a 'LABEL SEQUENCE' line (a label and anything else). A
file in a format the family does not read is refused, naming the file, the
line and what to use instead. A fit that decides nothing on the whole of INPUT
(no value chosen by the data, no pool) reads LIBSVM rows 4096 examples at a
time, so memory does not grow with INPUT; give --dim to spare the pass that
finds the largest index. A file given with -o is written only if every
example fits.
)";

constexpr const char* kEstimatorHelp = R"(
Estimators (--estimator): ml = maximum likelihood; map = the posterior mode
under the family's conjugate prior (--prior-* options); posterior = the
posterior predictive, where it stays in the family (bernoulli, multinomial,
gaussian with --var).
)";

constexpr const char* kPoolHelp = R"(
Training and test files: whatever a fit decides on its training file (values
chosen by the data, such as --alpha auto, and statistics pooled over its
examples) is saved by --save-pooled POOL and reused, unchanged, for a test file
fitted with --pooled-from POOL: nothing is re-estimated on test data.
)";

constexpr const char* kShrinkHelp = R"(
Shrinkage (--shrink L, COLT 2003): each example's estimate maximises
  log p(example | theta) + L * sum over the training examples j of log p(x_j | theta),
i.e. its statistics plus L times those pooled over the training set. Fit the
training file with --shrink L --save-pooled POOL, and the test file with
--shrink L --pooled-from POOL, so that both use the same pool.
)";

constexpr const char* kLatentHelp = R"(
Pooled models and adaptation (FAMILIES; docs/latent-models.md):
per-example EM on a short sequence or a small set overfits, and its hidden
states mean different things in different examples. --pooled fits ONE model
to all the examples of INPUT (EM over every sequence or set at once, with the
family's states or components, --restarts, --seed, --threads) and writes it
as one row (label 0); --save-pooled POOL keeps it. --adapt-from POOL then fits
each example by MAP adaptation of that model (Reynolds et al. 2000): EM
started from the pooled model under conjugate priors centred on its
parameters, TAU = --relevance pseudo-observations strong: a probability
vector becomes (expected counts + TAU p0) / (N + TAU), a Gaussian state's
mean (N xbar + TAU mu0) / (N + TAU), its covariance the scatter plus
TAU Sigma0 (and the means' offsets) over N + TAU. TAU -> infinity gives the
pooled model, TAU -> 0 the example's own maximum likelihood; states stay
aligned across examples, so kernels compare like with like. Adapt the
training file AND the test files from the same POOL. --adapt LIST: what
adapts (start, transitions, emissions, weights, means, covariances, cpts, or
all); the rest keeps pooled values. A network's CPT rows adapt as
probability vectors. An lds adapts start (mean0, cov0), transitions (A, Q)
and emissions (C, R) under matrix-normal and inverse-Wishart priors centred on
the pooled ones; the pooled LDS fixes the state basis, so adapted LDSs are
comparable.
--fisher-from POOL writes, instead of model rows, each example's Fisher score
under the pooled model (Jaakkola & Haussler 1999) as LIBSVM feature rows for
svm-train -t 0 or LIBLINEAR: the gradient of log p(example) with respect to
the --adapt parameters (probabilities by their logits, Gaussian means, log
variances or covariance entries), divided by the example's length or size
and by the square root of the training examples' mean squared score (the
diagonal of the empirical Fisher information, which --pooled --save-pooled
keeps in POOL). Offered for hmm, mixture, bayesnet (the CPT rows' logits) and
lds (the entries of mean0, A and C, the upper triangles of cov0, Q and R).
)";

// --pooled, --adapt-from, --relevance and --adapt (latent-variable families).
void add_latent_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("pooled", "fit one model to all the examples of INPUT and write it as one row (see above)")
      ("adapt-from", po::value<std::string>()->value_name("POOL"),
       "fit each example by MAP adaptation of the pooled model in POOL (--pooled --save-pooled POOL)")
      ("relevance", po::value<double>()->default_value(16.0, "16")->value_name("TAU"),
       "--adapt-from: the priors' strength TAU > 0 in pseudo-observations (Reynolds et al.'s 16)")
      ("adapt", po::value<std::string>()->default_value("all")->value_name("LIST"),
       "--adapt-from: what adapts (--fisher-from: the scores' parameters): start,transitions,emissions,"
       "weights,means,covariances,cpts or all")
      ("fisher-from", po::value<std::string>()->value_name("POOL"),
       "write each example's Fisher score under the pooled model in POOL as LIBSVM features (see above)");
  // clang-format on
}
const OptionFlags kLatentOptionFlags{{"pooled", "--pooled"},
                                     {"adapt_from", "--adapt-from"},
                                     {"relevance", "--relevance"},
                                     {"adapt", "--adapt"},
                                     {"fisher_from", "--fisher-from"}};

// `ppk fit mi`, a command of its own (mi.cpp) listed among the families.
constexpr const char* kMiName = "mi";
constexpr const char* kMiSummary = "mutual-information kernel rows: 'ppk fit mi --help'";

// "gaussian, bernoulli, ..., slds or mi" (last_join "or") or "... and mi".
std::string family_names(const char* last_join) {
  std::vector<std::string> names;
  for (const FitFamily& family : fit_families()) names.emplace_back(family.name);
  names.emplace_back(kMiName);
  return join_list(names, last_join);
}

// The families that have a property: "a, b and c".
std::string families_where(bool (*has)(const FitFamily&)) {
  std::vector<std::string> names;
  for (const FitFamily& family : fit_families())
    if (has(family)) names.emplace_back(family.name);
  return join_list(names, "and");
}

bool offers_estimator(const FitFamily& family) { return family.no_estimator == nullptr; }
bool offers_pooling(const FitFamily& family) { return family.pools; }
bool offers_latent_fits(const FitFamily& family) { return family.latent; }
bool defaults_to_posterior(const FitFamily& family) {
  return offers_estimator(family) && family.default_method == Method::posterior;
}

// --estimator, for `family` (null: for every family that offers it).
void add_estimator_option(po::options_description& options, const FitFamily* family) {
  const std::string defaults = family != nullptr
                                   ? std::string("default ") + method_name(family->default_method)
                                   : "offered by " + families_where(offers_estimator) + "; default posterior for " +
                                         families_where(defaults_to_posterior) + ", ml otherwise";
  options.add_options()("estimator", po::value<std::string>()->value_name("ml|map|posterior"),
                        ("the estimate (" + defaults + ")").c_str());
}

// --shrink (COLT 2003), for `family` (null: for every family that offers it).
void add_shrink_option(po::options_description& options, const FitFamily* family) {
  const std::string which = family != nullptr ? " (COLT 2003)" : " (COLT 2003; " + families_where(offers_pooling) + ")";
  options.add_options()("shrink", po::value<double>()->value_name("L"),
                        ("shrink toward the pooled training data with weight L > 0" + which).c_str());
}

// --save-pooled and --pooled-from: every family.
void add_pool_file_options(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("save-pooled", po::value<std::string>()->value_name("POOL"),
       "write what was decided on INPUT (the training file: chosen values, pooled statistics) to POOL")
      ("pooled-from", po::value<std::string>()->value_name("POOL"),
       "fit INPUT (a test file) with what was decided on the training file and saved in POOL");
  // clang-format on
}

// The options of `family` besides its own (null: of every family). The one source of its --help
// and of what its command line accepts.
po::options_description common_options(const FitFamily* family) {
  po::options_description options("Options");
  // clang-format off
  options.add_options()
      ("output,o", po::value<std::string>()->default_value("-")->value_name("OUTPUT"),
       "where to write the rows ('-' = standard output); written only if every example fits")
      ("dim", po::value<long>()->value_name("D"),
       "the models' dimension (number of features, vocabulary size); default: the largest "
       "index in INPUT. Give the same D to files fitted separately (train and test)");
  // clang-format on
  if (family == nullptr || offers_estimator(*family)) add_estimator_option(options, family);
  if (family == nullptr || offers_pooling(*family)) add_shrink_option(options, family);
  add_pool_file_options(options);
  if (family == nullptr || offers_latent_fits(*family)) add_latent_options(options);
  add_threads_option(options, "fit N examples at a time");
  options.add_options()("help,h", "this text");
  return options;
}
// The fields of common_options: the estimators' method, the dimension D and the shrinkage weight
// lambda of estimate().
const OptionFlags kCommonOptionFlags{{"method", "--estimator"}, {"dim", "--dim"}, {"lambda", "--shrink"}};

// A UsageError for an option that other families take and `family` does not (absent from its --help
// and its command line): why it does not apply. `names` are the options given, without "--".
void reject_options_of_other_families(const FitFamily& family, const std::vector<std::string>& names) {
  po::options_description estimator, pooling, latent;
  add_estimator_option(estimator, nullptr);
  add_shrink_option(pooling, nullptr);
  add_latent_options(latent);
  for (const std::string& name : names) {
    const std::string option = "--" + name + " is not offered for ppk fit " + family.name + ": ";
    if (!offers_estimator(family) && estimator.find_nothrow(name, false) != nullptr)
      throw UsageError(option + family.no_estimator);
    if (!offers_pooling(family) && pooling.find_nothrow(name, false) != nullptr)
      throw UsageError(option + "the " + family.name +
                       " fit is not an exponential family: it has no sufficient "
                       "statistics to pool, so --shrink is not supported");
    if (!offers_latent_fits(family) && latent.find_nothrow(name, false) != nullptr)
      throw UsageError(option + "it pools and adapts the hidden states or components of latent-variable models (" +
                       families_where(offers_latent_fits) + ")");
  }
}

// Usage, the input formats, and what --estimator and --shrink do where `only` (null: any family) offers them.
std::string fit_usage(const FitFamily* only) {
  std::string usage;
  if (only != nullptr) {
    usage = std::string("Usage: ppk fit ") + only->name + " [options] INPUT [-o OUTPUT]\n";
  } else {
    usage = "Usage: ppk fit FAMILY [options] INPUT [-o OUTPUT]\nFAMILY:\n";
    const auto line = [&usage](const std::string& name, const std::string& summary) {
      usage += "  " + name + std::string(name.size() < 12 ? 12 - name.size() : 1, ' ') + summary + "\n";
    };
    for (const FitFamily& family : fit_families()) line(family.name, family.summary);
    line(kMiName, kMiSummary);
  }
  usage += kFitInput;
  if (only == nullptr || offers_estimator(*only)) usage += kEstimatorHelp;
  usage += kPoolHelp;
  if (only == nullptr || offers_pooling(*only)) usage += kShrinkHelp;
  if (only == nullptr || offers_latent_fits(*only)) {
    std::string latent = kLatentHelp;
    latent.replace(latent.find("FAMILIES"), 8, families_where(offers_latent_fits));
    usage += latent;
  }
  return usage;
}

void print_fit_help(const FitFamily* only) {
  print_help_with_entries(fit_usage(only), fit_families(), only, common_options(only));
}

// The statistics pooled over every example of `data` (the training set); PoolingUnsupported when
// the estimator, with its options, has none.
Statistics pool_examples(const Estimator& estimator, const Dataset& data, long dim) {
  std::optional<Statistics> pooled;
  for (const Example& example : data.examples) {
    try {
      const Statistics own = estimator.statistics(example.vectors, dim);
      pooled = pooled ? estimator.pool(*pooled, own, 1.0) : own;
    } catch (const PoolingUnsupported&) {
      throw;
    } catch (const EstimationError& e) {
      throw data.error_at(example, message_of(e));
    }
  }
  if (!pooled) throw InputError(data.source + ": no examples to pool");
  return *pooled;
}

// UsageError unless --pooled, --adapt-from and their options are used together as documented.
void check_latent_options(const po::variables_map& values, const FitFamily& family) {
  const bool pooled = values.count("pooled") > 0, adapted = values.count("adapt-from") > 0,
             fisher = values.count("fisher-from") > 0;
  if (pooled + adapted + fisher > 1)
    throw UsageError(
        "--pooled, --adapt-from and --fisher-from exclude each other: fit the pooled model with --pooled "
        "--save-pooled POOL, then adapt every file with --adapt-from POOL or score it with --fisher-from POOL");
  if ((pooled || adapted || fisher) && values.count("pooled-from"))
    throw UsageError(
        "--pooled-from applies to per-example fits; with --pooled, --adapt-from or --fisher-from leave it out");
  if ((adapted || fisher) && values.count("save-pooled"))
    throw UsageError("--save-pooled keeps the model that --pooled fits; --adapt-from and --fisher-from read one");
  if (!adapted && !values["relevance"].defaulted()) throw UsageError("--relevance applies to --adapt-from POOL");
  if (!adapted && !fisher && !values["adapt"].defaulted())
    throw UsageError("--adapt applies to --adapt-from POOL and --fisher-from POOL");
  if (adapted || fisher)
    for (const char* name : family.decided_by_pool)
      if (values.count(name) && !values[name].defaulted())
        throw UsageError(std::string("--") + name + " shapes the pooled model, which " +
                         (adapted ? "--adapt-from" : "--fisher-from") + " reads from POOL: give it to ppk fit " +
                         family.name + " --pooled --save-pooled POOL and leave it out here");
  if (fisher)
    for (const char* name : {"iterations", "tolerance", "ridge", "length"})
      if (values.count(name) && !values[name].defaulted())
        throw UsageError(std::string("--") + name +
                         " controls a fit, and --fisher-from fits nothing: it scores every example under the "
                         "pooled model in POOL as it is");
  if ((pooled || adapted || fisher) &&
      ((values.count("prior") && !values["prior"].defaulted()) || values.count("prior-count")))
    throw UsageError(
        "--prior and --prior-count apply to per-example fits: a pooled fit has the data of every example, and an "
        "adapted fit's prior is centred on the pooled model (--relevance)");
}

// InputError unless `pool` was written by the same family over the same dimension.
void check_pool_matches(const PoolFile& pool, const FitFamily& family, long dim, const std::string& input,
                        const std::string& command) {
  if (pool.family != family.name || pool.dim != dim)
    throw InputError(pool.path + " was written by ppk fit " + pool.family + " over dimension " +
                     std::to_string(pool.dim) + " from " + pool.source + ", but " + input + " is fitted by " + command +
                     " over dimension " + std::to_string(dim) + " (give both files the same family and --dim)");
}

// The pool file of --adapt-from or --fisher-from: it must hold a pooled model of this family and dimension.
PoolFile read_pooled_model(const std::string& path, const FitFamily& family, long dim, const std::string& input,
                           const std::string& command) {
  PoolFile pool = read_pool_file(path);
  if (pool.model.is_null())
    throw UsageError(pool.path + " holds no pooled model: fit the training file " + pool.source + " with " + command +
                     " --pooled --save-pooled " + pool.path);
  check_pool_matches(pool, family, dim, input, command);
  return pool;
}

// --pooled: the one model of all the examples, from their statistics.
std::unique_ptr<Model> fit_pooled_model(const Estimator& estimator, const Dataset& data,
                                        const std::vector<Statistics>& statistics, unsigned threads) {
  if (data.examples.empty()) throw InputError(data.source + ": no examples to pool");
  try {
    return estimator.fit_pooled(statistics, threads);
  } catch (const WorkingMemoryError& e) {  // the data's size with the options: exit 1, as fit_row's
    throw InputError(data.source + ": the pooled fit: " + message_of(e));
  } catch (const OptionError& e) {
    throw UsageError(message_of(e));
  } catch (const EstimationError& e) {
    throw InputError(data.source + ": the pooled fit failed: " + message_of(e));
  }
}

// --adapt-from: every example's adaptation of `pooled` with `options`, in parallel (each is fitted on its own).
std::vector<Row> adapted_rows(const Estimator& estimator, const Model& pooled, const Dataset& data, long dim,
                              const AdaptationOptions& options, unsigned threads) {
  std::vector<Row> rows(data.examples.size());
  for_each_index(data.examples.size(), threads, "adapting", [&](std::size_t i) {
    const Example& example = data.examples[i];
    Statistics statistics;
    try {
      statistics = estimator.statistics(example.vectors, dim);
    } catch (const EstimationError& e) {
      throw data.error_at(example, message_of(e));
    }
    try {
      rows[i] = encode_row(*estimator.adapt(pooled, statistics, options));
    } catch (const OptionError& e) {  // the options, not this example
      throw UsageError(message_of(e));
    } catch (const EstimationError& e) {
      throw data.error_at(example, message_of(e));
    } catch (const ModelError& e) {  // a row its reader would refuse (row.hpp, kMaxRowDenseValues)
      throw data.error_at(example, message_of(e));
    }
  });
  return rows;
}

// The family named `name` (FAMILY of `ppk fit`); a UsageError naming the families otherwise.
const FitFamily& find_fit_family(const std::string& name) {
  for (const FitFamily& family : fit_families())
    if (name == family.name) return family;
  throw UsageError("unknown family '" + name + "'; ppk fit supports " + family_names("and"));
}

// The options of `ppk fit FAMILY`: the family's and those it shares, after the options `names`
// (without "--") are checked against the other families'; their flags name the library's fields.
po::options_description fit_options_table(const FitFamily& family, const std::vector<std::string>& names) {
  reject_options_of_other_families(family, names);
  use_option_flags(kCommonOptionFlags);
  use_option_flags(kLatentOptionFlags);
  for (const OptionFlags& flags : family.option_flags) use_option_flags(flags);
  po::options_description options = common_options(&family);
  family.add_options(options);
  return options;
}

// The command line `args` of `ppk fit FAMILY` (the words after FAMILY, with INPUT).
po::variables_map parse_fit_command_line(const FitFamily& family, const std::vector<std::string>& args) {
  std::vector<std::string> names;
  for (const std::string& word : args)
    if (word.rfind("--", 0) == 0) names.push_back(word.substr(2, word.find('=') - 2));
  po::options_description options = fit_options_table(family, names);
  options.add_options()("input", po::value<std::string>(), "INPUT");
  po::positional_options_description positional;
  positional.add("input", 1);
  return parse_command_line(args, options, positional);
}

// The options of `ppk fit FAMILY` given as keywords; the rows are returned (no --output).
po::variables_map parse_fit_keywords(const FitFamily& family, const std::vector<OptionKeyword>& keywords) {
  refuse_output_option(keywords);
  std::vector<std::string> names;
  for (const auto& [name, value] : keywords) names.push_back(name);
  return parse_option_keywords(keywords, fit_options_table(family, names));
}

// The request of `ppk fit FAMILY` with the options `values`, checked: UsageError for values out of
// range and for options that exclude each other.
FitRequest parse_fit_request(const FitFamily& family, const po::variables_map& values) {
  FitRequest request;
  request.command = std::string("ppk fit ") + family.name;
  if (values.count("shrink")) {
    request.shrink = values["shrink"].as<double>();
    if (!(request.shrink > 0) || !std::isfinite(request.shrink))
      throw UsageError("--shrink must be a finite number > 0, got " + format_double(request.shrink));
  }
  if (family.latent) check_latent_options(values, family);
  if (values.count("pooled-from") && values.count("save-pooled"))
    throw UsageError("--pooled-from and --save-pooled exclude each other: save the pool when fitting the training file");
  request.threads = threads_option(values);
  request.dim = dim_option(values);
  if (values.count("save-pooled")) request.save_pooled = values["save-pooled"].as<std::string>();
  if (values.count("pooled-from")) request.pooled_from = values["pooled-from"].as<std::string>();
  if (family.latent && values.count("pooled")) request.mode = FitMode::pooled;
  for (const auto& [name, mode] : {std::pair{"adapt-from", FitMode::adapt}, std::pair{"fisher-from", FitMode::fisher}})
    if (family.latent && values.count(name)) {
      request.mode = mode;
      request.pooled_model = values[name].as<std::string>();
    }
  try {
    if (values.count("estimator")) request.method = parse_method(values["estimator"].as<std::string>());
    if (request.from_pool()) request.adaptation.adapt = parse_adapted_parameters(values["adapt"].as<std::string>());
    if (request.mode == FitMode::adapt) {
      AdaptationOptions& options = request.adaptation;
      options.relevance = values["relevance"].as<double>();
      if (values.count("iterations")) options.iterations = values["iterations"].as<long>();
      if (values.count("tolerance")) options.tolerance = values["tolerance"].as<double>();
      if (values.count("ridge")) options.ridge = values["ridge"].as<double>();
      check_adaptation_options(options);
    }
  } catch (const EstimationError& e) {
    throw UsageError(message_of(e));
  }
  return request;
}

// The pool of --pooled-from (nothing without it), checked against the family, the dimension and
// --shrink.
std::optional<PoolFile> read_pool_from(const FitRequest& request, const FitFamily& family, long dim,
                                       const std::string& input) {
  if (!request.pooled_from) return std::nullopt;
  PoolFile pool = given_pool(request);
  check_pool_matches(pool, family, dim, input, request.command);
  if (request.shrink > 0 && !pool.statistics)
    throw UsageError(pool.path + " holds no pooled statistics: fit the training file " + pool.source +
                     " with --shrink L --save-pooled " + pool.path);
  return pool;
}

// The family's own options `values` as its options struct; UsageError when they are wrong.
std::unique_ptr<FamilyOptions> parse_family_options(const FitFamily& family, const po::variables_map& values) {
  try {
    return family.parse_options(values);
  } catch (const EstimationError& e) {
    throw UsageError(message_of(e));
  }
}

// The family's estimator from its options for `context`; UsageError when they cannot make one.
std::unique_ptr<Estimator> make_estimator(const FamilyOptions& options, const FitContext& context) {
  try {
    return options.make_estimator(context);
  } catch (const EstimationError& e) {
    throw UsageError(message_of(e));
  }
}

// Where a fit's rows go: their lines to a stream (the command line's OUTPUT), or the rows to a
// program (FitCall).
class RowSink {
 public:
  explicit RowSink(std::ostream& lines) : lines_(&lines) {}
  explicit RowSink(std::vector<LabeledRow>& rows) : rows_(&rows) {}

  // The row of one example, labelled `label`.
  void add(double label, Row row) {
    if (lines_ != nullptr)
      *lines_ << format_row_line(label, row) << '\n';
    else
      rows_->push_back(LabeledRow{label, std::move(row)});
  }
  // One row per example of `data`, in its order.
  void add(const Dataset& data, std::vector<Row> rows) {
    for (std::size_t i = 0; i < rows.size(); ++i) add(data.examples[i].label, std::move(rows[i]));
  }
  // The stream of the rows' lines (for fit_streamed_rows); null when the rows go to a program.
  std::ostream* lines() const { return lines_; }

 private:
  std::ostream* lines_ = nullptr;
  std::vector<LabeledRow>* rows_ = nullptr;
};

// What every mode of a fit works on: the request, INPUT and the family's estimator for it.
struct FitRun {
  const FitFamily& family;
  const FitRequest& request;
  const FitSource& source;
  const FitInput& input;
  const Estimator& estimator;
  long dim;
};

// --fisher-from: every example's Fisher score under the pooled model of POOL, as LIBSVM features.
void write_fisher_rows(const FitRun& run, RowSink& out) {
  const PoolFile pool =
      read_pooled_model(*run.request.pooled_model, run.family, run.dim, run.source.name, run.request.command);
  if (pool.fisher.is_null()) {
    // Why --save-pooled saved none: the pooled model has no Fisher scores, or the pool is older.
    std::string why = "Fisher features are offered for a pooled hmm, mixture, bayesnet or lds, saved by " +
                      run.request.command + " --pooled --save-pooled";
    try {
      FisherScorer(run.estimator, *model_from_json(pool.model), AdaptedParameters{});
    } catch (const EstimationError& e) {
      why = "its pooled model has no Fisher score: " + message_of(e);
    }
    throw UsageError(pool.path + " holds no Fisher information: " + why);
  }
  const Dataset& data = run.input.data();
  std::vector<Row> rows;
  try {
    rows = fisher_feature_rows(run.estimator, *model_from_json(pool.model), pool.fisher, run.request.adaptation.adapt,
                               data, example_statistics(run.estimator, data, run.dim), pool.path, run.request.threads);
  } catch (const OptionError& e) {
    throw UsageError(message_of(e));
  }
  out.add(data, std::move(rows));
}

// --pooled: the one model of every example, its row (label 0) to `out`; with --save-pooled, the model
// and its Fisher information into `saved`.
void write_pooled_row(const FitRun& run, PoolFile& saved, RowSink& out) {
  const std::vector<Statistics> examples = example_statistics(run.estimator, run.input.data(), run.dim);
  const std::unique_ptr<Model> model = fit_pooled_model(run.estimator, run.input.data(), examples, run.request.threads);
  out.add(0.0, encode_row(*model));
  if (!run.request.save_pooled) return;
  saved.model = model_to_json(*model);
  saved.fisher = fisher_information(run.estimator, *model, examples, run.request.threads);
}

// --adapt-from: every example's adaptation of the pooled model of POOL.
void write_adapted_rows(const FitRun& run, RowSink& out) {
  const PoolFile pool =
      read_pooled_model(*run.request.pooled_model, run.family, run.dim, run.source.name, run.request.command);
  const Dataset& data = run.input.data();
  out.add(data, adapted_rows(run.estimator, *model_from_json(pool.model), data, run.dim, run.request.adaptation,
                             run.request.threads));
}

// The statistics every example is shrunk toward (--shrink) and --save-pooled keeps: the training
// file's (`pool_from`, the --pooled-from file), INPUT's own, or none.
std::optional<Statistics> shrinkage_pool(const FitRun& run, const PoolFile* pool_from) {
  const Estimator& estimator = run.estimator;
  if (pool_from && pool_from->statistics) {
    if (pool_from->statistics->family != estimator.family())
      throw InputError(pool_from->path + ": the pooled statistics are of a " + pool_from->statistics->family + ", but " +
                       run.request.command + " with these options fits a " + estimator.family() + " (fit " +
                       run.source.name + " with the options used for " + pool_from->source + ")");
    return pool_from->statistics;
  }
  const double lambda = run.request.shrink;
  if (pool_from || !(lambda > 0 || (run.request.save_pooled && offers_pooling(run.family)))) return std::nullopt;
  try {
    return pool_examples(estimator, run.input.data(), run.dim);
  } catch (const PoolingUnsupported& e) {
    if (lambda > 0) throw UsageError(message_of(e));  // --save-pooled alone saves the chosen values
  }
  return std::nullopt;
}

// Every example fitted on its own, shrunk toward shrinkage_pool's statistics; returns them.
std::optional<Statistics> write_example_rows(const FitRun& run, const PoolFile* pool_from, RowSink& out) {
  const std::optional<Statistics> pooled = shrinkage_pool(run, pool_from);
  const Statistics* toward = pooled ? &*pooled : nullptr;
  const FitRequest& request = run.request;
  // No choice read the examples, and no pool was made of them: INPUT is fitted a chunk at a time.
  const FitSource* rows_to_stream = run.input.streamable();
  if (rows_to_stream != nullptr && out.lines() != nullptr)
    fit_streamed_rows(run.estimator, *rows_to_stream, run.dim, toward, request.shrink, request.threads, *out.lines());
  else
    out.add(run.input.data(),
            fit_rows(run.estimator, run.input.data(), run.dim, toward, request.shrink, request.threads));
  return pooled;
}

// What a fit decides on INPUT that --save-pooled keeps: `saved` (the pooled model or statistics)
// and the choices.
PoolFile decided_pool(const FitRun& run, const TrainingChoices& choices, PoolFile saved) {
  saved.source = run.source.name;
  saved.family = run.family.name;
  saved.dim = run.dim;
  saved.chosen = choices.chosen();
  saved.matrices = choices.matrices();
  saved.base = choices.base();
  saved.smoothing = choices.smoothing();
  return saved;
}

// What a fit leaves besides its rows: the pool --save-pooled keeps, and the family's side outputs.
struct FitOutcome {
  std::optional<PoolFile> pool;
  std::vector<std::pair<std::string, std::vector<std::string>>> side_outputs;  // path, lines
};

// Fits every example of `source` as `request` asks, with the family's options `options`: the rows to
// `out`; the pool (with --save-pooled) and the side outputs are returned, to be written once every
// example fits.
FitOutcome fit_examples(const FitFamily& family, const FitRequest& request, const FamilyOptions& options,
                        const FitSource& source, RowSink& out) {
  const FitInput input = options.read_input(source, request);
  const long dim = input.dim();
  const std::optional<PoolFile> pool_from = read_pool_from(request, family, dim, source.name);
  TrainingChoices choices(request, source.name, pool_from ? &*pool_from : nullptr);
  const std::unique_ptr<Estimator> estimator = make_estimator(
      options, FitContext{request, request.method.value_or(family.default_method), source, input, choices});
  const FitRun run{family, request, source, input, *estimator, dim};
  PoolFile saved;
  switch (request.mode) {
    case FitMode::fisher: write_fisher_rows(run, out); break;
    case FitMode::pooled: write_pooled_row(run, saved, out); break;
    case FitMode::adapt: write_adapted_rows(run, out); break;
    case FitMode::per_example: saved.statistics = write_example_rows(run, pool_from ? &*pool_from : nullptr, out); break;
  }
  FitOutcome outcome{std::nullopt, input.side_outputs};
  if (request.save_pooled) outcome.pool = decided_pool(run, choices, std::move(saved));
  return outcome;
}

// The files a fit's outcome names: the --save-pooled file and the side outputs.
void write_outcome_files(const FitRequest& request, const FitOutcome& outcome) {
  if (outcome.pool) write_pool_file(*request.save_pooled, *outcome.pool);
  for (const auto& [path, side_lines] : outcome.side_outputs) write_lines(path, side_lines);
}

}  // namespace

std::string fit_family_names() { return family_names("and"); }

int run_fit(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    if (args.empty()) throw UsageError("missing the family: " + family_names("or"));
    print_fit_help(nullptr);
    return 0;
  }
  if (args[0] == kMiName) return run_fit_mi(std::vector<std::string>(args.begin() + 1, args.end()));
  const FitFamily& family = find_fit_family(args[0]);
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (wants_help(rest)) {
    print_fit_help(&family);
    return 0;
  }
  const po::variables_map values = parse_fit_command_line(family, rest);
  if (!values.count("input")) throw UsageError("missing INPUT (a data file, or '-' for standard input)");
  // INPUT is read first: how hmm reads it depends on its format, and choices are made on its examples.
  const FitSource source = read_fit_source(values["input"].as<std::string>());
  OutputFile output(values["output"].as<std::string>());
  const FitRequest request = parse_fit_request(family, values);
  const std::unique_ptr<FamilyOptions> options = parse_family_options(family, values);
  RowSink rows(output.stream());
  const FitOutcome outcome = fit_examples(family, request, *options, source, rows);
  write_outcome_files(request, outcome);
  output.commit();
  return 0;
}

void refuse_output_option(const std::vector<OptionKeyword>& options) {
  for (const auto& [name, value] : options)
    if (name == "output") throw UsageError("--output does not apply: the rows are returned");
}

FittedRows fit_in_memory(const FitCall& call, const FitSource& source) {
  const FitFamily& family = find_fit_family(call.family);
  const po::variables_map values = parse_fit_keywords(family, call.options);
  FitRequest request = parse_fit_request(family, values);
  request.notes = call.notes;
  const std::optional<std::string> pool_file = request.save_pooled;  // --save-pooled's file, written as by run_fit
  if (call.keep_pool && !pool_file) request.save_pooled = call.pool_name;
  if (call.pool) {
    if (request.pooled_from)
      throw UsageError("--pooled-from reads a pool file, and the call holds the pool of a training fit: give one");
    if (request.mode != FitMode::per_example)
      throw UsageError(
          "the pool of a training fit applies to per-example fits; with --pooled, --adapt-from or --fisher-from "
          "leave it out");
    std::istringstream text(*call.pool);
    request.pooled_from = call.pool_name;
    request.pool_given = std::make_shared<const PoolFile>(parse_pool(text, call.pool_name));
  }
  const std::unique_ptr<FamilyOptions> options = parse_family_options(family, values);
  FittedRows fitted;
  RowSink rows(fitted.rows);
  FitOutcome outcome = fit_examples(family, request, *options, source, rows);
  if (call.keep_pool && outcome.pool) fitted.pool = pool_text(*outcome.pool);
  if (!pool_file) outcome.pool.reset();
  write_outcome_files(request, outcome);
  return fitted;
}

}  // namespace ppk::cli
