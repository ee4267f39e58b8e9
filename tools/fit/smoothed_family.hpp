// What ppk fit bernoulli and ppk fit multinomial share: a prior whose strength alpha is given or
// chosen on the training file (--alpha A|1/D|auto|evidence), saved with --save-pooled and reused
// with --pooled-from.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "fit_family.hpp"
#include "smoothing_cv.hpp"
#include "ppk/estimate/evidence.hpp"

namespace ppk::cli {

// --alpha A|1/D|auto|evidence of bernoulli and multinomial rows (`default_text` its default,
// `value_name` its forms), and the options of --alpha auto (`candidates`: --cv-alphas's default).
// The field alpha (the prior's pseudo-count) of the options of add_chosen_alpha_option.
inline const OptionFlags kAlphaFlags{{"alpha", "--alpha"}};
void add_chosen_alpha_option(po::options_description& options, const char* default_text, const char* value_name,
                             const char* candidates, const char* description);

// What bernoulli and multinomial rows share: a prior whose strength is alpha, chosen by --alpha.
struct SmoothedFamily {
  std::string name;                     // the family, as pool files name it
  std::function<PolyaCounts()> counts;  // INPUT's counts under the prior, for the evidence
  double per_alpha;                     // the prior's concentration per unit of alpha (D; 2 for Beta(A, A))
  std::string units;                    // that concentration's name, for messages
  bool one_over_d;                      // whether --alpha 1/D (alpha = 1 / per_alpha) applies
  // The estimator for a smoothing: `method` (ml, map or posterior) and alpha.
  std::function<std::unique_ptr<Estimator>(Method method, double alpha)> make;
};

// --alpha and the options of --alpha auto, as given (add_chosen_alpha_option).
struct AlphaOptions {
  std::string alpha;         // A, 1/D, auto or evidence
  bool alpha_given = false;  // whether --alpha was given (else `alpha` is its default)
  CvOptions cv;              // the candidates and the SVM's settings of --alpha auto
};
// --alpha, and the --cv-* options (read_cv_options); --base pooled, where the family has it, leaves ml
// out of --cv-alphas's default. UsageError for what the command line shows wrong (1/D where
// `one_over_d` is false). The --cv-* options apply to --alpha auto on a training file (without
// --pooled-from): check_cv_options_apply once --alpha is decided (markov's default is decided by its chain).
AlphaOptions read_alpha_options(const po::variables_map& values, bool one_over_d);
// read_alpha_options, --alpha decided by the command line (bernoulli, multinomial): the --cv-* options checked.
AlphaOptions parse_alpha_options(const po::variables_map& values, bool one_over_d);

// The estimator of bernoulli or multinomial rows smoothed by `alpha`: as decided on INPUT
// (training_smoothing), or, for a test file (--pooled-from), as saved for the training file
// (reused_smoothing). Printed when chosen by the data or reused, and recorded for --save-pooled.
std::unique_ptr<Estimator> smoothed_estimator(const FitContext& context, const AlphaOptions& alpha,
                                              const SmoothedFamily& rows);

}  // namespace ppk::cli
