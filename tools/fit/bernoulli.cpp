// ppk fit bernoulli: independent binary features under a Beta(A, A) prior (smoothed_family.hpp).
#include <memory>
#include <vector>

#include "fit_family.hpp"
#include "smoothed_family.hpp"
#include "ppk/estimate/estimate_bernoulli.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kBernoulliHelp = R"(
bernoulli: independent binary features (a non-zero value counts as 1) of the
  example's n vectors, k_d of which have feature d; prior g_d ~ Beta(A, A):
  posterior (default): g_d = (k_d + A) / (n + 2A)  (A = 1: Laplace's rule)
  map: g_d = (k_d + A - 1) / (n + 2A - 2)  (A >= 1);  ml: g_d = k_d / n.
  Rows list only the features that occur; the others share a base probability.
  --alpha 3 (default): for one vector per example the kernel (rho = 1/2) is
  m^|x XOR x'|, m = 2 sqrt(A (1 + A)) / (1 + 2A): an RBF kernel on the binary
  vectors whose width A sets. Measured on word-presence rows of two real
  corpora (docs/documents-smoothing.md), A = 3 was 2.1 and 2.7 points above
  A = 1 held out and within 0.3 of the best A; A <= 0.1 (and ml) make the
  kernel matrix nearly the identity (chance accuracy).
  --alpha auto: A (or ml) and the SVM's C chosen by cross-validated accuracy,
  as for multinomial rows (below; --cv-alphas default evidence,0.1,1,3,10,30).
  --alpha evidence: A maximises the evidence (the beta-binomial likelihood of
  the training file, g integrated out); needs examples of several vectors
  (qid:).
)";

void add_bernoulli_options(po::options_description& options) {
  add_chosen_alpha_option(options, "3", "A|auto|evidence", "evidence,0.1,1,3,10,30",
                          "the Beta(A, A) prior: g_d = (k_d + A) / (n + 2A) (posterior); auto: the smoothing (A "
                          "or ml) chosen with C by cross-validated SVM accuracy on the training file; evidence: "
                          "A chosen by maximum evidence (needs examples of several vectors)");
}

AlphaOptions parse_bernoulli_options(const po::variables_map& values) { return parse_alpha_options(values, false); }

std::unique_ptr<Estimator> make_bernoulli(const FitContext& context, const AlphaOptions& alpha) {
  return smoothed_estimator(context, alpha,
                            SmoothedFamily{"bernoulli",
                                           [&] {
                                             const std::vector<Example>& examples = context.input.data().examples;
                                             bool several = false;
                                             for (const Example& example : examples)
                                               several = several || example.vectors.size() > 1;
                                             if (!several)
                                               throw EstimationError(
                                                   "every example is one vector, and the evidence of one binary draw "
                                                   "is 1/2 whatever the Beta(A, A) prior, so the data cannot choose A; "
                                                   "group each example's vectors with qid:, or give --alpha a number");
                                             return bernoulli_polya_counts(examples, context.input.dim());
                                           },
                                           2.0, "2A (Beta(A, A) per feature)", false,
                                           [](Method method, double alpha) {
                                             return bernoulli_estimator(BernoulliFitOptions{method, alpha});
                                           }});
}

}  // namespace

FitFamily bernoulli_family() {
  return {"bernoulli",
          "independent binary features",
          kBernoulliHelp,
          Method::posterior,
          nullptr,
          true,
          add_bernoulli_options,
          typed_options<AlphaOptions, parse_bernoulli_options, make_bernoulli, read_libsvm_input>,
          {kAlphaFlags}};
}

}  // namespace ppk::cli
