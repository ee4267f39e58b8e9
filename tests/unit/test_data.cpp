// Reading LIBSVM data files and model-row files (data.hpp).
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "error_message.hpp"
#include "ppk/core/data.hpp"

namespace ppk {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

Dataset read_text(const std::string& text) {
  std::istringstream in(text);
  return read_data(in, "train.txt");
}

std::vector<LabeledRow> read_row_text(const std::string& text) {
  std::istringstream in(text);
  return read_rows(in, "rows.txt");
}

// The message of the InputError that reading `text` throws ("" if none).
template <class Read>
std::string error_of(Read read, const std::string& text) {
  return checks::error_message<InputError>([&] { read(text); });
}

std::string data_error(const std::string& text) { return error_of(read_text, text); }
std::string row_error_message(const std::string& text) { return error_of(read_row_text, text); }

TEST(DataFile, PlainRowsAreOneVectorPerExample) {
  const Dataset data = read_text("1 1:0.5 3:-2\n-1 2:4e-1\n+2\n");
  EXPECT_EQ(data.source, "train.txt");
  EXPECT_FALSE(data.grouped);
  ASSERT_EQ(data.examples.size(), 3u);
  EXPECT_EQ(data.max_index, 3);

  const Example& first = data.examples[0];
  EXPECT_EQ(first.label, 1);
  EXPECT_EQ(first.line, 1);
  ASSERT_EQ(first.vectors.size(), 1u);
  ASSERT_EQ(first.vectors[0].size(), 2u);
  EXPECT_EQ(first.vectors[0][0].coord, 0);  // index 1 is coordinate 0
  EXPECT_EQ(first.vectors[0][0].value, 0.5);
  EXPECT_EQ(first.vectors[0][1].coord, 2);
  EXPECT_EQ(first.vectors[0][1].value, -2);

  EXPECT_EQ(data.examples[1].label, -1);
  EXPECT_EQ(data.examples[1].vectors[0][0].value, 0.4);
  EXPECT_EQ(data.examples[2].label, 2);
  EXPECT_TRUE(data.examples[2].vectors[0].empty());  // a label alone is the zero vector
}

TEST(DataFile, QidGroupsAreOneExampleEach) {
  const Dataset data = read_text(
      "1 qid:7 1:1 2:2\n"
      "1 qid:7 2:3\n"
      "1 qid:7 1:4\n"
      "-1 qid:2 1:5\n"
      "1 qid:3 2:6\n"
      "1 qid:3 2:7\n");
  EXPECT_TRUE(data.grouped);
  ASSERT_EQ(data.examples.size(), 3u);
  EXPECT_EQ(data.examples[0].qid, 7);
  EXPECT_EQ(data.examples[0].line, 1);
  EXPECT_EQ(data.examples[0].vectors.size(), 3u);
  EXPECT_EQ(data.examples[0].vectors[1][0].coord, 1);
  EXPECT_EQ(data.examples[0].vectors[1][0].value, 3);
  EXPECT_EQ(data.examples[1].label, -1);
  EXPECT_EQ(data.examples[1].line, 4);
  EXPECT_EQ(data.examples[1].vectors.size(), 1u);
  EXPECT_EQ(data.examples[2].line, 5);
  EXPECT_EQ(data.examples[2].vectors.size(), 2u);
  EXPECT_TRUE(data.examples[2].has_qid);
}

TEST(DataFile, CommentsTabsAndCrLfAreAccepted) {
  const Dataset data = read_text("# a comment line\n1\t1:2  2:3 # trailing\r\n   # indented\n0 1:1\r\n");
  ASSERT_EQ(data.examples.size(), 2u);
  EXPECT_EQ(data.examples[0].line, 2);
  EXPECT_EQ(data.examples[0].vectors[0].size(), 2u);
  EXPECT_EQ(data.examples[1].line, 4);
}

TEST(DataFile, EmptyInputHasNoExamples) {
  const Dataset data = read_text("");
  EXPECT_TRUE(data.examples.empty());
  EXPECT_EQ(data.max_index, 0);
}

TEST(DataFile, ErrorsNameFileLineAndWhatWasExpected) {
  EXPECT_THAT(data_error("1 1:1\nabc 1:1\n"), HasSubstr("train.txt:2: label 'abc' is not a number"));
  EXPECT_THAT(data_error("nan 1:1\n"), HasSubstr("train.txt:1: label 'nan' is not finite"));
  EXPECT_THAT(data_error("1 1:1\n2 3\n"), HasSubstr("train.txt:2: expected index:value, got '3'"));
  EXPECT_THAT(data_error("1 0:1\n"), HasSubstr("train.txt:1: index '0' in '0:1' must be an integer from 1"));
  EXPECT_THAT(data_error("1 -2:1\n"), HasSubstr("index '-2'"));
  EXPECT_THAT(data_error("1 x:1\n"), HasSubstr("index 'x'"));
  EXPECT_THAT(data_error("1 1.5:1\n"), HasSubstr("index '1.5'"));
  EXPECT_THAT(data_error("1 2147483648:1\n"), HasSubstr("index '2147483648'"));
  EXPECT_THAT(data_error("1 3:1 2:1\n"),
              HasSubstr("train.txt:1: index 2 follows index 3; indices must be strictly ascending"));
  EXPECT_THAT(data_error("1 3:1 3:1\n"), HasSubstr("index 3 follows index 3"));
  EXPECT_THAT(data_error("1\n1 2:NaN\n"), HasSubstr("train.txt:2: value 'NaN' of index 2 is not finite"));
  EXPECT_THAT(data_error("1 2:inf\n"), HasSubstr("value 'inf' of index 2 is not finite"));
  EXPECT_THAT(data_error("1 2:1e999\n"), HasSubstr("value '1e999' of index 2 is not finite"));
  EXPECT_THAT(data_error("1 2:\n"), HasSubstr("value '' of index 2 is not a number"));
  EXPECT_THAT(data_error("1 2:1x\n"), HasSubstr("value '1x' of index 2 is not a number"));
  EXPECT_THAT(data_error("1 1:1\n\n"), HasSubstr("train.txt:2: empty line"));
}

TEST(DataFile, QidErrors) {
  EXPECT_THAT(data_error("1 qid:1 1:1\n2 qid:1 1:2\n"),
              HasSubstr("train.txt:2: label 2 differs from label 1 of the qid 1 example that "
                        "starts at line 1"));
  EXPECT_THAT(data_error("1 qid:1 1:1\n1 qid:2 1:1\n1 qid:1 1:1\n"),
              HasSubstr("train.txt:3: qid 1 was already used by the example at line 1"));
  EXPECT_THAT(data_error("1 1:1\n1 qid:1 1:1\n"), HasSubstr("train.txt:2: qid: on this line but not on line 1"));
  EXPECT_THAT(data_error("1 qid:1 1:1\n1 1:1\n"), HasSubstr("train.txt:2: no qid: on this line but line 1"));
  EXPECT_THAT(data_error("1 qid:x 1:1\n"), HasSubstr("train.txt:1: qid 'x' must be a non-negative integer"));
  EXPECT_THAT(data_error("1 1:1 qid:1\n"), HasSubstr("qid: must directly follow the label"));
}

TEST(DataFile, ErrorAtNamesTheExample) {
  const Dataset grouped = read_text("1 qid:4 1:1\n1 qid:4 1:2\n");
  EXPECT_EQ(std::string(grouped.error_at(grouped.examples[0], "bad").what()), "train.txt:1: qid 4: bad");
  const Dataset plain = read_text("1 1:1\n2 1:2\n");
  EXPECT_EQ(std::string(plain.error_at(plain.examples[1], "bad").what()), "train.txt:2: bad");
}

// DataStream hands out each example as soon as it is complete: a plain line at once, a qid group
// when the line after it starts another (or the input ends), with the lines it started at.
TEST(DataStream, GivesExamplesOneAtATimeAsTheyComplete) {
  std::istringstream in(
      "1 qid:4 1:1 3:2\n"
      "1 qid:4 2:5\n"
      "# a comment\n"
      "-1 qid:9 7:1\n"
      "2 qid:3 1:0.5\n"
      "2 qid:3 2:0.25\n");
  DataStream stream(in, "sets.txt");
  Example example;
  ASSERT_TRUE(stream.next(example));
  EXPECT_TRUE(stream.grouped());
  EXPECT_EQ(example.label, 1);
  EXPECT_EQ(example.qid, 4);
  EXPECT_EQ(example.line, 1);
  ASSERT_EQ(example.vectors.size(), 2u);
  EXPECT_EQ(example.vectors[1][0].coord, 1);
  EXPECT_EQ(example.vectors[1][0].value, 5);
  EXPECT_EQ(stream.max_index(), 7);  // the line that ended the group is read
  ASSERT_TRUE(stream.next(example));
  EXPECT_EQ(example.qid, 9);
  EXPECT_EQ(example.line, 4);
  EXPECT_EQ(example.vectors.size(), 1u);
  ASSERT_TRUE(stream.next(example));
  EXPECT_EQ(example.qid, 3);
  EXPECT_EQ(example.line, 5);
  EXPECT_EQ(example.vectors.size(), 2u);
  EXPECT_FALSE(stream.next(example));
  EXPECT_FALSE(stream.next(example));

  std::istringstream plain("1 2:1\n-1 5:2\n");
  DataStream rows(plain, "rows.txt");
  ASSERT_TRUE(rows.next(example));
  EXPECT_FALSE(rows.grouped());
  EXPECT_EQ(rows.max_index(), 2);  // nothing read beyond the example handed out
  ASSERT_TRUE(rows.next(example));
  EXPECT_EQ(example.label, -1);
  EXPECT_EQ(example.line, 2);
  EXPECT_FALSE(rows.next(example));
}

// The examples before a bad line are handed out; the bad line's error names it when it is reached.
TEST(DataStream, AnErrorComesWhenItsLineIsRead) {
  std::istringstream in("1 1:1\n1 2:1\n1 3:x\n");
  DataStream stream(in, "docs.txt");
  Example example;
  ASSERT_TRUE(stream.next(example));
  ASSERT_TRUE(stream.next(example));
  try {
    stream.next(example);
    FAIL() << "line 3 was accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("docs.txt:3:"), HasSubstr("value 'x' of index 3 is not a number")));
  }
}

TEST(RowFile, ReadsLabelsAndEntries) {
  const std::vector<LabeledRow> rows = read_row_text("1 1:1 2:3 5:0.25\n-2.5 1:1\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, 1);
  ASSERT_EQ(rows[0].row.size(), 3u);
  EXPECT_EQ(rows[0].row[2].index, 5);  // model rows keep LIBSVM's 1-based indices
  EXPECT_EQ(rows[0].row[2].value, 0.25);
  EXPECT_EQ(rows[1].label, -2.5);
}

TEST(RowFile, RejectsWhatLibsvmCannotRead) {
  EXPECT_THAT(row_error_message("1 1:1\n\n"), HasSubstr("rows.txt:2: empty line"));
  EXPECT_THAT(row_error_message("1 qid:1 1:1\n"), HasSubstr("rows.txt:1: qid: has no place in a model row"));
  EXPECT_THAT(row_error_message("1 1:1\n1 2:1 1:1\n"), HasSubstr("rows.txt:2: index 1 follows index 2"));
  EXPECT_THAT(row_error_message("1 1:1 2:nan\n"), HasSubstr("rows.txt:1: value 'nan' of index 2 is not finite"));
}

TEST(RowFile, DecodeErrorsNameTheRow) {
  LabeledRow row;
  row.row = {{1, 99.0}, {2, 1.0}};  // format version 99 does not exist
  try {
    decode_labeled_row(row, "rows.txt", 4);
    FAIL() << "a row with format version 99 decoded";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("rows.txt: row 4: "));
  }
}

TEST(RowFile, FormatRowLine) {
  EXPECT_EQ(format_row_line(1, Row{{1, 1.0}, {3, 0.1}}), "1 1:1 3:0.1");
  EXPECT_EQ(format_row_line(-0.5, Row{}), "-0.5");
}

// ---------------------------------------------------------------------------------------------
// Symbol sequences (read_sequences, Alphabet, read_alphabet).

SequenceSet read_sequence_text(const std::string& text, std::optional<SequenceFormat> format = std::nullopt,
                               const std::optional<Alphabet>& alphabet = std::nullopt) {
  std::istringstream in(text);
  return read_sequences(in, "seqs.txt", format, alphabet);
}

std::string sequence_error(const std::string& text, const std::optional<Alphabet>& alphabet = std::nullopt) {
  return error_of([&](const std::string& t) { return read_sequence_text(t, std::nullopt, alphabet); }, text);
}

TEST(SequenceFile, FastaHeadersGiveLabelsAndLinesAreConcatenated) {
  const SequenceSet set = read_sequence_text("\n>seq1 label=1 from chr2\nAC GT\nTT\n\n>seq2 note label=-2.5\nCA\r\n");
  EXPECT_EQ(set.source, "seqs.txt");
  EXPECT_EQ(set.format, SequenceFormat::fasta);
  ASSERT_TRUE(set.alphabet);
  EXPECT_EQ(set.alphabet->symbols(), "ACGT");  // the sorted set of symbols read
  ASSERT_EQ(set.sequences.size(), 2u);
  EXPECT_EQ(set.sequences[0].label, 1);
  EXPECT_EQ(set.sequences[0].line, 2);
  EXPECT_EQ(set.sequences[0].symbols, (std::vector<long>{0, 1, 2, 3, 3, 3}));
  EXPECT_EQ(set.sequences[1].label, -2.5);
  EXPECT_EQ(set.sequences[1].line, 6);
  EXPECT_EQ(set.sequences[1].symbols, (std::vector<long>{1, 0}));
}

TEST(SequenceFile, LinesFormatIsLabelThenSequence) {
  const SequenceSet set = read_sequence_text("1 abba\n-1\tb a c\n");
  EXPECT_EQ(set.format, SequenceFormat::lines);
  EXPECT_EQ(set.alphabet->symbols(), "abc");
  ASSERT_EQ(set.sequences.size(), 2u);
  EXPECT_EQ(set.sequences[0].label, 1);
  EXPECT_EQ(set.sequences[0].symbols, (std::vector<long>{0, 1, 1, 0}));
  EXPECT_EQ(set.sequences[1].label, -1);
  EXPECT_EQ(set.sequences[1].line, 2);
  EXPECT_EQ(set.sequences[1].symbols, (std::vector<long>{1, 0, 2}));
  // An explicit format overrides the detection: as FASTA, this file has no header.
  EXPECT_THAT(error_of([](const std::string& t) { return read_sequence_text(t, SequenceFormat::fasta); }, "1 abba\n"),
              HasSubstr("seqs.txt:1: expected a FASTA header"));
}

TEST(SequenceFile, AGivenAlphabetNumbersTheSymbolsAndCaseMatters) {
  const Alphabet alphabet("TGCA", "--alphabet");
  const SequenceSet set = read_sequence_text("1 ACGT\n", std::nullopt, alphabet);
  EXPECT_EQ(set.alphabet->symbols(), "TGCA");
  EXPECT_EQ(set.sequences[0].symbols, (std::vector<long>{3, 2, 1, 0}));
  // A symbol outside the alphabet: file, line, column, symbol and its position in the sequence.
  EXPECT_EQ(sequence_error(">s label=1\nACGT\nAC N\n", alphabet),
            "seqs.txt:3: column 4: symbol 'N' (position 7 of the sequence) is not in the alphabet 'TGCA'; the "
            "alphabet comes from alphabet");
  EXPECT_THAT(sequence_error("1 ACgT\n", alphabet),
              AllOf(HasSubstr("seqs.txt:1: column 5: symbol 'g' (position 3"), HasSubstr("case-sensitive")));
}

TEST(SequenceFile, AlphabetFileRoundTripAndBadAlphabets) {
  const SequenceSet set = read_sequence_text("1 xzy\n");
  std::istringstream saved(set.alphabet->symbols() + "\n");  // what --save-alphabet writes
  const Alphabet reread = read_alphabet(saved, "alphabet.txt");
  EXPECT_EQ(reread.symbols(), "xyz");
  EXPECT_EQ(read_sequence_text("1 zyx\n", std::nullopt, reread).sequences[0].symbols, (std::vector<long>{2, 1, 0}));

  const auto alphabet_error = [](const std::string& text) {
    return error_of(
        [](const std::string& t) {
          std::istringstream in(t);
          return read_alphabet(in, "alphabet.txt");
        },
        text);
  };
  EXPECT_THAT(alphabet_error(""), HasSubstr("alphabet.txt: no alphabet"));
  EXPECT_THAT(alphabet_error("ACGT\nACG\n"), HasSubstr("alphabet.txt:2: an alphabet file holds one line"));
  EXPECT_THAT(alphabet_error("ACGA\n"),
              HasSubstr("alphabet.txt:1: symbol 'A' appears twice in the alphabet (positions 1 and 4)"));
  EXPECT_THAT(alphabet_error("AC GT\n"), HasSubstr("alphabet.txt:1: the alphabet holds whitespace at position 3"));
  EXPECT_THROW(Alphabet("", "--alphabet"), InputError);
}

TEST(SequenceFile, Errors) {
  EXPECT_EQ(sequence_error(">s1 label=1\nAC\n>s2 name=x\nGT\n"),
            "seqs.txt:3: the header has no label=VALUE token; expected e.g. '>seq1 label=1'");
  EXPECT_THAT(sequence_error(">s1 label=one\nAC\n"),
              HasSubstr("seqs.txt:1: label 'one' in the header is not a finite number"));
  EXPECT_THAT(sequence_error(">s1 label=1 label=2\nAC\n"), HasSubstr("seqs.txt:1: the header has two label= tokens"));
  EXPECT_EQ(sequence_error(">s1 label=1\n>s2 label=2\nAC\n"),
            "seqs.txt:1: the sequence is empty; expected at least one symbol");
  EXPECT_THAT(sequence_error(">s1 label=1\nAC\n>s2 label=2\n"), HasSubstr("seqs.txt:3: the sequence is empty"));
  EXPECT_THAT(sequence_error("1 AC\n2\n"), HasSubstr("seqs.txt:2: the sequence is empty"));
  EXPECT_THAT(sequence_error("1 AC\n\n2 GT\n"), HasSubstr("seqs.txt:2: empty line; expected 'LABEL SEQUENCE'"));
  EXPECT_THAT(sequence_error("x AC\n"), HasSubstr("seqs.txt:1: label 'x' is not a finite number"));
  EXPECT_THAT(sequence_error(""), HasSubstr("seqs.txt: no sequences"));
}

// ---------------------------------------------------------------------------------------------
// Telling the formats of fit input apart (line_format, detect_format): one rule for every command.

TEST(DataFormat, EachLineIsFastaLibsvmOrASequence) {
  EXPECT_EQ(line_format(">seq1 label=1", 1).format, DataFormat::fasta);
  const LineFormat grouped = line_format("-1 qid:1 1:2.22 2:-0.5e-3", 4);
  EXPECT_EQ(grouped.format, DataFormat::libsvm);
  EXPECT_TRUE(grouped.grouped);
  EXPECT_EQ(grouped.line, 4);
  const LineFormat plain = line_format("1 3:1 17:0.5  # a comment ACGT", 1);
  EXPECT_EQ(plain.format, DataFormat::libsvm);
  EXPECT_FALSE(plain.grouped);
  EXPECT_EQ(line_format("2", 1).format, DataFormat::libsvm);  // a LIBSVM row of no features
  // A sequence field is symbols unless a field reads as qid:N or index:value: then the line is a
  // LIBSVM row, malformed or not (read_data names the bad field).
  EXPECT_EQ(line_format("1 ACGT", 1).format, DataFormat::lines);
  EXPECT_EQ(line_format("1 AC GT", 1).format, DataFormat::lines);
  EXPECT_EQ(line_format("1 0123:", 1).format, DataFormat::lines);
  EXPECT_EQ(line_format("1 a:2.5", 1).format, DataFormat::lines);
  EXPECT_EQ(line_format("1 1:2.5 AC", 1).format, DataFormat::libsvm);
  EXPECT_EQ(line_format("1 1:0.5 3", 1).format, DataFormat::libsvm);
  EXPECT_EQ(line_format("1 AC#GT", 1).format, DataFormat::lines);
  // No label: neither; the reader of the format asked for says what is wrong.
  EXPECT_EQ(line_format("seq1 ACGT", 1).format, DataFormat::unknown);
  EXPECT_EQ(line_format("1.0,2.0,3.0", 1).format, DataFormat::unknown);
}

TEST(DataFormat, TheFirstLineThatIsNeitherBlankNorACommentDecides) {
  EXPECT_FALSE(detect_format(""));
  EXPECT_FALSE(detect_format("\n  \n# only a comment\n"));
  const std::optional<LineFormat> grouped = detect_format("# header\n\n\t\r\n1 qid:7 1:0.5\n1 qid:7 1:0.25\n");
  ASSERT_TRUE(grouped);
  EXPECT_EQ(grouped->format, DataFormat::libsvm);
  EXPECT_TRUE(grouped->grouped);
  EXPECT_EQ(grouped->line, 4);
  EXPECT_EQ(detect_format("\n>s label=1\r\nACGT\n")->format, DataFormat::fasta);
  EXPECT_EQ(detect_format("1 ACGT")->format, DataFormat::lines);  // no final newline
  EXPECT_EQ(describe_format(*grouped), "a qid-grouped LIBSVM row");
  EXPECT_EQ(describe_format(line_format("1 1:1", 1)), "a LIBSVM row without qid:");
}

TEST(DataFormat, ASequenceFileRefusesLibsvmRows) {
  // Detected or given, a 'LABEL SEQUENCE' line whose sequence is qid:/index:value fields is refused
  // with its line, never read as the symbols '1', ':', 'q', ...
  EXPECT_THAT(sequence_error("-1 qid:1 1:2.22 2:0.5\n-1 qid:1 1:2.1 2:0.4\n"),
              AllOf(HasSubstr("seqs.txt:1: this line is a qid-grouped LIBSVM row, not 'LABEL SEQUENCE'"),
                    HasSubstr("read with format libsvm")));
  EXPECT_THAT(error_of([](const std::string& t) { return read_sequence_text(t, SequenceFormat::lines); },
                       "1 ACGT\n2 1:0.5 3:1\n"),
              HasSubstr("seqs.txt:2: this line is a LIBSVM row without qid:, not 'LABEL SEQUENCE'"));
  // A label alone is still an empty sequence.
  EXPECT_THAT(sequence_error("1 ACGT\n2\n"), HasSubstr("seqs.txt:2: the sequence is empty"));
}

}  // namespace
}  // namespace ppk
