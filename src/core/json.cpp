#include "ppk/core/json.hpp"

#include <cmath>
#include <cstdint>

#include "ppk/core/data.hpp"
#include "ppk/core/family.hpp"

namespace ppk {
namespace {

constexpr const char* kLabel = "label";
constexpr const char* kFamily = "family";

std::string known_families() {
  std::string names;
  for (const FamilyInfo* family : all_families()) names += (names.empty() ? "" : ", ") + family->name;
  return names;
}

// A label as JSON: an integer when it is one (so 1 stays 1, not 1.0); -0 stays -0.0
// so that encode -> decode -> encode reproduces the row's "-0".
nlohmann::json label_json(double label) {
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (std::floor(label) == label && std::fabs(label) < kExactIntegers && !(label == 0 && std::signbit(label)))
    return static_cast<std::int64_t>(label);
  return label;
}

}  // namespace

std::unique_ptr<Model> model_from_json(const nlohmann::json& object) {
  if (!object.is_object())
    throw ModelError(std::string("expected a JSON object with a \"family\" field, got a ") + object.type_name());
  auto family_field = object.find(kFamily);
  if (family_field == object.end()) throw ModelError("missing field \"family\"; expected one of: " + known_families());
  if (!family_field->is_string())
    throw ModelError(std::string("field \"family\" must be a string, got a ") + family_field->type_name());
  const std::string name = family_field->get<std::string>();
  const FamilyInfo* family = find_family(name);
  if (family == nullptr) throw ModelError("unknown family \"" + name + "\"; expected one of: " + known_families());
  try {
    return family->from_json(object);
  } catch (const nlohmann::json::exception& e) {
    // A field of the wrong JSON type that the family's reader did not catch itself.
    throw ModelError("family " + name + ": " + e.what());
  }
}

nlohmann::json model_to_json(const Model& model) {
  nlohmann::json object = nlohmann::json::object();
  model.family().to_json(model, object);
  return object;
}

LabeledModel labeled_model_from_json(const nlohmann::json& object) {
  LabeledModel result;
  auto label = object.find(kLabel);
  if (label == object.end()) {
    result.model = model_from_json(object);
    return result;
  }
  if (!label->is_number()) throw ModelError(std::string("field \"label\" must be a number, got a ") + label->type_name());
  result.label = label->get<double>();
  if (!std::isfinite(result.label)) throw ModelError("field \"label\" must be finite");
  nlohmann::json model = object;
  model.erase(kLabel);
  result.model = model_from_json(model);
  return result;
}

std::string labeled_model_json_line(double label, const Model& model) {
  const nlohmann::json object = model_to_json(model);
  std::string line = "{\"label\":" + label_json(label).dump();
  auto family = object.find(kFamily);
  if (family != object.end()) line += ",\"family\":" + family->dump();
  for (auto field = object.begin(); field != object.end(); ++field) {
    if (field.key() == kFamily || field.key() == kLabel) continue;
    line += "," + nlohmann::json(field.key()).dump() + ":" + field.value().dump();
  }
  return line + "}";
}

std::vector<LabeledModel> read_json_lines(std::istream& in, const std::string& source) {
  std::vector<LabeledModel> models;
  std::string text;
  long line = 0;
  auto fail = [&](const std::string& what) { return InputError(source + ":" + std::to_string(line) + ": " + what); };
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json object;
    try {
      object = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number no double holds (1e999)
      throw fail(std::string("not valid JSON: ") + e.what());
    }
    try {
      models.push_back(labeled_model_from_json(object));
      models.back().line = line;
    } catch (const ModelError& e) {
      throw fail(e.what());
    }
  }
  if (in.bad()) throw InputError(source + ": read error");
  return models;
}

}  // namespace ppk
