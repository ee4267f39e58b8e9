// What a fit decides on its training file and reuses, unchanged, for test files: the pooled
// statistics (--shrink, COLT 2003) and hyperparameters chosen by the data (e.g. --alpha evidence).
// --save-pooled writes them to a pool file when fitting the training file; --pooled-from reads
// them back when fitting a test file, so that nothing is re-estimated on test data.
#pragma once

#include <functional>
#include <istream>
#include <map>
#include <optional>
#include <string>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "fit_request.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk::cli {

// A pool file (JSON): {"source": training file, "family": fit family, "dim": D,
//                      "chosen": {NAME: {"value": v, "chosen_by": how}, ...},
//                      "statistics": the pooled statistics (families that pool them),
//                      "base": the base measure (multinomial --base pooled; docs/base-measure.md),
//                      "smoothing": how multinomial and bernoulli rows were smoothed (below)}.
struct PoolFile {
  std::string path;    // where it was read from (for messages)
  std::string source;  // the training file it was written from
  std::string family;  // the `ppk fit` family
  long dim = 0;
  nlohmann::json chosen = nlohmann::json::object();
  // Matrices chosen on the training file (e.g. the centre of gaussian --prior pooled), saved as
  // "matrices": {NAME: [[row], ...]}.
  std::map<std::string, Eigen::MatrixXd> matrices;
  std::optional<Statistics> statistics;
  nlohmann::json base;  // null when the training file was fitted without a pooled base
  // Multinomial and bernoulli rows: {"estimator": "ml" | "posterior" | "map", "alpha": its value
  // (not for ml), "alpha_option": the --alpha given ("auto", "evidence", "1/D" or the number),
  // "chosen_by": how, and for --alpha auto "cross_validation": {"smoothing", "candidate", "C",
  // "accuracy", "kernel", "gamma", "folds", "table"} (smoothing_cv.hpp)}; null for other families.
  nlohmann::json smoothing;
  // The pooled model of `ppk fit FAMILY --pooled` (its JSON object, families.md); null otherwise.
  nlohmann::json model;
  // Beside a pooled model: the diagonal of the training examples' empirical Fisher information,
  // {"names": [..], "information": [..]} (fisher_features.hpp); null otherwise.
  nlohmann::json fisher;
};
// Reads and checks a pool file; InputError naming the file and what is wrong.
PoolFile read_pool_file(const std::string& path);
// A pool file's JSON `text`, checked as read_pool_file checks it; `name` names it in messages.
PoolFile parse_pool(std::istream& text, const std::string& name);
// The pool of a test file's fit (--pooled-from): the one a program holds (FitRequest::pool_given),
// else the file's.
PoolFile given_pool(const FitRequest& request);
// The pool as its file holds it: one line of JSON, without its end of line.
std::string pool_text(const PoolFile& pool);
void write_pool_file(const std::string& path, const PoolFile& pool);

// A hyperparameter chosen by the data: its value and how ("maximum evidence").
struct Choice {
  double value;
  std::string how;
};

// The hyperparameters of one fit command that are chosen on the training file.
class TrainingChoices {
 public:
  // The request's command ("ppk fit multinomial") and `input` (INPUT's name) name them in messages and
  // in the request's notes; `from` is the pool file given by --pooled-from (null when fitting a
  // training file). `request` must outlive this.
  TrainingChoices(const FitRequest& request, std::string input, const PoolFile* from);

  // The value called `name` (an option's name, e.g. "alpha"): the one saved in the --pooled-from
  // file, else choose() on INPUT. Either way a note of the request's and recorded for --save-pooled.
  // UsageError naming both files when the --pooled-from file holds no such value.
  double value(const std::string& name, const std::function<Choice()>& choose);
  // A value the user gave (--alpha 0.1): recorded for --save-pooled; UsageError naming both files
  // when the --pooled-from file holds a different one (the test file would be fitted unlike the
  // training file).
  double given(const std::string& name, double value);

  // Whether the --pooled-from file holds a value called `name`.
  bool saved(const std::string& name) const { return from_ != nullptr && from_->chosen.contains(name); }

  // {NAME: {"value": v, "chosen_by": how}, ...}, for the pool file.
  const nlohmann::json& chosen() const { return chosen_; }
  // The --pooled-from file (null when fitting a training file).
  const PoolFile* pool_from() const { return from_; }
  // The base measure decided on INPUT or read from the --pooled-from file, for the pool file.
  void set_base(nlohmann::json base) { base_ = std::move(base); }
  const nlohmann::json& base() const { return base_; }
  // The smoothing of multinomial or bernoulli rows decided on INPUT (PoolFile::smoothing), for the
  // pool file.
  void set_smoothing(nlohmann::json record) { smoothing_ = std::move(record); }
  const nlohmann::json& smoothing() const { return smoothing_; }

  // The matrix called `name` computed on the training file by compute(), or the one saved in the
  // --pooled-from file (UsageError naming both files when it holds none); recorded for --save-pooled.
  Eigen::MatrixXd matrix(const std::string& name, const std::function<Eigen::MatrixXd()>& compute);
  const std::map<std::string, Eigen::MatrixXd>& matrices() const { return matrices_; }

 private:
  const FitRequest& request_;
  std::string input_;
  const PoolFile* from_;
  nlohmann::json chosen_ = nlohmann::json::object();
  nlohmann::json base_;
  nlohmann::json smoothing_;
  std::map<std::string, Eigen::MatrixXd> matrices_;
};

}  // namespace ppk::cli
