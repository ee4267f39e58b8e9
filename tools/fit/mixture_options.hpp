// The options of an EM fit of a Gaussian mixture (MixtureFitOptions, estimate.hpp), shared by
// `ppk fit mixture` and `ppk fit mi mixture` (defined in mixture.cpp).
#pragma once

#include "cli.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk::cli {

// --components K, --cov iso|diag|full, --ridge R, --iterations N, --tolerance T, --restarts N, --seed S.
void add_mixture_options(po::options_description& options);
// The fields of MixtureFitOptions named by the flags of add_mixture_options.
inline const OptionFlags kMixtureOptionFlags{
    {"components", "--components"}, {"covariance", "--cov"}, {"ridge", "--ridge"}};
// Those options read back; UsageError naming the option when one is out of range.
MixtureFitOptions mixture_fit_options(const po::variables_map& values);

}  // namespace ppk::cli
