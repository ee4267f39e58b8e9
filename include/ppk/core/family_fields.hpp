// Internal to libppk: a family's fields, declared once.
//
// A family's parameters are a plain struct with one member template
//     template <class Archive> void fields(Archive& a);
// that names each field once, in row order, with its kind (a whole number, a real, a vector, a
// matrix, a probability vector, a list of nested models, a list of matrices, a list of records --
// nested structs with fields of their own, read in one phase or as all headers then all bodies --
// a flag, a list of whole numbers, a table, an optional member, a check between fields; a count that
// may be a keyword, a real that may be absent, a probability vector with a sparse JSON layout, an
// optional trailing group of columns, a number per listed coordinate; a dense vector that may be absent,
// the listed entries of a sparse block). Four archives implement every
// kind once:
//   RowWriterArchive   parameters -> the row's fields (row.hpp; zeros omitted),
//   RowReaderArchive   row -> parameters, recording where each field lies so that the model
//                      constructor's FieldError is restated at the row's indices,
//   JsonWriterArchive  parameters -> the JSON object of docs/families.md,
//   JsonReaderArchive  JSON object -> parameters (members other than the declared ones refused),
// as mlpack's `serialize` serves both of cereal's directions. make_family<M>(name, code) turns a
// model class M with
//     using Parameters = ...;                  the struct above
//     explicit M(Parameters);                  validates (FieldError naming the field)
//     Parameters parameters() const;           (or const Parameters&)
// into the FamilyInfo of family.hpp: one registration line in families.cpp.
//
// The two forms differ in one respect, which the kinds absorb: a row stores a vector's dimension
// D as a field of its own (dimension()), while JSON reads it from the arrays' lengths. A record's
// errors name it `family field[i]` ("bayesnet nodes[2]"), and a row reader restates a FieldError of
// that family at the record's own indices.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "ppk/core/model_fields.hpp"
#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/row.hpp"
#include "ppk/core/sampling.hpp"
#include "ppk/core/sparse_probabilities.hpp"

namespace ppk::detail {

// A dimension declared by dimension(): its value (-1 when it comes from JSON, where the arrays'
// lengths say it and the model's constructor checks that they agree), its allowed range, and its
// field and row index (for at_most's message).
struct Dimension {
  long value;
  long min, max;
  const char* field;
  long first_index = 0;
};

// What a field of declared sizes allocates when it is read (RowReader::claim): `values` dense values, a
// product of the sizes in double (no product overflows), and the size that an error names -- of a
// product, the largest factor, the size that made the field large.
struct Claim {
  const Dimension& size;
  double values;
};
// `size` things of `words` dense values each (a vector's values, nested models' pointers, records).
Claim claim_of(const Dimension& size, double words = 1.0);
// A rows x cols matrix.
Claim claim_of(const Dimension& rows, const Dimension& cols);
// `count` rows x cols matrices.
Claim claim_of(const Dimension& count, const Dimension& rows, const Dimension& cols);
// The dense values of one record of the class Record (its size in 8-byte words, rounded up).
template <class Record>
constexpr double record_words() {
  return static_cast<double>((sizeof(Record) + sizeof(double) - 1) / sizeof(double));
}

// How messages name record i of the records field `field`: "linear_gaussian nodes[2]".
std::string record_family(const std::string& family, const char* field, long i);
// The sparse JSON layout of listed_probabilities(): {dim: D, base: the base, object: {"index": [the
// listed coordinates, from 0], field: [their values]}} instead of the dense array `field`. `marker`
// names the member whose presence selects it (a trailing group's, in the multinomial: "levels").
struct ListedLayout {
  const char* marker;
  const char* base;
  const char* object;
};

// Parameters -> the row's fields.
class RowWriterArchive {
 public:
  // `family` names the fields in a refused claim's message: the row's family, or a record of it.
  RowWriterArchive(RowWriter& out, std::string family) : out_(out), family_(std::move(family)) {}
  Dimension dimension(const char* field, long value, long min, long max);
  void whole_number(const char* field, long& value, long min, long max);
  void real(const char* field, double& value);
  void reals(const char* field, std::vector<double>& values, const Dimension& dim);
  void reals(const char* field, Eigen::VectorXd& values, const Dimension& dim);
  void symmetric_matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& dim);
  void matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols);
  void probabilities(const char* field, SparseProbabilities& p, const Dimension& dim);
  void models(const char* field, std::vector<std::unique_ptr<Model>>& models, const Dimension& count);
  void model(const char* field, std::unique_ptr<Model>& model);
  // One of names.size() values: its index in a row, its name as a JSON string.
  void choice(const char* field, long& index, const std::vector<const char*>& names);
  // Which one of several members the parameters hold: 1 + its index in a row; in JSON, which member
  // is present (the member's own field follows in fields()).
  void one_of(const char* field, long& index, const std::vector<const char*>& members);
  // A narrower bound on a read dimension under a condition (a row reader checks it before reading
  // the fields whose size it sets; elsewhere the model's constructor does).
  void at_most(const Dimension& dim, long max, const char* condition);

  // ---- Lists of matrices (each kind below in all five archives):
  // K general matrices rows x cols: in a row K blocks row by row one after another, in JSON an array
  // of matrices (arrays of rows); errors about matrix k name the element's offset in the whole field.
  void matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count, const Dimension& rows,
                const Dimension& cols);
  // K symmetric matrices dim x dim: in a row K lower triangles one after another, in JSON as matrices.
  void symmetric_matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count,
                          const Dimension& dim);
  // ---- Records, flags, lists of whole numbers, tables, optional members and checks (each in all
  // five archives):
  // `count` records, each a struct with its own
  //     template <class Archive> void fields(Archive& a, const Context& context, long i);
  // `context` is what the family passes (the records vector itself, whose records 0..i-1 a reader has
  // read before record i and whose size is the count; or sizes declared before): in a row the records'
  // fields one after another, in JSON an array of 1 to count.max objects (`item` names one in messages:
  // "an array of 1 to 5000 node objects"), each refusing members other than its declared ones. Record
  // i's errors name `family field[i]` ("linear_gaussian nodes[2]"): a FieldError of that family is
  // restated at record i's row indices.
  template <class Record, class Context>
  void records(const char* field, std::vector<Record>& records, const Dimension& count, const char*,
               const Context& context) {
    claim(field, claim_of(count, record_words<Record>()));
    for (std::size_t i = 0; i < records.size(); ++i) {
      RowWriterArchive record(out_, record_family(family_, field, static_cast<long>(i)));
      records[i].fields(record, context, static_cast<long>(i));
    }
  }
  // Two-phase records: a row holds every record's header (Record::header(a, context, i)) first, then
  // every body (Record::body), while JSON has one object per record with both. record_headers reads
  // the headers, record_bodies (later in fields(), with the same records) the bodies; a validate()
  // between them may check all the headers (the bodies' sizes may depend on later records' headers).
  template <class Record, class Context>
  void record_headers(const char* field, std::vector<Record>& records, const Dimension& count, const char*,
                      const Context& context) {
    claim(field, claim_of(count, record_words<Record>()));
    for (std::size_t i = 0; i < records.size(); ++i) {
      RowWriterArchive record(out_, record_family(family_, field, static_cast<long>(i)));
      records[i].header(record, context, static_cast<long>(i));
    }
  }
  template <class Record, class Context>
  void record_bodies(const char* field, std::vector<Record>& records, const Context& context) {
    for (std::size_t i = 0; i < records.size(); ++i) {
      RowWriterArchive record(out_, record_family(family_, field, static_cast<long>(i)));
      records[i].body(record, context, static_cast<long>(i));
    }
  }
  // true or false: 1 or 0 in a row; in JSON a boolean (absent: false).
  void boolean(const char* field, bool& value);
  // A list of whole numbers in [min, max]: in a row its length (in [0, max_count]) as a field of the
  // same name, then the numbers (an error about the whole list names the length and the numbers); in
  // JSON an array (absent: empty).
  void whole_numbers(const char* field, std::vector<long>& values, long max_count, long min, long max);
  // A whole number in [min, max] or none (value min - 1): in a row value - min + 1 (0: none), in JSON
  // the member or its absence.
  void optional_whole_number(const char* field, long& value, long min, long max);
  // A rows x cols table stored row by row in `values`: in a row the values row by row, in JSON an array
  // of rows; a JSON reader refuses another shape (when rows and cols are known) as "expected R rows (one
  // per `row`) of C `column`" ("2 rows (one per configuration of the parents) of 3 probabilities").
  void table(const char* field, std::vector<double>& values, const Dimension& rows, const Dimension& cols,
             const char* row, const char* column);
  // A matrix given column by column: in a row its columns one after another, in JSON an array of its
  // columns (element k * rows + i and JSON path [k][i] are entry (i, k)).
  void columns(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols);
  // Whether the next field (`field`) is there: always in a row (its size says whether it is empty); in
  // JSON when `needed`, or when a reader finds the member: then, when not needed, it refuses it with
  // `unwanted` (nullptr: it reads it, for the model's constructor to judge).
  bool optional(const char*, bool, const char* = nullptr) { return true; }
  // A check of what was read so far that later fields' sizes depend on (`check` throws FieldErrors):
  // readers run it (a row reader restating its error at the row), writers and FieldNames do not.
  template <class Check>
  void validate(Check&&) {}
  // ---- Kinds added for the multinomial: optional values, a listed layout, a trailing group.
  // A count that may be absent or a keyword: 0 (none), 1..max, or -1 (the keyword). A row holds the
  // number (-1 for the keyword); JSON the number, the keyword as a string, or nothing for 0.
  void count_or_keyword(const char* field, long& value, long max, const char* keyword);
  // A real that may be absent: a row holds 0 for none (so none and 0 are one); JSON the number or nothing.
  void optional_real(const char* field, std::optional<double>& value);
  // probabilities() with a second, sparse JSON layout (ListedLayout), used when `listed` is set here and
  // when the layout's marker member is present in the JSON reader; a row is probabilities()'s in both.
  void listed_probabilities(const char* field, SparseProbabilities& p, const Dimension& dim, const ListedLayout& layout,
                            bool listed);
  // The count K of an optional group of fields at the end of the row: a row holds K in [0, max], 0
  // meaning that the group is absent and the row ends there; JSON holds the group as the object
  // `field` (whose arrays say K) or nothing. fields() stops when the returned value is 0 (the JSON
  // reader returns -1 for a group that is present, as dimension() does).
  Dimension trailing_group(const char* field, long count, long max);
  // A column of the trailing group: K reals in a row, the array `member` of the group's object in JSON.
  void group_reals(const char* field, std::vector<double>& values, const Dimension& group, const char* member);
  // A column of whole numbers, held as doubles so that the model's constructor names a fractional one;
  // JSON writes them as integers.
  void group_whole_numbers(const char* field, std::vector<double>& values, const Dimension& group, const char* member);
  // A whole number >= 0 for each coordinate p lists: a row holds them as the D-long sparse block of
  // number + 1 at the coordinates' offsets (+1: a row drops zeros); JSON as the array `member` of the
  // listed layout's object, one per listed coordinate (as written, from 0). Held as the block's
  // (offset, number + 1) entries, which the model's constructor matches to p's listed coordinates
  // (naming a missing or stray one).
  void listed_numbers(const char* field, std::vector<std::pair<long, double>>& entries, const SparseProbabilities& p,
                      const Dimension& dim, const ListedLayout& layout, const char* member);
  // ---- Kinds added for the markov family: an optional dense vector, a sparse block.
  // A vector of dim.value reals that may be absent (empty): a row holds 1 and then the values, or 0; JSON
  // the array `field`, or nothing.
  void optional_reals(const char* field, std::vector<double>& values, const Dimension& dim);
  // The (offset, value) entries of a dim.value-long vector whose other values are 0, offsets increasing:
  // a row holds the block of dim.value indices with the entries at their offsets (zeros omitted, as every
  // row omits them); JSON the object `field` {"index": [the offsets], member: [the values]}, or nothing for
  // no entries. The model's constructor checks the offsets (in [0, dim.value), increasing) and values.
  void sparse_reals(const char* field, std::vector<std::pair<long, double>>& entries, const Dimension& dim,
                    const char* member);

 private:
  // Counts what the reader claims for `field` (RowReaderArchive::claim), so that no row is written that
  // its reader refuses.
  void claim(const char* field, const Claim& claim);

  RowWriter& out_;
  std::string family_;
};

// The row's fields -> parameters. Each kind records the indices its field occupies (RowFieldSpan), so
// that build() restates a FieldError of the model's constructor at them.
class RowReaderArchive {
 public:
  // `family` names the fields in messages: the row's family, or a record of it ("bayesnet nodes[2]").
  explicit RowReaderArchive(RowReader& in) : RowReaderArchive(in, in.family_name()) {}
  // (Room for a family's spans from the start: a row is decoded once per kernel matrix, and growing
  // the vector field by field would allocate several times per row.)
  RowReaderArchive(RowReader& in, std::string family) : in_(in), family_(std::move(family)) { spans_.reserve(16); }
  Dimension dimension(const char* field, long value, long min, long max);
  void whole_number(const char* field, long& value, long min, long max);
  void real(const char* field, double& value);
  void reals(const char* field, std::vector<double>& values, const Dimension& dim);
  void reals(const char* field, Eigen::VectorXd& values, const Dimension& dim);
  void symmetric_matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& dim);
  void matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols);
  // Stored as the scalar "base" followed by the D-long sparse block `field` (absent entries mean the base).
  void probabilities(const char* field, SparseProbabilities& p, const Dimension& dim);
  void models(const char* field, std::vector<std::unique_ptr<Model>>& models, const Dimension& count);
  void model(const char* field, std::unique_ptr<Model>& model);
  void choice(const char* field, long& index, const std::vector<const char*>& names);
  void one_of(const char* field, long& index, const std::vector<const char*>& members);
  void at_most(const Dimension& dim, long max, const char* condition);

  // ---- Lists of matrices (see RowWriterArchive).
  void matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count, const Dimension& rows,
                const Dimension& cols);
  void symmetric_matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count,
                          const Dimension& dim);
  // ---- Records, flags, lists of whole numbers, optional members and checks (see RowWriterArchive).
  template <class Record, class Context>
  void records(const char* field, std::vector<Record>& records, const Dimension& count, const char*,
               const Context& context) {
    resize(field, records, count);
    read_records(field, records,
                 [&](Record& record, RowReaderArchive& archive, long i) { record.fields(archive, context, i); });
  }
  template <class Record, class Context>
  void record_headers(const char* field, std::vector<Record>& records, const Dimension& count, const char*,
                      const Context& context) {
    resize(field, records, count);
    headers_.emplace_back(field, records_.size());
    read_records(field, records,
                 [&](Record& record, RowReaderArchive& archive, long i) { record.header(archive, context, i); });
  }
  template <class Record, class Context>
  void record_bodies(const char* field, std::vector<Record>& records, const Context& context) {
    read_records(field, records,
                 [&](Record& record, RowReaderArchive& archive, long i) { record.body(archive, context, i); });
  }
  void boolean(const char* field, bool& value);
  void whole_numbers(const char* field, std::vector<long>& values, long max_count, long min, long max);
  void optional_whole_number(const char* field, long& value, long min, long max);
  void table(const char* field, std::vector<double>& values, const Dimension& rows, const Dimension& cols,
             const char* row, const char* column);
  void columns(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols);
  bool optional(const char*, bool, const char* = nullptr) { return true; }
  template <class Check>
  void validate(Check&& check) {
    build(check);
  }
  // ---- Kinds added for the multinomial: optional values, a listed layout, a trailing group.
  void count_or_keyword(const char* field, long& value, long max, const char* keyword);
  void optional_real(const char* field, std::optional<double>& value);
  void listed_probabilities(const char* field, SparseProbabilities& p, const Dimension& dim, const ListedLayout& layout,
                            bool listed);
  Dimension trailing_group(const char* field, long count, long max);
  void group_reals(const char* field, std::vector<double>& values, const Dimension& group, const char* member);
  void group_whole_numbers(const char* field, std::vector<double>& values, const Dimension& group, const char* member);
  void listed_numbers(const char* field, std::vector<std::pair<long, double>>& entries, const SparseProbabilities& p,
                      const Dimension& dim, const ListedLayout& layout, const char* member);
  // ---- Kinds added for the markov family: an optional dense vector, a sparse block.
  void optional_reals(const char* field, std::vector<double>& values, const Dimension& dim);
  void sparse_reals(const char* field, std::vector<std::pair<long, double>>& entries, const Dimension& dim,
                    const char* member);

  // build(), its FieldError restated at the row: an error about element m of a nested-models field at
  // model m's indices, any other at its field's indices (at_row).
  template <class Build>
  auto build(Build build) -> decltype(build()) {
    try {
      return build();
    } catch (const FieldError& error) {
      throw at_row(error);
    }
  }

 private:
  ModelError at_row(const FieldError& error) const;
  void record(const char* field, long first_index);
  // RowReader::claim for `field`, before it is allocated, naming the size that declared it (or, for a
  // size that no field of the row holds, `field` itself at the next index).
  void claim(const char* field, const Claim& claim);

  using NestedSpans = std::vector<std::pair<const char*, std::vector<RowFieldSpan>>>;
  // The indices of a record's fields (in one or two phases): what at_row needs of its archive.
  struct RecordSpans {
    std::string family;  // "linear_gaussian nodes[2]"
    std::vector<RowFieldSpan> spans;
    NestedSpans nested;
    std::vector<RecordSpans> records;  // its own records'
  };
  // The record among `records` (at any depth) that the error names, or nullptr.
  static const RecordSpans* named_record(const FieldError& error, const std::vector<RecordSpans>& records);
  static ModelError at_row(const FieldError& error, const std::vector<RowFieldSpan>& spans, const NestedSpans& nested);
  long whole(const char* field, long min, long max);
  template <class Record>
  void resize(const char* field, std::vector<Record>& records, const Dimension& count) {
    claim(field, claim_of(count, record_words<Record>()));
    records.clear();
    records.resize(static_cast<std::size_t>(count.value));
  }
  // Reads each record with `read` in an archive of its own, then keeps where its fields lie.
  template <class Record, class Read>
  void read_records(const char* field, std::vector<Record>& records, Read read) {
    const long headers = first_header(field);
    if (headers < 0) records_.reserve(records_.size() + records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      RowReaderArchive archive(in_, record_family(family_, field, static_cast<long>(i)));
      read(records[i], archive, static_cast<long>(i));
      keep_record(std::move(archive), headers < 0 ? -1 : headers + static_cast<long>(i));
    }
  }
  // Where the headers of the two-phase records `field` are kept in records_ (-1: not two-phase).
  long first_header(const char* field) const;
  // Record i's spans: new, or (header: its index in records_) joining its header's.
  void keep_record(RowReaderArchive&& record, long header);

  RowReader& in_;
  std::string family_;
  std::vector<RowFieldSpan> spans_;
  // For each nested-models field, the indices of each model (its length field and its row).
  NestedSpans nested_;
  // For each record read (records(), record_headers(), record_bodies()), where its fields lie.
  std::vector<RecordSpans> records_;
  // For each two-phase records field, where its records start in records_.
  std::vector<std::pair<const char*, std::size_t>> headers_;
};

// Parameters -> the JSON object (without "family", which make_family's writer adds).
class JsonWriterArchive {
 public:
  explicit JsonWriterArchive(nlohmann::json& out) : out_(out) {}
  Dimension dimension(const char* field, long value, long min, long max);
  void whole_number(const char* field, long& value, long min, long max);
  void real(const char* field, double& value);
  void reals(const char* field, std::vector<double>& values, const Dimension& dim);
  void reals(const char* field, Eigen::VectorXd& values, const Dimension& dim);
  void symmetric_matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& dim);
  void matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols);
  void probabilities(const char* field, SparseProbabilities& p, const Dimension& dim);
  void models(const char* field, std::vector<std::unique_ptr<Model>>& models, const Dimension& count);
  void model(const char* field, std::unique_ptr<Model>& model);
  void choice(const char* field, long& index, const std::vector<const char*>& names);
  void one_of(const char* field, long& index, const std::vector<const char*>& members);
  void at_most(const Dimension& dim, long max, const char* condition);

  // ---- Lists of matrices (see RowWriterArchive).
  void matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count, const Dimension& rows,
                const Dimension& cols);
  void symmetric_matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count,
                          const Dimension& dim);
  // ---- Records, flags, lists of whole numbers, optional members and checks (see RowWriterArchive).
  template <class Record, class Context>
  void records(const char* field, std::vector<Record>& records, const Dimension&, const char*, const Context& context) {
    out_[field] = nlohmann::json::array();
    for (std::size_t i = 0; i < records.size(); ++i) {
      JsonWriterArchive record(out_[field][i] = nlohmann::json::object());
      records[i].fields(record, context, static_cast<long>(i));
    }
  }
  template <class Record, class Context>
  void record_headers(const char* field, std::vector<Record>& records, const Dimension&, const char*,
                      const Context& context) {
    out_[field] = nlohmann::json::array();
    for (std::size_t i = 0; i < records.size(); ++i) {
      JsonWriterArchive record(out_[field][i] = nlohmann::json::object());
      records[i].header(record, context, static_cast<long>(i));
    }
  }
  template <class Record, class Context>
  void record_bodies(const char* field, std::vector<Record>& records, const Context& context) {
    for (std::size_t i = 0; i < records.size(); ++i) {
      JsonWriterArchive record(out_[field][i]);
      records[i].body(record, context, static_cast<long>(i));
    }
  }
  void boolean(const char* field, bool& value);
  void whole_numbers(const char* field, std::vector<long>& values, long max_count, long min, long max);
  void optional_whole_number(const char* field, long& value, long min, long max);
  void table(const char* field, std::vector<double>& values, const Dimension& rows, const Dimension& cols,
             const char* row, const char* column);
  void columns(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols);
  bool optional(const char*, bool needed, const char* = nullptr) { return needed; }
  template <class Check>
  void validate(Check&&) {}
  // ---- Kinds added for the multinomial: optional values, a listed layout, a trailing group.
  void count_or_keyword(const char* field, long& value, long max, const char* keyword);
  void optional_real(const char* field, std::optional<double>& value);
  void listed_probabilities(const char* field, SparseProbabilities& p, const Dimension& dim, const ListedLayout& layout,
                            bool listed);
  Dimension trailing_group(const char* field, long count, long max);
  void group_reals(const char* field, std::vector<double>& values, const Dimension& group, const char* member);
  void group_whole_numbers(const char* field, std::vector<double>& values, const Dimension& group, const char* member);
  void listed_numbers(const char* field, std::vector<std::pair<long, double>>& entries, const SparseProbabilities& p,
                      const Dimension& dim, const ListedLayout& layout, const char* member);
  // ---- Kinds added for the markov family: an optional dense vector, a sparse block.
  void optional_reals(const char* field, std::vector<double>& values, const Dimension& dim);
  void sparse_reals(const char* field, std::vector<std::pair<long, double>>& entries, const Dimension& dim,
                    const char* member);

 private:
  nlohmann::json& out_;
};

// The JSON object -> parameters; errors are ModelErrors naming the family and the field.
class JsonReaderArchive {
 public:
  // `fields`: the members the family declares (FieldNames); any other member is refused.
  JsonReaderArchive(const nlohmann::json& object, std::string family, const std::vector<const char*>& fields);
  Dimension dimension(const char* field, long value, long min, long max);
  void whole_number(const char* field, long& value, long min, long max);
  void real(const char* field, double& value);
  // A non-empty array of finite numbers, of at least dim.min numbers (D's lower bound).
  void reals(const char* field, std::vector<double>& values, const Dimension& dim);
  void reals(const char* field, Eigen::VectorXd& values, const Dimension& dim);
  void symmetric_matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& dim);
  void matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols);
  // The dense array `field`, each entry a probability, stored sparsely.
  void probabilities(const char* field, SparseProbabilities& p, const Dimension& dim);
  void models(const char* field, std::vector<std::unique_ptr<Model>>& models, const Dimension& count);
  void model(const char* field, std::unique_ptr<Model>& model);
  // (A choice's member may be left out: it then means the first name.)
  void choice(const char* field, long& index, const std::vector<const char*>& names);
  // (Exactly one of the members must be present.)
  void one_of(const char* field, long& index, const std::vector<const char*>& members);
  void at_most(const Dimension& dim, long max, const char* condition);

  // ---- Lists of matrices (see RowWriterArchive).
  void matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count, const Dimension& rows,
                const Dimension& cols);
  void symmetric_matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count,
                          const Dimension& dim);
  // ---- Records, flags, lists of whole numbers, optional members and checks (see RowWriterArchive).
  template <class Record, class Context>
  void records(const char* field, std::vector<Record>& records, const Dimension& count, const char* item,
               const Context& context);
  // (The archives of the records' objects are kept from record_headers to record_bodies.)
  template <class Record, class Context>
  void record_headers(const char* field, std::vector<Record>& records, const Dimension& count, const char* item,
                      const Context& context);
  template <class Record, class Context>
  void record_bodies(const char*, std::vector<Record>& records, const Context& context) {
    for (std::size_t i = 0; i < records.size(); ++i)
      records[i].body(record_archives_.at(i), context, static_cast<long>(i));
    record_archives_.clear();
  }
  void boolean(const char* field, bool& value);
  void whole_numbers(const char* field, std::vector<long>& values, long max_count, long min, long max);
  void optional_whole_number(const char* field, long& value, long min, long max);
  void table(const char* field, std::vector<double>& values, const Dimension& rows, const Dimension& cols,
             const char* row, const char* column);
  void columns(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols);
  bool optional(const char* field, bool needed, const char* unwanted = nullptr);
  template <class Check>
  void validate(Check&& check) {
    check();
  }

  // ---- Kinds added for the multinomial: optional values, a listed layout, a trailing group.
  void count_or_keyword(const char* field, long& value, long max, const char* keyword);
  void optional_real(const char* field, std::optional<double>& value);
  // (With the layout's marker absent, its other members are refused; with it present, `field` is.)
  void listed_probabilities(const char* field, SparseProbabilities& p, const Dimension& dim, const ListedLayout& layout,
                            bool listed);
  Dimension trailing_group(const char* field, long count, long max);
  void group_reals(const char* field, std::vector<double>& values, const Dimension& group, const char* member);
  void group_whole_numbers(const char* field, std::vector<double>& values, const Dimension& group, const char* member);
  void listed_numbers(const char* field, std::vector<std::pair<long, double>>& entries, const SparseProbabilities& p,
                      const Dimension& dim, const ListedLayout& layout, const char* member);
  // ---- Kinds added for the markov family: an optional dense vector, a sparse block.
  void optional_reals(const char* field, std::vector<double>& values, const Dimension& dim);
  void sparse_reals(const char* field, std::vector<std::pair<long, double>>& entries, const Dimension& dim,
                    const char* member);

 private:
  // The JSON array `field` of 1 to max record objects.
  const nlohmann::json& record_array(const char* field, long max, const char* item) const;
  // The archive of record i's object (`names`: its declared members).
  JsonReaderArchive record_archive(const nlohmann::json& array, const char* field, long i,
                                   const std::vector<const char*>& names) const;
  // The numbers of the array `member` of the object `object` (a trailing group's or a listed layout's).
  std::vector<double> member_numbers(const char* object, const char* member) const;

  JsonFields fields_;
  std::string family_;
  std::vector<JsonReaderArchive> record_archives_;  // of two-phase records, between headers and bodies
};

// The names of the JSON members a family declares (what JsonReaderArchive accepts).
class FieldNames {
 public:
  Dimension dimension(const char* field, long value, long min, long max) { return {value, min, max, field}; }
  template <class... Rest>
  void whole_number(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void real(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void reals(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void symmetric_matrix(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void matrix(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void probabilities(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void models(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void model(const char* field, Rest&&...) {
    names.push_back(field);
  }
  void choice(const char* field, long&, const std::vector<const char*>&) { names.push_back(field); }
  void one_of(const char*, long&, const std::vector<const char*>& members) {
    names.insert(names.end(), members.begin(), members.end());
  }
  void at_most(const Dimension&, long, const char*) {}

  // ---- Lists of matrices.
  template <class... Rest>
  void matrices(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void symmetric_matrices(const char* field, Rest&&...) {
    names.push_back(field);
  }
  // ---- Records, flags, lists of whole numbers, tables, optional members and checks.
  template <class... Rest>
  void records(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void record_headers(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void record_bodies(Rest&&...) {}
  template <class... Rest>
  void boolean(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void whole_numbers(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void optional_whole_number(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void table(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void columns(const char* field, Rest&&...) {
    names.push_back(field);
  }
  bool optional(const char*, bool, const char* = nullptr) { return true; }
  template <class Check>
  void validate(Check&&) {}
  // ---- Kinds added for the multinomial: optional values, a listed layout, a trailing group.
  void count_or_keyword(const char* field, long&, long, const char*) { names.push_back(field); }
  void optional_real(const char* field, std::optional<double>&) { names.push_back(field); }
  void listed_probabilities(const char* field, SparseProbabilities&, const Dimension& dim, const ListedLayout& layout,
                            bool) {
    names.insert(names.end(), {field, dim.field, layout.base, layout.object});
  }
  // -1: present, so that fields() goes on to name what follows.
  Dimension trailing_group(const char* field, long, long max) {
    names.push_back(field);
    return {-1, 0, max, field};
  }
  // (The members of the group's and the listed layout's objects are not top-level members.)
  void group_reals(const char*, std::vector<double>&, const Dimension&, const char*) {}
  void group_whole_numbers(const char*, std::vector<double>&, const Dimension&, const char*) {}
  void listed_numbers(const char*, std::vector<std::pair<long, double>>&, const SparseProbabilities&, const Dimension&,
                      const ListedLayout&, const char*) {}
  // ---- Kinds added for the markov family.
  void optional_reals(const char* field, std::vector<double>&, const Dimension&) { names.push_back(field); }
  void sparse_reals(const char* field, std::vector<std::pair<long, double>>&, const Dimension&, const char*) {
    names.push_back(field);
  }

  std::vector<const char*> names;
};

template <class Record, class Context>
void JsonReaderArchive::records(const char* field, std::vector<Record>& records, const Dimension& count, const char* item,
                                const Context& context) {
  const nlohmann::json& array = record_array(field, count.max, item);
  records.clear();
  records.resize(array.size());
  FieldNames names;  // (the same for every record)
  Record().fields(names, context, 0);
  for (std::size_t i = 0; i < array.size(); ++i) {
    JsonReaderArchive record = record_archive(array, field, static_cast<long>(i), names.names);
    records[i].fields(record, context, static_cast<long>(i));
  }
}

template <class Record, class Context>
void JsonReaderArchive::record_headers(const char* field, std::vector<Record>& records, const Dimension& count,
                                       const char* item, const Context& context) {
  const nlohmann::json& array = record_array(field, count.max, item);
  records.clear();
  records.resize(array.size());
  record_archives_.clear();
  record_archives_.reserve(array.size());
  FieldNames names;  // (the same for every record)
  Record declared;
  declared.header(names, context, 0);
  declared.body(names, context, 0);
  for (std::size_t i = 0; i < array.size(); ++i) {
    record_archives_.push_back(record_archive(array, field, static_cast<long>(i), names.names));
    records[i].header(record_archives_.back(), context, static_cast<long>(i));
  }
}

// The writers only read the parameters; fields() is one non-const member for all four archives (as
// mlpack's serialize is), hence the const_cast.
template <class Parameters, class Archive>
void write_fields(const Parameters& parameters, Archive& archive) {
  const_cast<Parameters&>(parameters).fields(archive);
}

}  // namespace ppk::detail

namespace ppk::detail {

// Whether the model class M declares the article of its family's name (FamilyInfo::article).
template <class M, class = void>
struct declares_name_article : std::false_type {};
template <class M>
struct declares_name_article<M, std::void_t<decltype(M::kNameArticle)>> : std::true_type {};

}  // namespace ppk::detail

namespace ppk {

// The FamilyInfo of the model class M (see the top of this file): its four conversions are the
// archives applied to M::Parameters::fields, its article M::kNameArticle where M declares one, and
// `samplable` when M is a SamplableModel.
template <class M>
FamilyInfo make_family(std::string name, int code, const char* approximation = nullptr) {
  using Parameters = typename M::Parameters;
  FamilyInfo info;
  info.name = name;
  info.code = code;
  info.approximation = approximation;
  if constexpr (detail::declares_name_article<M>::value) info.article = M::kNameArticle;
  info.samplable = std::is_base_of_v<SamplableModel, M>;
  info.decode = [](RowReader& in) -> std::unique_ptr<Model> {
    Parameters parameters;
    detail::RowReaderArchive archive(in);
    parameters.fields(archive);
    return archive.build([&] { return std::make_unique<M>(std::move(parameters)); });
  };
  info.encode = [name](const Model& model, RowWriter& out) {
    detail::RowWriterArchive archive(out, name);
    auto&& parameters = static_cast<const M&>(model).parameters();  // a reference or a (non-const) temporary
    detail::write_fields(parameters, archive);
  };
  info.from_json = [name](const nlohmann::json& object) -> std::unique_ptr<Model> {
    detail::FieldNames names;
    Parameters().fields(names);
    detail::JsonReaderArchive archive(object, name, names.names);
    Parameters parameters;
    parameters.fields(archive);
    return std::make_unique<M>(std::move(parameters));
  };
  info.to_json = [name](const Model& model, nlohmann::json& out) {
    out = nlohmann::json::object();
    out["family"] = name;
    detail::JsonWriterArchive archive(out);
    auto&& parameters = static_cast<const M&>(model).parameters();
    detail::write_fields(parameters, archive);
  };
  return info;
}

}  // namespace ppk
