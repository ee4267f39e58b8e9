// Internal to libppk: models made of other models (mixture components, MI blocks) store them as
// a field holding a list of nested models. This is that field's row and JSON form, written once:
//   row:  the models one after another, each as RowWriter::model writes it (its length L, then L
//         indices holding the model's own row from its family code on);
//   JSON: an array of model objects.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model_fields.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/row.hpp"

namespace ppk::detail {

// The nested models of one field, as decoded from a row, with where each lies in the row.
struct NestedModelsInRow {
  std::vector<std::unique_ptr<Model>> models;
  std::vector<RowFieldSpan> spans;  // spans[m]: model m's length field and row
};

// Reads `count` nested models of the field `field`.
NestedModelsInRow read_nested_models(RowReader& fields, const char* field, long count);

// Builds the model `build()` that owns the nested models of `nested` (field `field`), restating
// its constructor's FieldError at the row: an error about nested model m at model m's span, any
// other at `other_spans` (see at_row).
template <class Build>
auto build_with_nested_models(const std::string& family, const char* field, const NestedModelsInRow& nested,
                              std::initializer_list<RowFieldSpan> other_spans, Build build) -> decltype(build()) {
  try {
    return build();
  } catch (const FieldError& error) {
    if (error.field() == field && error.element() >= 0 &&
        static_cast<std::size_t>(error.element()) < nested.spans.size()) {
      const RowFieldSpan& span = nested.spans[static_cast<std::size_t>(error.element())];
      throw ModelError(row_field_location(family, field, span.first_index, span.count) + ": expected " +
                       error.expected() + ", got " + error.got());
    }
    throw at_row(error, other_spans);
  }
}

// Writes the models one after another (RowWriter::model).
void write_nested_models(RowWriter& out, const std::vector<std::unique_ptr<Model>>& models);

// The models as a JSON array of model objects.
nlohmann::json nested_models_to_json(const std::vector<std::unique_ptr<Model>>& models);

// The non-empty array of model objects `field` of `fields` (a `family` object); an invalid model
// is a ModelError naming `family field "field"[m]`.
std::vector<std::unique_ptr<Model>> nested_models_from_json(const JsonFields& fields, const std::string& family,
                                                            const char* field);

}  // namespace ppk::detail
