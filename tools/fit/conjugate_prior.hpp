// The estimator of a family whose conjugate prior is fixed or pooled on INPUT (ppk fit gamma,
// dirichlet).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fit_family.hpp"
#include "prior_options.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk::cli {

// A parameter of the distribution whose statistics centre --prior fixed: the option --`name` VALUE
// (default 1).
struct FixedPriorParameter {
  const char* name;
  const char* value_name;
};

// --prior fixed|pooled, the parameters `fixed` of --prior fixed (pseudo-observations typical of
// `distribution`) and --prior-count N0|auto, whose auto (the default of --prior pooled, centred on
// `pooled`) chooses N0 by `chosen_by` on INPUT.
inline void add_conjugate_prior_options(po::options_description& options, const std::string& distribution,
                                        const std::string& pooled, const std::vector<FixedPriorParameter>& fixed,
                                        const std::string& chosen_by) {
  const std::string centre =
      "map: the conjugate prior's centre: fixed (statistics of " + distribution + ") or pooled (" + pooled + ")";
  options.add_options()("prior", po::value<std::string>()->default_value("fixed")->value_name("fixed|pooled"),
                        centre.c_str());
  for (const FixedPriorParameter& parameter : fixed) {
    const std::string help = &parameter == &fixed.front()
                                 ? "map, --prior fixed: pseudo-observations typical of " + distribution
                                 : std::string("map, --prior fixed: (see --") + fixed.front().name + ")";
    options.add_options()(parameter.name, po::value<double>()->default_value(1.0)->value_name(parameter.value_name),
                          help.c_str());
  }
  const std::string count =
      "map: the prior is worth N0 > 0 pseudo-observations (default 1; with --prior pooled default auto = " + chosen_by +
      " on INPUT)";
  options.add_options()("prior-count", po::value<std::string>()->value_name("N0|auto"), count.c_str());
}

// The estimator of `given`: the library's options with the context's method; with --prior pooled (map
// only, no option of --prior fixed given) the prior's centre and strength are set by `choose`, which
// reads the examples' statistics (those of `estimator`'s reader) from `examples` when it needs them,
// and chooses the strength only when `choose_strength` (--prior-count auto).
template <class FitOptions,
          void (*choose)(const FitContext& context, LazyExampleStatistics& examples, bool choose_strength,
                         FitOptions& options),
          std::unique_ptr<Estimator> (*estimator)(const FitOptions&)>
std::unique_ptr<Estimator> make_conjugate(const FitContext& context, const PriorFitOptions<FitOptions>& given) {
  FitOptions options = given.fit;
  options.method = context.method;
  if (given.pooled) {
    check_pooled_conjugate_prior(context.method, given.fixed_option);
    const std::unique_ptr<Estimator> reader = estimator(FitOptions{});
    LazyExampleStatistics examples(*reader, context.input.data(), context.input.dim());
    choose(context, examples, given.choose_strength, options);
  }
  return estimator(options);
}

}  // namespace ppk::cli
