// --alpha auto of `ppk fit multinomial` and `ppk fit bernoulli`: the smoothing of the rows chosen on
// the training file, jointly with the SVM's C, by LIBSVM's k-fold cross-validated accuracy of the
// kernel SVM (kernel ppk or ppk_norm) on the rows each candidate smoothing gives: one kernel matrix
// per candidate, every C on it (kernel_cross_validation.hpp, ppk select's engine). See
// docs/documents-smoothing.md.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "fit_request.hpp"
#include "ppk/core/row.hpp"

namespace ppk::cli {

// How the rows are smoothed: the maximum-likelihood estimate, or the posterior mean under alpha
// pseudo-counts per word (feature).
struct Smoothing {
  std::string candidate;  // as listed in --cv-alphas: "evidence", "1/D", "ml" or a number
  bool ml = false;
  double alpha = 0;  // the posterior's alpha; unused for ml
};

// --cv-alphas, --cv-c, --cv-kernel, --cv-gamma and --cv-folds.
struct CvOptions {
  std::vector<std::string> candidates;  // "evidence", "1/D", "ml" or numbers > 0, in order
  bool candidates_given = false;        // whether --cv-alphas was given (else `candidates` is its default)
  std::vector<double> costs;            // the SVM's C, each > 0
  std::string kernel;                   // ppk or ppk_norm
  double gamma = 0;                     // the kernel's rho (svm-train -g)
  int folds = 0;                        // k >= 2
  const char* first_given = nullptr;    // the first of these options given on the command line (null: none)
};
// `default_candidates` is --cv-alphas's default.
void add_cv_options(po::options_description& options, const char* default_candidates);
// The options' values; UsageError for a malformed one and for the candidate 1/D where the family has
// no such prior (`one_over_d` false).
CvOptions read_cv_options(const po::variables_map& values, bool one_over_d);
// UsageError for any of `options` given when the smoothing is not chosen by cross-validation on INPUT
// (`cross_validated` false: no --alpha auto, or a test file).
void check_cv_options_apply(const CvOptions& options, bool cross_validated);

// What --alpha auto chose on the training file.
struct CvChoice {
  Smoothing smoothing;
  double cost = 0;
  double accuracy = 0;    // percent, as svm-train -v prints it
  std::string how;        // "cross-validated accuracy (...)", for messages and the pool file
  nlohmann::json record;  // the choice, the SVM settings and every candidate's accuracy, for the pool file
};

// The smoothing of `candidates` maximising the cross-validated accuracy, and its C. For each
// candidate in order (evidence and 1/D: the alpha `named_alpha` returns for that name, or skipped
// with the reason it sets when it returns nothing), `fit_rows` gives the rows exactly as ppk fit writes them, with the
// examples' `labels`; their kernel matrix, computed once, and LIBSVM's folds and solver at every C of
// options.costs (C-SVC and svm-train's other defaults) score them: the fraction of examples whose held-out prediction is
// their label, as svm-train -v K -c C -t KERNEL -g GAMMA prints it for the written rows. The first
// of equal best accuracies (candidates in order, then C in order) is chosen. The table of every
// accuracy, the skipped candidates and the choice are the request's notes, each line starting with
// its command but the table's rows; `input` names the training file. UsageError when the labels hold fewer
// than two classes or no candidate is left; InputError when LIBSVM refuses a candidate's rows.
CvChoice choose_smoothing_by_cv(
    const CvOptions& options, const std::vector<double>& labels,
    const std::function<std::optional<double>(const std::string& name, std::string& reason)>& named_alpha,
    const std::function<std::vector<Row>(const Smoothing&)>& fit_rows, const FitRequest& request,
    const std::string& input);

}  // namespace ppk::cli
