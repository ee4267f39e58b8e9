// The registry of model families (family.hpp). Core names no family: the library's own families
// register themselves from src/families/families.cpp, a program's own with register_family.
#include "ppk/core/family.hpp"

#include <stdexcept>

namespace ppk {

namespace {

// Function-local, so that it exists before the first static initializer that registers a family.
std::vector<const FamilyInfo*>& registry() {
  static std::vector<const FamilyInfo*> families;
  return families;
}

}  // namespace

const std::vector<const FamilyInfo*>& all_families() { return registry(); }

void register_family(const FamilyInfo& family) {
  for (const FamilyInfo* known : registry())
    if (known->code == family.code || known->name == family.name)
      throw std::invalid_argument("family \"" + family.name + "\" (code " + std::to_string(family.code) +
                                  "): the name or code of the family \"" + known->name + "\" (code " +
                                  std::to_string(known->code) + ")");
  registry().push_back(&family);
}

const FamilyInfo* find_family(int code) {
  for (const FamilyInfo* family : all_families())
    if (family->code == code) return family;
  return nullptr;
}

const FamilyInfo* find_family(const std::string& name) {
  for (const FamilyInfo* family : all_families())
    if (family->name == name) return family;
  return nullptr;
}

}  // namespace ppk
