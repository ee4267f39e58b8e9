// Prints, for every row of a LIBSVM data file, the prediction and the decision values of a
// model, with every digit (%.17g), so that two models can be compared exactly.
//
//   libsvm_decision_values MODEL DATA
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "svm.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: libsvm_decision_values MODEL DATA\n");
    return 2;
  }
  svm_model *model = svm_load_model(argv[1]);
  if (model == nullptr) {
    fprintf(stderr, "libsvm_decision_values: cannot load %s\n", argv[1]);
    return 1;
  }
  int n = model->nr_class * (model->nr_class - 1) / 2;
  std::vector<double> dec(n > 0 ? n : 1);
  std::ifstream in(argv[2]);
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    std::istringstream s(line);
    double label;
    s >> label;
    std::vector<svm_node> x;
    std::string item;
    while (s >> item) {
      svm_node node;
      node.index = std::atoi(item.c_str());
      node.value = std::strtod(item.c_str() + item.find(':') + 1, nullptr);
      x.push_back(node);
    }
    svm_node end;
    end.index = -1;
    end.value = 0;
    x.push_back(end);
    if (const char *error = svm_check_example(model, x.data())) {
      fprintf(stderr, "%s:line %d: %s\n", argv[2], line_number, error);
      return 1;
    }
    printf("%.17g", svm_predict_values(model, x.data(), dec.data()));
    for (int i = 0; i < n; i++) printf(" %.17g", dec[i]);
    printf("\n");
  }
  svm_free_and_destroy_model(&model);
  return 0;
}
