// The families of `ppk fit`, in the order of `ppk fit --help`. A family's command is its file,
// tools/fit/NAME.cpp (its help, its options and its estimator's factory, described by the FitFamily
// that NAME_family() returns), declared and listed here.
#include <vector>

#include "fit_family.hpp"

namespace ppk::cli {

FitFamily gaussian_family();
FitFamily bernoulli_family();
FitFamily multinomial_family();
FitFamily poisson_family();
FitFamily exponential_family();
FitFamily gamma_family();
FitFamily dirichlet_family();
FitFamily mixture_family();
FitFamily kde_family();
FitFamily hmm_family();
FitFamily markov_family();
FitFamily fhmm_family();
FitFamily bayesnet_family();
FitFamily lds_family();
FitFamily slds_family();

const std::vector<FitFamily>& fit_families() {
  static const std::vector<FitFamily> families{
      gaussian_family(), bernoulli_family(), multinomial_family(), poisson_family(), exponential_family(),
      gamma_family(),    dirichlet_family(), mixture_family(),     kde_family(),     hmm_family(),
      markov_family(),   fhmm_family(),      bayesnet_family(),    lds_family(),     slds_family(),
  };
  return families;
}

}  // namespace ppk::cli
