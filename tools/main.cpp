// The `ppk` command line: fit models to data, encode and decode model rows,
// and compute kernel matrices between them.
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "ppk/core/family.hpp"
#include "ppk/core/row.hpp"

namespace {

constexpr const char* kUsageHead = R"(Usage: ppk COMMAND [options] [FILES]

Probability product kernels for LIBSVM: each example becomes one LIBSVM row
that encodes a generative model fitted to it, and svm-train -t ppk|ppk_norm
trains on the kernel k_rho(p, p') = integral of p(x)^rho p'(x)^rho dx.

Commands:
  fit FAMILY [options] INPUT [-o OUTPUT]
)";

// Text wrapped to lines of at most kWidth characters, each indented by kIndent spaces.
constexpr std::size_t kIndent = 19, kWidth = 80;
std::string indented_paragraph(const std::string& text) {
  std::string out, line;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (!line.empty() && kIndent + line.size() + 1 + word.size() > kWidth) {
      out += std::string(kIndent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + std::string(kIndent, ' ') + line + "\n";
}

constexpr const char* kUsageTail = R"(  encode [FILE] [-o OUTPUT]   JSON lines -> model rows
  decode [FILE] [-o OUTPUT]   model rows -> JSON lines
  gram -t ppk|ppk_norm -g RHO [-d T] A [B] [-o OUTPUT]
                   the kernel matrix between the rows of A and B (or A and A)
  map -t ppk|ppk_norm -g RHO [-d T] [--map exact|sparse|nystrom] INPUT [-o OUTPUT]
                   model rows -> feature vectors for linear models (LIBLINEAR),
                   whose inner products are the kernel (--save-map, --map-from)
  select [-t KERNELS] [-g RHOS] [-d LENGTHS] [--weights W:W,...] [-c COSTS] [-v K]
         TRAINING_ROWS
                   the kernel SVM's settings chosen by k-fold cross-validation
                   (svm-train -v K's numbers), one kernel matrix per (kernel,
                   rho, T); combined rows: their parts' weights too; -o MODEL
                   trains the best
  combine [--weights W1,W2,...] A B [...] [-o OUTPUT]
                   rows of the same examples, one file per kind of model ->
                   combined rows, whose kernel is the weighted sum of the
                   parts' normalized kernels
  montecarlo -n N [--beta pooled|equal] [FILE] [-o OUTPUT]
                   model rows -> montecarlo rows around them (the Monte Carlo
                   kernel from N samples per row instead of the closed form)
  kgm --var NAME=INDICES[:KERNEL] ... --lambda L (--path V0,...,Vk |
      --tree 'P>C,...' --ends U,V) SAMPLES (QUERIES | --table) [-o OUTPUT]
                   kernel graphical models: estimate phi(u)' C_UV phi(v) between
                   the end variables of a chain or tree path from joint samples

Options:
  -h [ --help ]    this text; 'ppk COMMAND --help' describes a command
  --version        the program's version and row format version
  --families       the model families rows and JSON lines may hold, one a line:
                   'CODE NAME' (for scripts)

Exit status: 0 success, 1 invalid or unreadable input, 2 invalid command line.
)";

// The usage, with the FAMILY list of `ppk fit` itself.
std::string usage() {
  return kUsageHead +
         indented_paragraph(
             "fit one model per example of a LIBSVM data file (hmm: also of FASTA or 'LABEL "
             "SEQUENCE' lines); FAMILY: " +
             ppk::cli::fit_family_names() + " ('ppk fit --help', 'ppk fit FAMILY --help')") +
         kUsageTail;
}

using Command = int (*)(const std::vector<std::string>&);

struct CommandEntry {
  const char* name;
  Command run;
};

constexpr CommandEntry kCommands[] = {
    {"fit", ppk::cli::run_fit},   {"encode", ppk::cli::run_encode},         {"decode", ppk::cli::run_decode},
    {"gram", ppk::cli::run_gram}, {"montecarlo", ppk::cli::run_montecarlo}, {"kgm", ppk::cli::run_kgm},
    {"map", ppk::cli::run_map},   {"select", ppk::cli::run_select},         {"combine", ppk::cli::run_combine},
};

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    std::cerr << usage();
    return ppk::cli::kExitUsage;
  }
  const std::string& first = words[0];
  if (first == "-h" || first == "--help" || first == "help") {
    std::cout << usage();
    return 0;
  }
  if (first == "--version") {
    std::cout << "ppk " << PPK_VERSION << " (row format " << ppk::kRowFormatVersion << ")\n";
    return 0;
  }
  if (first == "--families") {
    for (const ppk::FamilyInfo* family : ppk::all_families()) std::cout << family->code << ' ' << family->name << '\n';
    return 0;
  }
  for (const CommandEntry& command : kCommands) {
    if (first != command.name) continue;
    const std::string prefix = std::string("ppk ") + command.name + ": ";
    try {
      return command.run(std::vector<std::string>(words.begin() + 1, words.end()));
    } catch (const ppk::cli::UsageError& e) {
      std::cerr << prefix << e.what() << "\n"
                << "Try 'ppk " << command.name << " --help'.\n";
      return ppk::cli::kExitUsage;
    } catch (const std::bad_alloc&) {
      std::cerr << prefix << "out of memory\n";
      return ppk::cli::kExitData;
    } catch (const std::exception& e) {
      std::cerr << prefix << ppk::cli::message_of(e) << "\n";
      return ppk::cli::kExitData;
    }
  }
  std::cerr << "ppk: unknown command '" << first << "'\n"
            << "Try 'ppk --help'.\n";
  return ppk::cli::kExitUsage;
}
