// ppk gram: the kernel matrix between the model rows of two files.
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "ppk/data.hpp"
#include "ppk/kernel.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kGramUsage = R"(Usage: ppk gram -t ppk|ppk_norm -g RHO [-d T] A [B] [-o OUTPUT]

Writes the kernel matrix K(i, j) = k(row i of A, row j of B) between the model
rows of A and B (B = A if absent; '-' = standard input for one of them): one
matrix row per line, values separated by single spaces, each printed with %.17g
so that it reads back as the same double; nothing else.
  ppk       k_rho(p, p') = integral of p(x)^rho p'(x)^rho dx        (-t 5)
  ppk_norm  k_rho(p, p') / sqrt(k_rho(p, p) k_rho(p', p'))           (-t 6)
These are svm-train's -t, -g and -d. Each row is decoded and validated once.
)";

KernelKind parse_kernel_kind(const std::string& text) {
  if (text == "ppk" || text == "5") return KernelKind::ppk;
  if (text == "ppk_norm" || text == "6") return KernelKind::ppk_norm;
  throw UsageError("-t must be ppk (5) or ppk_norm (6), got '" + text + "'");
}

// A file's rows, decoded and prepared for the kernel parameters.
struct PreparedFile {
  std::string name;
  std::vector<std::unique_ptr<PreparedModel>> models;
};

PreparedFile prepare_file(const std::string& path, KernelKind kind, const KernelParams& params) {
  InputFile input(path);
  const std::vector<LabeledRow> rows = read_rows(input.stream(), input.name());
  PreparedFile file;
  file.name = input.name();
  file.models.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::unique_ptr<Model> model = decode_labeled_row(rows[i], file.name, i + 1);
    try {
      file.models.push_back(std::make_unique<PreparedModel>(std::move(model), params));
      check_finite_kernel_values(kind, *file.models.back());
    } catch (const KernelDomainError& e) {
      throw row_error(file.name, i + 1, e.what());
    }
  }
  return file;
}

// "A: row i and B: row j" for messages.
std::string pair_name(const PreparedFile& a, std::size_t i, const PreparedFile& b, std::size_t j) {
  return a.name + ": row " + std::to_string(i + 1) + " and " + b.name + ": row " +
         std::to_string(j + 1);
}

// k(a_i, b_j), checked for compatibility and finiteness.
double kernel_entry(KernelKind kind, const PreparedFile& a, std::size_t i, const PreparedFile& b,
                    std::size_t j) {
  const PreparedModel& left = *a.models[i];
  const PreparedModel& right = *b.models[j];
  double value = 0;
  try {
    check_compatible(left.model(), right.model());
    value = evaluate(kind, left, right);
  } catch (const KernelDomainError& e) {
    throw InputError(pair_name(a, i, b, j) + ": " + e.what());
  }
  if (!std::isfinite(value))
    throw InputError(pair_name(a, i, b, j) + ": the kernel value " + format_double(value) +
                     " is not finite");
  return value;
}

}  // namespace

int run_gram(const std::vector<std::string>& args) {
  std::string kind_text, output_path, path_a, path_b;
  KernelParams params;
  po::options_description options("Options");
  options.add_options()
      ("kernel-type,t", po::value<std::string>(&kind_text)->value_name("ppk|ppk_norm"),
       "the kernel: ppk (5) or ppk_norm (6); required")
      ("rho,g", po::value<double>(&params.rho)->value_name("RHO"),
       "the exponent rho > 0 (1/2: Bhattacharyya, 1: expected likelihood); required")
      ("length,d", po::value<int>(&params.length)->default_value(0)->value_name("T"),
       "time steps of sequence models (observations x_0..x_T); 0: each model's own length")
      ("output,o", po::value<std::string>(&output_path)->default_value("-")->value_name("OUTPUT"),
       "where to write the matrix ('-' = standard output)")
      ("help,h", "this text");
  if (wants_help(args)) {
    std::cout << kGramUsage << "\n" << options;
    return 0;
  }
  po::options_description all = options;
  all.add_options()("a", po::value<std::string>(&path_a), "A")("b", po::value<std::string>(&path_b),
                                                               "B");
  po::positional_options_description positional;
  positional.add("a", 1).add("b", 1);
  const po::variables_map values = parse_command_line(args, all, positional);
  if (!values.count("kernel-type")) throw UsageError("missing -t ppk|ppk_norm");
  const KernelKind kind = parse_kernel_kind(kind_text);
  if (!values.count("rho")) throw UsageError("missing -g RHO (the kernel's rho > 0)");
  if (!(params.rho > 0) || !std::isfinite(params.rho))
    throw UsageError("-g (rho) must be a finite number > 0, got " + format_double(params.rho));
  if (params.length < 0)
    throw UsageError("-d (T) must be >= 0, got " + std::to_string(params.length));
  if (!values.count("a")) throw UsageError("missing A, the file of model rows");
  const bool against_self = !values.count("b");
  if (!against_self && path_a == "-" && path_b == "-")
    throw UsageError("A and B cannot both be standard input");

  const PreparedFile a = prepare_file(path_a, kind, params);
  const PreparedFile b_file = against_self ? PreparedFile{} : prepare_file(path_b, kind, params);
  const PreparedFile& b = against_self ? a : b_file;

  // Every pair must have a kernel; checking row 1 of each file against all rows
  // of the other finds the usual mistake (files of different dimension or family)
  // before anything is written.
  if (!a.models.empty() && !b.models.empty()) {
    for (std::size_t j = 0; j < b.models.size(); ++j) kernel_entry(kind, a, 0, b, j);
    for (std::size_t i = 0; i < a.models.size(); ++i) kernel_entry(kind, a, i, b, 0);
  }

  OutputFile output(output_path);
  std::ostream& out = output.stream();
  std::string line;
  for (std::size_t i = 0; i < a.models.size(); ++i) {
    line.clear();
    for (std::size_t j = 0; j < b.models.size(); ++j) {
      // Against itself the matrix is exactly symmetric: (i, j) and (j, i) are one evaluation order.
      const double value = (against_self && j < i) ? kernel_entry(kind, a, j, a, i)
                                                   : kernel_entry(kind, a, i, b, j);
      if (j > 0) line += ' ';
      line += format_double(value);
    }
    line += '\n';
    out << line;
  }
  output.commit();
  return 0;
}

}  // namespace ppk::cli
