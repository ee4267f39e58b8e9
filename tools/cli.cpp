#include "cli.hpp"

#include <cctype>
#include <cmath>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

#include "ppk/core/data.hpp"

namespace ppk::cli {
namespace {

// The flags by option field (use_option_flags), and the mutex of their readers and writers.
std::map<std::string, std::string>& running_command_flags() {
  static std::map<std::string, std::string> flags;
  return flags;
}
std::mutex option_flags_mutex;

// Boost's errors become UsageErrors.
template <class Parse>
po::variables_map parsed_options(const Parse& parse) {
  po::variables_map values;
  try {
    po::store(parse(), values);
    po::notify(values);
  } catch (const po::too_many_positional_options_error&) {
    throw UsageError("too many file arguments");
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return values;
}

bool looks_like_negative_number(const std::string& word) {
  return word.size() >= 2 && word[0] == '-' && (std::isdigit(static_cast<unsigned char>(word[1])) || word[1] == '.');
}

// The option named by `word` ("--name" or "-x") if it exists and takes a value.
bool takes_value(const std::string& word, const po::options_description& options) {
  std::string name;
  if (word.rfind("--", 0) == 0 && word.find('=') == std::string::npos)
    name = word.substr(2);
  else if (word.size() == 2 && word[0] == '-' && word[1] != '-')
    name = word;  // Boost looks short options up as "-x"
  else
    return false;
  const po::option_description* option = options.find_nothrow(name, false);
  return option != nullptr && option->semantic()->max_tokens() > 0;
}

// Boost reads "-1" as an option name; glue a negative value to its option
// ("--var=-1", "-g-1") so that it is parsed, and then rejected by the option's own check.
std::vector<std::string> attach_negative_values(const std::vector<std::string>& args,
                                                const po::options_description& options) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i + 1 < args.size() && takes_value(args[i], options) && looks_like_negative_number(args[i + 1])) {
      out.push_back(args[i] + (args[i].rfind("--", 0) == 0 ? "=" : "") + args[i + 1]);
      ++i;
    } else {
      out.push_back(args[i]);
    }
  }
  return out;
}

std::string system_error() { return std::strerror(errno); }

}  // namespace

void use_option_flags(const OptionFlags& flags) {
  const std::lock_guard<std::mutex> lock(option_flags_mutex);
  for (const auto& [field, flag] : flags) running_command_flags()[field] = flag;
}

std::string message_of(const std::exception& error) {
  const auto* names_fields = dynamic_cast<const NamesOptionFields*>(&error);
  if (names_fields == nullptr) return error.what();
  const std::lock_guard<std::mutex> lock(option_flags_mutex);
  return names_fields->message([](const std::string& field) {
    const auto it = running_command_flags().find(field);
    return it == running_command_flags().end() ? field : it->second;
  });
}

po::variables_map parse_command_line(const std::vector<std::string>& args, const po::options_description& options,
                                     const po::positional_options_description& positional) {
  return parsed_options([&] {
    return po::command_line_parser(attach_negative_values(args, options))
        .options(options)
        .positional(positional)
        .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
        .run();
  });
}

po::variables_map parse_option_keywords(const std::vector<OptionKeyword>& keywords,
                                        const po::options_description& options) {
  return parsed_options([&] {
    po::parsed_options parsed(&options, po::command_line_style::allow_long);  // messages name "--NAME"
    for (const auto& [name, value] : keywords) {
      if (options.find_nothrow(name, false) == nullptr) throw po::unknown_option("--" + name);
      po::option option(name, value ? std::vector<std::string>{*value} : std::vector<std::string>{});
      option.original_tokens = {"--" + name};
      if (value) option.original_tokens.push_back(*value);
      parsed.options.push_back(std::move(option));
    }
    return parsed;
  });
}

bool wants_help(const std::vector<std::string>& args) {
  for (const std::string& word : args)
    if (word == "--help" || word == "-h") return true;
  return false;
}

InputFile::InputFile(const std::string& path) {
  if (path == "-") {
    in_ = &std::cin;
    name_ = "<stdin>";
    return;
  }
  file_.open(path);
  if (!file_) throw InputError("cannot open '" + path + "': " + system_error());
  in_ = &file_;
  name_ = path;
}

FitSource read_fit_source(const std::string& path) {
  InputFile input(path);
  FitSource source;
  source.name = input.name();
  struct stat status {};
  if (path != "-" && ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode)) {
    source.path = path;
    std::string line;
    for (long number = 1; !source.format && std::getline(input.stream(), line); ++number) {
      source.format = detect_format(line);
      if (source.format) source.format->line = number;
    }
  } else {
    source = text_fit_source(
        source.name, std::string(std::istreambuf_iterator<char>(input.stream()), std::istreambuf_iterator<char>()));
  }
  if (input.stream().bad()) throw InputError(source.name + ": read error");
  return source;
}

FitSource text_fit_source(const std::string& name, std::string text) {
  FitSource source;
  source.name = name;
  source.text = std::move(text);
  source.format = detect_format(source.text);
  return source;
}

FitSource example_fit_source(Dataset data) {
  FitSource source;
  source.name = data.source;
  if (!data.examples.empty()) source.format = LineFormat{DataFormat::libsvm, data.grouped, data.examples.front().line};
  source.examples = std::make_shared<const Dataset>(std::move(data));
  return source;
}

std::unique_ptr<std::istream> FitSource::open() const {
  if (path.empty()) return std::make_unique<std::istringstream>(text);
  auto file = std::make_unique<std::ifstream>(path);
  if (!*file) throw InputError("cannot open '" + path + "': " + system_error());
  return file;
}

std::string join_list(const std::vector<std::string>& items, const std::string& last_join) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " " + last_join + " " : ", ") + items[i];
  return out;
}

void check_fit_format(const FitSource& source, const FitFormats& formats, const std::string& command,
                      const std::string& advice) {
  if (!source.format) return;
  const LineFormat& line = *source.format;
  const bool rows = line.format == DataFormat::libsvm;
  if (line.format == DataFormat::unknown || (rows && (line.grouped ? formats.grouped_rows : formats.plain_rows)) ||
      (line.format == DataFormat::fasta && formats.fasta) || (line.format == DataFormat::lines && formats.lines))
    return;
  std::vector<std::string> read;
  if (formats.plain_rows && formats.grouped_rows)
    read.push_back("LIBSVM rows ('label [qid:N] index:value ...')");
  else if (formats.grouped_rows)
    read.push_back("qid-grouped LIBSVM rows (one sequence per run of lines sharing 'label qid:N')");
  else if (formats.plain_rows)
    read.push_back("LIBSVM rows without qid: (one example per line)");
  if (formats.fasta) read.push_back("FASTA");
  if (formats.lines) read.push_back("'LABEL SEQUENCE' lines");
  std::string why = advice;
  if (why.empty())
    why = !rows          ? "symbol sequences (FASTA, 'LABEL SEQUENCE') are read by ppk fit hmm"
          : line.grouped ? "each line is one example: remove the qid: fields"
                         : "give the lines of each sequence one 'qid:N' after the label";
  throw InputError(source.name + ":" + std::to_string(line.line) + ": this line is " + describe_format(line) + ", but " +
                   command + " reads " + join_list(read, "or") + "; " + why);
}

OutputFile::OutputFile(const std::string& path) : path_(path == "-" ? "" : path) {
  if (path_.empty()) return;
  // What is not a regular file (/dev/null, a FIFO, /dev/stdout) or is a symbolic link is written
  // through: renaming a file over it would replace the device, the pipe or the link itself (as
  // root, "-o /dev/null" turned the machine's /dev/null into a regular file).
  struct stat status;
  if (lstat(path_.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) {
    file_.open(path_, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!file_) throw InputError("cannot write '" + path_ + "': " + system_error());
    return;
  }
  std::string pattern = path_ + ".partial-XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0) throw InputError("cannot create a temporary file next to '" + path_ + "': " + system_error());
  // mkstemp creates the file with mode 0600; give it the mode a new file would have.
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  temporary_ = pattern;
  file_.open(temporary_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!file_) {
    std::remove(temporary_.c_str());
    throw InputError("cannot write '" + temporary_ + "': " + system_error());
  }
}

OutputFile::~OutputFile() {
  if (!committed_ && !temporary_.empty()) {
    file_.close();
    std::remove(temporary_.c_str());
  }
}

std::ostream& OutputFile::stream() { return path_.empty() ? std::cout : file_; }

void OutputFile::commit() {
  if (path_.empty()) {
    std::cout.flush();
    if (!std::cout) throw InputError("cannot write to standard output");
    committed_ = true;
    return;
  }
  file_.close();
  const std::string& written = temporary_.empty() ? path_ : temporary_;
  if (file_.fail()) throw InputError("cannot write '" + written + "': " + system_error());
  if (temporary_.empty()) {
    committed_ = true;
    return;
  }
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0)
    throw InputError("cannot rename '" + temporary_ + "' to '" + path_ + "': " + system_error());
  committed_ = true;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  OutputFile output(path);
  std::ostream& out = output.stream();
  for (const std::string& line : lines) out << line << '\n';
  output.commit();
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find(separator, start)) != std::string::npos; start = end + 1)
    parts.push_back(text.substr(start, end - start));
  parts.push_back(text.substr(start));
  return parts;
}

namespace {

// The whole of `text` as read by read(text, &used) (std::stod or std::stol), or nothing.
template <class Number, class Read>
std::optional<Number> parse_whole(const std::string& text, Read read) {
  std::size_t used = 0;
  Number number{};
  try {
    number = read(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || used != text.size()) return std::nullopt;
  return number;
}

}  // namespace

std::optional<double> parse_double(const std::string& text) {
  return parse_whole<double>(text, [](const std::string& t, std::size_t* used) { return std::stod(t, used); });
}

std::optional<long> parse_long(const std::string& text) {
  return parse_whole<long>(text, [](const std::string& t, std::size_t* used) { return std::stol(t, used); });
}

std::string format_double(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

std::string format_shortest(double x) {
  char buffer[32];
  const std::to_chars_result end = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, end.ptr);
}

void add_kernel_options(po::options_description& options, std::string& kind_text, KernelParams& params) {
  // clang-format off
  options.add_options()
      ("kernel-type,t", po::value<std::string>(&kind_text)->value_name("ppk|ppk_norm"),
       "the kernel: ppk (5) or ppk_norm (6); required")
      ("rho,g", po::value<double>(&params.rho)->value_name("RHO"),
       "the exponent rho > 0 (1/2: Bhattacharyya, 1: expected likelihood); required")
      ("length,d", po::value<int>(&params.length)->default_value(0)->value_name("T"),
       "time steps of sequence models (observations x_0..x_T); 0: each model's own length");
  // clang-format on
}

KernelKind kernel_option_values(const po::variables_map& values, const std::string& kind_text,
                                const KernelParams& params) {
  if (!values.count("kernel-type")) throw UsageError("missing -t ppk|ppk_norm");
  KernelKind kind = KernelKind::ppk;
  if (kind_text == "ppk_norm" || kind_text == "6")
    kind = KernelKind::ppk_norm;
  else if (kind_text != "ppk" && kind_text != "5")
    throw UsageError("-t must be ppk (5) or ppk_norm (6), got '" + kind_text + "'");
  if (!values.count("rho")) throw UsageError("missing -g RHO (the kernel's rho > 0)");
  if (!(params.rho > 0) || !std::isfinite(params.rho))
    throw UsageError("-g (rho) must be a finite number > 0, got " + format_double(params.rho));
  if (params.length < 0) throw UsageError("-d (T) must be >= 0, got " + std::to_string(params.length));
  return kind;
}

std::unique_ptr<PreparedModel> prepare_labeled_row(const LabeledRow& row, const std::string& source, long number,
                                                   KernelKind kind, const KernelParams& params) {
  std::unique_ptr<Model> model = decode_labeled_row(row, source, number);
  try {
    auto prepared = std::make_unique<PreparedModel>(std::move(model), params);
    check_finite_kernel_values(kind, *prepared);
    return prepared;
  } catch (const KernelDomainError& e) {
    throw row_error(source, number, e.what());
  }
}

}  // namespace ppk::cli
