// The registry of model families (family.hpp): one line per family.
#include "ppk/core/family.hpp"

#include <stdexcept>

#include "ppk/families/bayesnet.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/families/dirichlet.hpp"
#include "ppk/families/exponential.hpp"
#include "ppk/families/fhmm.hpp"
#include "ppk/families/gamma.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/families/linear_gaussian.hpp"
#include "ppk/families/markov.hpp"
#include "ppk/families/mi.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/families/montecarlo.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/families/poisson.hpp"
#include "ppk/families/slds.hpp"

namespace ppk {

namespace {

std::vector<const FamilyInfo*>& registry() {
  static std::vector<const FamilyInfo*> families = {
      &gaussian_family(),         // code 1
      &bernoulli_family(),        // code 2
      &multinomial_family(),      // code 3
      &poisson_family(),          // code 4
      &exponential_family(),      // code 5
      &gamma_family(),            // code 6
      &dirichlet_family(),        // code 7
      &mixture_family(),          // code 8
      &hmm_family(),              // code 9
      &bayesnet_family(),         // code 10
      &lds_family(),              // code 11
      &linear_gaussian_family(),  // code 12
      &slds_family(),             // code 13
      &montecarlo_family(),       // code 14
      &fhmm_family(),             // code 15
      &mi_family(),               // code 16
      &markov_family(),           // code 18 (17: examples/geometric_family.cpp)
  };
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
