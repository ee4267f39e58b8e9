// Tests the kernel-plugin hook of the patched libsvm.so.3 through its C API, with the test
// plugin (kernel type 17, test_linear) loaded via LIBSVM_KERNEL_PLUGINS.
//
//   plugin_api_test HEART_SCALE TEST_PLUGIN_SO
//   plugin_api_test --train-unchecked DATA          svm_train without svm_check_parameter
//   plugin_api_test --predict-unchecked MODEL DATA  svm_predict without svm_check_example
// (the last two must not end the program when a row cannot be decoded: the library has no exit();
// a prediction of such a row is NaN, printed one per line)
#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "svm.h"

namespace {

int failures = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

struct Data {
  std::vector<double> y;
  std::vector<std::vector<svm_node>> rows;
  std::vector<svm_node *> x;
  svm_problem prob() {
    svm_problem p;
    p.l = (int)y.size();
    p.y = y.data();
    p.x = x.data();
    return p;
  }
  void finish() {
    x.clear();
    for (auto &r : rows) x.push_back(r.data());
  }
};

Data read_data(const char *path) {
  Data d;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    double label;
    s >> label;
    std::vector<svm_node> row;
    std::string item;
    while (s >> item) {
      svm_node n;
      n.index = std::atoi(item.c_str());
      n.value = std::strtod(item.c_str() + item.find(':') + 1, nullptr);
      row.push_back(n);
    }
    svm_node end;
    end.index = -1;
    end.value = 0;
    row.push_back(end);
    d.y.push_back(label);
    d.rows.push_back(row);
  }
  d.finish();
  return d;
}

svm_parameter default_param(int kernel_type) {
  svm_parameter p;
  std::memset(&p, 0, sizeof p);
  p.svm_type = C_SVC;
  p.kernel_type = kernel_type;
  p.degree = 3;
  p.gamma = 0.5;
  p.coef0 = 0;
  p.nu = 0.5;
  p.cache_size = 100;
  p.C = 1;
  p.eps = 1e-3;
  p.p = 0.1;
  p.shrinking = 1;
  p.probability = 0;
  return p;
}

long (*decode_count)(void);
long (*live_count)(void);

void quiet(const char *) {}

std::vector<double> decision_values(const svm_model *m, Data &d) {
  int n = m->nr_class * (m->nr_class - 1) / 2;
  std::vector<double> out;
  std::vector<double> dec(n > 0 ? n : 1);
  for (svm_node *x : d.x) {
    out.push_back(svm_predict_values(m, x, dec.data()));
    out.insert(out.end(), dec.begin(), dec.end());
  }
  return out;
}

// trains with the built-in linear kernel and with test_linear; both must agree bit for bit
void compare_with_linear(Data &d, svm_parameter base, const char *what, const std::string &tmp) {
  svm_problem prob = d.prob();
  svm_parameter lin = base, plug = base;
  lin.kernel_type = LINEAR;
  plug.kernel_type = 17;
  CHECK(svm_check_parameter(&prob, &lin) == nullptr);
  CHECK(svm_check_parameter(&prob, &plug) == nullptr);
  srand(1);
  svm_model *ml = svm_train(&prob, &lin);
  long before = decode_count();
  srand(1);
  const char *err = svm_check_parameter(&prob, &plug);
  CHECK(err == nullptr);
  CHECK(decode_count() - before == prob.l);  // svm_check_parameter decodes each row once
  before = decode_count();
  svm_model *mp = svm_train(&prob, &plug);
  // each kernel matrix decodes its rows: one over all rows, or one per pair of classes (each row
  // in k - 1 of them); -b adds the matrices of its internal cross validation
  bool classes = plug.svm_type == C_SVC || plug.svm_type == NU_SVC;
  long expected = classes ? (long)(mp->nr_class - 1) * prob.l : prob.l;
  if (!plug.probability && decode_count() - before != expected)
    fprintf(stderr, "%s: %ld decodes for %d rows, expected %ld\n", what, decode_count() - before, prob.l, expected);
  CHECK(plug.probability || decode_count() - before == expected);

  CHECK(ml->l == mp->l);
  CHECK(ml->nr_class == mp->nr_class);
  bool same = ml->l == mp->l;
  for (int i = 0; same && i < ml->l; i++) same = ml->sv_indices[i] == mp->sv_indices[i];
  for (int k = 0; same && k < ml->nr_class - 1; k++)
    for (int i = 0; i < ml->l; i++) same = same && ml->sv_coef[k][i] == mp->sv_coef[k][i];
  int n = ml->nr_class * (ml->nr_class - 1) / 2;
  for (int i = 0; same && i < n; i++) same = ml->rho[i] == mp->rho[i];
  if (ml->probA)
    for (int i = 0; same && i < n; i++)
      same = mp->probA && ml->probA[i] == mp->probA[i] && (!ml->probB || ml->probB[i] == mp->probB[i]);
  if (!same) fprintf(stderr, "%s: models differ\n", what);
  CHECK(same);

  before = decode_count();
  std::vector<double> vl = decision_values(ml, d), vp = decision_values(mp, d);
  CHECK(vl == vp);
  // each prediction decodes x; the first one the support vectors, kept until the model is freed
  CHECK(decode_count() - before == prob.l + mp->l);

  // save -> load -> predict gives the same decision values (%.17g support vectors)
  std::string path = tmp + "/api_" + what + ".model";
  CHECK(svm_save_model(path.c_str(), mp) == 0);
  before = decode_count();
  svm_model *loaded = svm_load_model(path.c_str());
  CHECK(loaded != nullptr);
  if (loaded) {
    CHECK(decode_count() - before == loaded->l);  // the SVs, decoded and checked at load
    CHECK(loaded->param.kernel_type == 17);
    CHECK(loaded->param.gamma == plug.gamma);
    CHECK(loaded->param.degree == plug.degree);
    before = decode_count();
    CHECK(decision_values(loaded, d) == vp);
    CHECK(decode_count() - before == prob.l);  // each x once
    svm_free_and_destroy_model(&loaded);
  }
  std::remove(path.c_str());
  svm_free_and_destroy_model(&ml);
  svm_free_and_destroy_model(&mp);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::strcmp(argv[1], "--train-unchecked") == 0) {
    Data d = read_data(argv[2]);
    svm_problem prob = d.prob();
    svm_parameter plug = default_param(17);
    svm_model *m = svm_train(&prob, &plug);
    svm_free_and_destroy_model(&m);
    return 0;
  }
  if (argc == 4 && std::strcmp(argv[1], "--predict-unchecked") == 0) {
    svm_model *m = svm_load_model(argv[2]);
    if (m == nullptr) return 2;
    Data d = read_data(argv[3]);
    for (svm_node *x : d.x) printf("%g\n", svm_predict(m, x));
    svm_free_and_destroy_model(&m);
    return 0;
  }
  if (argc != 3) {
    fprintf(stderr, "usage: plugin_api_test HEART_SCALE TEST_PLUGIN_SO\n");
    return 2;
  }
  svm_set_print_string_function(quiet);
  const char *tmpdir = getenv("TMPDIR");
  std::string tmp = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/libsvm_plugin_api.XXXXXX";
  if (mkdtemp(&tmp[0]) == nullptr) {
    perror("mkdtemp");
    return 2;
  }

  // the registry
  CHECK(svm_get_nr_kernel_types() == 1);
  const svm_kernel_type *t = svm_find_kernel_type(17);
  if (t == nullptr) {
    fprintf(stderr, "plugin_api_test: kernel type 17 is not registered: set LIBSVM_KERNEL_PLUGINS=%s\n", argv[2]);
    return 1;
  }
  CHECK(std::strcmp(t->name, "test_linear") == 0);
  CHECK(svm_get_kernel_type(0) == t);
  CHECK(svm_get_kernel_type(1) == nullptr);
  CHECK(svm_find_kernel_type(2) == nullptr);
  CHECK(svm_find_kernel_type(5) == nullptr);
  CHECK(svm_kernel_type_from_string("0") == 0);
  CHECK(svm_kernel_type_from_string("rbf") == 2);
  CHECK(svm_kernel_type_from_string("precomputed") == 4);
  CHECK(svm_kernel_type_from_string("test_linear") == 17);
  CHECK(svm_kernel_type_from_string("17") == 17);
  CHECK(svm_kernel_type_from_string("5") == -1);
  CHECK(svm_kernel_type_from_string("bogus") == -1);
  CHECK(svm_kernel_type_from_string("") == -1);
  CHECK(svm_kernel_type_from_string("17x") == -1);

  // registration is refused for taken numbers and names, built-in names, other ABIs
  svm_kernel_type dup = *t;
  CHECK(svm_register_kernel_type(&dup) == -1);
  dup.number = 18;
  CHECK(svm_register_kernel_type(&dup) == -1);  // name taken
  dup.name = "rbf";
  CHECK(svm_register_kernel_type(&dup) == -1);
  dup.name = "other";
  dup.number = 4;
  CHECK(svm_register_kernel_type(&dup) == -1);
  dup.number = 18;
  dup.abi_version = LIBSVM_KERNEL_PLUGIN_ABI + 1;
  CHECK(svm_register_kernel_type(&dup) == -1);
  dup.abi_version = LIBSVM_KERNEL_PLUGIN_ABI;
  dup.name = "two words";
  CHECK(svm_register_kernel_type(&dup) == -1);
  CHECK(svm_get_nr_kernel_types() == 1);

  void *plugin = dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD);
  CHECK(plugin != nullptr);
  if (!plugin) return 1;
  decode_count = (long (*)(void))dlsym(plugin, "test_plugin_decode_count");
  live_count = (long (*)(void))dlsym(plugin, "test_plugin_live_count");
  CHECK(decode_count && live_count);
  if (!decode_count || !live_count) return 1;

  Data d = read_data(argv[1]);
  CHECK(d.y.size() == 270);

  // C-SVC, two classes; with probability outputs (-b 1: internal 5-fold CV)
  svm_parameter p = default_param(17);
  compare_with_linear(d, p, "csvc", tmp);
  p.probability = 1;
  compare_with_linear(d, p, "csvc_b", tmp);

  // three classes: the pairs share the decoded rows
  Data d3 = d;
  d3.finish();
  for (size_t i = 0; i < d3.y.size(); i++) d3.y[i] = (double)(i % 3);
  p = default_param(17);
  compare_with_linear(d3, p, "three_classes", tmp);
  p.probability = 1;
  compare_with_linear(d3, p, "three_classes_b", tmp);
  p = default_param(17);
  p.svm_type = NU_SVC;
  p.nu = 0.3;
  compare_with_linear(d3, p, "nu_svc", tmp);

  // regression and one-class
  p = default_param(17);
  p.svm_type = EPSILON_SVR;
  compare_with_linear(d, p, "epsilon_svr", tmp);
  p.probability = 1;
  compare_with_linear(d, p, "epsilon_svr_b", tmp);
  p = default_param(17);
  p.svm_type = NU_SVR;
  compare_with_linear(d, p, "nu_svr", tmp);
  p = default_param(17);
  p.svm_type = ONE_CLASS;
  compare_with_linear(d, p, "one_class", tmp);

  // cross validation: same folds (same rand() sequence), same results; each fold's kernel
  // matrices decode the fold's training rows, and each held-out row is predicted
  {
    svm_problem prob = d3.prob();
    svm_parameter lin = default_param(LINEAR), plug = default_param(17);
    std::vector<double> tl(prob.l), tp(prob.l);
    srand(7);
    svm_cross_validation(&prob, &lin, 5, tl.data());
    CHECK(svm_check_parameter(&prob, &plug) == nullptr);
    srand(7);
    svm_cross_validation(&prob, &plug, 5, tp.data());
    CHECK(tl == tp);
  }

  // bad rows: the message names the row (1-based)
  {
    Data bad = d;
    bad.rows[4].insert(bad.rows[4].end() - 1, svm_node{999, 1.5});
    bad.finish();
    svm_problem prob = bad.prob();
    svm_parameter plug = default_param(17);
    const char *err = svm_check_parameter(&prob, &plug);
    CHECK(err != nullptr && std::strstr(err, "row 5: ") && std::strstr(err, "index 999"));
    if (err) printf("bad row message: %s\n", err);

    Data mixed = d;
    mixed.rows[9].insert(mixed.rows[9].end() - 1, svm_node{997, 1});
    mixed.finish();
    prob = mixed.prob();
    err = svm_check_parameter(&prob, &plug);
    CHECK(err != nullptr && std::strstr(err, "rows 1 and 10: ") && std::strstr(err, "flavors"));
    if (err) printf("incompatible rows message: %s\n", err);

    plug.gamma = 0;
    prob = d.prob();
    err = svm_check_parameter(&prob, &plug);
    CHECK(err != nullptr && std::strstr(err, "-g must be > 0"));
  }

  // svm_check_example
  {
    svm_problem prob = d.prob();
    svm_parameter plug = default_param(17);
    CHECK(svm_check_parameter(&prob, &plug) == nullptr);
    svm_model *m = svm_train(&prob, &plug);
    CHECK(svm_check_example(m, d.x[0]) == nullptr);
    std::vector<svm_node> bad = {{1, 0.5}, {999, 2}, {-1, 0}};
    const char *err = svm_check_example(m, bad.data());
    CHECK(err != nullptr && std::strstr(err, "index 999"));
    std::vector<svm_node> other = {{1, 0.5}, {997, 2}, {-1, 0}};
    err = svm_check_example(m, other.data());
    CHECK(err != nullptr && std::strstr(err, "flavors"));
    svm_free_and_destroy_model(&m);

    svm_parameter lin = default_param(LINEAR);
    m = svm_train(&prob, &lin);
    CHECK(svm_check_example(m, bad.data()) == nullptr);  // built-in kernels accept anything
    svm_free_and_destroy_model(&m);
  }

  // svm_check_model: a model built in memory (as the MATLAB/Octave interface builds one) checked
  // as svm_load_model checks a file; svm_load_model_error: why the last load failed
  {
    svm_problem prob = d.prob();
    svm_parameter plug = default_param(17);
    svm_model *m = svm_train(&prob, &plug);
    CHECK(svm_check_model(m) == nullptr);
    auto refused = [&](const char *fragment) {
      const char *err = svm_check_model(m);
      if (err == nullptr || !std::strstr(err, fragment))
        fprintf(stderr, "svm_check_model: expected '%s', got '%s'\n", fragment, err ? err : "(null)");
      return err != nullptr && std::strstr(err, fragment);
    };
    m->nSV[0] += 1;
    CHECK(refused("nr_sv sums to"));
    m->nSV[0] -= 1;
    const double coefficient = m->sv_coef[0][3];
    m->sv_coef[0][3] = NAN;
    CHECK(refused("support vector 4: coefficient 1 is not a finite number"));
    m->sv_coef[0][3] = coefficient;
    m->param.kernel_type = 99;
    CHECK(refused("kernel_type 99 is not built in"));
    m->param.kernel_type = 17;
    m->param.gamma = 0;  // the plugin's check_parameter
    CHECK(refused("-g must be > 0"));
    m->param.gamma = 0.5;
    // support vectors the plugin cannot decode, or that are incompatible, or out of order
    svm_node **trained_svs = m->SV;
    std::vector<svm_node *> svs(trained_svs, trained_svs + m->l);
    std::vector<svm_node> undecodable = {{1, 0.5}, {999, 2}, {-1, 0}};
    std::vector<svm_node> descending = {{2, 0.5}, {1, 2}, {-1, 0}};
    svs[2] = undecodable.data();
    m->SV = svs.data();
    CHECK(refused("support vector 3: ") && refused("index 999"));
    svs[2] = descending.data();
    CHECK(refused("support vector 3: index 1 after 2"));
    svs[2] = trained_svs[2];
    m->SV = trained_svs;
    CHECK(svm_check_model(m) == nullptr);

    std::string path = tmp + "/checked.model";
    std::string missing = tmp + "/missing.model";
    CHECK(svm_load_model(missing.c_str()) == nullptr);
    CHECK(std::strstr(svm_load_model_error(), missing.c_str()) && std::strstr(svm_load_model_error(), "No such file"));
    m->nSV[0] += 1;  // a file whose nr_sv does not sum to total_sv
    CHECK(svm_save_model(path.c_str(), m) == 0);
    m->nSV[0] -= 1;
    CHECK(svm_load_model(path.c_str()) == nullptr);
    CHECK(std::strstr(svm_load_model_error(), (path + ":").c_str()) &&
          std::strstr(svm_load_model_error(), "nr_sv sums to"));
    printf("svm_load_model_error: %s\n", svm_load_model_error());
    CHECK(svm_save_model(path.c_str(), m) == 0);
    svm_model *loaded = svm_load_model(path.c_str());
    CHECK(loaded != nullptr && svm_load_model_error()[0] == '\0');
    svm_free_and_destroy_model(&loaded);
    std::remove(path.c_str());
    svm_free_and_destroy_model(&m);
  }

  // several threads predicting with one model at once (the first use decodes its SVs)
  {
    svm_problem prob = d3.prob();
    svm_parameter plug = default_param(17);
    svm_model *trained = svm_train(&prob, &plug);
    std::string path = tmp + "/threads.model";
    CHECK(svm_save_model(path.c_str(), trained) == 0);
    std::vector<double> expected = decision_values(trained, d3);
    svm_free_and_destroy_model(&trained);
    long before = decode_count();
    svm_model *m = svm_load_model(path.c_str());
    std::remove(path.c_str());
    CHECK(m != nullptr);
    if (m) {
      std::vector<std::vector<double>> got(4);
      std::vector<std::thread> workers;
      for (int k = 0; k < 4; k++) workers.emplace_back([&, k] { got[k] = decision_values(m, d3); });
      for (std::thread &w : workers) w.join();
      for (int k = 0; k < 4; k++) CHECK(got[k] == expected);
      CHECK(decode_count() - before == m->l + 4 * prob.l);  // the SVs once, at load
      svm_free_and_destroy_model(&m);
    }
  }

  // every decoded object has been released
  CHECK(live_count() == 0);
  if (live_count() != 0) fprintf(stderr, "%ld decoded rows not released\n", live_count());

  rmdir(tmp.c_str());
  if (failures) {
    fprintf(stderr, "plugin_api_test: %d failure(s)\n", failures);
    return 1;
  }
  printf("plugin_api_test: all checks passed\n");
  return 0;
}
