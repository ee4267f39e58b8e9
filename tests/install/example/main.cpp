// Trains LIBSVM's C-SVC with the ppk kernel on a file of model rows (`ppk fit` output) through the
// installed packages: libppk reads and validates the rows, the patched libsvm.so.3 (which loads the
// ppk plugin from libsvm-plugins/ next to itself) trains and predicts, and every decision value is
// recomputed from the model with libppk's kernel,
//   f(x) = sum_i coef_i k_rho(sv_i, x) - b,
// so the two libraries must agree. Prints "accuracy A/N, decision values agree".
//
//   ppk_example ROWS RHO
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <vector>

#include "ppk/core/data.hpp"
#include "ppk/core/kernel.hpp"
#include "svm.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: ppk_example ROWS RHO\n");
    return 2;
  }
  ppk::KernelParams params;
  params.rho = std::atof(argv[2]);
  std::ifstream in(argv[1]);
  std::vector<ppk::LabeledRow> rows = ppk::read_rows(in, argv[1]);
  std::vector<std::unique_ptr<ppk::PreparedModel>> models;
  for (std::size_t i = 0; i < rows.size(); ++i)
    models.push_back(std::make_unique<ppk::PreparedModel>(ppk::decode_labeled_row(rows[i], argv[1], i + 1), params));

  // LIBSVM's problem: ppk::RowEntry is layout-compatible with svm_node; each row ends with index -1.
  std::vector<std::vector<svm_node>> nodes(rows.size());
  std::vector<svm_node*> x(rows.size());
  std::vector<double> y(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (const ppk::RowEntry& entry : rows[i].row) nodes[i].push_back({entry.index, entry.value});
    nodes[i].push_back({-1, 0});
    x[i] = nodes[i].data();
    y[i] = rows[i].label;
  }
  svm_problem problem{static_cast<int>(rows.size()), y.data(), x.data()};
  svm_parameter param{};
  param.svm_type = C_SVC;
  param.kernel_type = svm_kernel_type_from_string("ppk");
  param.gamma = params.rho;  // svm-train's -g is rho
  param.degree = 0;          // -d: T for sequence models
  param.C = 1;
  param.eps = 1e-3;
  param.cache_size = 100;
  param.shrinking = 1;
  if (param.kernel_type < 0) {
    std::fprintf(stderr, "ppk_example: the patched libsvm.so.3 did not load the ppk plugin\n");
    return 1;
  }
  if (const char* error = svm_check_parameter(&problem, &param)) {
    std::fprintf(stderr, "ppk_example: %s\n", error);
    return 1;
  }
  svm_set_print_string_function([](const char*) {});
  svm_model* model = svm_train(&problem, &param);
  if (svm_get_nr_class(model) != 2) {
    std::fprintf(stderr, "ppk_example: expected two classes\n");
    return 1;
  }

  // The support vectors back as libppk models.
  std::vector<std::unique_ptr<ppk::PreparedModel>> support;
  for (int i = 0; i < model->l; ++i) {
    ppk::LabeledRow sv;
    for (const svm_node* node = model->SV[i]; node->index != -1; ++node) sv.row.push_back({node->index, node->value});
    support.push_back(std::make_unique<ppk::PreparedModel>(ppk::decode_labeled_row(sv, "SV", i + 1), params));
  }
  int correct = 0;
  bool agree = true;
  for (std::size_t j = 0; j < rows.size(); ++j) {
    double libsvm_decision = 0;
    const double label = svm_predict_values(model, x[j], &libsvm_decision);
    double decision = -model->rho[0];
    for (int i = 0; i < model->l; ++i)
      decision += model->sv_coef[0][i] * ppk::evaluate(ppk::KernelKind::ppk, *support[i], *models[j]);
    agree = agree && std::abs(decision - libsvm_decision) <= 1e-9 * (1 + std::abs(decision));
    correct += label == y[j];
  }
  std::printf("accuracy %d/%zu, decision values %s\n", correct, rows.size(), agree ? "agree" : "DIFFER");
  svm_free_and_destroy_model(&model);
  return agree ? 0 : 1;
}
