#include "ppk/core/data.hpp"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string_view>

namespace ppk {
namespace {

// A token quoted for a message, shortened if long.
std::string quoted(std::string_view token) {
  constexpr std::size_t kMax = 40;
  if (token.size() > kMax) return "'" + std::string(token.substr(0, kMax)) + "...'";
  return "'" + std::string(token) + "'";
}

// Reads input lines, counting them, and builds "SOURCE:LINE: what" errors.
class LineReader {
 public:
  LineReader(std::istream& in, const std::string& source) : in_(in), source_(source) {}

  // The next line without its terminator (a trailing '\r' of a CRLF file is dropped).
  bool next(std::string& text) {
    if (!std::getline(in_, text)) {
      if (in_.bad()) throw InputError(source_ + ": read error");
      return false;
    }
    ++line_;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    return true;
  }
  long line() const { return line_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(source_ + ":" + std::to_string(line_) + ": " + what);
  }
  // fail() with a message template naming the reading function's options ({alphabet}).
  [[noreturn]] void fail_naming_fields(const std::string& what_template) const {
    throw InputOptionError(escape_braces(source_ + ":" + std::to_string(line_) + ": ") + what_template);
  }

 private:
  std::istream& in_;
  const std::string& source_;
  long line_ = 0;
};

// Splits a line at spaces and tabs.
std::vector<std::string_view> split_tokens(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

enum class NumberStatus { ok, not_a_number, not_finite };

// The whole token as a double (strtod syntax). std::from_chars reads plain decimals (nearly every
// token) without a copy, rounding as strtod does; what it declines ("+1", "0x1p-3", a value out of
// range) goes to strtod.
NumberStatus parse_number(std::string_view token, double& out) {
  if (token.empty()) return NumberStatus::not_a_number;
  const char* const end_of_token = token.data() + token.size();
  const std::from_chars_result decimal = std::from_chars(token.data(), end_of_token, out);
  if (decimal.ec == std::errc() && decimal.ptr == end_of_token)
    return std::isfinite(out) ? NumberStatus::ok : NumberStatus::not_finite;
  std::string text(token);
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return NumberStatus::not_a_number;
  if (!std::isfinite(out)) return NumberStatus::not_finite;
  return NumberStatus::ok;
}

// The whole token as a decimal integer in [0, max]; false if it is not one.
bool parse_whole_number(std::string_view token, long max, long& out) {
  if (token.empty()) return false;
  long value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
    int digit = c - '0';
    if (value > (max - digit) / 10) return false;
    value = value * 10 + digit;
  }
  out = value;
  return true;
}

double parse_label(const LineReader& lines, std::string_view token) {
  double label = 0;
  switch (parse_number(token, label)) {
    case NumberStatus::ok: return label;
    case NumberStatus::not_a_number:
      lines.fail("label " + quoted(token) + " is not a number; expected 'label index:value ...'");
    case NumberStatus::not_finite: lines.fail("label " + quoted(token) + " is not finite; expected a finite number");
  }
  return label;
}

// One `index:value` token; `previous` is the line's previous index (0 at the start).
RowEntry parse_entry(const LineReader& lines, std::string_view token, long previous) {
  std::size_t colon = token.find(':');
  if (colon == std::string_view::npos) lines.fail("expected index:value, got " + quoted(token));
  std::string_view index_text = token.substr(0, colon);
  std::string_view value_text = token.substr(colon + 1);
  long index = 0;
  if (!parse_whole_number(index_text, INT_MAX, index) || index < 1)
    lines.fail("index " + quoted(index_text) + " in " + quoted(token) + " must be an integer from 1 to " +
               std::to_string(INT_MAX));
  if (index <= previous)
    lines.fail("index " + std::to_string(index) + " follows index " + std::to_string(previous) +
               "; indices must be strictly ascending");
  double value = 0;
  switch (parse_number(value_text, value)) {
    case NumberStatus::ok: break;
    case NumberStatus::not_a_number:
      lines.fail("value " + quoted(value_text) + " of index " + std::to_string(index) + " is not a number");
    case NumberStatus::not_finite:
      lines.fail("value " + quoted(value_text) + " of index " + std::to_string(index) +
                 " is not finite; expected a finite number");
  }
  return RowEntry{static_cast<int>(index), value};
}

constexpr std::string_view kQidPrefix = "qid:";

bool is_qid(std::string_view token) { return token.substr(0, kQidPrefix.size()) == kQidPrefix; }

}  // namespace

InputError Dataset::error_at(const Example& example, const std::string& what) const {
  std::string where = source + ":" + std::to_string(example.line) + ": ";
  if (example.has_qid) where += "qid " + std::to_string(example.qid) + ": ";
  return InputError(where + what);
}

namespace {

// One line of a data file: `label [qid:N] index:value ...`.
struct DataLine {
  double label = 0;
  bool has_qid = false;
  long qid = 0;
  SparseVector vector;
  long max_index = 0;  // the line's last (largest) index, 0 if none
};

DataLine parse_data_line(const LineReader& lines, const std::vector<std::string_view>& tokens) {
  DataLine line;
  line.label = parse_label(lines, tokens[0]);
  std::size_t first_feature = 1;
  if (tokens.size() > 1 && is_qid(tokens[1])) {
    std::string_view qid_text = tokens[1].substr(kQidPrefix.size());
    if (!parse_whole_number(qid_text, LONG_MAX, line.qid))
      lines.fail("qid " + quoted(qid_text) + " must be a non-negative integer");
    line.has_qid = true;
    first_feature = 2;
  }
  line.vector.reserve(tokens.size() - first_feature);
  for (std::size_t t = first_feature; t < tokens.size(); ++t) {
    if (is_qid(tokens[t])) lines.fail("qid: must directly follow the label");
    RowEntry entry = parse_entry(lines, tokens[t], line.max_index);
    line.max_index = entry.index;
    line.vector.push_back(Feature{entry.index - 1L, entry.value});
  }
  return line;
}

}  // namespace

struct DataStream::Impl {
  Impl(std::istream& in, std::string name) : source(std::move(name)), lines(in, source) {}
  std::string source;
  LineReader lines;  // holds a reference to source
  std::string text;
  long first_data_line = 0;
  bool grouped = false;
  long max_index = 0;
  std::map<long, long> first_line_of_qid;  // qid -> the line its example starts at
  std::optional<Example> group;            // a grouped file's example whose lines are being read
};

DataStream::DataStream(std::istream& in, std::string source) : impl_(std::make_unique<Impl>(in, std::move(source))) {}
DataStream::~DataStream() = default;

bool DataStream::grouped() const { return impl_->grouped; }

long DataStream::max_index() const { return impl_->max_index; }

bool DataStream::next(Example& out) {
  Impl& state = *impl_;
  LineReader& lines = state.lines;
  while (lines.next(state.text)) {
    std::string_view content(state.text);
    const std::size_t hash = content.find('#');
    const bool has_comment = hash != std::string_view::npos;
    if (has_comment) content = content.substr(0, hash);
    const std::vector<std::string_view> tokens = split_tokens(content);
    if (tokens.empty()) {
      if (has_comment) continue;  // a comment line
      lines.fail("empty line; expected 'label index:value ...'");
    }
    DataLine line = parse_data_line(lines, tokens);
    state.max_index = std::max(state.max_index, line.max_index);

    // A file is grouped or not as its first data line is.
    if (state.first_data_line == 0) {
      state.first_data_line = lines.line();
      state.grouped = line.has_qid;
    } else if (line.has_qid != state.grouped) {
      std::string first = "line " + std::to_string(state.first_data_line) + " (the first data line)";
      lines.fail(
          (line.has_qid ? "qid: on this line but not on " + first : "no qid: on this line but " + first + " has one") +
          "; either every line carries qid: or none does");
    }

    // The next line of the current group.
    if (line.has_qid && state.group && state.group->qid == line.qid) {
      Example& example = *state.group;
      if (line.label != example.label)
        lines.fail("label " + std::string(tokens[0]) + " differs from label " + format_label(example.label) +
                   " of the qid " + std::to_string(line.qid) + " example that starts at line " +
                   std::to_string(example.line) + "; the lines of one example must share its label");
      example.vectors.push_back(std::move(line.vector));
      continue;
    }
    // A new example: in a grouped file it ends the current group, which is then complete.
    if (line.has_qid) {
      auto [it, inserted] = state.first_line_of_qid.emplace(line.qid, lines.line());
      if (!inserted)
        lines.fail("qid " + std::to_string(line.qid) + " was already used by the example at line " +
                   std::to_string(it->second) + "; the lines of one example must be consecutive");
    }
    Example example;
    example.label = line.label;
    example.line = lines.line();
    example.has_qid = line.has_qid;
    example.qid = line.qid;
    example.vectors.push_back(std::move(line.vector));
    if (!line.has_qid) {
      out = std::move(example);
      return true;
    }
    const bool complete = state.group.has_value();
    if (complete) out = std::move(*state.group);
    state.group = std::move(example);
    if (complete) return true;
  }
  if (!state.group) return false;
  out = std::move(*state.group);
  state.group.reset();
  return true;
}

Dataset read_data(std::istream& in, const std::string& source) {
  DataStream stream(in, source);
  Dataset data;
  data.source = source;
  Example example;
  while (stream.next(example)) data.examples.push_back(std::move(example));
  data.grouped = stream.grouped();
  data.max_index = stream.max_index();
  return data;
}

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// An 'index:value' token by its shape: digits, a colon, then something (read_data checks the rest).
bool looks_like_entry(std::string_view token) {
  const std::size_t colon = token.find(':');
  return colon != 0 && colon != std::string_view::npos && colon + 1 < token.size() &&
         std::all_of(token.begin(), token.begin() + static_cast<std::ptrdiff_t>(colon), is_digit);
}

}  // namespace

LineFormat line_format(std::string_view text, long line) {
  LineFormat out;
  out.line = line;
  if (!text.empty() && text[0] == '>') {
    out.format = DataFormat::fasta;
    return out;
  }
  const std::vector<std::string_view> tokens = split_tokens(text.substr(0, text.find('#')));
  double label = 0;
  if (tokens.empty() || parse_number(tokens[0], label) != NumberStatus::ok) return out;
  // A label alone is a LIBSVM row of no features; one qid:N or index:value field makes a LIBSVM row
  // (whose other fields read_data checks), none a sequence.
  bool entries = tokens.size() == 1;
  for (std::size_t t = 1; t < tokens.size(); ++t) {
    out.grouped = out.grouped || is_qid(tokens[t]);
    entries = entries || out.grouped || looks_like_entry(tokens[t]);
  }
  out.format = entries ? DataFormat::libsvm : DataFormat::lines;
  return out;
}

std::optional<LineFormat> detect_format(std::string_view text) {
  long line = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view content = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line;
    const auto first = std::find_if_not(content.begin(), content.end(), is_blank);
    if (first == content.end() || *first == '#') continue;  // blank, or a comment
    return line_format(content, line);
  }
  return std::nullopt;
}

std::string describe_format(const LineFormat& format) {
  switch (format.format) {
    case DataFormat::fasta: return "a FASTA header";
    case DataFormat::lines: return "a 'LABEL SEQUENCE' line";
    case DataFormat::libsvm: return format.grouped ? "a qid-grouped LIBSVM row" : "a LIBSVM row without qid:";
    case DataFormat::unknown: break;
  }
  return "a line that does not start with a label (a number)";
}

namespace {

// A symbol for messages: 'A', or byte 0x07 when it is not printable.
std::string describe_symbol(char symbol) {
  const auto byte = static_cast<unsigned char>(symbol);
  if (byte >= 0x21 && byte < 0x7f) return "'" + std::string(1, symbol) + "'";
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "byte 0x%02x", byte);
  return buffer;
}

}  // namespace

Alphabet::Alphabet(const std::string& symbols, const std::string& where) : symbols_(symbols) {
  index_.fill(-1);
  if (symbols.empty()) throw InputError(where + ": the alphabet is empty; expected its symbols, e.g. ACGT");
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    if (is_blank(symbols[i]))
      throw InputError(where + ": the alphabet holds whitespace at position " + std::to_string(i + 1) +
                       "; expected single-character symbols with nothing between them, e.g. ACGT");
    long& index = index_[static_cast<unsigned char>(symbols[i])];
    if (index >= 0)
      throw InputError(where + ": symbol " + describe_symbol(symbols[i]) + " appears twice in the alphabet (positions " +
                       std::to_string(index + 1) + " and " + std::to_string(i + 1) + ")");
    index = static_cast<long>(i);
  }
}

Alphabet read_alphabet(std::istream& in, const std::string& source) {
  LineReader lines(in, source);
  std::optional<Alphabet> alphabet;
  std::string text;
  while (lines.next(text)) {
    if (text.empty()) continue;
    if (alphabet) lines.fail("an alphabet file holds one line, the symbols; this is a second one");
    alphabet.emplace(text, source + ":" + std::to_string(lines.line()));
  }
  if (!alphabet) throw InputError(source + ": no alphabet; expected one line holding the symbols, e.g. ACGT");
  return *alphabet;
}

namespace {

// Builds a SequenceSet line by line.
class SequenceBuilder {
 public:
  SequenceBuilder(const LineReader& lines, const std::string& source, const std::optional<Alphabet>& alphabet)
      : lines_(lines), source_(source), alphabet_(alphabet) {}

  void start(double label) {
    finish();
    sequences_.push_back(SymbolSequence{label, {}, lines_.line()});
  }
  // The symbols of `text`, which starts at byte `column` (0-based) of the current line.
  void add(std::string_view text, std::size_t column) {
    SymbolSequence& sequence = sequences_.back();
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char symbol = text[i];
      if (is_blank(symbol)) continue;
      if (!alphabet_) {
        sequence.symbols.push_back(static_cast<unsigned char>(symbol));
        seen_[static_cast<unsigned char>(symbol)] = true;
        continue;
      }
      const long index = alphabet_->index(symbol);
      if (index < 0) unknown(symbol, column + i, sequence.symbols.size() + 1);
      sequence.symbols.push_back(index);
    }
  }
  // Checks the last sequence; then the set, with the symbols mapped to the alphabet read.
  SequenceSet result(SequenceFormat format) {
    finish();
    SequenceSet set;
    set.source = source_;
    set.format = format;
    if (alphabet_) {
      set.alphabet = alphabet_;
    } else {
      std::string symbols;
      for (int byte = 0; byte < 256; ++byte)
        if (seen_[byte]) symbols.push_back(static_cast<char>(byte));
      if (symbols.empty()) throw InputError(source_ + ": no sequences");
      set.alphabet.emplace(symbols, source_);
      for (SymbolSequence& sequence : sequences_)
        for (long& symbol : sequence.symbols) symbol = set.alphabet->index(static_cast<char>(symbol));
    }
    set.sequences = std::move(sequences_);
    return set;
  }
  bool started() const { return !sequences_.empty(); }

 private:
  void finish() const {
    if (!sequences_.empty() && sequences_.back().symbols.empty())
      throw InputError(source_ + ":" + std::to_string(sequences_.back().line) +
                       ": the sequence is empty; expected at least one symbol");
  }
  [[noreturn]] void unknown(char symbol, std::size_t column, std::size_t position) const {
    std::string what = "column " + std::to_string(column + 1) + ": symbol " + describe_symbol(symbol) + " (position " +
                       std::to_string(position) + " of the sequence) is not in the alphabet '" + alphabet_->symbols() +
                       "'";
    const char other_case = static_cast<char>(std::isupper(static_cast<unsigned char>(symbol))
                                                  ? std::tolower(static_cast<unsigned char>(symbol))
                                                  : std::toupper(static_cast<unsigned char>(symbol)));
    if (other_case != symbol && alphabet_->index(other_case) >= 0) what += " (symbols are case-sensitive)";
    lines_.fail_naming_fields(escape_braces(what) + "; the alphabet comes from {alphabet}");
  }
  const LineReader& lines_;
  const std::string& source_;
  const std::optional<Alphabet>& alphabet_;
  std::vector<SymbolSequence> sequences_;
  std::array<bool, 256> seen_{};
};

// The label of a FASTA header: its one label=VALUE token.
double fasta_label(const LineReader& lines, std::string_view header) {
  constexpr std::string_view kLabel = "label=";
  std::optional<double> label;
  for (std::string_view token : split_tokens(header)) {
    if (token.substr(0, kLabel.size()) != kLabel) continue;
    if (label) lines.fail("the header has two label= tokens; expected one");
    const std::string_view value = token.substr(kLabel.size());
    double number = 0;
    if (parse_number(value, number) != NumberStatus::ok)
      lines.fail("label " + quoted(value) + " in the header is not a finite number");
    label = number;
  }
  if (!label) lines.fail("the header has no label=VALUE token; expected e.g. '>seq1 label=1'");
  return *label;
}

}  // namespace

SequenceSet read_sequences(std::istream& in, const std::string& source, std::optional<SequenceFormat> format,
                           const std::optional<Alphabet>& alphabet) {
  LineReader lines(in, source);
  SequenceBuilder builder(lines, source, alphabet);
  std::string text;
  while (lines.next(text)) {
    std::string_view content(text);
    const bool blank = std::all_of(content.begin(), content.end(), is_blank);
    if (!format) {
      if (blank) continue;
      format =
          line_format(content, lines.line()).format == DataFormat::fasta ? SequenceFormat::fasta : SequenceFormat::lines;
    }
    if (*format == SequenceFormat::fasta) {
      if (blank) continue;
      if (content[0] == '>') {
        builder.start(fasta_label(lines, content.substr(1)));
      } else {
        if (!builder.started()) lines.fail("expected a FASTA header line '>NAME label=VALUE' before the sequence");
        builder.add(content, 0);
      }
      continue;
    }
    const std::vector<std::string_view> tokens = split_tokens(content);
    if (tokens.empty()) lines.fail("empty line; expected 'LABEL SEQUENCE'");
    if (tokens.size() > 1) {
      const LineFormat this_line = line_format(content, lines.line());
      if (this_line.format == DataFormat::libsvm)
        lines.fail_naming_fields(escape_braces("this line is " + describe_format(this_line)) +
                                 ", not 'LABEL SEQUENCE': its fields are index:value pairs, not symbols; LIBSVM "
                                 "vectors are read with {format} libsvm");
    }
    double label = 0;
    if (parse_number(tokens[0], label) != NumberStatus::ok)
      lines.fail("label " + quoted(tokens[0]) + " is not a finite number; expected 'LABEL SEQUENCE'");
    builder.start(label);
    const std::size_t after_label = static_cast<std::size_t>(tokens[0].data() - content.data()) + tokens[0].size();
    builder.add(content.substr(after_label), after_label);
  }
  return builder.result(format.value_or(SequenceFormat::lines));
}

struct RowStream::Impl {
  Impl(std::istream& in, std::string name) : source(std::move(name)), lines(in, source) {}
  std::string source;
  LineReader lines;  // holds a reference to source
  std::string text;
};

RowStream::RowStream(std::istream& in, std::string source) : impl_(std::make_unique<Impl>(in, std::move(source))) {}
RowStream::~RowStream() = default;

bool RowStream::next(LabeledRow& row) {
  LineReader& lines = impl_->lines;
  if (!lines.next(impl_->text)) return false;
  const std::vector<std::string_view> tokens = split_tokens(impl_->text);
  if (tokens.empty()) lines.fail("empty line; expected a model row 'label index:value ...'");
  row.label = parse_label(lines, tokens[0]);
  row.row.clear();
  row.row.reserve(tokens.size() - 1);
  long previous = 0;
  for (std::size_t t = 1; t < tokens.size(); ++t) {
    if (is_qid(tokens[t])) lines.fail("qid: has no place in a model row");
    RowEntry entry = parse_entry(lines, tokens[t], previous);
    previous = entry.index;
    row.row.push_back(entry);
  }
  return true;
}

std::vector<LabeledRow> read_rows(std::istream& in, const std::string& source) {
  std::vector<LabeledRow> rows;
  RowStream stream(in, source);
  LabeledRow row;
  while (stream.next(row)) rows.push_back(std::move(row));
  return rows;
}

InputError row_error(const std::string& source, long row_number, const std::string& what) {
  return InputError(source + ": row " + std::to_string(row_number) + ": " + what);
}

std::unique_ptr<Model> decode_labeled_row(const LabeledRow& row, const std::string& source, long row_number) {
  try {
    return decode_row(row.row);
  } catch (const ModelError& e) {
    throw row_error(source, row_number, e.what());
  }
}

std::string format_row_line(double label, const Row& row) {
  std::string line = format_label(label);
  if (!row.empty()) line += " " + format_entries(row);
  return line;
}

}  // namespace ppk
