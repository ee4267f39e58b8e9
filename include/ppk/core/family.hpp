// The registry of model families. Adding a family is one file in src/families/ that declares its
// fields once and makes its FamilyInfo with make_family (include/ppk/core/family_fields.hpp), and one line in
// src/families/families.cpp (docs/adding-a-family.md); a program registers its own with register_family.
// Everything the kernel dispatcher (kernel.hpp) needs to know of a family is here or a virtual of its
// Model: core names no family.
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

  // The article of the family's name in messages ("an hmm": a name read letter by letter); nullptr: "an"
  // before a vowel, else "a". make_family takes the model class's kNameArticle where it declares one.
  const char* article = nullptr;

  // Kernels with models of another family over the same sample space, computed by this family's
  // Model::log_kernel, which takes such a model as its other model (k is symmetric: it serves both
  // orders): the other families' names (a gamma model takes an exponential one, the gamma of shapes 1).
  std::vector<std::string> kernels_with;
  // True for a family whose Model::log_kernel takes a model of any other family (a mixture: the other
  // model is its one-component mixture), but of a family that pairs only with itself.
  bool kernel_with_any_family = false;
  // True for a family whose models have no kernel with another family's, whatever that family declares
  // (montecarlo: its estimate needs draws from both sides).
  bool pairs_only_with_itself = false;
  // When set, check_compatible(a, b) (kernel.hpp) of a pair with a model of this family calls it in place
  // of the rules above: it throws KernelDomainError when the pair has no kernel (combined rows pair part i
  // with part i under one weighting).
  void (*check_compatible)(const Model& a, const Model& b) = nullptr;
  // True for a family whose models can be sampled (SamplableModel, sampling.hpp: the Monte Carlo kernel
  // can wrap them); make_family sets it from the model class. Which rho each one supports is its own.
  bool samplable = false;
  // True for a family whose models are rows of weighted parts (Model::part_weights): the combined rows.
  bool weighted_parts = false;
};

const std::vector<const FamilyInfo*>& all_families();
const FamilyInfo* find_family(int code);
const FamilyInfo* find_family(const std::string& name);

// Adds a family defined outside the library (a program's own; docs/adding-a-family.md) to
// all_families(), before any row or JSON object of it is read. Throws std::invalid_argument when its
// name or code is taken.
void register_family(const FamilyInfo& family);

}  // namespace ppk
