// libFuzzer harness: the files the `ppk` commands take besides model rows and JSON lines, each read by
// its command run in process (tools/, as `ppk` runs it): a network structure (fit bayesnet
// --structure), a saved feature map (map --map-from), saved pooled statistics and pooled models
// (fit --pooled-from, --adapt-from, --fisher-from), an alphabet (fit hmm --alphabet-from), kgm's
// samples, an MI kernel's mediator (fit mi --mediator-from), and data and row files given to fit, gram
// and montecarlo. The first byte chooses the command; the rest
// is the file. The other files a command needs are valid ones written by LLVMFuzzerInitialize.
//
// Properties checked beyond "no crash, no leak, no undefined behaviour, no hang" (ASan/UBSan and
// libFuzzer's -timeout): a command either succeeds (exit 0, its output written) or refuses the input
// with an exception whose message is not empty, as `ppk` reports it (exit 1 or 2).
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <streambuf>
#include <string>
#include <unistd.h>
#include <vector>

#include "cli.hpp"
#include "fuzz_check.hpp"
#include "svm.h"

extern "C" int svm_kernel_plugin_init(int (*register_type)(const svm_kernel_type*));  // src/libsvm/plugin.cpp

namespace {

std::string dir;  // the harness's own directory: the input, the companion files, the outputs

// A stream buffer that drops what is written to it.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
};

struct Scenario {
  int (*run)(const std::vector<std::string>&);
  std::vector<std::string> args;  // "@input" is the fuzzed file, "@NAME" a companion file in dir
};

// Every fit is bounded (few iterations, one restart, one thread) so that an input runs in well
// under a second: a slow input is a finding (libFuzzer's -timeout), not the fit's honest work.
const std::vector<Scenario>& scenarios() {
  using namespace ppk::cli;
  static const std::vector<Scenario> all = {
      {run_fit,
       {"bayesnet", "--structure", "@input", "--iterations", "20", "--restarts", "1", "--threads", "1", "@joint.txt"}},
      {run_map, {"--map-from", "@input", "@gaussian.ppk"}},     // a Nystrom map
      {run_map, {"--map-from", "@input", "@multinomial.ppk"}},  // an exact map
      {run_fit, {"multinomial", "--pooled-from", "@input", "@counts.txt"}},
      {run_fit, {"mixture", "--adapt-from", "@input", "--iterations", "20", "--threads", "1", "@sets.txt"}},
      {run_fit, {"hmm", "--fisher-from", "@input", "--threads", "1", "@sequences.txt"}},
      {run_fit,
       {"hmm", "--alphabet-from", "@input", "--states", "2", "--iterations", "20", "--restarts", "1", "--threads", "1",
        "@sequences.txt"}},
      {run_kgm,
       {"--var", "A=1", "--var", "B=2", "--var", "C=3", "--path", "A,B,C", "--lambda", "1e-3", "@input", "--table"}},
      {run_gram, {"-t", "ppk_norm", "-g", "0.5", "@input"}},
      {run_fit, {"gaussian", "@input"}},
      {run_fit, {"hmm", "--states", "2", "--iterations", "20", "--restarts", "1", "--threads", "1", "@input"}},
      {run_fit, {"mi", "mixture", "--mediator-from", "@input", "@vectors.txt"}},
      {run_fit, {"mi", "gaussian", "--mediator-from", "@input", "@vectors.txt"}},
      {run_montecarlo, {"-n", "3", "@input"}},
  };
  return all;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) ppk_fuzz::fail("cannot write the harness's file", path);
}

// The companion files: small valid inputs of each command (make_seeds.sh makes the corpus's saved
// maps and pools from files like them).
void write_companions() {
  write_file(dir + "/joint.txt",
             "1 qid:1 1:1 2:1 3:1\n1 qid:1 1:3 2:2 3:3\n1 qid:1 1:2 2:1 3:2\n"
             "-1 qid:2 1:1 2:2 3:3\n-1 qid:2 1:2 2:1 3:1\n-1 qid:2 1:3 2:2 3:2\n");
  write_file(dir + "/gaussian.ppk",
             "1 1:1 2:1 3:2 4:3 5:0.33 6:1.17 7:0.149 8:0.058 9:0.062\n"
             "-1 1:1 2:1 3:2 4:3 5:3 6:-0.9 7:0.167 8:-0.217 9:0.287\n");
  write_file(dir + "/multinomial.ppk",
             "1 1:1 2:3 3:4 6:0.0625 7:0.5625 9:0.3125\n-1 1:1 2:3 3:4 6:0.05 8:0.65 10:0.25\n");
  write_file(dir + "/counts.txt", "1 1:2 3:1\n-1 2:3 4:1\n1 1:1 2:1 3:2\n-1 4:5\n");
  write_file(dir + "/sets.txt",
             "1 qid:1 1:0.5 2:1.5\n1 qid:1 1:0.7 2:1.1\n1 qid:1 1:-0.2 2:0.9\n"
             "-1 qid:2 1:3 2:-1\n-1 qid:2 1:2.5 2:-0.2\n-1 qid:2 1:3.5 2:-1.5\n");
  write_file(dir + "/vectors.txt", "1 1:0.5 2:1.5\n-1 1:3 2:-1\n1 1:0.7 2:1.1\n-1 1:2.5 2:-0.2\n");
  write_file(dir + "/sequences.txt", "1 ACGTACGTAA\n-1 GGTTCCAAGT\n1 ACGGTACAGT\n");
}

std::string substitute(const std::string& arg) {
  if (arg.empty() || arg[0] != '@') return arg;
  return dir + "/" + (arg == "@input" ? std::string("input") : arg.substr(1));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* tmp = std::getenv("TMPDIR");
  dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ppk-fuzz-inputs-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) ppk_fuzz::fail("cannot make a directory for the harness's files", dir);
  write_companions();
  if (svm_kernel_plugin_init(&svm_register_kernel_type) != 0) ppk_fuzz::fail("cannot register ppk and ppk_norm", "");
  // The commands' warnings and tables go nowhere: libFuzzer's own output stays readable.
  static NullBuffer nowhere;
  std::cerr.rdbuf(&nowhere);
  std::cout.rdbuf(&nowhere);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Scenario& scenario = scenarios()[data[0] % scenarios().size()];
  write_file(dir + "/input", std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  std::vector<std::string> args;
  for (const std::string& arg : scenario.args) args.push_back(substitute(arg));
  args.insert(args.end(), {"-o", dir + "/output"});
  try {
    const int status = scenario.run(args);
    if (status != 0) ppk_fuzz::fail("a command returned a failure without an exception", std::to_string(status));
  } catch (const std::exception& e) {
    if (ppk::cli::message_of(e).empty()) ppk_fuzz::fail("a command refused its input with an empty message", "");
  }
  return 0;
}
