// What a family of `ppk fit` is (FitFamily: its help, its own options, its estimator's factory and
// how it reads INPUT), what its factory is given (FitContext), and the pieces every family may use:
// INPUT's readers, the option readers, the EM options and fitting every example. A family is one
// file, tools/fit/NAME.cpp, defining `FitFamily NAME_family()`, and one line in families.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "fit_request.hpp"
#include "ppk/core/data.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/gaussian.hpp"
#include "training_choices.hpp"

namespace ppk::cli {

// The examples to fit, the models' dimension, and files to write when every example fits. LIBSVM
// rows are read when first asked for (data()): a per-example fit that makes no choice on INPUT (a
// smoothing chosen by cross-validation or evidence, a pooled prior or base, a pool to save) never
// asks, and streams INPUT instead (fit_streamed_rows), holding one chunk of examples.
class FitInput {
 public:
  // The LIBSVM rows of `source` (which must outlive this), read when asked for (the examples a
  // program gave, when it holds them); the dimension `dim`, or, when nothing, INPUT's largest index.
  FitInput(const FitSource& source, std::optional<long> dim);
  // Examples read already (symbol sequences).
  FitInput(Dataset data, long dim);

  // Every example, read on the first call.
  const Dataset& data() const;
  // The models' dimension; without --dim, INPUT's largest index (a pass over INPUT if it is not read).
  long dim() const;
  // The LIBSVM rows to stream, when they have not been read (else null).
  const FitSource* streamable() const { return data_ ? nullptr : source_; }

  std::vector<std::pair<std::string, std::vector<std::string>>> side_outputs;  // path, lines
  std::optional<std::string> alphabet;  // symbol sequences: the alphabet's symbols in index order

 private:
  const FitSource* source_ = nullptr;
  mutable std::shared_ptr<const Dataset> data_;
  mutable std::optional<long> dim_;
};
// INPUT as examples, read as `request` asks (its --dim; its command names the command in messages)
// and the family's own options `options` say.
template <class Options>
using InputReader = FitInput (*)(const FitSource& source, const FitRequest& request, const Options& options);

// What a family's estimator is made from, besides the family's own options (FamilyOptions): the
// request, INPUT (its format and its examples) and the hyperparameters chosen on the training file.
struct FitContext {
  const FitRequest& request;
  Method method;  // the request's, or the family's default
  const FitSource& source;
  const FitInput& input;
  TrainingChoices& choices;
};

// A family's own options: a plain struct of the family (NAMEOptions in tools/fit/NAME.cpp, built on the
// library's NAMEFitOptions where its fields say the options), parsed once from the command line by
// FitFamily::parse_options or filled by a caller without one, and held behind this base so that the
// families stay one table; read_input reads INPUT as the family does under them, and make_estimator
// makes the family's estimator from them for `context`.
struct FamilyOptions {
  virtual ~FamilyOptions() = default;
  virtual FitInput read_input(const FitSource& source, const FitRequest& request) const = 0;
  virtual std::unique_ptr<Estimator> make_estimator(const FitContext& context) const = 0;
};

// The options struct `Options` of a family, INPUT read by `read` and its estimator made by `make`.
template <class Options, std::unique_ptr<Estimator> (*make)(const FitContext&, const Options&), InputReader<Options> read>
struct TypedFamilyOptions final : FamilyOptions {
  explicit TypedFamilyOptions(Options parsed) : options(std::move(parsed)) {}
  FitInput read_input(const FitSource& source, const FitRequest& request) const override {
    return read(source, request, options);
  }
  std::unique_ptr<Estimator> make_estimator(const FitContext& context) const override { return make(context, options); }
  Options options;
};

// FitFamily::parse_options of a family whose options struct `Options` is read from its command line
// by `parse` (UsageError for what the command line alone shows wrong), INPUT by `read` (read_libsvm_input
// and read_sequence_input for the families whose options do not change it) and made an estimator by `make`.
template <class Options, Options (*parse)(const po::variables_map&),
          std::unique_ptr<Estimator> (*make)(const FitContext&, const Options&), InputReader<Options> read>
std::unique_ptr<FamilyOptions> typed_options(const po::variables_map& values) {
  return std::make_unique<TypedFamilyOptions<Options, make, read>>(parse(values));
}

struct FitFamily {
  const char* name;
  const char* summary;  // one line for the FAMILY list
  const char* help;
  // --estimator: the default method, or, when the family offers no choice, why (nullptr: offered).
  Method default_method;
  const char* no_estimator;
  bool pools;  // --shrink, --save-pooled and --pooled-from (an exponential family's statistics)
  void (*add_options)(po::options_description& options);  // the family's own options
  // Those options as the family's struct (typed_options), which reads INPUT as the family does.
  std::unique_ptr<FamilyOptions> (*parse_options)(const po::variables_map& values);
  // The library's option fields (of the family's FitOptions struct) named by the family's flags,
  // for the library's messages (message_of): the family's own table and those of shared options.
  std::vector<OptionFlags> option_flags;
  // --pooled and --adapt-from (latent-variable models: adaptation.hpp).
  bool latent = false;
  // The family's options that shape the fit of the pooled model (--states, --components, ...): with
  // --adapt-from or --fisher-from the pool file's model has decided them, so giving one is an error.
  std::vector<const char*> decided_by_pool = {};
};

// The statistics of every example of `data`; an example that has none is an InputError naming it.
std::vector<Statistics> example_statistics(const Estimator& estimator, const Dataset& data, long dim);
// A number of states or components chosen on the training file by held-out likelihood
// (adaptation.hpp): the value and how, "the held-out log-likelihood of HELD_OUT (SYMBOL = 1: ..., ...)".
Choice held_out_size(const SizeChoice& choice, const std::string& held_out, const char* symbol);

// --dim (1 <= D <= kMaxRowDenseValues: the D dense values of a row), or nothing when it is absent.
std::optional<long> dim_option(const po::variables_map& values);

// Every family of `ppk fit`, in the order of its help (families.cpp).
const std::vector<FitFamily>& fit_families();

// INPUT's LIBSVM rows (its format checked by the caller), read when asked for; the dimension from
// the request's --dim or the data.
FitInput parse_libsvm_input(const FitSource& source, const FitRequest& request);
// The formats of read_libsvm_input and read_sequence_input.
inline constexpr FitFormats kLibsvmRows{true, true, false, false};
inline constexpr FitFormats kSequenceRows{false, true, false, false};
// LIBSVM rows, one example per line or per qid group, whatever the family's options.
template <class Options>
FitInput read_libsvm_input(const FitSource& source, const FitRequest& request, const Options&) {
  check_fit_format(source, kLibsvmRows, request.command);
  return parse_libsvm_input(source, request);
}
// qid-grouped LIBSVM rows, one sequence per group, whatever the family's options.
template <class Options>
FitInput read_sequence_input(const FitSource& source, const FitRequest& request, const Options&) {
  check_fit_format(source, kSequenceRows, request.command);
  return parse_libsvm_input(source, request);
}

// --alphabet, --alphabet-from and --save-alphabet of the families that read symbol sequences (hmm, markov).
void add_alphabet_options(po::options_description& options);
// Those options as given.
struct AlphabetOptions {
  std::optional<std::string> symbols;  // --alphabet SYMBOLS
  std::optional<std::string> from;     // --alphabet-from FILE
  std::optional<std::string> save;     // --save-alphabet FILE
};
// UsageError when both --alphabet and --alphabet-from are given.
AlphabetOptions parse_alphabet_options(const po::variables_map& values);
// The alphabet given by --alphabet or --alphabet-from (nothing: INPUT's sorted symbols).
std::optional<Alphabet> alphabet_option(const AlphabetOptions& options);
// The symbol sequences of INPUT in `format` as examples of one-hot vectors (one index:1 entry per
// symbol, the dimension the alphabet's size), numbered by `alphabet` (nothing: INPUT's sorted
// symbols); --save-alphabet's file (of `options`) as a side output.
FitInput read_symbol_input(const FitSource& source, const AlphabetOptions& options, SequenceFormat format,
                           const std::optional<Alphabet>& alphabet);

// The value of the number option --NAME.
double option(const po::variables_map& values, const char* name);
// A number option that may be `auto` (nothing); `fallback` when absent.
std::optional<double> number_or_auto(const po::variables_map& values, const char* name, const char* fallback);
// --cov iso|diag|full.
CovarianceForm covariance_form(const std::string& form);

// Every example's model row. Each example is fitted on its own (estimators are const and seed from
// the example's data), so the examples run in parallel and the rows do not depend on the number of
// threads. `pooled` (null: none) and `lambda` are --shrink's pool and weight.
std::vector<Row> fit_rows(const Estimator& estimator, const Dataset& data, long dim, const Statistics* pooled,
                          double lambda, unsigned threads);
// fit_rows (`pooled` and `lambda` as there) over the LIBSVM rows of `source` a chunk of examples at a time, each row's
// line written to `out` in input order: memory is one chunk of examples and their rows, whatever the number of examples.
// The rows are those of fit_rows on the whole file.
void fit_streamed_rows(const Estimator& estimator, const FitSource& source, long dim, const Statistics* pooled,
                       double lambda, unsigned threads, std::ostream& out);

// --iterations (default `iterations`), --tolerance, --restarts and --seed of the EM fits.
void add_em_options(po::options_description& options, long iterations, const char* iterations_help);
// The library's fields of the EM options, named by the flags of add_em_options.
inline const OptionFlags kEmOptionFlags{
    {"iterations", "--iterations"}, {"tolerance", "--tolerance"}, {"restarts", "--restarts"}};
// The options of add_em_options into an estimator's options.
template <class FitOptions>
void read_em_options(const po::variables_map& values, FitOptions& options) {
  options.iterations = values["iterations"].as<long>();
  options.tolerance = option(values, "tolerance");
  options.restarts = values["restarts"].as<long>();
  options.seed = values["seed"].as<std::uint64_t>();
}

}  // namespace ppk::cli
