// ppk fit bayesnet: a discrete Bayesian network of a given structure; EM for hidden nodes.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "fit_family.hpp"
#include "ppk/estimate/estimate_bayesnet.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kBayesNetHelp = R"(
bayesnet: a Bayesian network of the structure in --structure S.json, a network's
  JSON without CPTs: {"nodes":[{"states":K,"parents":[..],"variable":j},..]}
  ("variable" absent: a hidden node). Every node must be discrete (emission
  leaves are not fitted). Each vector of the example is one joint observation
  of the observed variables: variable j at index j + 1, with a value in 1..K.
  With n(c, k) the observations in which a node is in state k and its parents
  in configuration c, under a Dirichlet(A) prior, P(k | c) is
  ml: n(c, k) / n(c); map: (n(c, k) + A - 1) / (n(c) + K (A - 1));
  posterior (default): (n(c, k) + A) / (n(c) + K A);
  that is (n(c, k) + s) / (n(c) + K s) with s = 0, A - 1 resp. A.
  Fully observed: the counts, in closed form (--shrink pools them).
  Hidden nodes: EM. E-step: the posterior P(h | x) of every joint hidden
  configuration h given each observation x, by enumerating them (at most 65536
  = 2^16; log space), gives expected counts n(c, k) = sum_x P(k, c | x); M-step:
  the formula above. The update is the MAP under Dirichlet(1 + s) priors, so EM
  never decreases L = sum_x log p(x) + s sum log P(k | c): for ml the
  log-likelihood, for map the log-posterior under Dirichlet(A), for posterior
  the log-posterior under Dirichlet(1 + A) (whose mode is the smoothed mean).
  Starts are random, seeded by (--seed, the observations), so fits are
  reproducible; the best of --restarts runs is kept. No --shrink.
)";

void add_alpha_option(po::options_description& options, const char* description) {
  options.add_options()("alpha", po::value<double>()->default_value(1.0)->value_name("A"), description);
}

void add_bayesnet_options(po::options_description& options) {
  options.add_options()("structure", po::value<std::string>()->value_name("S.json"),
                        "the network's structure (required)");
  add_alpha_option(options, "the Dirichlet(A) prior on each CPT row (posterior: (n(c, k) + A) / (n(c) + K A))");
  add_em_options(options, 200, "hidden nodes: at most N EM iterations per restart");
}

// The fields of BayesNetFitOptions that these flags set.
const OptionFlags kBayesNetFlags{{"alpha", "--alpha"}};

// The options of ppk fit bayesnet: the structure file, and the library's options (its method the context's).
struct BayesNetOptions {
  std::string structure;  // --structure S.json, the network's nodes
  BayesNetFitOptions fit;
};

BayesNetOptions parse_bayesnet_options(const po::variables_map& values) {
  if (!values.count("structure")) throw UsageError("ppk fit bayesnet needs --structure S.json (the network's nodes)");
  BayesNetOptions options;
  options.structure = values["structure"].as<std::string>();
  options.fit.alpha = option(values, "alpha");
  read_em_options(values, options.fit);
  return options;
}

std::unique_ptr<Estimator> make_bayesnet(const FitContext& context, const BayesNetOptions& given) {
  InputFile input(given.structure);
  nlohmann::json structure;
  try {
    structure = nlohmann::json::parse(input.stream());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(input.name() + ": not a JSON network structure: " + e.what());
  }
  try {
    BayesNetFitOptions options = given.fit;
    options.method = context.method;
    return bayesnet_estimator(structure, options);
  } catch (const ModelError& e) {
    throw InputError(input.name() + ": " + e.what());
  }
}

}  // namespace

FitFamily bayesnet_family() {
  return {"bayesnet",
          "discrete Bayesian network of a given structure; EM for hidden nodes",
          kBayesNetHelp,
          Method::posterior,
          nullptr,
          true,
          add_bayesnet_options,
          typed_options<BayesNetOptions, parse_bayesnet_options, make_bayesnet, read_libsvm_input>,
          {kBayesNetFlags, kEmOptionFlags},
          true,
          {"alpha", "restarts", "seed"}};
}

}  // namespace ppk::cli
