// Fisher-kernel features (fisher.hpp) on the command line: `ppk fit hmm|mixture|bayesnet|lds --pooled
// --save-pooled POOL` keeps the diagonal of the training examples' empirical Fisher information
// beside the pooled model, and `--fisher-from POOL` writes every example's scaled Fisher score as
// a LIBSVM feature row, for `svm-train -t 0` and LIBLINEAR.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppk/core/data.hpp"
#include "ppk/core/model.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk::cli {

// {"names": [every feature of every parameter], "information": [I_jj]} from the training examples'
// statistics (as `estimator`, the family's, makes them), or null when the pooled model has no Fisher
// scores (a network with emission leaves).
nlohmann::json fisher_information(const Estimator& estimator, const Model& pooled,
                                  const std::vector<Statistics>& training, unsigned threads);

// InputError naming `path` unless `record` is such an object (names unique strings, information
// finite and >= 0, the two of one length).
void check_fisher_information(const nlohmann::json& record, const std::string& path);

// The feature rows "1:phi_1 2:phi_2 ..." of every example (its zeros left out): the score with
// respect to the `parameters` (their features, by name, scaled by the saved diagonal). `pool_path`
// names the pool file in messages.
std::vector<Row> fisher_feature_rows(const Estimator& estimator, const Model& pooled, const nlohmann::json& information,
                                     const AdaptedParameters& parameters, const Dataset& data,
                                     const std::vector<Statistics>& examples, const std::string& pool_path,
                                     unsigned threads);

}  // namespace ppk::cli
