// Library errors name options by their fields (option_error.hpp): the message templates, and the
// estimators' and readers' errors about their options.
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ppk/core/data.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_gaussian.hpp"
#include "ppk/estimate/estimate_bernoulli.hpp"
#include "ppk/estimate/estimate_multinomial.hpp"
#include "ppk/estimate/estimate_poisson.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/estimate/estimate_fhmm.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/estimate/estimate_bayesnet.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/estimate/estimate_slds.hpp"

namespace ppk {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::string upper(const std::string& field) {
  std::string out = "<";
  for (const char c : field) out += static_cast<char>(c == '_' ? '-' : std::toupper(static_cast<unsigned char>(c)));
  return out + ">";
}

TEST(OptionMessage, FieldsAreNamedOnceInOrderAndRenderedByTheCaller) {
  const NamesOptionFields message("{prior_count} must exceed 2; give {ridge} or {prior_count} a value");
  EXPECT_THAT(message.fields(), ElementsAre("prior_count", "ridge"));
  EXPECT_EQ(message.message(upper), "<PRIOR-COUNT> must exceed 2; give <RIDGE> or <PRIOR-COUNT> a value");
  EXPECT_EQ(with_field_names("{prior.strength} must be >= 0"), "prior.strength must be >= 0");
}

TEST(OptionMessage, EscapedBracesAreLiteralText) {
  const std::string literal = "file {a}.txt: }{";
  const NamesOptionFields message(escape_braces(literal) + ": {alpha}");
  EXPECT_THAT(message.fields(), ElementsAre("alpha"));
  EXPECT_EQ(message.message(upper), "file {a}.txt: }{: <ALPHA>");
  EXPECT_EQ(with_field_names("no fields"), "no fields");
  EXPECT_TRUE(NamesOptionFields("a lone { brace").fields().empty());
}

// The OptionError that `make` throws: it must name exactly `fields` (what() shows them by name and
// no program's flag).
void expect_names_fields(const std::function<void()>& make, const std::vector<std::string>& fields,
                         const std::string& fragment) {
  try {
    make();
    ADD_FAILURE() << "no error; expected one naming " << fields.front();
  } catch (const OptionError& e) {
    EXPECT_EQ(e.fields(), fields) << e.what();
    EXPECT_THAT(e.what(), HasSubstr(fragment));
    EXPECT_THAT(e.what(), Not(HasSubstr("--")));
  }
}

TEST(OptionError, EstimatorsNameTheFieldOfTheirOptions) {
  MultinomialFitOptions multinomial;
  multinomial.alpha = -1;
  expect_names_fields([&] { multinomial_estimator(multinomial); }, {"alpha"},
                      "alpha must be a finite number >= 0, got -1");
  expect_names_fields(
      [] {
        bernoulli_estimator({Method::map, 0.5})->fit(Statistics{"bernoulli", 1, 1, {}});
      },
      {"method"}, "use method posterior");
  GaussianFitOptions gaussian;
  gaussian.prior_variance = 0;
  gaussian.method = Method::map;
  expect_names_fields([&] { gaussian_estimator(gaussian); }, {"prior_variance"}, "prior_variance must be");
  PoissonFitOptions poisson;
  poisson.prior_rates = Eigen::VectorXd::Ones(2);
  expect_names_fields([&] { poisson_estimator(poisson); }, {"prior_rates", "method"},
                      "prior_rates is a prior of the map estimator: add method map");
  HmmFitOptions hmm;
  hmm.states = 0;
  expect_names_fields([&] { hmm_estimator(hmm); }, {"states"}, "states must be in [1, 5791]");
  FhmmFitOptions fhmm;
  fhmm.chains = 0;
  expect_names_fields([&] { fhmm_estimator(fhmm); }, {"chains"}, "chains must be at least 1");
  MixtureFitOptions mixture;
  mixture.prior = CovariancePrior{1.0, Eigen::MatrixXd::Identity(2, 2)};
  expect_names_fields([&] { check_covariance_prior(*mixture.prior, CovarianceForm::full, 2); }, {"prior.count"},
                      "prior.count must be a finite number > 3");
  LdsFitOptions lds;
  lds.prior.state_noise = 0;
  expect_names_fields([&] { lds_estimator(lds); }, {"prior.state_noise"}, "prior.state_noise must be");
  SldsFitOptions slds;
  slds.paths = 0;
  expect_names_fields([&] { slds_estimator(slds); }, {"paths"}, "paths must be in [1, 1000]");
  expect_names_fields([] { kde_estimator({0.0}); }, {"bandwidth"}, "bandwidth must be a finite number > 0");
  BayesNetFitOptions bayesnet;
  bayesnet.restarts = 0;
  expect_names_fields(
      [&] {
        bayesnet_estimator(nlohmann::json::parse(R"({"nodes":[{"states":2,"parents":[],"variable":0}]})"), bayesnet);
      },
      {"restarts"}, "restarts must be at least 1, got 0");
}

TEST(OptionError, ExampleErrorsNameTheOptionThatWouldHelp) {
  // One vector: its maximum-likelihood variance is 0; the remedy names the ridge and the variance.
  const std::vector<SparseVector> one{{{0, 1.0}}};
  GaussianFitOptions gaussian;
  gaussian.covariance = CovarianceForm::diagonal;
  expect_names_fields([&] { estimate(*gaussian_estimator(gaussian), one, 1); }, {"ridge", "variance"},
                      "give ridge R (added to the covariance diagonal) or variance V");
  // An index beyond the dimension names dim; pooling a mixture names the shrinkage weight lambda.
  expect_names_fields(
      [&] {
        estimate(*gaussian_estimator(gaussian), {{{3, 1.0}}}, 2);
      },
      {"dim"}, "is larger than the dimension 2 (dim)");
  expect_names_fields([&] { mixture_estimator({})->pool(Statistics{}, Statistics{}, 1.0); }, {"lambda"},
                      "so lambda and pooled statistics are not supported");
}

TEST(OptionError, SequenceReadingNamesItsAlphabetAndFormatParameters) {
  const Alphabet alphabet("AC", "test");
  std::istringstream unknown("1 AG\n");
  try {
    read_sequences(unknown, "seqs.txt", std::nullopt, alphabet);
    ADD_FAILURE() << "no error";
  } catch (const InputOptionError& e) {
    EXPECT_THAT(e.fields(), ElementsAre("alphabet"));
    EXPECT_EQ(e.message(upper),
              "seqs.txt:1: column 4: symbol 'G' (position 2 of the sequence) is not in the alphabet 'AC'; the "
              "alphabet comes from <ALPHABET>");
  }
  std::istringstream libsvm("1 1:0.5 2:1\n");
  try {
    read_sequences(libsvm, "{odd}.txt", SequenceFormat::lines, std::nullopt);
    ADD_FAILURE() << "no error";
  } catch (const InputOptionError& e) {
    EXPECT_THAT(e.fields(), ElementsAre("format"));
    EXPECT_THAT(e.message(upper), HasSubstr("{odd}.txt:1: this line is"));
    EXPECT_THAT(e.message(upper), HasSubstr("LIBSVM vectors are read with <FORMAT> libsvm"));
  }
}

}  // namespace
}  // namespace ppk
