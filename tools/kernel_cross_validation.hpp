// Cross-validation of LIBSVM on a kernel matrix computed once: the engine behind `ppk select`,
// --alpha auto and Python's PPKSVCCV. Every fold and every C of a grid is solved by LIBSVM's own
// solver (svm_train, svm_predict, in process) on one matrix held in memory, so that no kernel value is
// computed twice; with LIBSVM's own fold assignment every score equals what `svm-train -v K` prints
// for the same options, on the rows or on the matrix written by `ppk gram --format precomputed`
// (svm-train -t 4: the same kernel values reach the same solver).
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gram_matrix.hpp"
#include "svm.h"

namespace ppk::cli {

// The C library's rand(), which LIBSVM draws its cross-validation folds and -b 1's inner folds from,
// is one sequence per process: whoever seeds it and draws from it holds this lock meanwhile.
std::recursive_mutex& libsvm_rand_mutex();

// One fold: the examples trained on, in the order LIBSVM's solver sees them, and those predicted.
struct Fold {
  std::vector<int> train;
  std::vector<int> test;
};

// The folds of svm_cross_validation(problem, parameters, k) in LIBSVM 3.24, drawn with rand() from
// srand(1), glibc's seed when a program never seeds it (svm-train does not): for C-SVC and nu-SVC with
// k < n, each class shuffled and dealt to the folds in turn (stratified); otherwise one shuffle of all
// examples cut into k consecutive parts. k > n is leave-one-out, k = n, as LIBSVM takes it (the
// caller warns). The training examples of fold f are the shuffled order less fold f, in that order, as
// LIBSVM builds its subproblem. Classes are the labels cast to int, in order of first occurrence, with
// LIBSVM's exception: two classes -1 then +1 are taken as +1 then -1.
std::vector<Fold> libsvm_folds(const std::vector<double>& labels, int svm_type, int k);

// LIBSVM's reported scores of held-out predictions: svm-train -v prints the accuracy (percent) for
// classification and one-class SVMs, the mean squared error and the squared correlation coefficient
// for regression (-s 3, 4).
struct CrossValidationScore {
  double accuracy = 0;             // percent of predictions equal to their label
  double mean_squared_error = 0;   // regression only
  double squared_correlation = 0;  // regression only
};
CrossValidationScore cross_validation_score(const std::vector<double>& predictions, const std::vector<double>& labels,
                                            int svm_type);
// True for the regression types (epsilon-SVR, nu-SVR), which report the mean squared error.
bool is_regression(int svm_type);

// predictions[c][i]: the held-out prediction of example i by the fold that tests it, trained at
// C = costs[c] with `parameters` otherwise (kernel_type, gamma and degree are ignored: the kernel is
// `kernel`): svm_train on the fold's training examples in their order, then svm_predict (or
// svm_predict_probability with -b 1 for classification, as svm_cross_validation does). The fold x C
// tasks run on `threads` threads; with -b 1, whose training draws from rand(), the folds run one
// after another on one thread, holding libsvm_rand_mutex(). `fold_seed`: each fold is a classifier
// of its own, as Python's PPKSVC fitted on the fold alone (random_state = the seed): srand(seed)
// before its training, and svm_predict (its decision values' votes) also with -b 1; none:
// svm_cross_validation's way, rand() going on from fold to fold and -b 1 predicting by the
// probabilities. Examples in no test fold keep NaN. InputError with LIBSVM's message when
// svm_check_parameter refuses the parameters.
std::vector<std::vector<double>> cross_validated_predictions(const GramMatrix& kernel, const std::vector<double>& labels,
                                                             const std::vector<Fold>& folds,
                                                             const svm_parameter& parameters,
                                                             const std::vector<double>& costs, unsigned threads,
                                                             std::optional<unsigned> fold_seed = std::nullopt);

// The same for LIBSVM's folds, libsvm_folds(labels, parameters.svm_type, k); with -b 1 they are drawn
// again for each C (srand(1)) and its folds trained after them, as each svm-train -v k -c C run does, so
// that every number is svm-train -v k's.
std::vector<std::vector<double>> libsvm_cross_validated_predictions(const GramMatrix& kernel,
                                                                    const std::vector<double>& labels, int k,
                                                                    const svm_parameter& parameters,
                                                                    const std::vector<double>& costs, unsigned threads);

// Why `labels` cannot be cross-validated with svm_type, or "" if they can: no examples, or a
// classifier (-s 0, 1) over one class. `name` names the file in the message.
std::string training_labels_problem(const std::vector<double>& labels, int svm_type, const std::string& name);

}  // namespace ppk::cli
