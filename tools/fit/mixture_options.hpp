// The options of an EM fit of a Gaussian mixture (MixtureFitOptions, estimate.hpp), shared by
// `ppk fit mixture` and `ppk fit mi mixture` (defined in mixture.cpp).
#pragma once

#include "cli.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_mixture.hpp"

namespace ppk::cli {

// How a command offers --components: its default, its value's name and its help.
struct ComponentsOption {
  const char* default_value;
  const char* value_name;
  const char* help;
};
// ppk fit mixture's: a number, or auto (with --pooled) for the held-out choice.
extern const ComponentsOption kPooledComponents;

// --components (as `components` offers it), --cov iso|diag|full, --ridge R, --iterations N,
// --tolerance T, --restarts N, --seed S.
void add_mixture_options(po::options_description& options, const ComponentsOption& components = kPooledComponents);
// The fields of MixtureFitOptions named by the flags of add_mixture_options.
inline const OptionFlags kMixtureOptionFlags{
    {"components", "--components"}, {"covariance", "--cov"}, {"ridge", "--ridge"}};
// Those options as given: the library's options, and whether --components is auto (ppk fit mixture
// --pooled: K chosen on INPUT by held-out likelihood) or classes (ppk fit mi mixture: one component per
// distinct label of INPUT, use_class_components), fit.components holding its default until then.
struct MixtureOptions {
  MixtureFitOptions fit;
  bool choose_components = false;
  bool components_by_classes = false;
};
// Those options read once; UsageError naming the option when one is out of range. `pooled`: the fit
// is ppk fit mixture --pooled, where --components may be `auto`; `by_classes`: --components may be
// `classes` (ppk fit mi mixture) instead.
MixtureOptions parse_mixture_options(const po::variables_map& values, bool pooled, bool by_classes = false);
// --components classes resolved: K = `classes`, the number of distinct labels of INPUT; UsageError
// when it is below 2. Nothing changes for options with another --components.
void use_class_components(MixtureOptions& options, long classes);

}  // namespace ppk::cli
