// The registry of model families (family.hpp): one line per family.
#include "ppk/family.hpp"

#include <stdexcept>

#include "ppk/bayesnet.hpp"
#include "ppk/bernoulli.hpp"
#include "ppk/dirichlet.hpp"
#include "ppk/exponential.hpp"
#include "ppk/fhmm.hpp"
#include "ppk/gamma.hpp"
#include "ppk/gaussian.hpp"
#include "ppk/hmm.hpp"
#include "ppk/lds.hpp"
#include "ppk/linear_gaussian.hpp"
#include "ppk/mi.hpp"
#include "ppk/mixture.hpp"
#include "ppk/montecarlo.hpp"
#include "ppk/multinomial.hpp"
#include "ppk/poisson.hpp"
#include "ppk/slds.hpp"

namespace ppk {

namespace {

std::vector<const FamilyInfo*>& registry() {
  static std::vector<const FamilyInfo*> families = {
      &gaussian_family(),     // code 1
      &bernoulli_family(),    // code 2
      &multinomial_family(),  // code 3
      &poisson_family(),      // code 4
      &exponential_family(),  // code 5
      &gamma_family(),        // code 6
      &dirichlet_family(),    // code 7
      &mixture_family(),      // code 8
      &hmm_family(),          // code 9
      &bayesnet_family(),     // code 10
      &lds_family(),          // code 11
      &linear_gaussian_family(),  // code 12
      &slds_family(),             // code 13
      &montecarlo_family(),       // code 14
      &fhmm_family(),             // code 15
      &mi_family(),               // code 16
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
