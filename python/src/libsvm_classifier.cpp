// ppk._ppk.SvmClassifier: LIBSVM's C-SVC with the kernel types ppk and ppk_norm, trained and used in
// process on ppk.Models: what `svm-train -s 0 -t KERNEL -g RHO -d T -c C [-wN W] [-b 1]` does on the
// rows Models.to_rows() writes, and `svm-predict` with its model, without files. The module links its
// own copy of the patched LIBSVM (svm_embedded, symbols hidden) and registers the plugin's kernel types
// with it at import (src/libsvm/plugin.cpp). ppk.sklearn.PPKSVC is built on this class.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "kernel_cross_validation.hpp"
#include "libsvm_problem.hpp"
#include "ppk/core/data.hpp"
#include "svm.h"

extern "C" int svm_kernel_plugin_init(int (*register_type)(const svm_kernel_type*));  // src/libsvm/plugin.cpp
namespace ppk::libsvm {
void throw_pair_errors();                                  // src/libsvm/plugin.cpp
void set_warning_sink(void (*sink)(const char* message));  // src/libsvm/plugin.cpp
}  // namespace ppk::libsvm

namespace ppk::python {
namespace {

void silent(const char*) {}

// The plugin's warnings (a degenerate kernel matrix, an inexact family's kernel) since the last
// take_kernel_warnings(): kept here, from any thread and without the GIL, for ppk.sklearn to pass to
// Python's warnings after each call into LIBSVM.
std::mutex kernel_warnings_mutex;
std::vector<std::string> kernel_warnings;

void keep_kernel_warning(const char* message) {
  const std::lock_guard<std::mutex> lock(kernel_warnings_mutex);
  kernel_warnings.emplace_back(message);
}

std::vector<std::string> take_kernel_warnings() {
  const std::lock_guard<std::mutex> lock(kernel_warnings_mutex);
  return std::exchange(kernel_warnings, {});
}

// The plugin's threads for one call: n_jobs threads (None or -1: OpenMP's setting, OMP_NUM_THREADS,
// else every hardware thread), set for the calling thread and restored afterwards.
class EvaluationThreads {
 public:
  explicit EvaluationThreads(std::optional<int> n_jobs) {
#ifdef _OPENMP
    previous_ = omp_get_max_threads();
    if (n_jobs && *n_jobs > 0) omp_set_num_threads(*n_jobs);
#else
    (void)n_jobs;
#endif
  }
  ~EvaluationThreads() {
#ifdef _OPENMP
    omp_set_num_threads(previous_);
#endif
  }
  EvaluationThreads(const EvaluationThreads&) = delete;
  EvaluationThreads& operator=(const EvaluationThreads&) = delete;

 private:
  int previous_ = 1;
};

// svm_check_parameter's message about LIBSVM's rows ("row 3: ...", "rows 1 and 4: ...", counted
// from 1) about the examples of X ("X[2]: ...", "X[0] and X[3]: ...").
std::string python_rows(const std::string& message) {
  std::smatch match;
  if (std::regex_match(message, match, std::regex(R"(row (\d+): ([\s\S]*))")))
    return "X[" + std::to_string(std::stol(match[1]) - 1) + "]: " + match[2].str();
  if (std::regex_match(message, match, std::regex(R"(rows (\d+) and (\d+): ([\s\S]*))")))
    return "X[" + std::to_string(std::stol(match[1]) - 1) + "] and X[" + std::to_string(std::stol(match[2]) - 1) +
           "]: " + match[3].str();
  return message;
}

// An anonymous file in memory (memfd_create), named /proc/self/fd/N for LIBSVM's svm_save_model and
// svm_load_model, which take file names: a model's text without a file on disk.
class MemoryFile {
 public:
  MemoryFile() : fd_(memfd_create("ppk-libsvm-model", MFD_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error(std::string("cannot create a file in memory: ") + std::strerror(errno));
  }
  ~MemoryFile() { close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }
  std::string contents() const {
    struct stat status {};
    if (fstat(fd_, &status) != 0) throw std::runtime_error(std::string("fstat: ") + std::strerror(errno));
    std::string text(static_cast<std::size_t>(status.st_size), '\0');
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t got = pread(fd_, text.data() + done, text.size() - done, static_cast<off_t>(done));
      if (got <= 0) throw std::runtime_error(std::string("reading a file in memory: ") + std::strerror(errno));
      done += static_cast<std::size_t>(got);
    }
    return text;
  }
  void write_all(const std::string& text) {
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t put = pwrite(fd_, text.data() + done, text.size() - done, static_cast<off_t>(done));
      if (put <= 0) throw std::runtime_error(std::string("writing a file in memory: ") + std::strerror(errno));
      done += static_cast<std::size_t>(put);
    }
  }

 private:
  int fd_;
};

class SvmClassifier {
 public:
  // svm_train on the rows of `models` with `labels` (LIBSVM's labels: whole numbers); ValueError
  // with LIBSVM's or the plugin's message when it refuses the parameters or a row.
  SvmClassifier(const ModelRows& models, const std::vector<double>& labels, const TrainOptions& options,
                std::optional<int> n_jobs) {
    if (labels.size() != models.rows.size())
      throw py::value_error("y has " + std::to_string(labels.size()) + " labels for " +
                            std::to_string(models.rows.size()) + " models");
    std::vector<const Row*> rows;
    for (const LabeledRow& row : models.rows) rows.push_back(&row.row);
    const cli::LibsvmProblem problem(rows, labels);
    const int kernel = svm_kernel_type_from_string(options.kernel.c_str());
    if (svm_find_kernel_type(kernel) == nullptr)
      throw py::value_error("kernel must be 'ppk' or 'ppk_norm', got '" + options.kernel + "'");
    const svm_parameter parameters = svm_train_parameters(options, kernel);

    py::gil_scoped_release release;
    const EvaluationThreads threads(n_jobs);
    if (const char* error = svm_check_parameter(&problem.get(), &parameters)) throw InputError(python_rows(error));
    // rand() is LIBSVM's source of -b 1's folds: one training at a time sets and uses it.
    const std::lock_guard<std::recursive_mutex> lock(cli::libsvm_rand_mutex());
    std::srand(options.seed);
    model_.reset(svm_train(&problem.get(), &parameters));
    model_->param.weight_label = nullptr;  // svm_train's model keeps pointers to these: not needed
    model_->param.weight = nullptr;        // after training (svm_save_model does not write them)
    model_->param.nr_weight = 0;
    keep_support_vectors();
  }

  // A model as svm_save_model writes it (`text`), as svm_load_model reads it.
  explicit SvmClassifier(const std::string& text) {
    MemoryFile file;
    file.write_all(text);
    model_.reset(svm_load_model(file.path().c_str()));
    if (!model_) {
      // svm_load_model_error names the memory file ("/proc/self/fd/N:LINE: what"): the line is the text's
      std::string why = svm_load_model_error();
      const std::string file_name = file.path() + ":";
      if (why.compare(0, file_name.size(), file_name) == 0) why.erase(0, file_name.size());
      if (!why.empty() && std::isdigit(static_cast<unsigned char>(why[0]))) why = "line " + why;
      throw InputError("not a LIBSVM model: " + why);
    }
    if (svm_find_kernel_type(model_->param.kernel_type) == nullptr || model_->param.svm_type != C_SVC)
      throw InputError("not a C-SVC model of the kernel type ppk or ppk_norm");
  }

  std::string text() const {
    MemoryFile file;
    if (svm_save_model(file.path().c_str(), model_.get()) != 0) throw std::runtime_error("svm_save_model failed");
    return file.contents();
  }
  void save(const std::string& path) const {
    if (svm_save_model(path.c_str(), model_.get()) != 0)
      throw InputError("cannot write the model to '" + path + "': " + std::strerror(errno));
  }

  int classes() const { return model_->nr_class; }
  std::vector<int> labels() const { return {model_->label, model_->label + model_->nr_class}; }
  std::vector<int> support_counts() const {
    return model_->nSV ? std::vector<int>(model_->nSV, model_->nSV + model_->nr_class) : std::vector<int>{};
  }
  // The training examples that are support vectors (0-based), in the model's order; empty for a
  // loaded model (LIBSVM's model file does not keep them).
  std::vector<int> support() const {
    std::vector<int> indices;
    if (model_->sv_indices)
      for (int i = 0; i < model_->l; ++i) indices.push_back(model_->sv_indices[i] - 1);
    return indices;
  }
  py::array_t<double> dual_coef() const {
    py::array_t<double> coef({model_->nr_class - 1, model_->l});
    auto out = coef.mutable_unchecked<2>();
    for (int c = 0; c + 1 < model_->nr_class; ++c)
      for (int i = 0; i < model_->l; ++i) out(c, i) = model_->sv_coef[c][i];
    return coef;
  }
  std::vector<double> rho() const {
    const int pairs = model_->nr_class * (model_->nr_class - 1) / 2;
    return {model_->rho, model_->rho + pairs};
  }
  bool has_probabilities() const { return svm_check_probability_model(model_.get()) != 0; }
  std::vector<double> kernel_parameters() const { return {model_->param.gamma, double(model_->param.degree)}; }
  std::string kernel() const { return svm_find_kernel_type(model_->param.kernel_type)->name; }

  // svm_predict_values for each model: LIBSVM's one-against-one decision values, pairs (i, j),
  // i < j of labels(), in its order; > 0 votes for labels()[i].
  py::array_t<double> decision_values(const ModelRows& models, std::optional<int> n_jobs) const {
    const int pairs = model_->nr_class * (model_->nr_class - 1) / 2;
    py::array_t<double> values({static_cast<py::ssize_t>(models.rows.size()), static_cast<py::ssize_t>(pairs)});
    double* out = values.mutable_data();
    for_each_model(models, n_jobs, [&](std::size_t i, const svm_node* x) {
      svm_predict_values(model_.get(), x, out + i * static_cast<std::size_t>(pairs));
      return out[i * static_cast<std::size_t>(pairs)];
    });
    return values;
  }
  // svm_predict: the label of the most votes (ties to the first in labels()).
  py::array_t<double> predict(const ModelRows& models, std::optional<int> n_jobs) const {
    py::array_t<double> labels(static_cast<py::ssize_t>(models.rows.size()));
    double* out = labels.mutable_data();
    // svm_predict_values gives NaN decision values when x cannot be predicted (svm_predict a label anyway)
    std::vector<double> decision(static_cast<std::size_t>(model_->nr_class * (model_->nr_class - 1) / 2 + 1));
    for_each_model(models, n_jobs, [&](std::size_t i, const svm_node* x) {
      out[i] = svm_predict_values(model_.get(), x, decision.data());
      return decision.front();
    });
    return labels;
  }
  // svm_predict_probability: the probability of each of labels(), by pairwise coupling of the
  // pairs' sigmoids (svm-predict -b 1).
  py::array_t<double> probabilities(const ModelRows& models, std::optional<int> n_jobs) const {
    if (!has_probabilities()) throw py::value_error("the model was trained without probability estimates");
    const auto k = static_cast<std::size_t>(model_->nr_class);
    py::array_t<double> probabilities({static_cast<py::ssize_t>(models.rows.size()), static_cast<py::ssize_t>(k)});
    double* out = probabilities.mutable_data();
    for_each_model(models, n_jobs, [&](std::size_t i, const svm_node* x) {
      svm_predict_probability(model_.get(), x, out + i * k);
      return out[i * k];
    });
    return probabilities;
  }

 private:
  struct ModelDeleter {
    void operator()(svm_model* model) const { svm_free_and_destroy_model(&model); }
  };

  // svm_train's support vectors point into the training problem: copied here, so that the model
  // outlives it with nothing but its support vectors.
  void keep_support_vectors() {
    std::size_t size = 0;
    for (int i = 0; i < model_->l; ++i) {
      const svm_node* p = model_->SV[i];
      while (p->index != -1) ++p;
      size += static_cast<std::size_t>(p - model_->SV[i]) + 1;
    }
    support_nodes_.reserve(size);
    for (int i = 0; i < model_->l; ++i) {
      const std::size_t start = support_nodes_.size();
      const svm_node* p = model_->SV[i];
      do support_nodes_.push_back(*p);
      while ((p++)->index != -1);
      model_->SV[i] = support_nodes_.data() + start;
    }
  }

  // predict_one(i, x) for every model i of `models` as LIBSVM nodes x, without the GIL; a NaN
  // result means LIBSVM could not predict x (svm_check_example says why): ValueError naming X[i].
  template <class PredictOne>
  void for_each_model(const ModelRows& models, std::optional<int> n_jobs, PredictOne predict_one) const {
    py::gil_scoped_release release;
    const EvaluationThreads threads(n_jobs);
    std::vector<svm_node> x;
    for (std::size_t i = 0; i < models.rows.size(); ++i) {
      x.clear();
      cli::append_svm_nodes(models.rows[i].row, x);
      if (std::isnan(predict_one(i, x.data()))) {
        const char* error = svm_check_example(model_.get(), x.data());
        throw InputError("X[" + std::to_string(i) + "]: " + (error ? error : "LIBSVM gave no decision value"));
      }
    }
  }

  std::unique_ptr<svm_model, ModelDeleter> model_;
  std::vector<svm_node> support_nodes_;  // when trained here: model_->SV points into it
};

}  // namespace

svm_parameter svm_train_parameters(const TrainOptions& options, int kernel_type) {
  if (options.weight_labels.size() != options.weights.size()) throw py::value_error("one weight per weighted label");
  svm_parameter parameters{};
  parameters.svm_type = C_SVC;
  parameters.kernel_type = kernel_type;
  parameters.gamma = options.rho;
  parameters.degree = options.T;
  parameters.C = options.C;
  parameters.eps = options.tol;
  parameters.cache_size = options.cache_size;
  parameters.shrinking = options.shrinking ? 1 : 0;
  parameters.probability = options.probability ? 1 : 0;
  parameters.nu = 0.5;  // svm-train's defaults of the parameters C-SVC does not use
  parameters.p = 0.1;
  parameters.nr_weight = static_cast<int>(options.weights.size());
  parameters.weight_label = const_cast<int*>(options.weight_labels.data());
  parameters.weight = const_cast<double*>(options.weights.data());
  return parameters;
}

void bind_svm(py::module_& module) {
  svm_set_print_string_function(silent);
  // Two rows without a kernel value between them (each passed its checks: two networks too densely
  // connected together) are a ValueError from fit or predict, not the end of the process: the
  // KernelDomainError unwinds through svm.cpp, compiled as C++ here. svm_train's own arrays for that
  // fit (a few per training row) are not freed.
  ppk::libsvm::throw_pair_errors();
  ppk::libsvm::set_warning_sink(keep_kernel_warning);
  module.def("take_kernel_warnings", take_kernel_warnings,
             "The kernel's warnings during training and prediction since the last call (then forgotten)");
  if (svm_kernel_plugin_init(&svm_register_kernel_type) != 0)
    throw std::runtime_error("the kernel types ppk and ppk_norm could not be registered with LIBSVM");

  py::class_<TrainOptions>(module, "SvmTrainOptions")
      .def(py::init<>())
      .def_readwrite("kernel", &TrainOptions::kernel)
      .def_readwrite("rho", &TrainOptions::rho)
      .def_readwrite("T", &TrainOptions::T)
      .def_readwrite("C", &TrainOptions::C)
      .def_readwrite("weight_labels", &TrainOptions::weight_labels)
      .def_readwrite("weights", &TrainOptions::weights)
      .def_readwrite("probability", &TrainOptions::probability)
      .def_readwrite("tol", &TrainOptions::tol)
      .def_readwrite("shrinking", &TrainOptions::shrinking)
      .def_readwrite("cache_size", &TrainOptions::cache_size)
      .def_readwrite("seed", &TrainOptions::seed);

  py::class_<SvmClassifier>(module, "SvmClassifier",
                            "LIBSVM's C-SVC with the kernel ppk or ppk_norm on ppk.Models (svm-train, svm-predict)")
      .def(py::init<const ModelRows&, const std::vector<double>&, const TrainOptions&, std::optional<int>>(),
           py::arg("models"), py::arg("labels"), py::arg("options"), py::arg("n_jobs") = py::none())
      .def_static(
          "from_text", [](const py::bytes& text) { return std::make_unique<SvmClassifier>(std::string(text)); },
          py::arg("text"))
      .def("text", [](const SvmClassifier& svm) { return py::bytes(svm.text()); })
      .def("save", &SvmClassifier::save, py::arg("path"))
      .def_property_readonly("classes", &SvmClassifier::classes)
      .def_property_readonly("labels", &SvmClassifier::labels)
      .def_property_readonly("support_counts", &SvmClassifier::support_counts)
      .def_property_readonly("support", &SvmClassifier::support)
      .def_property_readonly("dual_coef", &SvmClassifier::dual_coef)
      .def_property_readonly("rho", &SvmClassifier::rho)
      .def_property_readonly("has_probabilities", &SvmClassifier::has_probabilities)
      .def_property_readonly("kernel", &SvmClassifier::kernel)
      .def_property_readonly("kernel_parameters", &SvmClassifier::kernel_parameters)
      .def("decision_values", &SvmClassifier::decision_values, py::arg("models"), py::arg("n_jobs") = py::none())
      .def("predict", &SvmClassifier::predict, py::arg("models"), py::arg("n_jobs") = py::none())
      .def("probabilities", &SvmClassifier::probabilities, py::arg("models"), py::arg("n_jobs") = py::none())
      .def(py::pickle([](const SvmClassifier& svm) { return py::bytes(svm.text()); },
                      [](const py::bytes& text) { return std::make_unique<SvmClassifier>(std::string(text)); }));
}

}  // namespace ppk::python
