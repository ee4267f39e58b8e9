// The library's model families, registered with core's registry (family.hpp): one line per family.
#include "ppk/core/family.hpp"

#include "ppk/families/bayesnet.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/families/combined.hpp"
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

// The library's families, in code order: the order of all_families() (`ppk families`).
bool register_builtin_families() {
  for (const FamilyInfo* family : {
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
           &combined_family(),         // code 19
       })
    register_family(*family);
  return true;
}

// Before main: no static initializer reads the registry (docs/design.md "Source layout").
const bool kBuiltinFamiliesRegistered = register_builtin_families();

}  // namespace

}  // namespace ppk

// What links libppk links this file (the ppk target's --undefined=ppk_builtin_families), though
// nothing calls into it: libppk is a static archive, and its families register themselves here.
extern "C" int ppk_builtin_families() { return ppk::kBuiltinFamiliesRegistered ? 1 : 0; }
