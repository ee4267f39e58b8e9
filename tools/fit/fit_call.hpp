// `ppk fit FAMILY` for a program that holds its examples (the Python package): no command line, no
// files. The same options, defaults, checks, choices and rows as the command line's, the notes to a
// sink of the caller's, and the pool of --save-pooled / --pooled-from passed as its JSON text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fit_request.hpp"
#include "ppk/core/data.hpp"

namespace ppk::cli {

struct FitCall {
  std::string family;                  // FAMILY of `ppk fit` (not mi)
  std::vector<OptionKeyword> options;  // its options, but --output (--save-pooled and --pooled-from: files)
  // The pool a fit of training examples kept (its JSON, as --save-pooled writes it): these examples
  // are fitted as they were (--pooled-from); nothing: a fit of its own.
  std::optional<std::string> pool;
  std::string pool_name = "the pool";  // what messages call `pool`
  bool keep_pool = false;              // keep the pool this fit decides (--save-pooled)
  NoteSink notes = notes_to_stderr;
};

struct FittedRows {
  std::vector<LabeledRow> rows;     // one per example (one for --pooled), as `ppk fit` writes them
  std::optional<std::string> pool;  // with keep_pool: the pool's JSON, as --save-pooled writes it (mi: the mediator)
};

// The fit `call` asks for on `source` (example_fit_source: the examples in memory). Throws what
// run_fit throws: UsageError for the options, InputError for the examples (named by their lines).
FittedRows fit_in_memory(const FitCall& call, const FitSource& source);

// UsageError when `options` holds --output: a fit in memory returns its rows (fit_in_memory and
// fit_mi_in_memory check it before anything else).
void refuse_output_option(const std::vector<OptionKeyword>& options);

// `ppk fit mi LIKELIHOOD` for a program that holds its data.
struct MiCall {
  std::string likelihood;              // LIKELIHOOD: gaussian, multinomial or mixture
  std::vector<OptionKeyword> options;  // its options, but --output (--unlabeled, --save-mediator, --mediator-from: files)
  std::optional<FitSource> unlabeled;  // the data the mediator is fitted to, in memory (in place of --unlabeled)
  // The mediator a fit of training data kept (its JSON, as --save-mediator writes it): these data's
  // rows by it (as --mediator-from); nothing: a mediator fitted here.
  std::optional<std::string> mediator;
  bool keep_mediator = false;  // return this fit's mediator (FittedRows::pool)
};

// The rows `call` asks for on `source`; FittedRows::pool is the mediator's JSON with keep_mediator.
// Throws what run_fit_mi throws.
FittedRows fit_mi_in_memory(const MiCall& call, const FitSource& source);

}  // namespace ppk::cli
