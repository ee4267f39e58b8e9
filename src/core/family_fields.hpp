// Internal to libppk: a family's fields, declared once.
//
// A family's parameters are a plain struct with one member template
//     template <class Archive> void fields(Archive& a);
// that names each field once, in row order, with its kind (a whole number, a real, a vector, a
// matrix, a probability vector, a list of nested models; a count that may be a keyword, a real that
// may be absent, a probability vector with a sparse JSON layout, an optional trailing group of
// columns, a number per listed coordinate). Four archives implement every kind once:
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
#include <optional>
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

 private:
  RowWriter& out_;
};

// The row's fields -> parameters. Each kind records the indices its field occupies (RowFieldSpan), so
// that build() restates a FieldError of the model's constructor at them.
class RowReaderArchive {
 public:
  // (Room for a family's spans from the start: a row is decoded once per kernel matrix, and growing
  // the vector field by field would allocate several times per row.)
  explicit RowReaderArchive(RowReader& in) : in_(in) { spans_.reserve(16); }
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

  RowReader& in_;
  std::vector<RowFieldSpan> spans_;
  // For each nested-models field, the indices of each model (its length field and its row).
  std::vector<std::pair<const char*, std::vector<RowFieldSpan>>> nested_;
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

 private:
  // The numbers of the array `member` of the object `object` (a trailing group's or a listed layout's).
  std::vector<double> member_numbers(const char* object, const char* member) const;
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

  std::vector<const char*> names;
};

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
