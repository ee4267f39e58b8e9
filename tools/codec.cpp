// ppk encode / ppk decode: JSON lines <-> model rows, keeping the order of examples.
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/row.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kEncodeUsage = R"(Usage: ppk encode [FILE] [-o OUTPUT]

Reads one JSON object per line (FILE, or standard input if absent or '-'),
  {"label":1,"family":"gaussian","mean":[0,1],"var":2}
and writes one model row per object, in order: the LIBSVM line
'label index:value ...' that svm-train -t ppk|ppk_norm reads. "label" is
optional (default 0); the other fields are the family's (docs/families.md).
Every object is validated; nothing is written unless all are valid.
)";

constexpr const char* kDecodeUsage = R"(Usage: ppk decode [FILE] [-o OUTPUT]

Reads model rows (FILE, or standard input if absent or '-'), validates each,
and writes one JSON object per row, in order, with the row's "label".
Nothing is written unless every row is valid.
)";

struct CodecArguments {
  std::string input;
  std::string output;
};

// Parses "[FILE] [-o OUTPUT]"; returns false after printing help.
bool parse_codec_arguments(const std::vector<std::string>& args, const char* usage, CodecArguments& parsed) {
  po::options_description options("Options");
  // clang-format off
  options.add_options()
      ("output,o", po::value<std::string>(&parsed.output)->default_value("-")->value_name("OUTPUT"),
       "where to write ('-' = standard output)")
      ("help,h", "this text");
  // clang-format on
  if (wants_help(args)) {
    std::cout << usage << "\n" << options;
    return false;
  }
  po::options_description all = options;
  all.add_options()("file", po::value<std::string>(&parsed.input)->default_value("-"), "FILE");
  po::positional_options_description positional;
  positional.add("file", 1);
  parse_command_line(args, all, positional);
  return true;
}

}  // namespace

int run_encode(const std::vector<std::string>& args) {
  CodecArguments arguments;
  if (!parse_codec_arguments(args, kEncodeUsage, arguments)) return 0;
  InputFile input(arguments.input);
  const std::vector<LabeledModel> models = read_json_lines(input.stream(), input.name());
  std::vector<std::string> lines;
  lines.reserve(models.size());
  for (const LabeledModel& labeled : models) {
    try {
      lines.push_back(format_row_line(labeled.label, encode_row(*labeled.model)));
    } catch (const ModelError& e) {  // a row its reader would refuse (row.hpp, kMaxRowDenseValues)
      throw InputError(input.name() + ":" + std::to_string(labeled.line) + ": " + e.what());
    }
  }
  write_lines(arguments.output, lines);
  return 0;
}

int run_decode(const std::vector<std::string>& args) {
  CodecArguments arguments;
  if (!parse_codec_arguments(args, kDecodeUsage, arguments)) return 0;
  InputFile input(arguments.input);
  const std::vector<LabeledRow> rows = read_rows(input.stream(), input.name());
  std::vector<std::string> lines;
  lines.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::unique_ptr<Model> model = decode_labeled_row(rows[i], input.name(), i + 1);
    try {
      lines.push_back(labeled_model_json_line(rows[i].label, *model));
    } catch (const ModelError& e) {  // a JSON form too large to build (family_fields.cpp, probabilities)
      throw row_error(input.name(), static_cast<long>(i + 1), e.what());
    }
  }
  write_lines(arguments.output, lines);
  return 0;
}

}  // namespace ppk::cli
