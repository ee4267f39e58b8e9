// libFuzzer harness: a LIBSVM model file, loaded by the patched svm_load_model (libsvm-patch/
// 06-model-loader.patch) with the kernel types ppk and ppk_norm registered, as svm-predict, LIBSVM's
// Python interface and the Octave mex files load it.
//
// Properties checked beyond "no crash, no leak, no undefined behaviour, no hang" (ASan/UBSan, and
// libFuzzer's -timeout): a file is either loaded or refused with a reason (svm_load_model_error, never
// empty); a loaded model passes svm_check_model, predicts its own first support vector, and is saved
// by svm_save_model as a file that loads again with the same header (every file written is one its
// reader accepts).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

#include "fuzz_check.hpp"
#include "svm.h"

extern "C" int svm_kernel_plugin_init(int (*register_type)(const svm_kernel_type*));  // src/libsvm/plugin.cpp

namespace {

std::string model_path, saved_path;  // files in a directory of the harness's own (LLVMFuzzerInitialize)

void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr || std::fwrite(data, 1, size, file) != size || std::fclose(file) != 0)
    ppk_fuzz::fail("cannot write the harness's model file", path);
}

void quiet(const char*) {}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ppk-fuzz-model-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) ppk_fuzz::fail("cannot make a directory for the harness's files", dir);
  model_path = dir + "/input.model";
  saved_path = dir + "/saved.model";
  if (svm_kernel_plugin_init(&svm_register_kernel_type) != 0) ppk_fuzz::fail("cannot register ppk and ppk_norm", "");
  svm_set_print_string_function(&quiet);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  write_file(model_path, data, size);
  svm_model* model = svm_load_model(model_path.c_str());
  if (model == nullptr) {
    if (svm_load_model_error()[0] == '\0') ppk_fuzz::fail("svm_load_model refused a file without a reason", "");
    return 0;
  }
  if (const char* why = svm_check_model(model)) ppk_fuzz::fail("a loaded model fails svm_check_model", why);
  if (model->l > 0 && svm_check_example(model, model->SV[0]) == nullptr) {
    std::vector<double> values(static_cast<std::size_t>(model->nr_class) * model->nr_class);  // enough for both
    svm_predict_values(model, model->SV[0], values.data());
    if (svm_check_probability_model(model)) svm_predict_probability(model, model->SV[0], values.data());
  }
  if (svm_save_model(saved_path.c_str(), model) != 0) ppk_fuzz::fail("svm_save_model failed", saved_path);
  svm_model* saved = svm_load_model(saved_path.c_str());
  if (saved == nullptr) ppk_fuzz::fail("svm_save_model wrote a file that svm_load_model refuses", svm_load_model_error());
  if (saved->nr_class != model->nr_class || saved->l != model->l ||
      saved->param.kernel_type != model->param.kernel_type || saved->param.svm_type != model->param.svm_type)
    ppk_fuzz::fail("a saved model loads with another header", "");
  svm_free_and_destroy_model(&saved);
  svm_free_and_destroy_model(&model);
  return 0;
}
