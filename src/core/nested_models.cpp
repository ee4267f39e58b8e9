// The row and JSON forms of a field holding nested models (see nested_models.hpp).
#include "core/nested_models.hpp"

#include "ppk/core/json.hpp"

namespace ppk::detail {

NestedModelsInRow read_nested_models(RowReader& fields, const char* field, long count) {
  NestedModelsInRow nested;
  for (long m = 0; m < count; ++m) {
    const int first = fields.next_index();
    nested.models.push_back(fields.model(field));
    nested.spans.push_back({field, first, fields.next_index() - first});
  }
  return nested;
}

void write_nested_models(RowWriter& out, const std::vector<std::unique_ptr<Model>>& models) {
  for (const auto& model : models) out.model(*model);
}

nlohmann::json nested_models_to_json(const std::vector<std::unique_ptr<Model>>& models) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& model : models) array.push_back(model_to_json(*model));
  return array;
}

std::vector<std::unique_ptr<Model>> nested_models_from_json(const JsonFields& fields, const std::string& family,
                                                            const char* field) {
  const nlohmann::json& array = fields.required(field);
  if (!array.is_array() || array.empty()) throw fields.invalid(field, "a non-empty array of model objects");
  std::vector<std::unique_ptr<Model>> models;
  for (std::size_t m = 0; m < array.size(); ++m) {
    try {
      models.push_back(model_from_json(array[m]));
    } catch (const ModelError& error) {
      throw ModelError(family + " field \"" + field + "\"[" + std::to_string(m) + "]: " + error.what());
    }
  }
  return models;
}

}  // namespace ppk::detail
