// Trains LIBSVM's C-SVC with the kernel of a family that the program defines itself (the geometric
// family of examples/geometric_family.cpp), through the installed packages alone, and checks the
// result against an independent oracle. Prints "accuracy A/N, decision values agree".
//
// The ppk plugin that the installed libsvm.so.3 loads holds its own copy of libppk, with its own
// registry of families: a family registered here is not one of its families. So the program registers
// the family with its own libppk (register_family) and its own kernel type with LIBSVM
// (svm_register_kernel_type: decode a row with the program's registry, evaluate with core's
// dispatcher), as the plugin does for the library's families.
//
// The oracle: LIBSVM's precomputed kernel (-t 4) on the Gram matrix of brute-force sums
//     k_rho(q, r) = prod_d sum_{x < 4000} ((1 - q_d) q_d^x (1 - r_d) r_d^x)^rho
// (the omitted tail is below 0.75^4000), which never calls the family's closed form. The two trainings
// solve one problem: their decision values agree to within the solver's tolerance.
//
//   geometric_training ROWS
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppk/core/data.hpp"
#include "ppk/core/family.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"
#include "svm.h"

namespace ppk {
const FamilyInfo& geometric_family();  // examples/geometric_family.cpp
}

namespace {

constexpr double kRho = 0.5;

void* decode(void* /*context*/, const svm_node* x, const svm_parameter* param, char* err, size_t err_size) {
  try {
    ppk::Row row;
    for (; x->index != -1; ++x) row.push_back({x->index, x->value});
    return new ppk::PreparedModel(ppk::decode_row(row), {param->gamma, param->degree});
  } catch (const std::exception& e) {
    std::snprintf(err, err_size, "%s", e.what());
    return nullptr;
  }
}
int compatible(void* /*context*/, const void* a, const void* b, char* err, size_t err_size) {
  try {
    ppk::check_compatible(*static_cast<const ppk::PreparedModel*>(a), *static_cast<const ppk::PreparedModel*>(b));
    return 1;
  } catch (const std::exception& e) {
    std::snprintf(err, err_size, "%s", e.what());
    return 0;
  }
}
double evaluate(void* /*context*/, const void* a, const void* b) {
  return ppk::evaluate(ppk::KernelKind::ppk, *static_cast<const ppk::PreparedModel*>(a),
                       *static_cast<const ppk::PreparedModel*>(b));
}
void release(void* /*context*/, void* decoded) { delete static_cast<ppk::PreparedModel*>(decoded); }

double brute_force_kernel(const std::vector<double>& q, const std::vector<double>& r) {
  double k = 1.0;
  for (std::size_t d = 0; d < q.size(); ++d) {
    double sum = 0.0;
    for (int x = 0; x < 4000; ++x) sum += std::pow((1 - q[d]) * std::pow(q[d], x) * (1 - r[d]) * std::pow(r[d], x), kRho);
    k *= sum;
  }
  return k;
}

svm_parameter parameters(int kernel_type) {
  svm_parameter param{};
  param.svm_type = C_SVC;
  param.kernel_type = kernel_type;
  param.gamma = kRho;
  param.C = 10;
  param.eps = 1e-6;
  param.cache_size = 100;
  param.shrinking = 0;
  return param;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: geometric_training ROWS\n");
    return 2;
  }
  ppk::register_family(ppk::geometric_family());
  svm_kernel_type type{};
  type.abi_version = LIBSVM_KERNEL_PLUGIN_ABI;
  type.number = 20;
  type.name = "geometric_ppk";
  type.help = "the probability product kernel of the geometric rows of this program: -g rho";
  type.default_gamma = 1.0;
  type.decode = decode;
  type.compatible = compatible;
  type.evaluate = evaluate;
  type.release = release;
  if (svm_register_kernel_type(&type) != 0) return 1;

  // Two classes of models over D = 3 counts, q_d around 0.25 (label -1) and 0.5 (label 1), written as rows.
  const std::size_t n = 40;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> jitter(-0.15, 0.15);
  std::vector<std::vector<double>> q(n);
  std::vector<double> y(n);
  std::ofstream rows(argv[1]);
  for (std::size_t i = 0; i < n; ++i) {
    y[i] = i % 2 == 0 ? -1 : 1;
    for (int d = 0; d < 3; ++d) q[i].push_back((y[i] < 0 ? 0.25 : 0.5) + jitter(random));
    const auto model = ppk::model_from_json(nlohmann::json{{"family", "geometric"}, {"q", q[i]}});
    rows << ppk::format_row_line(y[i], ppk::encode_row(*model)) << '\n';
  }
  rows.close();

  // Training with the program's kernel type, on the rows read back.
  std::ifstream in(argv[1]);
  const std::vector<ppk::LabeledRow> read = ppk::read_rows(in, argv[1]);
  std::vector<std::vector<svm_node>> nodes(n);
  std::vector<svm_node*> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (const ppk::RowEntry& entry : read[i].row) nodes[i].push_back({entry.index, entry.value});
    nodes[i].push_back({-1, 0});
    x[i] = nodes[i].data();
  }
  svm_set_print_string_function([](const char*) {});
  svm_problem problem{static_cast<int>(n), y.data(), x.data()};
  const svm_parameter param = parameters(svm_kernel_type_from_string("geometric_ppk"));
  if (const char* error = svm_check_parameter(&problem, &param)) {
    std::fprintf(stderr, "geometric_training: %s\n", error);
    return 1;
  }
  svm_model* model = svm_train(&problem, &param);

  // The oracle's training: row i is 0:i+1 followed by the brute-force kernel values K(i, j) at 1..n.
  std::vector<std::vector<svm_node>> gram(n);
  std::vector<svm_node*> gram_x(n);
  for (std::size_t i = 0; i < n; ++i) {
    gram[i].push_back({0, static_cast<double>(i + 1)});
    for (std::size_t j = 0; j < n; ++j) gram[i].push_back({static_cast<int>(j + 1), brute_force_kernel(q[i], q[j])});
    gram[i].push_back({-1, 0});
    gram_x[i] = gram[i].data();
  }
  svm_problem precomputed{static_cast<int>(n), y.data(), gram_x.data()};
  const svm_parameter oracle_param = parameters(PRECOMPUTED);
  svm_model* oracle = svm_train(&precomputed, &oracle_param);

  int correct = 0;
  bool agree = true;
  for (std::size_t i = 0; i < n; ++i) {
    double decision = 0, expected = 0;
    const double label = svm_predict_values(model, x[i], &decision);
    const double oracle_label = svm_predict_values(oracle, gram_x[i], &expected);
    // Decision values are read with the first training label as the positive class (both models).
    agree = agree && label == oracle_label && std::abs(decision - expected) <= 1e-4 * (1 + std::abs(expected));
    correct += label == y[i];
  }
  std::printf("accuracy %d/%zu, decision values %s\n", correct, n, agree ? "agree" : "DIFFER");
  svm_free_and_destroy_model(&model);
  svm_free_and_destroy_model(&oracle);
  return agree ? 0 : 1;
}
