// Reading LIBSVM-format files: data to fit models to, and model rows.
//
// Data files (input of `ppk fit`) hold one example per line,
//     label index:value index:value ...
// or, in the SVMlight convention, one example per run of consecutive lines that
// share `label qid:N`:
//     1 qid:1 1:0.5 2:1.5
//     1 qid:1 1:0.7 2:1.1     <- the same example: a set of two vectors
//     2 qid:2 1:3.0
// A file is grouped when its first data line carries qid:, and then every line
// must. Indices are integers 1..2147483647 in strictly ascending order within a
// line; labels and values are finite numbers. Text after '#' is a comment, and
// lines holding only a comment are skipped (SVMlight); empty lines are errors,
// as they are for LIBSVM's own readers.
//
// Model-row files (input of `ppk gram`, `ppk decode`, svm-train) hold one row per
// line, `label index:value ...`, with no qid, no comments and no empty lines,
// since LIBSVM reads them too: row N is line N.
//
// Every error is an InputError whose message starts with `FILE:LINE: ` (or
// `FILE: row N: ` for a row that parses but does not decode to a valid model).
#pragma once

#include <array>
#include <istream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ppk/core/model.hpp"
#include "ppk/core/option_error.hpp"
#include "ppk/core/row.hpp"

namespace ppk {

// An input file that is not what was expected; the message names the file and line.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// An InputError whose remedy names options by their fields (option_error.hpp): the parameters of
// the reading function ("alphabet", "format").
class InputOptionError : public InputError, public NamesOptionFields {
 public:
  explicit InputOptionError(const std::string& message_template)
      : InputError(with_field_names(message_template)), NamesOptionFields(message_template) {}
};

// One non-zero (or explicitly written) feature of a data vector.
struct Feature {
  long coord;    // 0-based coordinate: LIBSVM index - 1
  double value;  // finite
};
// One data vector in LIBSVM's sparse form; coordinates strictly increasing.
using SparseVector = std::vector<Feature>;

// One example: a single vector (plain file) or the vectors of one qid group.
struct Example {
  double label = 0;
  std::vector<SparseVector> vectors;  // at least one
  long line = 0;                      // the example's first line in its file
  bool has_qid = false;
  long qid = 0;  // the SVMlight query id, when has_qid
};

struct Dataset {
  std::string source;  // the file name used in messages ("<stdin>" for standard input)
  bool grouped = false;
  std::vector<Example> examples;  // in file order
  long max_index = 0;             // the largest LIBSVM index present (0 if none)

  // The error "SOURCE:LINE: what" (or "SOURCE:LINE: qid N: what") about one example.
  InputError error_at(const Example& example, const std::string& what) const;
};

// Reads a data file. Throws InputError "SOURCE:LINE: ...".
Dataset read_data(std::istream& in, const std::string& source);

// read_data one example at a time, holding one example (and in a grouped file the line that starts
// the next): for files of any number of examples.
class DataStream {
 public:
  DataStream(std::istream& in, std::string source);
  ~DataStream();
  // The next example into `example`; false at the end of the input. Throws InputError as read_data.
  bool next(Example& example);
  bool grouped() const;    // whether the first data line carries qid: (false before it is read)
  long max_index() const;  // the largest LIBSVM index read so far (0 if none)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------------------------
// The formats of `ppk fit` input, told apart by one rule for every fit command, line by line:
//   fasta    a FASTA header, '>' first;
//   libsvm   a finite LABEL alone or followed by fields of which one at least is 'qid:N' or
//            'index:value' (index all digits), before an optional '#' comment; grouped when it
//            carries qid: (read_data then checks every field);
//   lines    any other line that starts with a finite LABEL: 'LABEL SEQUENCE';
//   unknown  the rest (no label): whichever reader is used says what is wrong.
// So a 'LABEL SEQUENCE' line whose sequence field holds qid:1 or 1:2.5 is a LIBSVM row, never a
// sequence of the symbols '1', ':', '2', ...
enum class DataFormat { libsvm, fasta, lines, unknown };

struct LineFormat {
  DataFormat format = DataFormat::unknown;
  bool grouped = false;  // libsvm: the line carries qid:
  long line = 0;         // its line number (1-based)
};

// The format of one line (without its terminator).
LineFormat line_format(std::string_view text, long line);

// The format of a file, as its first line that is neither blank nor a '#' comment shows; nothing
// when there is no such line.
std::optional<LineFormat> detect_format(std::string_view text);

// What a line of that format is, for messages: "a FASTA header", "a 'LABEL SEQUENCE' line",
// "a qid-grouped LIBSVM row", "a LIBSVM row without qid:", "a line that starts with no label".
std::string describe_format(const LineFormat& format);

// ---------------------------------------------------------------------------------------------
// Symbol sequences (input of `ppk fit hmm` with discrete emissions), in one of two formats:
//   fasta  a header line '>NAME ... label=VALUE ...' per sequence, the label taken from its
//          label= token (a header without one is an error), then the sequence on any number of
//          lines, concatenated; empty lines are skipped.
//   lines  one sequence per line, 'LABEL SEQUENCE'.
// Whitespace inside a sequence is ignored; every other byte is a symbol. Symbols are
// case-sensitive ('a' and 'A' are different symbols). Labels are finite numbers.

// An alphabet of O single-byte symbols; the i-th character is symbol i (0-based).
class Alphabet {
 public:
  // Throws InputError "WHERE: ..." unless `symbols` is non-empty, holds no whitespace and no
  // symbol twice.
  Alphabet(const std::string& symbols, const std::string& where);
  const std::string& symbols() const { return symbols_; }
  long size() const { return static_cast<long>(symbols_.size()); }
  // The index of `symbol`, or -1 if it is not in the alphabet.
  long index(char symbol) const { return index_[static_cast<unsigned char>(symbol)]; }

 private:
  std::string symbols_;
  std::array<long, 256> index_;
};

// An alphabet file (written by `ppk fit hmm --save-alphabet`): one line holding the symbols.
// Throws InputError "SOURCE:LINE: ...".
Alphabet read_alphabet(std::istream& in, const std::string& source);

enum class SequenceFormat { fasta, lines };

struct SymbolSequence {
  double label = 0;
  std::vector<long> symbols;  // indices into the alphabet; at least one
  long line = 0;              // the header line (fasta) or the sequence's line (lines)
};

struct SequenceSet {
  std::string source;
  SequenceFormat format = SequenceFormat::lines;
  std::optional<Alphabet> alphabet;
  std::vector<SymbolSequence> sequences;  // in file order
};

// Reads sequences in `format`, or, when none is given, fasta if the first non-blank line is a FASTA
// header (detect_format) and lines otherwise. A line of a lines file that is a LIBSVM row
// (line_format) is an InputOptionError "SOURCE:LINE: ..." naming the parameter {format}. With
// `alphabet`, a symbol outside it is an InputOptionError "SOURCE:LINE: column C: symbol 'X'
// (position P of the sequence) is not in the alphabet ...; the alphabet comes from {alphabet}";
// without, the alphabet is the sorted set of the symbols read. Empty sequences and missing labels
// are InputErrors "SOURCE:LINE: ...".
SequenceSet read_sequences(std::istream& in, const std::string& source, std::optional<SequenceFormat> format,
                           const std::optional<Alphabet>& alphabet);

// One model row as read from a file, not yet decoded.
struct LabeledRow {
  double label = 0;
  Row row;
};

// Reads a model-row file (syntax only: labels, indices, finite values).
// Throws InputError "SOURCE:LINE: ...".
std::vector<LabeledRow> read_rows(std::istream& in, const std::string& source);

// read_rows one row at a time, holding one line: for files of any number of rows.
class RowStream {
 public:
  RowStream(std::istream& in, std::string source);
  ~RowStream();
  // The next row into `row`; false at the end of the input. Throws InputError as read_rows.
  bool next(LabeledRow& row);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The error "SOURCE: row N: what" about a row that parsed (row_number is 1-based).
InputError row_error(const std::string& source, long row_number, const std::string& what);

// Decodes and validates row `row_number` (1-based) of `source`.
// Throws InputError "SOURCE: row N: <the ModelError's message>".
std::unique_ptr<Model> decode_labeled_row(const LabeledRow& row, const std::string& source, long row_number);

// "label index:value ..." in full precision, without a newline.
std::string format_row_line(double label, const Row& row);

}  // namespace ppk
