// Pieces shared by the `ppk` subcommands: command-line parsing, input and output files.
#pragma once

#include <fstream>
#include <iosfwd>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>

#include "ppk/core/data.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk::cli {

namespace po = boost::program_options;

// The running command's names for the option fields of the library's messages (ppk/option_error.hpp):
// pairs (field, flag) such as ("alpha", "--alpha"). A field that only one value of a flag sets is
// named by the flag and value: ("prior_rates", "--prior pooled"). Each command's tables sit next to
// the declarations of its options.
using OptionFlags = std::vector<std::pair<std::string, std::string>>;
// Adds `flags` to the process's names (later tables win for a field named twice; every command names
// a field by one flag). Safe to call from several threads at once, as message_of is.
void use_option_flags(const OptionFlags& flags);
// The message of `error` for the user: a library message naming option fields with the running
// command's flags in their place (a field it has no flag for keeps its own name); what() otherwise.
std::string message_of(const std::exception& error);

// A wrong command line (unknown option, missing argument, invalid option value): exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr int kExitData = 1;   // the input is invalid or cannot be read or written
constexpr int kExitUsage = 2;  // the command line is invalid

// Parses `args` (the words after the subcommand) against `options` and
// `positional`. Boost's errors become UsageErrors. A negative number after an
// option that takes a value ("-g -1") is read as that option's value.
po::variables_map parse_command_line(const std::vector<std::string>& args, const po::options_description& options,
                                     const po::positional_options_description& positional);

// An option given by name (without "--") and value, as a program gives it (a keyword argument): the
// value as the command line's word would be (nothing for a switch).
using OptionKeyword = std::pair<std::string, std::optional<std::string>>;
// `keywords` parsed against `options` as parse_command_line parses "--NAME VALUE" words, with its
// checks, defaults and messages: UsageError for an unknown name or a value the option refuses.
po::variables_map parse_option_keywords(const std::vector<OptionKeyword>& keywords,
                                        const po::options_description& options);

// True if the words ask for help (-h or --help anywhere).
bool wants_help(const std::vector<std::string>& args);

// Prints `usage`, then the help text and the options of each entry of `entries` (an array or a
// vector of structs with `name`, `help` and `add_options`: families or likelihoods), or of `only`
// (one of them) when it is not null, then the `common` options.
template <class Entries, class Entry>
void print_help_with_entries(const std::string& usage, const Entries& entries, const Entry* only,
                             const po::options_description& common) {
  std::cout << usage;
  for (const Entry& entry : entries) {
    if (only != nullptr && only != &entry) continue;
    std::cout << entry.help << "\n";
    po::options_description options(std::string(entry.name) + " options");
    entry.add_options(options);
    std::cout << options;
  }
  std::cout << "\n" << common;
}

// The input of a fit command and the format of its first data line (detect_format): every fit
// command checks what it reads with check_fit_format, by the same rule. A regular file is read as far
// as its first data line and opened again to be read (so that a large file can be streamed); standard
// input and pipes are read whole, once.
struct FitSource {
  std::string name;                  // for messages ("<stdin>" for standard input)
  std::string path;                  // the regular file to open again; empty: the input is in `text`
  std::string text;                  // the whole input, when it is not a regular file
  std::optional<LineFormat> format;  // nothing: the file has no data line
  // Examples a program holds already (example_fit_source): read by no parser, `path` and `text` empty.
  std::shared_ptr<const Dataset> examples;
  // The input from its beginning. Throws InputError if the file can no longer be opened.
  std::unique_ptr<std::istream> open() const;
};
FitSource read_fit_source(const std::string& path);  // "-" is standard input
// Input held in memory: `text`, named `name` in messages.
FitSource text_fit_source(const std::string& name, std::string text);
// Examples held in memory, named data.source in messages; their format is that of LIBSVM rows (qid
// groups when data.grouped), its line the first example's.
FitSource example_fit_source(Dataset data);

// The formats a fit command reads.
struct FitFormats {
  bool plain_rows = false;    // LIBSVM rows without qid: (one example per line)
  bool grouped_rows = false;  // qid-grouped LIBSVM rows (one example per group)
  bool fasta = false;
  bool lines = false;  // 'LABEL SEQUENCE'
};

// Throws InputError "NAME:LINE: this line is <its format>, but COMMAND reads <formats>; <advice>"
// unless the source's first data line is in one of `formats` (a line in no format is left to the
// reader, which says what is wrong with it). `advice` replaces the default one (which command reads
// sequences, or how to group the rows).
void check_fit_format(const FitSource& source, const FitFormats& formats, const std::string& command,
                      const std::string& advice = "");

// "a, b and c" (last_join "and"), "a or b", "a".
std::string join_list(const std::vector<std::string>& items, const std::string& last_join);

// An input file; "-" is standard input (named "<stdin>" in messages).
class InputFile {
 public:
  explicit InputFile(const std::string& path);  // throws InputError if it cannot be opened
  std::istream& stream() { return *in_; }
  const std::string& name() const { return name_; }

 private:
  std::ifstream file_;
  std::istream* in_;
  std::string name_;
};

// The output of a subcommand. A file is written to a temporary file next to it
// and renamed into place by commit(), so a failed run leaves no output file (and
// an existing one untouched). "-" (or "") is standard output. An existing path
// that is not a regular file (a device, a FIFO) or is a symbolic link is written
// through, without a temporary file.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // removes the temporary file unless committed

  std::ostream& stream();
  void commit();  // throws InputError on a write error

 private:
  std::string path_;
  std::string temporary_;
  std::ofstream file_;
  bool committed_ = false;
};

// Writes `lines`, each followed by a newline, and commits.
void write_lines(const std::string& path, const std::vector<std::string>& lines);

// The parts of `text` between the separators ("a,b" -> {"a", "b"}; "" -> {""}).
std::vector<std::string> split(const std::string& text, char separator);

// The whole text as a number (std::stod syntax) or a decimal integer (std::stol syntax), or nothing.
std::optional<double> parse_double(const std::string& text);
std::optional<long> parse_long(const std::string& text);

// %.17g: enough digits to read back the same double.
std::string format_double(double x);
// The shortest text that reads back as the same double (0.1, not 0.10000000000000001), for messages.
std::string format_shortest(double x);

// The kernel's options of svm-train, for the commands that evaluate it: -t ppk|ppk_norm (5|6),
// -g RHO, -d T, stored in `kind_text` and `params`.
void add_kernel_options(po::options_description& options, std::string& kind_text, KernelParams& params);
// The kernel kind, once -t and -g are checked as given and valid (else a UsageError saying which).
KernelKind kernel_option_values(const po::variables_map& values, const std::string& kind_text,
                                const KernelParams& params);

// Row `number` (1-based) of `source`, decoded and prepared for the kernel (kind, params), its kernel
// values checked finite (check_finite_kernel_values). InputError "SOURCE: row N: ..." otherwise.
std::unique_ptr<PreparedModel> prepare_labeled_row(const LabeledRow& row, const std::string& source, long number,
                                                   KernelKind kind, const KernelParams& params);

// "gaussian, bernoulli, ..., slds and mi": every FAMILY of `ppk fit` (for `ppk --help`).
std::string fit_family_names();

// The subcommands; `args` are the words after the subcommand's name.
int run_fit(const std::vector<std::string>& args);
int run_fit_mi(const std::vector<std::string>& args);  // ppk fit mi: args after "mi"
int run_encode(const std::vector<std::string>& args);
int run_decode(const std::vector<std::string>& args);
int run_gram(const std::vector<std::string>& args);
int run_montecarlo(const std::vector<std::string>& args);
int run_kgm(const std::vector<std::string>& args);
int run_map(const std::vector<std::string>& args);
int run_select(const std::vector<std::string>& args);
int run_combine(const std::vector<std::string>& args);

}  // namespace ppk::cli
