// The registry of model families. Adding a family is one file in src/families/ that
// defines its FamilyInfo, and one line in src/families/families.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ppk/core/model.hpp"

namespace ppk {

class RowReader;

struct FamilyInfo {
  std::string name;  // the JSON "family" tag
  int code;          // row field 2; unique, never reused
  // Decodes and validates the family's fields (the reader starts at field 3).
  std::unique_ptr<Model> (*decode)(RowReader& fields);
  // Builds the model from its JSON object (the field names of docs/families.md); throws ModelError.
  std::unique_ptr<Model> (*from_json)(const nlohmann::json& object);
  // nullptr when the family's kernel values are k itself, so that its Gram matrices are positive
  // semidefinite; otherwise what the values are instead (a bound or an estimate of k), whose Gram
  // matrices need not be. `ppk gram` and the LIBSVM plugin warn when such rows are used.
  const char* approximation = nullptr;
  bool exact() const { return approximation == nullptr; }
};

const std::vector<const FamilyInfo*>& all_families();
const FamilyInfo* find_family(int code);
const FamilyInfo* find_family(const std::string& name);

}  // namespace ppk
