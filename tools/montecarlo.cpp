// ppk montecarlo: model rows -> montecarlo rows around them (montecarlo.hpp), keeping labels and order,
// so that any row file of samplable models can be switched to the Monte Carlo kernel without re-fitting.
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/family.hpp"
#include "ppk/families/montecarlo.hpp"
#include "ppk/core/row.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kUsage = R"(Usage: ppk montecarlo -n N [--beta pooled|equal] [FILE] [-o OUTPUT]

Reads model rows (FILE, or standard input if absent or '-') and writes each
as a montecarlo row around it, with its label, in order: the kernel between two
such rows is the Monte Carlo estimate of JMLR 2004 section 5 from N samples
drawn per row (the same samples for the same row, always), instead of the
family's closed form. The families that can be sampled (models made of other
models, such as mixtures and HMMs, when their parts can be; docs/families.md
says for which rho):
FAMILIES
The weight beta of the two sides: pooled (N/(N+N'), the default) or equal (1/2).
Every row is validated; nothing is written unless all are valid.
)";

// The usage with FAMILIES replaced by the registered families whose models can be sampled
// (FamilyInfo::samplable), comma-separated and indented, in lines of at most 78 characters.
std::string usage() {
  std::string usage = kUsage, list, line = " ";
  const std::vector<const FamilyInfo*>& families = all_families();
  for (std::size_t i = 0; i < families.size(); ++i) {
    if (!families[i]->samplable) continue;
    const std::string word = " " + families[i]->name;
    if (line.size() + word.size() + 1 > 78) {
      list += line + "\n";
      line = " ";
    }
    line += word + ",";
  }
  list += line.substr(0, line.size() - 1);
  return usage.replace(usage.find("FAMILIES"), 8, list);
}

}  // namespace

int run_montecarlo(const std::vector<std::string>& args) {
  long samples = 0;
  std::string beta_name, input_path, output_path;
  po::options_description options("Options");
  // clang-format off
  options.add_options()
      ("samples,n", po::value<long>(&samples)->required()->value_name("N"), "samples per row (1..10^5)")
      ("beta", po::value<std::string>(&beta_name)->default_value("pooled"), "pooled or equal")
      ("output,o", po::value<std::string>(&output_path)->default_value("-")->value_name("OUTPUT"),
       "where to write ('-' = standard output)")
      ("help,h", "this text");
  // clang-format on
  if (wants_help(args)) {
    std::cout << usage() << "\n" << options;
    return 0;
  }
  po::options_description all = options;
  all.add_options()("file", po::value<std::string>(&input_path)->default_value("-"), "FILE");
  po::positional_options_description positional;
  positional.add("file", 1);
  parse_command_line(args, all, positional);
  if (samples < 1 || samples > kMaxMonteCarloSamples)
    throw UsageError("--samples: expected a whole number in [1, " + std::to_string(kMaxMonteCarloSamples) + "], got " +
                     std::to_string(samples));
  if (beta_name != "pooled" && beta_name != "equal")
    throw UsageError("--beta: expected pooled or equal, got '" + beta_name + "'");
  const BetaRule beta = beta_name == "equal" ? BetaRule::equal : BetaRule::pooled;

  InputFile input(input_path);
  const std::vector<LabeledRow> rows = read_rows(input.stream(), input.name());
  std::vector<std::string> lines;
  lines.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::unique_ptr<Model> model = decode_labeled_row(rows[i], input.name(), static_cast<long>(i + 1));
    try {
      const MonteCarloModel wrapped(std::move(model), samples, beta);
      lines.push_back(format_row_line(rows[i].label, encode_row(wrapped)));
    } catch (const ModelError& error) {
      throw row_error(input.name(), static_cast<long>(i + 1), error.what());
    }
  }
  write_lines(output_path, lines);
  return 0;
}

}  // namespace ppk::cli
