#include "kernel_cross_validation.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "cli.hpp"
#include "parallel.hpp"
#include "ppk/core/data.hpp"

namespace ppk::cli {

namespace {

// The solver reaches the matrix through a kernel type of LIBSVM's registry (svm.h, "Kernel plugins"),
// registered once per process under a number and name no plugin uses: example i of a problem is the
// row {1: matrix, 2: i} (the matrix by its number in the table below), decoded to its entry in
// the matrix's table of rows, and the kernel value between two rows is the matrix entry. The values
// reach the solver as svm-train -t 4's precomputed rows bring them (Kernel::kernel_precomputed), so
// the models and predictions are those of svm-train -t 4 on `ppk gram --format precomputed`.
constexpr int kInMemoryKernelNumber = 1000;
constexpr const char* kInMemoryKernelName = "ppk_in_memory_matrix";

struct MatrixRow {
  const GramMatrix* matrix;
  Eigen::Index index;
};

// The matrices being cross-validated, by number, with a handle per row.
class MatrixTable {
 public:
  int add(const GramMatrix& matrix) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const int number = next_++;
    std::vector<MatrixRow>& rows = rows_[number];
    for (Eigen::Index i = 0; i < matrix.rows(); ++i) rows.push_back({&matrix, i});
    return number;
  }
  void remove(int number) {
    const std::lock_guard<std::mutex> lock(mutex_);
    rows_.erase(number);
  }
  const MatrixRow* find(double number, double index) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = rows_.find(static_cast<int>(number));
    if (found == rows_.end() || !(index >= 0) || index >= static_cast<double>(found->second.size())) return nullptr;
    return &found->second[static_cast<std::size_t>(index)];
  }

 private:
  std::mutex mutex_;
  int next_ = 1;
  std::map<int, std::vector<MatrixRow>> rows_;
};

MatrixTable& matrix_table() {
  static MatrixTable& table = *new MatrixTable;  // never destroyed: LIBSVM's registry keeps the type
  return table;
}

void* decode_matrix_row(void*, const svm_node* x, const svm_parameter*, char* err, size_t err_size) {
  const MatrixRow* row = nullptr;
  if (x[0].index == 1 && x[1].index == 2 && x[2].index == -1) row = matrix_table().find(x[0].value, x[1].value);
  if (row == nullptr) std::snprintf(err, err_size, "not a row of a kernel matrix held in memory");
  return const_cast<MatrixRow*>(row);
}
int same_matrix(void*, const void* a, const void* b, char* err, size_t err_size) {
  if (static_cast<const MatrixRow*>(a)->matrix == static_cast<const MatrixRow*>(b)->matrix) return 1;
  std::snprintf(err, err_size, "rows of two different kernel matrices");
  return 0;
}
double matrix_entry(void*, const void* a, const void* b) {
  const auto* row_a = static_cast<const MatrixRow*>(a);
  const auto* row_b = static_cast<const MatrixRow*>(b);
  return (*row_a->matrix)(row_a->index, row_b->index);
}
// A part of a kernel column, LIBSVM's batch: entries of one matrix row (contiguous, row-major).
void matrix_entries(void*, const void* a, const void* const* b, int n, double* out) {
  const auto* row_a = static_cast<const MatrixRow*>(a);
  const double* row = row_a->matrix->row(row_a->index).data();
  for (int k = 0; k < n; ++k) out[k] = row[static_cast<const MatrixRow*>(b[k])->index];
}
void keep_row(void*, void*) {}  // the rows belong to the matrix table

int in_memory_kernel_number() {
  static const int number = [] {
    svm_kernel_type type{};
    type.abi_version = LIBSVM_KERNEL_PLUGIN_ABI;
    type.number = kInMemoryKernelNumber;
    type.name = kInMemoryKernelName;
    type.help = "a kernel matrix held in memory by ppk's cross-validation";
    type.decode = &decode_matrix_row;
    type.compatible = &same_matrix;
    type.evaluate = &matrix_entry;
    type.evaluate_many = &matrix_entries;
    type.release = &keep_row;
    if (svm_register_kernel_type(&type) != 0)
      throw std::logic_error("LIBSVM refused the kernel type of ppk's in-memory matrices");
    return kInMemoryKernelNumber;
  }();
  return number;
}

// The matrix registered for the lifetime of this object, and the problem rows {1: matrix, 2: i}.
class MatrixProblem {
 public:
  explicit MatrixProblem(const GramMatrix& matrix)
      : number_(matrix_table().add(matrix)), nodes_(3 * static_cast<std::size_t>(matrix.rows())) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(matrix.rows()); ++i) {
      nodes_[3 * i] = {1, static_cast<double>(number_)};
      nodes_[3 * i + 1] = {2, static_cast<double>(i)};
      nodes_[3 * i + 2] = {-1, 0};
    }
  }
  MatrixProblem(const MatrixProblem&) = delete;
  MatrixProblem& operator=(const MatrixProblem&) = delete;
  ~MatrixProblem() { matrix_table().remove(number_); }
  svm_node* row(int i) { return &nodes_[3 * static_cast<std::size_t>(i)]; }

 private:
  int number_;
  std::vector<svm_node> nodes_;
};

void silent(const char*) {}

// Trains on fold.train at `parameters` and writes the predictions of fold.test into `predictions`.
// With -b 1 a classifier predicts by its probabilities (svm_predict_probability), as
// svm_cross_validation does, unless `by_decision_values` (svm_predict, as svm-predict without -b 1).
void run_fold(MatrixProblem& problem, const std::vector<double>& labels, const Fold& fold,
              const svm_parameter& parameters, bool by_decision_values, std::vector<double>& predictions) {
  std::vector<svm_node*> x;
  std::vector<double> y;
  for (int i : fold.train) {
    x.push_back(problem.row(i));
    y.push_back(labels[static_cast<std::size_t>(i)]);
  }
  svm_problem subproblem{};
  subproblem.l = static_cast<int>(x.size());
  subproblem.x = x.data();
  subproblem.y = y.data();
  svm_model* model = svm_train(&subproblem, &parameters);
  const bool probability =
      parameters.probability && !by_decision_values && (parameters.svm_type == C_SVC || parameters.svm_type == NU_SVC);
  std::vector<double> estimates(probability ? static_cast<std::size_t>(svm_get_nr_class(model)) : 0);
  for (int i : fold.test)
    predictions[static_cast<std::size_t>(i)] = probability
                                                   ? svm_predict_probability(model, problem.row(i), estimates.data())
                                                   : svm_predict(model, problem.row(i));
  svm_free_and_destroy_model(&model);
}

// `parameters` for the in-memory kernel at C = cost, checked by LIBSVM on the whole problem.
svm_parameter matrix_parameters(const svm_parameter& parameters, double cost) {
  svm_parameter result = parameters;
  result.kernel_type = in_memory_kernel_number();
  result.C = cost;
  return result;
}

void check_parameters(MatrixProblem& problem, const std::vector<double>& labels, const svm_parameter& parameters) {
  std::vector<svm_node*> x;
  for (std::size_t i = 0; i < labels.size(); ++i) x.push_back(problem.row(static_cast<int>(i)));
  svm_problem whole{};
  whole.l = static_cast<int>(labels.size());
  whole.x = x.data();
  whole.y = const_cast<double*>(labels.data());
  if (const char* error = svm_check_parameter(&whole, &parameters)) throw InputError(std::string("LIBSVM: ") + error);
}

}  // namespace

std::recursive_mutex& libsvm_rand_mutex() {
  static std::recursive_mutex& mutex = *new std::recursive_mutex;  // never destroyed: used until exit
  return mutex;
}

std::vector<Fold> libsvm_folds(const std::vector<double>& labels, int svm_type, int k) {
  const int n = static_cast<int>(labels.size());
  if (k > n) k = n;
  std::vector<int> order(static_cast<std::size_t>(n));
  std::vector<int> starts(static_cast<std::size_t>(k) + 1);
  const std::lock_guard<std::recursive_mutex> lock(libsvm_rand_mutex());
  std::srand(1);
  const auto draw_below = [](int bound) { return std::rand() % bound; };
  if ((svm_type == C_SVC || svm_type == NU_SVC) && k < n) {
    // svm_group_classes: the classes in order of first occurrence (-1 before +1 swapped), and the
    // examples grouped by class, each group in input order.
    std::vector<int> class_labels, counts, class_of(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int label = static_cast<int>(labels[static_cast<std::size_t>(i)]);
      const auto found = std::find(class_labels.begin(), class_labels.end(), label);
      class_of[static_cast<std::size_t>(i)] = static_cast<int>(found - class_labels.begin());
      if (found == class_labels.end()) {
        class_labels.push_back(label);
        counts.push_back(1);
      } else {
        ++counts[static_cast<std::size_t>(found - class_labels.begin())];
      }
    }
    if (class_labels.size() == 2 && class_labels[0] == -1 && class_labels[1] == 1) {
      std::swap(counts[0], counts[1]);
      for (int& c : class_of) c = 1 - c;
    }
    const std::size_t classes = counts.size();
    std::vector<int> class_start(classes, 0);
    for (std::size_t c = 1; c < classes; ++c) class_start[c] = class_start[c - 1] + counts[c - 1];
    std::vector<int> grouped(static_cast<std::size_t>(n));
    std::vector<int> next = class_start;
    for (int i = 0; i < n; ++i) grouped[static_cast<std::size_t>(next[static_cast<std::size_t>(class_of[i])]++)] = i;
    // Each class shuffled in place (Fisher-Yates from the front, as LIBSVM draws).
    for (std::size_t c = 0; c < classes; ++c)
      for (int i = 0; i < counts[c]; ++i) {
        const int j = i + draw_below(counts[c] - i);
        std::swap(grouped[static_cast<std::size_t>(class_start[c] + j)],
                  grouped[static_cast<std::size_t>(class_start[c] + i)]);
      }
    // Fold f takes the part [f count / k, (f + 1) count / k) of every class, classes in order.
    std::vector<int> fold_count(static_cast<std::size_t>(k), 0);
    for (int f = 0; f < k; ++f)
      for (std::size_t c = 0; c < classes; ++c)
        fold_count[static_cast<std::size_t>(f)] += (f + 1) * counts[c] / k - f * counts[c] / k;
    for (int f = 1; f <= k; ++f)
      starts[static_cast<std::size_t>(f)] =
          starts[static_cast<std::size_t>(f - 1)] + fold_count[static_cast<std::size_t>(f - 1)];
    std::vector<int> filled(starts.begin(), starts.end() - 1);
    for (std::size_t c = 0; c < classes; ++c)
      for (int f = 0; f < k; ++f)
        for (int j = class_start[c] + f * counts[c] / k; j < class_start[c] + (f + 1) * counts[c] / k; ++j)
          order[static_cast<std::size_t>(filled[static_cast<std::size_t>(f)]++)] = grouped[static_cast<std::size_t>(j)];
  } else {
    for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
    for (int i = 0; i < n; ++i)
      std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(i + draw_below(n - i))]);
    for (int f = 0; f <= k; ++f) starts[static_cast<std::size_t>(f)] = f * n / k;
  }
  std::vector<Fold> folds(static_cast<std::size_t>(k));
  for (int f = 0; f < k; ++f) {
    const int begin = starts[static_cast<std::size_t>(f)], end = starts[static_cast<std::size_t>(f) + 1];
    Fold& fold = folds[static_cast<std::size_t>(f)];
    for (int j = 0; j < n; ++j)
      (j >= begin && j < end ? fold.test : fold.train).push_back(order[static_cast<std::size_t>(j)]);
  }
  return folds;
}

bool is_regression(int svm_type) { return svm_type == EPSILON_SVR || svm_type == NU_SVR; }

CrossValidationScore cross_validation_score(const std::vector<double>& predictions, const std::vector<double>& labels,
                                            int svm_type) {
  CrossValidationScore score;
  const std::size_t n = labels.size();
  if (is_regression(svm_type)) {
    // svm-train's do_cross_validation: the sums in input order.
    double total_error = 0, sumv = 0, sumy = 0, sumvv = 0, sumyy = 0, sumvy = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double y = labels[i], v = predictions[i];
      total_error += (v - y) * (v - y);
      sumv += v;
      sumy += y;
      sumvv += v * v;
      sumyy += y * y;
      sumvy += v * y;
    }
    const double l = static_cast<double>(n);
    score.mean_squared_error = total_error / l;
    score.squared_correlation =
        ((l * sumvy - sumv * sumy) * (l * sumvy - sumv * sumy)) / ((l * sumvv - sumv * sumv) * (l * sumyy - sumy * sumy));
  } else {
    int correct = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (predictions[i] == labels[i]) ++correct;
    score.accuracy = 100.0 * correct / static_cast<double>(n);
  }
  return score;
}

std::vector<std::vector<double>> cross_validated_predictions(const GramMatrix& kernel, const std::vector<double>& labels,
                                                             const std::vector<Fold>& folds,
                                                             const svm_parameter& parameters,
                                                             const std::vector<double>& costs, unsigned threads,
                                                             std::optional<unsigned> fold_seed) {
  svm_set_print_string_function(&silent);
  MatrixProblem problem(kernel);
  std::vector<std::vector<double>> predictions(
      costs.size(), std::vector<double>(labels.size(), std::numeric_limits<double>::quiet_NaN()));
  if (costs.empty()) return predictions;
  check_parameters(problem, labels, matrix_parameters(parameters, costs.front()));
  const auto run_task = [&](std::size_t task) {
    const std::size_t c = task / folds.size();
    if (fold_seed && parameters.probability) std::srand(*fold_seed);
    run_fold(problem, labels, folds[task % folds.size()], matrix_parameters(parameters, costs[c]), fold_seed.has_value(),
             predictions[c]);
  };
  if (!parameters.probability) {
    for_each_index(costs.size() * folds.size(), threads, "cross-validation folds", run_task);
  } else {  // -b 1's training draws from rand(): one fold after another, holding rand() meanwhile
    const std::lock_guard<std::recursive_mutex> lock(libsvm_rand_mutex());
    for (std::size_t task = 0; task < costs.size() * folds.size(); ++task) run_task(task);
  }
  return predictions;
}

std::vector<std::vector<double>> libsvm_cross_validated_predictions(const GramMatrix& kernel,
                                                                    const std::vector<double>& labels, int k,
                                                                    const svm_parameter& parameters,
                                                                    const std::vector<double>& costs, unsigned threads) {
  if (!parameters.probability)
    return cross_validated_predictions(kernel, labels, libsvm_folds(labels, parameters.svm_type, k), parameters, costs,
                                       threads);
  const std::lock_guard<std::recursive_mutex> lock(libsvm_rand_mutex());
  std::vector<std::vector<double>> predictions;
  for (double cost : costs) {
    const std::vector<Fold> folds = libsvm_folds(labels, parameters.svm_type, k);  // srand(1), as each svm-train
    predictions.push_back(cross_validated_predictions(kernel, labels, folds, parameters, {cost}, 1).front());
  }
  return predictions;
}

std::string training_labels_problem(const std::vector<double>& labels, int svm_type, const std::string& name) {
  if (labels.empty()) return name + ": no training examples (the file holds no rows)";
  if (svm_type != C_SVC && svm_type != NU_SVC) return "";
  const int first = static_cast<int>(labels.front());
  for (double label : labels)
    if (static_cast<int>(label) != first) return "";
  return name + ": every example has the label " + std::to_string(first) +
         ": a classifier (-s 0, 1) needs at least two classes to tell apart (for novelty detection on "
         "one class, the one-class SVM is -s 2)";
}

}  // namespace ppk::cli
