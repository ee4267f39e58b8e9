// ppk combine: rows of the same examples, one file per kind of model, into combined rows whose kernel is
// the weighted sum of the parts' normalized kernels (families/combined.hpp).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "combined_rows.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/row.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kCombineUsage = R"usage(Usage: ppk combine [--weights W1,W2,...] A.ppk B.ppk [C.ppk ...] [-o OUTPUT]

Combines model rows of the same examples, one file per kind of model (an HMM
of each sequence in A.ppk, a multinomial of its k-mers in B.ppk, ...), into
combined rows: row j of OUTPUT holds row j of each file as its parts, in the
files' order, with the weights w_i and row j's label. Its kernel is the
weighted sum of the parts' normalized kernels (docs/families.md, combined),
  K(a, b) = sum_i w_i k_i(a_i, b_i) / sqrt(k_i(a_i, a_i) k_i(b_i, b_i)),
each part's kernel at svm-train's rho and T (-g, -d); ppk_norm is K / sum_i w_i.
The files must hold the same examples in the same order (as many rows, the same
labels). Combine the training and the test files alike, with the same weights:
rows of two weightings have no kernel. ppk select --weights chooses the weights
by cross-validation, each part's kernel matrix computed once.
  ppk combine hmm-train.ppk kmers-train.ppk -o train.ppk
  ppk combine hmm-test.ppk kmers-test.ppk -o test.ppk
  svm-train -t ppk_norm -g 0.5 -d 9 train.ppk model
  svm-predict test.ppk model out
Nothing is written unless every row combines.
)usage";

}  // namespace

int run_combine(const std::vector<std::string>& args) {
  std::string weights_text, output = "-";
  std::vector<std::string> inputs;
  po::options_description options("Options");
  // clang-format off
  options.add_options()
      ("weights", po::value<std::string>(&weights_text)->value_name("W1,W2,..."),
       "the parts' weights, one per file, finite and >= 0, summing to more than 0 (default 1 each)")
      ("output,o", po::value<std::string>(&output)->value_name("OUTPUT"),
       "where to write the combined rows ('-' = standard output, the default)")
      ("help,h", "this text");
  // clang-format on
  if (wants_help(args)) {
    std::cout << kCombineUsage << "\n" << options;
    return 0;
  }
  po::options_description all = options;
  all.add_options()("input", po::value<std::vector<std::string>>(&inputs), "the files of rows");
  po::positional_options_description positional;
  positional.add("input", -1);
  const po::variables_map values = parse_command_line(args, all, positional);
  if (inputs.size() < 2)
    throw UsageError(std::string(inputs.empty() ? "no files" : "one file (" + inputs[0] + ")") +
                     ": a combined row holds the rows of two or more files of the same examples");
  std::vector<double> weights(inputs.size(), 1.0);
  if (values.count("weights")) {
    const std::optional<std::vector<double>> parsed = parse_weights(weights_text, ',');
    if (!parsed) throw UsageError("--weights " + weights_text + ": expected comma-separated numbers, e.g. 1,0.5");
    weights = *parsed;
  }
  const std::string problem = weights_problem(weights, inputs.size());
  if (!problem.empty())
    throw UsageError("--weights " + weights_text + ": " + problem + " (one weight per file, " +
                     std::to_string(inputs.size()) + " files)");

  std::vector<std::unique_ptr<InputFile>> files;
  std::vector<std::unique_ptr<RowStream>> streams;
  std::vector<std::string> names;
  for (const std::string& path : inputs) {
    files.push_back(std::make_unique<InputFile>(path));
    names.push_back(files.back()->name());
    streams.push_back(std::make_unique<RowStream>(files.back()->stream(), files.back()->name()));
  }
  OutputFile out(output);
  std::vector<LabeledRow> rows(inputs.size());
  std::vector<const LabeledRow*> pointers;
  for (const LabeledRow& row : rows) pointers.push_back(&row);
  std::vector<std::size_t> counts(inputs.size(), 0);
  for (long number = 1;; ++number) {
    bool all_read = true, any_read = false;
    for (std::size_t i = 0; i < streams.size(); ++i) {
      const bool read = streams[i]->next(rows[i]);
      counts[i] += read;
      all_read = all_read && read;
      any_read = any_read || read;
    }
    if (!all_read) {
      // A file has ended: the others' rows are counted to the end for the message.
      if (any_read)
        for (std::size_t i = 0; i < streams.size(); ++i)
          while (streams[i]->next(rows[i])) ++counts[i];
      check_row_counts(names, counts);
      break;
    }
    const LabeledRow combined = combine_example(names, pointers, number, weights);
    out.stream() << format_row_line(combined.label, combined.row) << '\n';
  }
  if (counts[0] == 0) throw InputError(names[0] + " and the other files: no rows to combine");
  out.commit();
  return 0;
}

}  // namespace ppk::cli
