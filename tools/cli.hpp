// Pieces shared by the `ppk` subcommands: command-line parsing, input and output files.
#pragma once

#include <fstream>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace ppk::cli {

namespace po = boost::program_options;

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
po::variables_map parse_command_line(const std::vector<std::string>& args,
                                     const po::options_description& options,
                                     const po::positional_options_description& positional);

// True if the words ask for help (-h or --help anywhere).
bool wants_help(const std::vector<std::string>& args);

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
// an existing one untouched). "-" (or "") is standard output.
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

// %.17g: enough digits to read back the same double.
std::string format_double(double x);

// The subcommands; `args` are the words after the subcommand's name.
int run_fit(const std::vector<std::string>& args);
int run_encode(const std::vector<std::string>& args);
int run_decode(const std::vector<std::string>& args);
int run_gram(const std::vector<std::string>& args);
int run_montecarlo(const std::vector<std::string>& args);
int run_kgm(const std::vector<std::string>& args);

}  // namespace ppk::cli
