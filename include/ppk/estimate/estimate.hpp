// Estimators: one generative model from the vectors of one example (JMLR 2004 section 2.2;
// COLT 2003 section 2.1).
//
// The input is the example's vectors in LIBSVM's sparse form (a single vector, or the rows of a
// qid group) and the dimension D of the sample space, which the caller fixes for the whole data
// set so that models fitted from separate files agree. Every coordinate must be < D.
//
// Every estimator works in two steps: the example's sufficient statistics (Statistics: the number
// of vectors n and sums such as sum_i x_i or sum_i log x_i), then the model from those statistics
// by one of three methods:
//   ml         maximum likelihood, theta = argmax log p(chi | theta);
//   map        the mode of the posterior under the family's conjugate prior;
//   posterior  the posterior predictive p(x | chi) = integral p(x | theta) p(theta | chi) dtheta,
//              where it stays in a supported family (Bernoulli, multinomial, Gaussian with a
//              known variance).
// Shrinkage (COLT 2003, the equation after (5)) draws every example's estimate toward the whole
// training set:
//   theta_i = argmax [ log p(chi_i | theta) + lambda sum_j log p(chi_j | theta) ].
// For an exponential family the objective depends on the data only through n and sum T(x), so
// theta_i is the estimate from the example's statistics plus lambda times the statistics pooled
// over all training examples (pool() below). The pooled statistics are saved with the training
// models (pooled_to_json) so that test examples are fitted against the same pool.
//
// This header is the framework; each family's options and estimator are in estimate_<family>.hpp
// (estimate_gaussian.hpp, estimate_hmm.hpp, ...), the covariance prior the latent-variable fits share
// in covariance_prior.hpp.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>

#include "ppk/core/data.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/option_error.hpp"

namespace ppk {

struct AdaptationOptions;  // adaptation.hpp
struct AdaptedParameters;  // adaptation.hpp
class FisherScores;        // fisher.hpp

// The example cannot give a model with these options (too few vectors for the covariance, a
// singular covariance, counts that are negative...). The message says why and which option would
// help; it names no file (the caller adds that).
class EstimationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An EstimationError about the options, naming them by their fields ({alpha}, option_error.hpp):
// what() says "alpha", the command-line tool "--alpha". Fields of the estimator functions' own
// parameters are named like struct fields: "dim" (the dimension D) and "lambda" (the shrinkage weight).
class OptionError : public EstimationError, public NamesOptionFields {
 public:
  explicit OptionError(const std::string& message_template)
      : EstimationError(with_field_names(message_template)), NamesOptionFields(message_template) {}
};

// The fit has no sufficient statistics to pool (mixtures, HMMs, networks with hidden nodes), so
// shrinkage and pooled statistics are refused: a property of the options, not of one example.
class PoolingUnsupported : public OptionError {
 public:
  using OptionError::OptionError;
};

// The fit's working memory, made large by the options (an HMM's states and restarts), is more than
// the process may allocate: a property of the options, never taken as one candidate's failure
// when a value is chosen from a grid.
class WorkingMemoryError : public OptionError {
 public:
  using OptionError::OptionError;
};

enum class Method { ml, map, posterior };
// "ml", "map", "posterior"; parse_method throws EstimationError for anything else.
const char* method_name(Method method);
Method parse_method(const std::string& name);

// Sufficient statistics of a set of vectors for one family and dimension.
struct Statistics {
  std::string family;
  long dim = 0;
  double count = 0;                             // n, the number of vectors (weighted when pooled)
  std::map<std::string, Eigen::MatrixXd> sums;  // named statistics, vectors as D x 1
};

// The statistics as JSON ({"family", "dim", "count", "statistics": {name: array}}) and back;
// from_json throws EstimationError naming what is wrong. Each statistic keeps the shape it was
// written with (an array of numbers: n x 1; an array of rows: r x c), which is the family's own and
// need not involve "dim" (a network node's C K counts); estimate() checks it against the fit's.
void statistics_to_json(const Statistics& statistics, nlohmann::json& out);
Statistics statistics_from_json(const nlohmann::json& object);

class Estimator {
 public:
  virtual ~Estimator() = default;
  virtual std::string family() const = 0;
  // The statistics of one example's vectors; checks that every coordinate is < dim and every
  // value lies in the family's sample space (EstimationError otherwise).
  virtual Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const = 0;
  // The statistics of the union of a's data and `weight` copies of b's data. The default adds
  // counts and sums; the Gaussian's centred statistics combine differently.
  virtual Statistics pool(const Statistics& a, const Statistics& b, double weight) const;
  // The model from statistics, by the configured method.
  virtual std::unique_ptr<Model> fit(const Statistics& statistics) const = 0;
  // Latent-variable estimators (hmm, mixture; adaptation.hpp): one model fitted to every example's
  // statistics at once (`threads` for its E-step), and the MAP adaptation of such a pooled model to
  // one example's statistics. The defaults throw OptionError naming {pooled} and {adapt_from}.
  virtual std::unique_ptr<Model> fit_pooled(const std::vector<Statistics>& examples, unsigned threads) const;
  virtual std::unique_ptr<Model> adapt(const Model& pooled, const Statistics& example,
                                       const AdaptationOptions& options) const;
  // The Fisher scores (fisher.hpp) of a pooled model of this family with respect to the selected
  // parameters. The default throws the EstimationError that says the pooled model has none.
  virtual std::unique_ptr<FisherScores> fisher_scores(const Model& pooled, const AdaptedParameters& parameters) const;
};

// Fits one example: its statistics, shrunk toward `pooled` with weight `lambda` when given.
std::unique_ptr<Model> estimate(const Estimator& estimator, const std::vector<SparseVector>& vectors, long dim,
                                const Statistics* pooled = nullptr, double lambda = 0.0);

}  // namespace ppk
