// The registry of model families. Adding a family is one file in src/families/ that declares its
// fields once and makes its FamilyInfo with make_family (src/core/family_fields.hpp), and one line in
// src/families/families.cpp (docs/adding-a-family.md).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ppk/core/model.hpp"

namespace ppk {

class RowReader;
class RowWriter;

struct FamilyInfo {
  std::string name;  // the JSON "family" tag
  int code;          // row field 2; unique, never reused
  // Decodes and validates the family's fields (the reader starts at field 3).
  std::function<std::unique_ptr<Model>(RowReader& fields)> decode;
  // Writes a model of this family's fields (everything after the family header) to a row.
  std::function<void(const Model& model, RowWriter& out)> encode;
  // Builds the model from its JSON object (the field names of docs/families.md); throws ModelError.
  std::function<std::unique_ptr<Model>(const nlohmann::json& object)> from_json;
  // A model of this family as its JSON object, "family" and the field names of docs/families.md.
  std::function<void(const Model& model, nlohmann::json& out)> to_json;
  // nullptr when the family's kernel values are k itself, so that its Gram matrices are positive
  // semidefinite; otherwise what the values are instead (a bound or an estimate of k), whose Gram
  // matrices need not be. `ppk gram` and the LIBSVM plugin warn when such rows are used.
  const char* approximation = nullptr;
  bool exact() const { return approximation == nullptr; }
};

const std::vector<const FamilyInfo*>& all_families();
const FamilyInfo* find_family(int code);
const FamilyInfo* find_family(const std::string& name);

// Adds a family defined outside the library (a program's own; docs/adding-a-family.md) to
// all_families(), before any row or JSON object of it is read. Throws std::invalid_argument when its
// name or code is taken.
void register_family(const FamilyInfo& family);

}  // namespace ppk
