// Internal to libppk: a family's fields, declared once.
//
// A family's parameters are a plain struct with one member template
//     template <class Archive> void fields(Archive& a);
// that names each field once, in row order, with its kind (a whole number, a real, a vector, a
// matrix, a probability vector, a list of nested models). Four archives implement every kind once:
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
// D as a field of its own (dimension()), while JSON reads it from the arrays' lengths.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "core/model_fields.hpp"
#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/row.hpp"
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

// How messages name record i of the records field `field`: "linear_gaussian nodes[2]".
std::string record_family(const std::string& family, const char* field, long i);

// Parameters -> the row's fields.
class RowWriterArchive {
 public:
  explicit RowWriterArchive(RowWriter& out) : out_(out) {}
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
  // ---- Records, flags, lists of whole numbers, optional members and checks (each in all five archives):
  // `count` records, each a struct with its own
  //     template <class Archive> void fields(Archive& a, const std::vector<Record>& records, long i);
  // (records[0..i-1] hold what was read before record i, records.size() is the count): in a row the
  // records' fields one after another, in JSON an array of 1 to count.max objects (`item` names one in
  // messages: "an array of 1 to 5000 node objects"). Record i's errors name `family field[i]`
  // ("linear_gaussian nodes[2]"): a FieldError of that family is restated at record i's row indices.
  template <class Record>
  void records(const char*, std::vector<Record>& records, const Dimension&, const char*) {
    for (std::size_t i = 0; i < records.size(); ++i) records[i].fields(*this, records, static_cast<long>(i));
  }
  // true or false: 1 or 0 in a row; in JSON a boolean (absent: false).
  void boolean(const char* field, bool& value);
  // A list of whole numbers in [min, max]: in a row its length (in [0, max_count]) as a field of the
  // same name, then the numbers; in JSON an array (absent: empty).
  void whole_numbers(const char* field, std::vector<long>& values, long max_count, long min, long max);
  // Whether the next field (`field`) is there: always in a row (its size says whether it is empty);
  // in JSON when `needed`, or when the reader finds the member.
  bool optional(const char*, bool) { return true; }
  // A check of what was read so far that later fields' sizes depend on (`check` throws FieldErrors):
  // readers run it (a row reader restating its error at the row), writers and FieldNames do not.
  template <class Check>
  void validate(Check&&) {}

 private:
  RowWriter& out_;
};

// The row's fields -> parameters. Each kind records the indices its field occupies (RowFieldSpan), so
// that build() restates a FieldError of the model's constructor at them.
class RowReaderArchive {
 public:
  // `family` names the fields in messages: the row's family, or a record of it ("bayesnet nodes[2]").
  explicit RowReaderArchive(RowReader& in) : RowReaderArchive(in, in.family_name()) {}
  RowReaderArchive(RowReader& in, std::string family) : in_(in), family_(std::move(family)) {}
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
  template <class Record>
  void records(const char* field, std::vector<Record>& records, const Dimension& count, const char*) {
    records.clear();
    records.resize(static_cast<std::size_t>(count.value));
    for (long i = 0; i < count.value; ++i) {
      RowReaderArchive record(in_, record_family(family_, field, i));
      records[static_cast<std::size_t>(i)].fields(record, records, i);
      records_.emplace_back(record.family_, std::move(record.spans_));
      records_.insert(records_.end(), record.records_.begin(), record.records_.end());
    }
  }
  void boolean(const char* field, bool& value);
  void whole_numbers(const char* field, std::vector<long>& values, long max_count, long min, long max);
  bool optional(const char*, bool) { return true; }
  template <class Check>
  void validate(Check&& check) {
    build(check);
  }

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

  long whole(const char* field, long min, long max);

  RowReader& in_;
  std::string family_;
  std::vector<RowFieldSpan> spans_;
  // For each nested-models field, the indices of each model (its length field and its row).
  std::vector<std::pair<const char*, std::vector<RowFieldSpan>>> nested_;
  // For each record read (records()), its family ("linear_gaussian nodes[2]") and its fields' indices.
  std::vector<std::pair<std::string, std::vector<RowFieldSpan>>> records_;
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
  template <class Record>
  void records(const char* field, std::vector<Record>& records, const Dimension&, const char*) {
    nlohmann::json array = nlohmann::json::array();
    for (std::size_t i = 0; i < records.size(); ++i) {
      nlohmann::json object = nlohmann::json::object();
      JsonWriterArchive record(object);
      records[i].fields(record, records, static_cast<long>(i));
      array.push_back(std::move(object));
    }
    out_[field] = std::move(array);
  }
  void boolean(const char* field, bool& value);
  void whole_numbers(const char* field, std::vector<long>& values, long max_count, long min, long max);
  bool optional(const char*, bool needed) { return needed; }
  template <class Check>
  void validate(Check&&) {}

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
  // (Each record object refuses members other than its declared ones.)
  template <class Record>
  void records(const char* field, std::vector<Record>& records, const Dimension& count, const char* item);
  void boolean(const char* field, bool& value);
  void whole_numbers(const char* field, std::vector<long>& values, long max_count, long min, long max);
  bool optional(const char* field, bool needed) { return needed || fields_.has(field); }
  template <class Check>
  void validate(Check&& check) {
    check();
  }

 private:
  // The JSON array `field` of 1 to max record objects.
  const nlohmann::json& record_array(const char* field, long max, const char* item) const;

  JsonFields fields_;
  std::string family_;
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
  // ---- Records, flags, lists of whole numbers, optional members and checks.
  template <class... Rest>
  void records(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void boolean(const char* field, Rest&&...) {
    names.push_back(field);
  }
  template <class... Rest>
  void whole_numbers(const char* field, Rest&&...) {
    names.push_back(field);
  }
  bool optional(const char*, bool) { return true; }
  template <class Check>
  void validate(Check&&) {}

  std::vector<const char*> names;
};

template <class Record>
void JsonReaderArchive::records(const char* field, std::vector<Record>& records, const Dimension& count,
                                const char* item) {
  const nlohmann::json& array = record_array(field, count.max, item);
  records.clear();
  records.resize(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) {
    FieldNames names;
    Record().fields(names, records, static_cast<long>(i));
    JsonReaderArchive record(array[i], record_family(family_, field, static_cast<long>(i)), names.names);
    records[i].fields(record, records, static_cast<long>(i));
  }
}

// The writers only read the parameters; fields() is one non-const member for all four archives (as
// mlpack's serialize is), hence the const_cast.
template <class Parameters, class Archive>
void write_fields(const Parameters& parameters, Archive& archive) {
  const_cast<Parameters&>(parameters).fields(archive);
}

}  // namespace ppk::detail

namespace ppk {

// The FamilyInfo of the model class M (see the top of this file): its four conversions are the
// archives applied to M::Parameters::fields.
template <class M>
FamilyInfo make_family(std::string name, int code, const char* approximation = nullptr) {
  using Parameters = typename M::Parameters;
  FamilyInfo info;
  info.name = name;
  info.code = code;
  info.approximation = approximation;
  info.decode = [](RowReader& in) -> std::unique_ptr<Model> {
    Parameters parameters;
    detail::RowReaderArchive archive(in);
    parameters.fields(archive);
    return archive.build([&] { return std::make_unique<M>(std::move(parameters)); });
  };
  info.encode = [](const Model& model, RowWriter& out) {
    detail::RowWriterArchive archive(out);
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

// The FamilyInfo of a family whose four conversions are still written by hand (M::encode_fields,
// M::to_json, `decode` and `from_json`): the families not yet declaring their fields.
template <class M>
FamilyInfo hand_written_family(std::string name, int code, std::unique_ptr<Model> (*decode)(RowReader&),
                               std::unique_ptr<Model> (*from_json)(const nlohmann::json&),
                               const char* approximation = nullptr) {
  FamilyInfo info;
  info.name = std::move(name);
  info.code = code;
  info.approximation = approximation;
  info.decode = decode;
  info.encode = [](const Model& model, RowWriter& out) { static_cast<const M&>(model).encode_fields(out); };
  info.from_json = from_json;
  info.to_json = [](const Model& model, nlohmann::json& out) { static_cast<const M&>(model).to_json(out); };
  return info;
}

}  // namespace ppk
