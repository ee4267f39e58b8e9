// What `ppk fit FAMILY` is asked to do, apart from the family's own options: which fit (per example,
// one pooled model, adaptation of one, Fisher scores under one), the pool files, the estimator, the
// dimension and the threads. Plain C++ (no command-line types), so that a caller other than the
// command line (the Python bindings) can build one; parse_fit_request (fit_family.hpp) makes it from
// the command line, once, and checks it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk::cli {

struct PoolFile;

// Where a fit's notes go, one line at a time (without its end of line): what it chose on the data
// ("ppk fit multinomial: alpha = 0.5, chosen by maximum evidence on train.txt") and what it skipped.
// The command line writes them to standard error (notes_to_stderr); the Python package passes them
// to its logging and warnings.
using NoteSink = std::function<void(const std::string& line)>;
void notes_to_stderr(const std::string& line);

// The rows a fit writes: one per example fitted on its own (shrunk toward a pool with --shrink), the
// one model of all the examples (--pooled), every example adapted from a pooled model (--adapt-from)
// or every example's Fisher score under one (--fisher-from).
enum class FitMode { per_example, pooled, adapt, fisher };

struct FitRequest {
  FitMode mode = FitMode::per_example;
  std::string command;                     // "ppk fit FAMILY", for messages
  std::optional<Method> method;            // --estimator; nothing: the family's default
  double shrink = 0.0;                     // --shrink lambda > 0; 0: no shrinkage
  std::optional<std::string> save_pooled;  // --save-pooled POOL: what the fit decides on INPUT
  std::optional<std::string> pooled_from;  // --pooled-from POOL: a test file fitted as its training file
  // The pool itself, when a program holds it (PoolFile::path names it): nothing reads pooled_from then.
  std::shared_ptr<const PoolFile> pool_given;
  std::optional<std::string> pooled_model;  // the POOL of --adapt-from or --fisher-from
  std::optional<long> dim;                  // --dim D; nothing: INPUT's largest index
  unsigned threads = 1;                     // examples fitted at a time
  // --adapt-from: the adaptation's options (--relevance, --adapt, and the family's --iterations,
  // --tolerance and --ridge when it has them); --fisher-from: `adaptation.adapt`, the scores' parameters.
  AdaptationOptions adaptation;
  NoteSink notes = notes_to_stderr;

  // Each line of `text` to `notes`.
  void note(const std::string& text) const;

  // Whether INPUT is fitted by one pooled model (--pooled) or by adapting one (--adapt-from): then the
  // per-example fit's covariance prior is not chosen (the adaptation's prior is centred on the pooled model).
  bool pooled_or_adapted() const { return mode == FitMode::pooled || mode == FitMode::adapt; }
  // Whether the fit's model comes from a pool file (--adapt-from, --fisher-from).
  bool from_pool() const { return mode == FitMode::adapt || mode == FitMode::fisher; }
};

}  // namespace ppk::cli
