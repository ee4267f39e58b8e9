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
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>

#include "ppk/estimate/pooled_priors.hpp"
#include "ppk/core/data.hpp"
#include "ppk/families/fhmm.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/mixture.hpp"
#include "ppk/core/model.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/core/option_error.hpp"

namespace ppk {

struct AdaptationOptions;  // adaptation.hpp

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
};

// Fits one example: its statistics, shrunk toward `pooled` with weight `lambda` when given.
std::unique_ptr<Model> estimate(const Estimator& estimator, const std::vector<SparseVector>& vectors, long dim,
                                const Statistics* pooled = nullptr, double lambda = 0.0);

// ---------------------------------------------------------------------------------------------
// Gaussian N(mu, Sigma) from the example's n vectors, x-bar their mean, S = sum_i (x_i - x-bar)(x_i - x-bar)'.
//   ml:   mu = x-bar; Sigma = S/n + ridge I (full), diag(S)/n + ridge I (diagonal),
//         (trace(S)/(n D) + ridge) I (isotropic). Without a ridge the ML covariance must be
//         non-singular: a diagonal or isotropic fit needs n >= 2 and no coordinate (resp. not every
//         coordinate) constant; a full fit needs n >= D + 1 and vectors spanning R^D (numerically:
//         smallest eigenvalue > D * machine epsilon * largest).
//   map:  the conjugate prior mu | Sigma ~ N(m0 1, Sigma / k0) with Sigma ~ inverse-Wishart(nu0,
//         nu0 s0 I) (full), or each variance (diagonal) or the one variance (isotropic) ~ scaled
//         inverse-chi^2(nu0, s0). With m = (n x-bar + k0 m0 1)/(n + k0) and
//         B = k0 n / (k0 + n) (x-bar - m0 1)(x-bar - m0 1)', the joint posterior mode is mu = m and
//           full       Sigma = (nu0 s0 I + S + B) / (nu0 + n + D + 2)
//           diagonal   Sigma_dd = (nu0 s0 + S_dd + B_dd) / (nu0 + n + 3)
//           isotropic  sigma^2 = (nu0 s0 + trace(S + B)) / (nu0 + n D + D + 2),  plus the ridge.
// map with `prior_centre` C set (ppk fit gaussian --prior pooled; docs/priors-by-evidence.md): a
//         flat prior on mu and the inverse-Wishart prior of pooled_priors.hpp, Sigma ~
//         IW(nu, (nu - D - 1) C) with nu = prior_count > D + 1 (full), or each variance (diagonal)
//         or the one variance (isotropic) ~ IW_1(nu, (nu - 2) c), nu > 2: E[Sigma] = C. The joint
//         posterior mode is mu = x-bar and
//           full       Sigma = ((nu - D - 1) C + S) / (nu + n + D + 1)
//           diagonal   Sigma_dd = ((nu - 2) C_d + S_dd) / (nu + n + 2)
//           isotropic  sigma^2 = ((nu - 2) c + trace(S)) / (nu + n D + 2),  plus the ridge.
//         C is D x D (full), D x 1 (diagonal: the variances) or 1 x 1 (isotropic).
//         With `pooled_posterior_mean`, Sigma is instead its posterior mean given the scatter (mu
//         integrated out: Sigma | S ~ IW(nu + n - 1, (nu - p - 1) C + S)), mu = x-bar:
//           full       Sigma = ((nu - D - 1) C + S) / (nu + n - D - 2)
//           diagonal   Sigma_dd = ((nu - 2) C_d + S_dd) / (nu + n - 3)
//           isotropic  sigma^2 = ((nu - 2) c + trace(S)) / (nu + (n - 1) D - 2),
//         the average of C with weight nu - p - 1 and of the unbiased S / (n - 1) with weight n - 1
//         (the mode divides by more than the weights' sum, shrinking small examples' covariances).
// With `variance` V set, only the mean is estimated and Sigma = V I (a single vector x gives
// N(x, V I), whose kernels are RBF kernels in x). Then ml: mu = x-bar; map: mu = m under the
// prior mu ~ N(m0 1, V / k0 I); posterior: the predictive N(m, V (1 + 1/(n + k0)) I).
struct GaussianFitOptions {
  CovarianceForm covariance = CovarianceForm::full;
  std::optional<double> variance;  // > 0; then `covariance` must be isotropic and ridge 0
  double ridge = 0.0;              // >= 0, added to the covariance diagonal
  Method method = Method::ml;
  double prior_mean = 0.0;                      // m0 (every coordinate)
  double prior_strength = 0.0;                  // k0 >= 0: pseudo-observations of the mean (0: a flat prior)
  double prior_variance = 1.0;                  // s0 > 0
  double prior_count = 1.0;                     // nu0 > 0: pseudo-observations of the variance (with prior_centre: nu)
  std::optional<Eigen::MatrixXd> prior_centre;  // C, the centre of the pooled prior (map only)
  bool pooled_posterior_mean = false;           // with prior_centre: the posterior mean, not the mode
};
std::unique_ptr<Estimator> gaussian_estimator(const GaussianFitOptions& options);

// The pooled prior's centre from the examples' statistics (gaussian_estimator(...).statistics()
// in the covariance form of the fit): the pooled within-example covariance
//   C = sum_i S_i / sum_i (n_i - 1)            (full D x D; diagonal: its diagonal, D x 1;
//   c = sum_i trace(S_i) / (D sum_i (n_i - 1))  isotropic, 1 x 1),
// an unbiased estimate of E[Sigma] under the prior above whatever nu is. EstimationError when no
// example has two vectors or the centre is singular (a coordinate constant within every example).
Eigen::MatrixXd gaussian_pooled_centre(const std::vector<Statistics>& examples, CovarianceForm form);
// The evidence of the examples under the prior centred on C, as a function of nu: with the flat
// prior on each mean integrated out, an example of n >= 2 vectors contributes its scatter S with
// m = n - 1 degrees of freedom (full: one D x D group; diagonal: D groups S_dd; isotropic: one
// group trace(S) with m = (n - 1) D); the omitted constant -(D/2) log n per example does not
// depend on nu. Examples of one vector carry no information on their covariance.
InverseWishartEvidence gaussian_prior_evidence(const std::vector<Statistics>& examples, CovarianceForm form,
                                               const Eigen::MatrixXd& centre);

// Bernoulli over {0,1}^D from n binary vectors (a non-zero value counts as 1), k_d the number of
// vectors with coordinate d set, under the conjugate prior g_d ~ Beta(alpha, alpha):
//   ml:        g_d = k_d / n
//   map:       g_d = (k_d + alpha - 1) / (n + 2 alpha - 2)       (needs alpha >= 1)
//   posterior: g_d = (k_d + alpha) / (n + 2 alpha)               (alpha = 1: Laplace's rule)
// Coordinates with k_d = 0 share the row's base probability, so the model lists only the set ones.
struct BernoulliFitOptions {
  Method method = Method::posterior;
  double alpha = 1.0;  // >= 0
};
std::unique_ptr<Estimator> bernoulli_estimator(const BernoulliFitOptions& options);

// Multinomial over D categories from non-negative counts c_d summed over the example's vectors,
// N = sum_d c_d, under the conjugate prior a ~ Dirichlet(alpha, .., alpha):
//   ml:        a_d = c_d / N                                      (needs N > 0)
//   map:       a_d = (c_d + alpha - 1) / (N + D (alpha - 1))      (needs alpha >= 1)
//   posterior: a_d = (c_d + alpha) / (N + alpha D), the Dirichlet-multinomial predictive mean
// Coordinates with c_d = 0 share the base probability, so a short document over a large
// vocabulary stays sparse. `trials` is stored in the model and selects its kernel.
struct MultinomialFitOptions {
  Method method = Method::posterior;
  double alpha = 1.0;  // >= 0
  Trials trials;       // one event by default
  // A leveled base m (`--base pooled`; null: the uniform base). posterior only:
  //   a_d = (c_d + alpha D m_d) / (N + alpha D), the Dirichlet(alpha D m) predictive mean (Zhai & Lafferty 2001).
  std::shared_ptr<const LeveledBase> base;
};
std::unique_ptr<Estimator> multinomial_estimator(const MultinomialFitOptions& options);

// Poisson rates from counts x_d (whole numbers >= 0; absent = 0), under the conjugate prior
// rate_d ~ Gamma(shape A, rate B):
//   ml:   rate_d = sum_i x_id / n
//   map:  rate_d = max(0, sum_i x_id + A - 1) / (n + B)
// (the posterior predictive is negative binomial, not a supported family).
// map with `prior_rates` r set (ppk fit poisson --prior pooled; docs/priors-by-evidence.md): the
// prior centred on the pooled rates, rate_d ~ Gamma(A, B_d = A / r_d) (mean r_d, shape A), and
//   mode:  rate_d = max(0, sum_i x_id + A - 1) / (n + A / r_d)
//   mean (pooled_posterior_mean):  rate_d = (sum_i x_id + A) / (n + A / r_d),
// the average of r_d with weight A / r_d pseudo-vectors and of the example's rate with weight n;
// a feature with r_d = 0 gets rate 0.
struct PoissonFitOptions {
  Method method = Method::ml;
  double prior_shape = 2.0;                    // A > 0
  double prior_rate = 1.0;                     // B >= 0
  std::optional<Eigen::VectorXd> prior_rates;  // r_d >= 0 (map only)
  bool pooled_posterior_mean = false;
};
std::unique_ptr<Estimator> poisson_estimator(const PoissonFitOptions& options);

// Exponential scales b_d (means) from values x_d >= 0, under the conjugate prior on the rate
// 1/b_d ~ Gamma(shape A, rate B):
//   ml:   b_d = sum_i x_id / n                                    (needs a positive sum)
//   map:  b_d = (sum_i x_id + B) / (n + A - 1)                    (the mode of the rate)
// (the posterior predictive is a Lomax distribution, not a supported family).
// map with `prior_scales` bbar set (ppk fit exponential --prior pooled; docs/priors-by-evidence.md):
// the prior centred on the pooled scales, 1/b_d ~ Gamma(A, B_d = (A - 1) bbar_d), A > 1, whose prior
// mean of the scale E[b_d] = bbar_d; the posterior of the rate is Gamma(A + n, B_d + sum_i x_id) and
//   mean (pooled_posterior_mean):  b_d = (sum_i x_id + (A - 1) bbar_d) / (n + A - 1),
//   mode (of the scale's inverse-gamma posterior):  b_d = (sum_i x_id + (A - 1) bbar_d) / (n + A + 1);
// the mean is the average of bbar_d with weight A - 1 pseudo-vectors and of the example's mean
// with weight n.
struct ExponentialFitOptions {
  Method method = Method::ml;
  double prior_shape = 2.0;                     // A > 0
  double prior_rate = 1.0;                      // B >= 0
  std::optional<Eigen::VectorXd> prior_scales;  // bbar_d >= 0 (map only)
  bool pooled_posterior_mean = false;
};
std::unique_ptr<Estimator> exponential_estimator(const ExponentialFitOptions& options);

// Gamma shapes a_d and scales b_d from values x_d > 0 (every coordinate present). Sufficient
// statistics: sum x and sum log x. ml: b = x-bar / a, and a solves
// log a - digamma(a) = log x-bar - mean(log x) (Newton's method from Minka's starting point; the
// solution exists when the values are not all equal). map: the mode in the natural parameters
// under the conjugate prior p(theta) ~ exp(theta . nu0 E[T] - nu0 K(theta)) with E[T] the
// statistics of Gamma(prior_shape, prior_scale): the ML estimate from the data plus nu0
// pseudo-observations with sum x = nu0 A0 B0 and sum log x = nu0 (digamma(A0) + log B0).
// map with `prior_centre` set (ppk fit gamma --prior pooled; docs/priors-by-evidence.md): the
// pseudo-observations have the training file's pooled statistics instead, sum x = nu0 m_d and
// sum log x = nu0 l_d (prior_centre's columns m and l, D x 2), the mode of the posterior under the
// conjugate prior centred on them (pooled_priors.hpp, GammaShapeEvidence).
struct GammaFitOptions {
  Method method = Method::ml;
  double prior_shape = 1.0;                     // A0 > 0
  double prior_scale = 1.0;                     // B0 > 0
  double prior_count = 1.0;                     // nu0 > 0
  std::optional<Eigen::MatrixXd> prior_centre;  // D x 2: pooled mean of x, pooled mean of log x (map only)
};
std::unique_ptr<Estimator> gamma_estimator(const GammaFitOptions& options);

// Dirichlet parameters alpha_d from probability vectors (every x_d > 0, sum 1 within 1e-6).
// Sufficient statistics: sum log x. ml: the fixed point digamma(alpha_d) = digamma(sum alpha) +
// mean(log x_d) (Minka 2000), which exists when the vectors are not all equal. map: as for the
// gamma, nu0 pseudo-observations with the statistics of Dirichlet(A0, .., A0):
// sum log x_d = nu0 (digamma(A0) - digamma(D A0)).
// map with `prior_log_means` l set (ppk fit dirichlet --prior pooled; docs/priors-by-evidence.md):
// the pseudo-observations have the training file's pooled statistics, sum log x_d = nu0 l_d.
struct DirichletFitOptions {
  Method method = Method::ml;
  double prior_alpha = 1.0;                        // A0 > 0
  double prior_count = 1.0;                        // nu0 > 0
  std::optional<Eigen::VectorXd> prior_log_means;  // l_d, the pooled mean of log x_d (map only)
};
std::unique_ptr<Estimator> dirichlet_estimator(const DirichletFitOptions& options);

// The strength nu0 of dirichlet --prior pooled, chosen by held-out likelihood: the conjugate
// prior's normaliser is a D-dimensional integral, so its evidence is not computed. Each example's
// vectors are left out in turn; the rest, with nu0 pseudo-observations of mean log x = l, give the
// map alpha, and the left-out vector is scored by its Dirichlet log density. `log_vectors` holds
// each example's log x as an n x D matrix; examples of one vector are skipped.
double dirichlet_held_out_log_likelihood(const std::vector<Eigen::MatrixXd>& log_vectors,
                                         const Eigen::VectorXd& log_means, double count);
// The nu0 of the largest total over the grid 2^k, k = -3..10 (scores in grid order).
// EstimationError when no example has 2 or more vectors.
struct DirichletPriorChoice {
  double count = 0;
  std::vector<std::pair<double, double>> scores;  // (nu0, held-out log likelihood)
};
DirichletPriorChoice choose_dirichlet_prior_count(const std::vector<Eigen::MatrixXd>& log_vectors,
                                                  const Eigen::VectorXd& log_means);

// ---------------------------------------------------------------------------------------------
// Mixtures (mixture.hpp) are not exponential families: their estimators keep the example's vectors
// as the n x D statistic "x", and reject pooling (shrinkage) with PoolingUnsupported.
//
// A mixture of K Gaussians by EM (Dempster, Laird and Rubin 1977). With responsibilities
// r_ik = w_k N(x_i | mu_k, Sigma_k) / sum_j w_j N(x_i | mu_j, Sigma_j) and N_k = sum_i r_ik:
//   w_k = N_k / n,  mu_k = sum_i r_ik x_i / N_k,  Sigma_k = (S_k + R I) / N_k  (full),
//   diag(S_k + R I) / N_k (diagonal), (trace(S_k) + R D) / (N_k D) I (isotropic),
// S_k = sum_i r_ik (x_i - mu_k)(x_i - mu_k)'. This is EM for the penalised log-likelihood
//   L = sum_i log sum_k w_k N(x_i | mu_k, Sigma_k) - (R/2) sum_k trace(Sigma_k^-1),
// which therefore never decreases; the ridge R > 0 keeps every covariance non-singular.
// Default R: 1e-6 times the mean per-coordinate variance of the example's vectors (1e-6 if they are
// all equal). Each restart seeds the means k-means++ style (the first a uniformly drawn vector,
// each next one drawn with probability proportional to its squared distance to the nearest
// chosen mean), weights 1/K and every covariance the data's covariance in the chosen form plus
// R/n I; EM stops after `iterations` or when L gains less than tolerance * |L|. The fit with
// the largest L over the restarts is kept. The random stream is std::mt19937_64 seeded by
// (seed, n, D): the same vectors and options always give the same mixture.
//
// With `prior` set (ppk fit mixture --prior pooled; docs/priors-by-evidence.md) every component's
// covariance also has the inverse-Wishart prior of pooled_priors.hpp centred on C (CovariancePrior),
// and the M-step is MAP-EM: with R the ridge,
//   full       Sigma_k = ((nu - D - 1) C + S_k + R I) / (nu + N_k + D + 1)
//   diagonal   Sigma_k,dd = ((nu - 2) C_d + S_k,dd + R) / (nu + N_k + 2)
//   isotropic  sigma_k^2 = ((nu - 2) c + trace(S_k) + R D) / (nu + N_k D + 2),
// the maximisers of the expected complete-data log-likelihood plus the log prior, so EM never
// decreases L + sum_k log IW(Sigma_k) (the normalised inverse-Wishart densities; diagonal: the
// product of the D one-dimensional ones).
// The prior: Sigma ~ IW(nu, (nu - D - 1) C), nu > D + 1 (full); each variance ~ IW_1(nu, (nu - 2) C_d)
// (diagonal; C the D x 1 variances) or the one variance ~ IW_1(nu, (nu - 2) c) (isotropic; C 1 x 1),
// nu > 2. E[Sigma] = C whatever nu; `ppk fit` centres it on gaussian_pooled_centre.
struct CovariancePrior {
  double count = 0.0;      // nu, the degrees of freedom
  Eigen::MatrixXd centre;  // C: D x D (full), D x 1 (diagonal) or 1 x 1 (isotropic)
};
// OptionError naming prior.count unless nu > p + 1 and C has the form's shape (positive
// definite, positive variances).
void check_covariance_prior(const CovariancePrior& prior, CovarianceForm form, long dim);

struct MixtureFitOptions {
  long components = 2;  // K >= 1; the example needs n >= K vectors
  CovarianceForm covariance = CovarianceForm::full;
  std::optional<double> ridge;  // R > 0; default as above
  long iterations = 200;        // >= 1
  double tolerance = 1e-8;      // >= 0
  long restarts = 3;            // >= 1
  std::uint64_t seed = 1;
  std::optional<CovariancePrior> prior;  // the components' covariance prior (none by default)
};
std::unique_ptr<Estimator> mixture_estimator(const MixtureFitOptions& options);
// OptionError naming the option field (components, ridge, ...) unless the options are as above.
void check_mixture_fit_options(const MixtureFitOptions& options);

// The EM fit of the rows of x (n x D), L after 0, 1, 2, ... M-steps of the kept restart (the last for its parameters),
// and the responsibilities r_ik of the fitted mixture (one more E-step with its parameters; n x K).
struct GaussianMixtureFit {
  std::unique_ptr<MixtureModel> model;
  std::vector<double> log_likelihoods;  // the penalised L above (with `prior`: plus the log prior)
  Eigen::MatrixXd responsibilities;
};
GaussianMixtureFit fit_gaussian_mixture(const Eigen::MatrixXd& x, const MixtureFitOptions& options);

// ---------------------------------------------------------------------------------------------
// A hidden Markov model (hmm.hpp) from one sequence x_0..x_{n-1} by Baum-Welch (EM; Rabiner 1989),
// M states with start probabilities pi, transitions A and one emission model per state:
//   discrete   a one-event multinomial over O symbols per state; the example's vectors are
//              one-hot (a single entry, value 1, at the symbol's coordinate) and D = O;
//   gaussian   N(mu_q, Sigma_q) in the `covariance` form over R^D; the vectors are the x_t.
// E-step: the scaled forward-backward recursions. With b_t(q) = p_q(x_t) / m_t (m_t the largest
// emission density at t, so that Gaussian densities cannot underflow):
//   alpha_0 = pi .* b_0 / c_0,  alpha_t = (A' alpha_{t-1}) .* b_t / c_t,  c_t making alpha_t sum to 1,
//   beta_{n-1} = 1,  beta_t = A (b_{t+1} .* beta_{t+1}) / c_{t+1},
//   log p(x_0..x_{n-1}) = sum_t (log c_t + log m_t),
//   gamma_t = alpha_t .* beta_t = P(s_t | X),
//   xi_t(p, q) = alpha_t(p) A_pq b_{t+1}(q) beta_{t+1}(q) / c_{t+1} = P(s_t = p, s_{t+1} = q | X).
// M-step, with the pseudo-count a (smoothing) added to every expected count:
//   pi_q ∝ gamma_0(q) + a,  A_pq ∝ sum_t xi_t(p, q) + a,
//   discrete:  E_qo ∝ sum_{t: x_t = o} gamma_t(q) + a;
//   gaussian:  the weighted Gaussian M-step of the mixture estimator with r_tq = gamma_t(q):
//              mu_q = sum_t gamma_t(q) x_t / N_q, Sigma_q = (S_q + R I) / N_q in the chosen form
//              (with `prior`, the mixture's MAP M-step: Sigma_q = ((nu - D - 1) C + S_q + R I) /
//              (nu + N_q + D + 1) in full form, and L gains sum_q log IW(Sigma_q)).
// This is the posterior mode (MAP) under independent symmetric Dirichlet(1 + a) priors on pi, on
// each row of A and on each emission row, and under the ridge penalty of the mixture estimator,
// so EM maximises and never decreases the penalised objective
//   L = log p(X) + a (sum_q log pi_q + sum_pq log A_pq [+ sum_qo log E_qo])
//       [- (R/2) sum_q trace(Sigma_q^-1)]
// (the bracketed terms for discrete resp. Gaussian emissions). a > 0 keeps every probability
// positive however short the sequence, so a test sequence never meets a zero. The default a = 0.1
// is a tenth of an observation per parameter: for DNA (O = 4) 0.4 pseudo-symbols per emission row,
// which moves a probability estimated from N expected counts by at most O a / N (0.4% at N = 100),
// while a 3-symbol sequence still gets every emission probability >= a / (3 + O a) (1/34 for DNA).
// Start: pi and the rows of A proportional to 1/2 + u (u uniform on [0, 1)); discrete emission rows
// likewise; Gaussian emissions seeded as the mixture's components (k-means++ means, the data's
// covariance). EM stops after `iterations` M-steps or when L gains less than tolerance * |L|; the
// fit with the largest L over the restarts is kept. The random stream is std::mt19937_64 seeded by
// (seed, n, D, a hash of the sequence), so the same sequence and options always give the same HMM.
// The model's stored length is T = n - 1 (T transitions, x_0..x_T), or `length` when set.
//
// The number of states: `states`, or the rule of JMLR 2004 section 8.2 (the paper's HMMs for DNA),
//   M = floor(sqrt(O^2 + 4 (n z + O + 1)) / 2 - O / 2) + 1,
// n the number of symbols of the sequence, z = param_ratio (about z n parameters for n symbols),
// and O the number of symbols for discrete emissions; for Gaussian emissions O is the number of
// emission parameters per state: D + 1 (isotropic), 2 D (diagonal), D + D (D + 1) / 2 (full).
enum class HmmEmissions { discrete, gaussian };
struct HmmFitOptions {
  HmmEmissions emissions = HmmEmissions::discrete;
  std::optional<long> states;                        // M >= 1; unset: the section 8.2 rule with param_ratio
  double param_ratio = 0.1;                          // z > 0, the paper's 1/10
  double smoothing = 0.1;                            // a >= 0
  CovarianceForm covariance = CovarianceForm::full;  // gaussian emissions
  std::optional<double> ridge;  // R > 0 (gaussian); default as for the mixture: 1e-6 times the data's variance
  long iterations = 400;        // >= 1; the paper iterated EM 400 times
  double tolerance = 1e-8;      // >= 0
  long restarts = 3;            // >= 1
  std::uint64_t seed = 1;
  std::optional<long> length;            // the stored T >= 0; default n - 1
  std::optional<CovariancePrior> prior;  // gaussian: the states' covariance prior (none by default)
};
std::unique_ptr<Estimator> hmm_estimator(const HmmFitOptions& options);

// The section 8.2 rule above for O symbols (or emission parameters per state), n symbols, ratio z.
long hmm_auto_states(long symbols, long length, double param_ratio);

// The Baum-Welch fit and L after each M-step of the kept restart (L[0]: the starting point; the
// model is the one of the last entry).
struct HmmFit {
  std::unique_ptr<HmmModel> model;
  std::vector<double> log_likelihoods;  // the penalised L above
};
// A sequence of symbols in 0..alphabet-1.
HmmFit fit_discrete_hmm(const std::vector<long>& sequence, long alphabet, const HmmFitOptions& options);
// The rows of x (n x D) as the sequence x_0..x_{n-1}.
HmmFit fit_gaussian_hmm(const Eigen::MatrixXd& x, const HmmFitOptions& options);

// The strength nu of the covariance prior chosen on a training file by held-out likelihood
// (`ppk fit mixture|hmm --prior pooled --prior-count auto`; docs/priors-by-evidence.md). Each used
// example is split: a set (mixture) holds out every third vector (the 3rd, 6th, ...; a set's order
// carries no information, and its first vectors need not be typical); a sequence (hmm) its last
// third, scored as a fresh sequence from the fitted start probabilities. The fit to the rest, with
// prior IW(nu, (nu - p - 1) C), scores the held-out vectors by their log-likelihood; the chosen nu
// maximises the sum over the used examples. Examples whose kept part is too small to fit (fewer than
// K vectors for a mixture, fewer than 2 for an HMM) or with nothing held out are not used; at most
// max_examples evenly spaced examples and about 3000 vectors in all (at least one example) are.
// Cheaper fits than the final ones: one restart, at most 100 iterations, tolerance >= 1e-6. A fit
// that fails scores -infinity. EstimationError when no example can be used.
struct CovariancePriorChoice {
  double count = 0.0;                            // the chosen nu
  std::vector<double> counts;                    // the grid
  std::vector<double> held_out_log_likelihoods;  // the summed score per grid point
  long examples_used = 0;
};
// The default grid: nu = p + 1 + 2^j, j = -3..10 (p = D full, 1 diagonal or isotropic).
std::vector<double> default_prior_counts(CovarianceForm form, long dim);
CovariancePriorChoice choose_mixture_prior(const std::vector<Eigen::MatrixXd>& sets, const MixtureFitOptions& options,
                                           const Eigen::MatrixXd& centre, const std::vector<double>& counts,
                                           long max_examples = 100, unsigned threads = 1);
CovariancePriorChoice choose_hmm_prior(const std::vector<Eigen::MatrixXd>& sequences, const HmmFitOptions& options,
                                       const Eigen::MatrixXd& centre, const std::vector<double>& counts,
                                       long max_examples = 100, unsigned threads = 1);

// ---------------------------------------------------------------------------------------------
// A factorial HMM (fhmm.hpp) from one sequence x_0..x_{n-1} of real vectors by EM (Ghahramani &
// Jordan 1997), C chains of M states each, with one of two E-steps:
// * exact: the FHMM is an HMM over the M^C product states (start prod_c pi_c, transitions
//   prod_c A_c, emission N(sum_c W_c[:, k_c], Sigma)), whose scaled forward-backward recursions (as
//   for hmm) give gamma_t and sum_t xi_t over product states. M^C is limited to 1024 (the E-step
//   costs O(n M^(2C))).
// * mean-field: the structured variational approximation (G&J section 3.5) Q = prod_c Q_c, each
//   Q_c an HMM over chain c's path whose emission potentials h_t^(c) depend on the other chains'
//   expected means; the factors are updated in turn by forward-backward on one chain until the
//   bound F = log p(X) - KL(Q || p(S | X)) <= log p(X) gains less than 1e-10 (relative) in a sweep
//   (at most 100 sweeps). Q is kept from one EM iteration to the next. E[s_t] and E[s_t s_t'] are
//   those of Q: the chains are independent under Q (off-diagonal blocks E[S_t^(c)] E[S_t^(l)]'),
//   and the pairwise counts come from each chain's forward-backward. Costs O(n C (M^2 + d M))
//   per sweep; C M is limited to 1000. This is variational EM: it maximises the lower bound F (plus
//   the prior terms) rather than log p(X), and F equals log p(X) when C = 1.
// M-step, with s_t the stacked one-hot vector of the C chains' states (length K = C M):
//   pi_c(k) ∝ E[S_0^(c)](k) + a,   A_c(k, l) ∝ sum_t E[S_{t-1}^(c)(k) S_t^(c)(l)] + a,
//   W = [W_1 .. W_C] = (sum_t x_t E[s_t]') (sum_t E[s_t s_t'])^+     (the pseudo-inverse: the
//       one-hot blocks make the K x K moment matrix singular; every solution has the same means),
//   Sigma = (sum_t E[(x_t - W s_t)(x_t - W s_t)'] + R I) / n,
// the MAP under Dirichlet(1 + a) priors on each pi_c and row of A_c and the penalty -(R/2) tr Sigma^-1
// (as for hmm), so EM never decreases
//   L = log p(X) + a (sum_c sum_k log pi_c(k) + sum_c sum_kl log A_c(k, l)) - (R/2) tr Sigma^-1
// (mean-field: F in place of log p(X)).
// Start: chains as for hmm (rows proportional to 1/2 + u); W_c[:, k] = x-bar / C + a draw of
// N(0, diag(var) / C) (var the data's per-coordinate variance); Sigma the data's covariance + R I.
// Restarts, tolerance, iterations, seeding (seed, n, D, a hash of the data) and the stored length
// as for hmm.
enum class FhmmEStep { exact, mean_field };
struct FhmmFitOptions {
  long chains = 2;                  // C >= 1
  long states = 2;                  // M >= 1 per chain
  std::optional<FhmmEStep> e_step;  // default: exact when M^C <= 1024, mean_field above
  double smoothing = 0.1;           // a >= 0
  std::optional<double> ridge;      // R > 0; default 1e-6 times the data's variance
  long iterations = 400;            // >= 1
  double tolerance = 1e-8;          // >= 0
  long restarts = 3;                // >= 1
  std::uint64_t seed = 1;
  std::optional<long> length;  // the stored T >= 0; default n - 1
  // Sigma ~ IW(nu, (nu - D - 1) C) (CovariancePrior; none by default): the M-step becomes
  // Sigma = ((nu - D - 1) C + expected residual scatter + R I) / (nu + n + D + 1), and L gains log IW(Sigma).
  std::optional<CovariancePrior> prior;
};
std::unique_ptr<Estimator> fhmm_estimator(const FhmmFitOptions& options);

// EM's result: the model and L after each M-step of the kept restart (L[0]: the starting point).
struct FhmmFit {
  std::unique_ptr<FhmmModel> model;
  std::vector<double> log_likelihoods;  // the penalised L above (mean-field: with the bound F)
};
// The rows of x (n x D) as the sequence x_0..x_{n-1}.
FhmmFit fit_fhmm(const Eigen::MatrixXd& x, const FhmmFitOptions& options);
// The prior's nu chosen as for choose_hmm_prior: each sequence's last third scored by its exact
// log-likelihood (the product-state forward recursion, from the fitted start probabilities) under the
// fit to the rest with the cheaper options and the prior IW(nu, (nu - D - 1) centre) (full covariance).
// The plug-in fit, not a predictive: the shared Sigma sees all n kept vectors, so the MAP's shrinkage
// n / (nu + n + D + 1) is mild. Needs M^C <= 1024 product states.
CovariancePriorChoice choose_fhmm_prior(const std::vector<Eigen::MatrixXd>& sequences, const FhmmFitOptions& options,
                                        const Eigen::MatrixXd& centre, const std::vector<double>& counts,
                                        long max_examples = 100, unsigned threads = 1);

// The mean-field E-step's bound F <= log p(X) for a model and the rows of x, from Q_c = each chain's
// prior; `updates` holds F at that start and after each chain update of every sweep.
struct FhmmMeanField {
  double bound = 0.0;
  std::vector<double> updates;
};
FhmmMeanField fhmm_mean_field(const FhmmModel& model, const Eigen::MatrixXd& x);
// The exact log p(x_0..x_{n-1}) of a factorial HMM (the product-state forward recursion; M^C <= 1024).
double fhmm_log_likelihood(const FhmmModel& model, const Eigen::MatrixXd& x);

// The kernel density estimate: (1/n) sum_i N(x_i, h I), one isotropic component per vector,
// the bandwidth h > 0 its variance.
struct KdeFitOptions {
  double bandwidth = 1.0;
};
std::unique_ptr<Estimator> kde_estimator(const KdeFitOptions& options);

// The bandwidth h = sigma^2 / 2 whose kernel density estimates give the mean-map kernel of the
// Gaussian RBF base kernel k(x, y) = exp(-|x - y|^2 / (2 sigma^2)) (docs/design.md "Mathematics", Mean embeddings;
// an example is a set X = {x_1..x_n}, mu_X = (1/n) sum_i k(x_i, .)). The product of two Gaussians
// integrates to a Gaussian in the difference of their means,
//   integral N(x | a, h I) N(x | b, h I) dx = N(a | b, 2h I) = (4 pi h)^(-D/2) exp(-|a - b|^2 / (4h)),
// so with h = sigma^2 / 2 it is c k(a, b), c = (4 pi h)^(-D/2) = (2 pi sigma^2)^(-D/2), and the
// expected-likelihood kernel (rho = 1, JMLR 2004 section 3.1) between the estimates
// p_X = (1/n) sum_i N(x_i, h I) and p_Y = (1/m) sum_j N(y_j, h I) is, by bilinearity,
//   integral p_X p_Y = c (1/(n m)) sum_ij k(x_i, y_j) = c <mu_X, mu_Y>.
// ppk_norm divides the constant out: <mu_X, mu_Y> / (|mu_X| |mu_Y|). EstimationError unless sigma > 0.
double mean_map_bandwidth(double sigma);

}  // namespace ppk
