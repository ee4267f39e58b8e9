// The options of pooled models' MAP adaptation (adaptation.hpp); the fits themselves are beside
// the per-example ones (estimate_hmm.cpp, estimate_mixture.cpp).
#include "ppk/estimate/adaptation.hpp"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "estimate/estimate_detail.hpp"

namespace ppk {
namespace {

// Each name of parse_adapted_parameters and its flag.
std::vector<std::pair<const char*, bool AdaptedParameters::*>> parameter_flags() {
  return {{"start", &AdaptedParameters::start},
          {"transitions", &AdaptedParameters::transitions},
          {"emissions", &AdaptedParameters::emissions},
          {"weights", &AdaptedParameters::weights},
          {"means", &AdaptedParameters::means},
          {"covariances", &AdaptedParameters::covariances},
          {"cpts", &AdaptedParameters::cpts}};
}

std::string known_names() {
  std::string names;
  for (const auto& [name, flag] : parameter_flags()) names += std::string(names.empty() ? "" : ", ") + name;
  return names + " or all";
}

}  // namespace

AdaptedParameters parse_adapted_parameters(const std::string& list) {
  if (list == "all") return AdaptedParameters{};
  AdaptedParameters adapted{false, false, false, false, false, false, false, false};
  std::istringstream items(list);
  std::string item;
  bool any = false;
  while (std::getline(items, item, ',')) {
    bool known = false;
    for (const auto& [name, flag] : parameter_flags()) {
      if (item != name) continue;
      if (adapted.*flag) throw OptionError("{adapt} names '" + item + "' twice");
      adapted.*flag = known = any = true;
    }
    if (!known)
      throw OptionError("{adapt} must be a comma-separated list of " + known_names() + ", got '" + item + "' in '" +
                        list + "'");
  }
  if (!any) throw OptionError("{adapt} must name at least one of " + known_names());
  return adapted;
}

void check_adapted_parameters(const AdaptedParameters& adapted, const std::string& family,
                              std::initializer_list<const char*> applicable) {
  std::string names;
  for (const char* name : applicable) names += std::string(names.empty() ? "" : ", ") + name;
  bool any = false;
  for (const auto& [name, flag] : parameter_flags()) {
    if (!(adapted.*flag)) continue;
    bool applies = false;
    for (const char* candidate : applicable) applies = applies || std::string(candidate) == name;
    if (!applies && !adapted.all)
      throw OptionError("{adapt} names '" + std::string(name) + "', which " + detail::with_article(family) +
                        " does not have (it has " + names + ")");
    any = any || applies;
  }
  if (!any)
    throw OptionError("{adapt} selects none of the parameters of " + detail::with_article(family) + " (" + names + ")");
}

void check_adaptation_options(const AdaptationOptions& options) {
  detail::check_option("relevance", options.relevance, 0, true);
  if (options.iterations < 1)
    throw OptionError("{iterations} must be at least 1, got " + std::to_string(options.iterations));
  detail::check_option("tolerance", options.tolerance, 0, false);
  if (options.ridge) detail::check_option("ridge", *options.ridge, 0, false);
  if (options.length && *options.length < 0)
    throw OptionError("{length} must be at least 0, got " + std::to_string(*options.length));
}

}  // namespace ppk
