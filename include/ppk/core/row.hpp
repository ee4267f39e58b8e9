// The row codec: one generative model per example in LIBSVM's sparse format.
//
// Layout (format version 1); indices start at 1 and any field whose value is 0
// may be omitted, so a row means the same with every zero dropped:
//     1: format version (= 1)
//     2: family code (see family.hpp)
//     3...: the family's fields, in the order its FamilyInfo::encode writes them.
// Each family documents its own field layout in its header and in docs/families.md.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ppk/core/model.hpp"

namespace ppk {

constexpr int kRowFormatVersion = 1;
constexpr int kVersionIndex = 1;
constexpr int kFamilyIndex = 2;
constexpr int kFirstFieldIndex = 3;

// The most dense values (8-byte words: doubles, pointers) that one row's model may claim: 2^25 =
// 33,554,432 values, 256 MB. A row is a sparse vector, so a few bytes of text may declare a dimension
// D, a number of states M or of components whose dense fields (D values, an M x M transition matrix, M
// nested models) are allocated when the row is read. Each such field claims the product of its
// declared sizes before it is allocated (RowReader::claim; nested models share their row's count), so
// that a row asking for more than this is an error naming the field that declared the size, not an
// out-of-memory kill. Writers count the same claims, so that every row written can be read. The
// largest rows of the families' own limits fit (a full 5000-dimensional covariance: 25,000,000; an
// HMM's 5792 x 5792 transitions: 33,547,264), and 256 MB per row leaves room for the kernel's own
// storage within a few GB.
constexpr long kMaxRowDenseValues = 1L << 25;

// The most work, in multiply-adds, that one kernel evaluation may take as counted from each row's own
// sizes: 10^12, minutes on one core. A few bytes may also claim a length T, a number of Monte Carlo
// draws or dense sizes whose kernel costs far more than the row holds (an HMM of 100 states over
// T = 10^8 steps: 10^14); each family whose kernel can, counts the work w of its rows at prepare()
// so that an evaluation between rows a and b costs at most about w_a + w_b, and refuses a row with
// w > kMaxKernelWork (check_kernel_work in model_fields.hpp; docs/families.md, "Limits").
constexpr double kMaxKernelWork = 1e12;

// One `index:value` pair; layout-compatible with LIBSVM's struct svm_node.
struct RowEntry {
  int index;
  double value;
};
using Row = std::vector<RowEntry>;

// Reads a family's fields in order. Each call consumes the next field (a scalar
// or a block of consecutive indices); a missing index reads as 0. Errors name
// the field, its indices and what was expected, as ModelError.
class RowReader {
 public:
  // `row` must outlive the reader. Indices must be >= 1 and strictly increasing. The family's
  // fields start at `first_field_index` (index 3 of a plain row; later for a nested model).
  RowReader(const RowEntry* begin, const RowEntry* end, const std::string& family_name,
            int first_field_index = kFirstFieldIndex);
  RowReader(const RowReader&) = delete;  // (claimed_ may point into the reader itself)
  RowReader& operator=(const RowReader&) = delete;

  int next_index() const { return next_index_; }
  const std::string& family_name() const { return family_; }

  // A scalar field.
  double real(const char* field);
  // A scalar that must be a whole number in [min, max].
  long integer(const char* field, long min, long max);
  // `count` consecutive values, dense (missing entries are 0).
  std::vector<double> reals(const char* field, std::size_t count);
  // `count` consecutive values, sparse: the (offset in 0..count-1, value) pairs present in the row.
  std::vector<std::pair<long, double>> sparse(const char* field, std::size_t count);
  // A nested model (a mixture component, an HMM emission), as RowWriter::model writes it: its
  // length L, then L indices holding the model's own row from its family code on (what a plain
  // row holds from index 2). Errors name the absolute indices and the enclosing field.
  std::unique_ptr<Model> model(const char* field);
  // Fails if any entry lies beyond the last field read.
  void finish();
  // Counts `values` dense values that the field `field` is about to allocate (a product of declared
  // sizes, in double so that no product overflows) against kMaxRowDenseValues for the whole row,
  // nested models included. Throws a ModelError naming `size_field` at `size_index` -- the field that
  // declared the size -- of `owner` (the family or a record of it), the values and the limit.
  void claim(const std::string& owner, const char* size_field, long size_index, const char* field, double values);

  // Builds the error for a field that was read but is invalid.
  ModelError invalid(const char* field, const std::string& expected, double got) const;
  ModelError invalid(const char* field, const std::string& expected) const;

 private:
  const RowEntry* cur_;
  const RowEntry* end_;
  int next_index_ = kFirstFieldIndex;
  std::string family_;
  std::string last_field_;
  int last_first_ = 0, last_count_ = 0;
  double own_claimed_ = 0.0;
  double* claimed_ = &own_claimed_;  // the outermost reader's count: a nested model's claims are its row's

  // The model whose family code is at `family_index` (decode_model_at), its claims counted in *claimed.
  static std::unique_ptr<Model> decode_at(const RowEntry* begin, const RowEntry* end, int family_index, double* claimed);
  friend std::unique_ptr<Model> decode_model_at(const RowEntry* begin, const RowEntry* end, int family_index);
};

// Collects a row's entries in index order, dropping zeros.
class RowWriter {
 public:
  RowWriter();                           // writes the version; the family header is written by encode_row
  RowWriter(const RowWriter&) = delete;  // (claimed_ may point into the writer itself)
  RowWriter& operator=(const RowWriter&) = delete;
  void real(double v);
  void reals(const std::vector<double>& v);
  template <class It>
  void reals(It first, It last) {
    for (; first != last; ++first) real(*first);
  }
  // `count` values of which only `entries` (offset, value) are non-default; offsets increasing.
  void sparse(const std::vector<std::pair<long, double>>& entries, std::size_t count);
  // A nested model: its length L, then its row from the family code on (see RowReader::model).
  void model(const Model& nested);
  // The claim RowReader::claim makes when it reads this field back, counted and refused alike: a row
  // that its reader would refuse is never written.
  void claim(const std::string& owner, const char* size_field, long size_index, const char* field, double values);
  int next_index() const { return next_; }
  Row take() { return std::move(row_); }

 private:
  friend Row encode_row(const Model&);
  Row row_;
  int next_ = 1;
  double own_claimed_ = 0.0;
  double* claimed_ = &own_claimed_;  // the outermost writer's count (see RowReader)

  // encode_row, its claims counted in *claimed.
  static Row encode(const Model& model, double* claimed);
};

// Model -> row entries (without the label).
Row encode_row(const Model& model);
// Row entries -> model (validated). Throws ModelError naming the field.
std::unique_ptr<Model> decode_row(const RowEntry* begin, const RowEntry* end);
// The model whose family code is at `family_index` and whose fields follow it, from the entries
// [begin, end) (indices >= family_index, strictly increasing). decode_row is this at index 2.
std::unique_ptr<Model> decode_model_at(const RowEntry* begin, const RowEntry* end, int family_index);
inline std::unique_ptr<Model> decode_row(const Row& row) { return decode_row(row.data(), row.data() + row.size()); }

// x as a value LIBSVM reads: x itself, except that a subnormal x (0 < |x| < DBL_MIN =
// 2.2250738585072014e-308) becomes +-DBL_MIN. LIBSVM's readers (svm-train, svm-predict) refuse a
// value for which strtod sets ERANGE, and glibc's strtod does for every subnormal; DBL_MIN keeps the
// sign and that the value is not 0 (a variance, scale or weight stays > 0), and changes it by less
// than 2.3e-308.
double libsvm_readable(double x);

// Appends x in the fewest digits that read back as the same double (std::to_chars: "0.1",
// "0.19245008972987526", "1e-05"), whole numbers below 10^15 without an exponent ("100000", not
// "1e+05"): what every row, feature vector and Gram matrix is written in. Several times faster than
// printf's %.17g, and never longer.
void append_number(std::string& text, double x);

// "index:value index:value ..." with each value libsvm_readable, in the fewest digits that read back
// as the same double (std::to_chars; strtod and LIBSVM's readers get every bit back).
std::string format_entries(const Row& row);
// A label in the fewest digits that read back as the same double (integers stay integers: "1", "-1").
std::string format_label(double label);

}  // namespace ppk
