// libFuzzer harness: the data files of `ppk fit` (LIBSVM rows, qid-grouped sets, FASTA and 'LABEL
// SEQUENCE' lines) and the alphabet file of --alphabet, read by the readers the fit commands use.
// The first byte chooses the reader; the rest is the file.
//
// Properties checked beyond "no crash, no leak, no undefined behaviour" (ASan/UBSan): DataStream
// reads the examples read_data reads; every sequence read holds at least one symbol, each inside the
// alphabet; an alphabet's symbols have their own indices; a detected format is line_format's of the
// first line that is neither blank nor a '#' comment.
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "fuzz_check.hpp"
#include "ppk/core/data.hpp"

namespace {

void read_libsvm(const std::string& text) {
  std::istringstream whole_in(text);
  ppk::Dataset whole;
  try {
    whole = ppk::read_data(whole_in, "<fuzz>");
  } catch (const ppk::InputError&) {
    return;
  }
  std::istringstream stream_in(text);
  ppk::DataStream stream(stream_in, "<fuzz>");
  ppk::Example example;
  std::size_t count = 0;
  try {
    while (stream.next(example)) {
      if (count >= whole.examples.size() || example.line != whole.examples[count].line ||
          example.vectors.size() != whole.examples[count].vectors.size())
        ppk_fuzz::fail("DataStream's example differs from read_data's", std::to_string(count));
      ++count;
    }
  } catch (const ppk::InputError& e) {
    ppk_fuzz::fail("DataStream refuses a file read_data reads", e.what());
  }
  if (count != whole.examples.size() || stream.max_index() != whole.max_index)
    ppk_fuzz::fail("DataStream read a different file than read_data", "");
}

void read_symbols(const std::string& text, std::optional<ppk::SequenceFormat> format, bool with_alphabet) {
  std::optional<ppk::Alphabet> alphabet;
  if (with_alphabet) alphabet.emplace("ACGT", "<alphabet>");
  std::istringstream in(text);
  ppk::SequenceSet set;
  try {
    set = ppk::read_sequences(in, "<fuzz>", format, alphabet);
  } catch (const ppk::InputError&) {
    return;
  }
  if (!set.alphabet) ppk_fuzz::fail("read_sequences returned no alphabet", "");
  for (const ppk::SymbolSequence& sequence : set.sequences) {
    if (sequence.symbols.empty()) ppk_fuzz::fail("read_sequences returned an empty sequence", "");
    for (long symbol : sequence.symbols)
      if (symbol < 0 || symbol >= set.alphabet->size()) ppk_fuzz::fail("a symbol outside the alphabet", "");
  }
}

void read_alphabet_file(const std::string& text) {
  std::istringstream in(text);
  try {
    const ppk::Alphabet alphabet = ppk::read_alphabet(in, "<fuzz>");
    for (long i = 0; i < alphabet.size(); ++i)
      if (alphabet.index(alphabet.symbols()[i]) != i) ppk_fuzz::fail("an alphabet's symbol has another index", "");
  } catch (const ppk::InputError&) {
  }
}

// The file's lines as std::getline splits them (a '\r' before '\n' stays in the line, as it does for
// detect_format): the lines before the detected one are blank or '#' comments, and the detected
// format is line_format's of that line; no format only when every line is blank or a comment.
void detect(const std::string& text) {
  const std::optional<ppk::LineFormat> format = ppk::detect_format(text);
  if (format && format->line < 1) ppk_fuzz::fail("detect_format gave a line number below 1", "");
  std::istringstream in(text);
  std::string line;
  for (long number = 1; std::getline(in, line); ++number) {
    const std::size_t first = line.find_first_not_of(" \t\r\v\f");  // blank: whitespace, CR included
    const bool skipped = first == std::string::npos || line[first] == '#';
    if (format && number == format->line) {
      const ppk::LineFormat own = ppk::line_format(line, number);
      if (skipped || own.format != format->format || own.grouped != format->grouped)
        ppk_fuzz::fail("detect_format's format is not line_format's of the line it names", std::to_string(number));
      ppk::describe_format(*format);
      return;
    }
    if (!skipped)
      ppk_fuzz::fail("detect_format passed over a line that is neither blank nor a comment", std::to_string(number));
  }
  if (format) ppk_fuzz::fail("detect_format named a line past the end of the file", std::to_string(format->line));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 7) {
    case 0: read_libsvm(text); break;
    case 1: read_symbols(text, std::nullopt, false); break;
    case 2: read_symbols(text, ppk::SequenceFormat::fasta, false); break;
    case 3: read_symbols(text, ppk::SequenceFormat::lines, false); break;
    case 4: read_symbols(text, std::nullopt, true); break;
    case 5: read_alphabet_file(text); break;
    default: detect(text); break;
  }
  return 0;
}
