// ppk fit dirichlet: probability vectors under a conjugate prior, fixed or pooled on the training file.
#include <cmath>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "conjugate_prior.hpp"
#include "fit_family.hpp"
#include "prior_options.hpp"
#include "ppk/estimate/estimate_dirichlet.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kDirichletHelp = R"(
dirichlet: probability vectors (every x_d > 0, summing to 1; a Beta over
  proportions x is the case D = 2, x = (x, 1 - x)).
  ml (default): the fixed point digamma(alpha_d) - digamma(sum alpha) =
    mean(log x_d) by Newton's method (needs vectors that are not all equal).
  map: as for gamma, with N0 pseudo-observations typical of Dirichlet(A0, .., A0):
    mean log x_d = digamma(A0) - digamma(D A0).
  map --prior pooled (docs/priors-by-evidence.md): N0 pseudo-observations with
    mean log x_d = l_d, the pooled mean of log x_d over every vector of INPUT.
    --prior-count auto (the default there) chooses N0 on the grid 2^-3..2^10 by
    held-out likelihood (each example's vectors left out in turn, the rest fitted;
    examples of one vector are not used). l and N0 are saved by --save-pooled
    and reused by --pooled-from.
)";

void add_dirichlet_options(po::options_description& options) {
  add_conjugate_prior_options(options, "Dirichlet(A0, .., A0)", "INPUT's pooled mean of log x_d", {{"prior-alpha", "A0"}},
                              "maximum held-out likelihood");
}

// The fields of DirichletFitOptions that these flags set.
const OptionFlags kDirichletFlags{
    {"prior_alpha", "--prior-alpha"}, {"prior_count", "--prior-count"}, {"prior_log_means", "--prior pooled"}};

// --prior pooled: the centre (INPUT's pooled mean of log x_d, saved as "prior-centre", D x 1) and
// N0, given or chosen by held-out likelihood on INPUT (choose_dirichlet_prior_count), or both read
// from --pooled-from.
void choose_dirichlet_prior(const FitContext& context, LazyExampleStatistics& examples, bool choose_count,
                            DirichletFitOptions& options) {
  const Eigen::MatrixXd centre = pooled_statistics_centre(context, examples, {"log_x"});
  options.prior_log_means = centre.col(0);
  options.prior_count = pooled_prior_strength(context, "prior-count", choose_count, options.prior_count, [&] {
    examples();  // every example read and checked first
    const Dataset& data = context.input.data();
    const long dim = context.input.dim();
    std::vector<Eigen::MatrixXd> log_vectors;
    for (const Example& example : data.examples) {
      Eigen::MatrixXd logs(static_cast<Eigen::Index>(example.vectors.size()), dim);
      for (std::size_t j = 0; j < example.vectors.size(); ++j)
        for (const Feature& f : example.vectors[j]) logs(static_cast<Eigen::Index>(j), f.coord) = std::log(f.value);
      log_vectors.push_back(std::move(logs));
    }
    DirichletPriorChoice choice;
    try {
      choice = choose_dirichlet_prior_count(log_vectors, centre.col(0));
    } catch (const EstimationError& e) {
      throw InputError(data.source + ": " + message_of(e));
    }
    std::ostringstream how;
    how << "maximum held-out likelihood (each vector left out in turn; grid 0.125..1024"
        << (choice.count == choice.scores.front().first || choice.count == choice.scores.back().first
                ? ", best at its end"
                : "")
        << ")";
    return Choice{choice.count, how.str()};
  });
}

// --prior fixed|pooled, --prior-count N0|auto and --prior-alpha (that of --prior fixed).
PriorFitOptions<DirichletFitOptions> parse_dirichlet_options(const po::variables_map& values) {
  PriorFitOptions<DirichletFitOptions> options;
  options.pooled = prior_is_pooled(values);
  parse_prior_count(values, {"prior-alpha"}, options);
  options.fit.prior_alpha = option(values, "prior-alpha");
  return options;
}

// The estimator: the conjugate prior fixed, or pooled on INPUT by choose_dirichlet_prior.
constexpr auto make_dirichlet = make_conjugate<DirichletFitOptions, choose_dirichlet_prior, dirichlet_estimator>;

}  // namespace

FitFamily dirichlet_family() {
  return {"dirichlet",
          "Dirichlet over probability vectors",
          kDirichletHelp,
          Method::ml,
          nullptr,
          true,
          add_dirichlet_options,
          typed_options<PriorFitOptions<DirichletFitOptions>, parse_dirichlet_options, make_dirichlet, read_libsvm_input>,
          {kDirichletFlags}};
}

}  // namespace ppk::cli
