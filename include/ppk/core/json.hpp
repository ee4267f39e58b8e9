// Models as JSON objects, and the JSON-lines files of `ppk encode` / `ppk decode`.
//
// A model's object has "family" and the family's fields (docs/families.md, each family's "JSON"):
//     {"family":"gaussian","mean":[0,1],"var":2}
// A JSON-lines file holds one such object per line plus "label" (a number,
// default 0), the example's LIBSVM label:
//     {"label":1,"family":"bernoulli","p":[0.5,0.25]}
#pragma once

#include <istream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppk/core/model.hpp"

namespace ppk {

// Dispatches on "family" (find_family(name)->from_json). Throws ModelError for
// anything that is not a valid model: not an object, a missing or unknown family,
// a missing, mistyped or invalid field.
std::unique_ptr<Model> model_from_json(const nlohmann::json& object);
// The model's object: "family" and its fields.
nlohmann::json model_to_json(const Model& model);

struct LabeledModel {
  double label = 0;
  std::unique_ptr<Model> model;
  long line = 0;  // its line in read_json_lines's source (from 1), for the writer's errors
};

// {"label":L, "family":..., fields...}; "label" is optional (default 0).
// Throws ModelError.
LabeledModel labeled_model_from_json(const nlohmann::json& object);
// The model's object as one line (no newline), "label" first, then "family",
// then the fields; an integral label is written as an integer.
std::string labeled_model_json_line(double label, const Model& model);

// Reads one JSON object per line (lines of only white space are skipped).
// Throws InputError "SOURCE:LINE: ..." for invalid JSON or an invalid model.
std::vector<LabeledModel> read_json_lines(std::istream& in, const std::string& source);

}  // namespace ppk
