// The factorial-HMM estimator (see estimate.hpp): EM with the exact E-step on the product state
// space, or with the structured mean-field E-step of Ghahramani & Jordan (1997, section 3.5) when
// that space is too large. Like the HMM estimator it keeps the example's data matrix "x" and cannot pool.
//
// The structured mean field. Q(S) = prod_c Q_c(S^(c)), S^(c) the path of chain c (one-hot S_t^(c)),
// bounds log p(X) from below by Jensen's inequality:
//     log p(X) >= F(Q) = E_Q[log p(X, S)] + H(Q) = log p(X) - KL(Q || p(S | X)).
// With the other chains' factors fixed, F is maximal over Q_c at the HMM-shaped
//     Q_c(S^(c)) = pi_c(S_0) prod_{t>=1} A_c(S_{t-1}, S_t) prod_t h_t^(c)(S_t) / Z_c,
//     log h_t^(c)(k) = w_k' P (y_t - yhat_t^(c)) - 1/2 w_k' P w_k,   yhat_t^(c) = sum_{l != c} W_l <S_t^(l)>
// (G&J section 3.5; P = Sigma^-1, w_k = W_c[:, k]), whose marginals <S_t^(c)>, pairwise sums
// sum_t <S_{t-1}^(c) S_t^(c)'> and log Z_c come from forward-backward on chain c alone. Updating the
// chains in turn (each with the others' newest marginals) therefore never decreases F. F itself, from
// each factor's marginals and entropy (the chains are independent under Q, so their covariances add):
//     E_Q[log p(X, S)] = sum_c [<S_0^(c)>' log pi_c + sum_{kl} (sum_t <S_{t-1}^(c) S_t^(c)'>)_kl log A_c(k, l)]
//                        + sum_t [-d/2 log 2pi - 1/2 log|Sigma| - 1/2 E_Q (y_t - W S_t)' P (y_t - W S_t)],
//     E_Q (y_t - W S_t)' P (y_t - W S_t) = r_t' P r_t + sum_c [<S_t^(c)>' diag(W_c' P W_c) - <S_t^(c)>' W_c' P W_c
//     <S_t^(c)>],
//        r_t = y_t - sum_c W_c <S_t^(c)>,
//     H(Q_c) = log Z_c - <S_0^(c)>' log pi_c - sum_{kl} (pairwise sums)_kl log A_c(k, l) - sum_t <S_t^(c)>' log h_t^(c)
// (the entropy of the HMM-shaped Q_c at the parameters and h it was computed with). With C = 1 the
// factor is the exact posterior and F = log p(X).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "estimate/gaussian_em.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_fhmm.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/families/fhmm.hpp"

namespace ppk {
namespace {

constexpr long kMaxProductStates = 1024;   // the exact E-step's M^C
constexpr long kMaxStackedStates = 1000;   // the mean-field E-step's C M (the M-step solves a C M x C M system)
constexpr double kSweepTolerance = 1e-10;  // a mean-field sweep gaining less than this (relative) ends the E-step
constexpr int kMaxSweeps = 100;
const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);

// M^C (infinite when it overflows).
double product_states(const FhmmFitOptions& options) {
  return std::pow(static_cast<double>(options.states), static_cast<double>(options.chains));
}

// The E-step the options ask for: as given, else exact when M^C <= 1024.
FhmmEStep e_step_of(const FhmmFitOptions& options) {
  if (options.e_step) return *options.e_step;
  return product_states(options) <= static_cast<double>(kMaxProductStates) ? FhmmEStep::exact : FhmmEStep::mean_field;
}

void check_options(const FhmmFitOptions& options) {
  if (options.chains < 1) throw OptionError("{chains} must be at least 1, got " + std::to_string(options.chains));
  if (options.states < 1) throw OptionError("{states} must be at least 1, got " + std::to_string(options.states));
  const std::string sizes =
      "{states} " + std::to_string(options.states) + " and {chains} " + std::to_string(options.chains);
  const double stacked = static_cast<double>(options.chains) * static_cast<double>(options.states);
  if (e_step_of(options) == FhmmEStep::exact && product_states(options) > static_cast<double>(kMaxProductStates))
    throw OptionError(sizes + " give " +
                      (std::isfinite(product_states(options))
                           ? detail::short_number(product_states(options))
                           : std::to_string(options.states) + "^" + std::to_string(options.chains)) +
                      " product states; the exact E-step takes at most " + std::to_string(kMaxProductStates) +
                      " ({e_step} mean-field fits larger models)");
  if (e_step_of(options) == FhmmEStep::mean_field && stacked > static_cast<double>(kMaxStackedStates))
    throw OptionError(sizes + " give " + detail::short_number(stacked) +
                      " states in all; the mean-field E-step takes at most " + std::to_string(kMaxStackedStates));
  detail::check_sequence_em_options(options, kMaxFhmmLength);
}

// The parameters during EM.
struct Parameters {
  std::vector<detail::MarkovChain> chains;
  Eigen::MatrixXd means;  // W = [W_1 .. W_C], d x sum_c M_c
  Eigen::MatrixXd cov;    // Sigma
  // The first column of W_c in `means`.
  Eigen::Index offset(std::size_t c) const {
    Eigen::Index offset = 0;
    for (std::size_t l = 0; l < c; ++l) offset += chains[l].start.size();
    return offset;
  }
  Eigen::MatrixXd chain_means(std::size_t c) const { return means.middleCols(offset(c), chains[c].start.size()); }
};

// What the M-step needs of an E-step (exact or mean-field), with s_t the stacked one-hot states.
struct ExpectedStatistics {
  std::vector<Eigen::VectorXd> start_counts;       // <S_0^(c)>
  std::vector<Eigen::MatrixXd> transition_counts;  // sum_t <S_{t-1}^(c) S_t^(c)'>
  Eigen::MatrixXd features;                        // <s_t>', n x K
  Eigen::MatrixXd moments;                         // sum_t <s_t s_t'>, K x K
};

// An E-step's result: log p(X) (exact) or its lower bound F (mean field), and the statistics.
struct Expectations {
  double log_likelihood = 0.0;
  ExpectedStatistics statistics;
};

// The product state space: state s is the tuple (k_0..k_{C-1}), k_0 varying fastest; `indicators`
// is E (states x C M), E(s, c M + k) = [k_c = k].
struct ProductSpace {
  long chains, states, count;
  Eigen::MatrixXd indicators;
  explicit ProductSpace(long chains_, long states_) : chains(chains_), states(states_), count(1) {
    for (long c = 0; c < chains; ++c) count *= states;
    indicators = Eigen::MatrixXd::Zero(count, chains * states);
    for (long s = 0; s < count; ++s)
      for (long c = 0, rest = s; c < chains; ++c, rest /= states) indicators(s, c * states + rest % states) = 1.0;
  }
  long state_of(long s, long c) const {
    for (long i = 0; i < c; ++i) s /= states;
    return s % states;
  }
};

// The FHMM as an HMM over the product states: start prod_c pi_c, transitions prod_c A_c.
detail::MarkovChain product_chain(const Parameters& p, const ProductSpace& space) {
  detail::MarkovChain product{Eigen::VectorXd::Ones(space.count), Eigen::MatrixXd::Ones(space.count, space.count)};
  for (long s = 0; s < space.count; ++s)
    for (long c = 0; c < space.chains; ++c) {
      const detail::MarkovChain& chain = p.chains[static_cast<std::size_t>(c)];
      product.start[s] *= chain.start[space.state_of(s, c)];
      for (long r = 0; r < space.count; ++r)
        product.transitions(s, r) *= chain.transitions(space.state_of(s, c), space.state_of(r, c));
    }
  return product;
}

// log N(x_t; W E(s)', Sigma), n x (product states).
Eigen::MatrixXd log_emissions(const Eigen::MatrixXd& x, const Parameters& p, const ProductSpace& space) {
  const Eigen::LLT<Eigen::MatrixXd> llt(p.cov);
  const double constant = -0.5 * static_cast<double>(x.cols()) * kLog2Pi - llt.matrixLLT().diagonal().array().log().sum();
  const Eigen::MatrixXd state_means = p.means * space.indicators.transpose();  // d x states
  Eigen::MatrixXd out(x.rows(), space.count);
  for (long s = 0; s < space.count; ++s) {
    Eigen::MatrixXd deviation = (x.rowwise() - state_means.col(s).transpose()).transpose();  // d x n
    llt.matrixL().solveInPlace(deviation);
    out.col(s) = (constant - 0.5 * deviation.colwise().squaredNorm().array()).matrix().transpose();
  }
  return out;
}

// The exact E-step: forward-backward over the product states, the chains' marginals of its posteriors.
class ExactEStep {
 public:
  explicit ExactEStep(long chains, long states) : space_(chains, states) {}
  Expectations operator()(const Eigen::MatrixXd& x, const Parameters& p) {
    const detail::ChainPosteriors posteriors =
        detail::forward_backward(product_chain(p, space_), log_emissions(x, p, space_));
    Expectations out;
    out.log_likelihood = posteriors.log_likelihood;
    const long m = space_.states;
    for (long c = 0; c < space_.chains; ++c) {
      Eigen::VectorXd start_counts = Eigen::VectorXd::Zero(m);
      Eigen::MatrixXd transition_counts = Eigen::MatrixXd::Zero(m, m);
      for (long s = 0; s < space_.count; ++s) {
        start_counts(space_.state_of(s, c)) += posteriors.states(0, s);
        for (long r = 0; r < space_.count; ++r)
          transition_counts(space_.state_of(s, c), space_.state_of(r, c)) += posteriors.transition_counts(s, r);
      }
      out.statistics.start_counts.push_back(std::move(start_counts));
      out.statistics.transition_counts.push_back(std::move(transition_counts));
    }
    out.statistics.features = posteriors.states * space_.indicators;
    out.statistics.moments =
        space_.indicators.transpose() * posteriors.states.colwise().sum().transpose().asDiagonal() * space_.indicators;
    return out;
  }

 private:
  ProductSpace space_;
};

// sum weight .* log(value) over the entries, with 0 log 0 = 0 (an impossible start or transition
// that Q never takes).
double expected_log(const Eigen::MatrixXd& weights, const Eigen::MatrixXd& values) {
  double sum = 0.0;
  for (Eigen::Index j = 0; j < weights.cols(); ++j)
    for (Eigen::Index i = 0; i < weights.rows(); ++i)
      if (weights(i, j) > 0.0) sum += weights(i, j) * std::log(values(i, j));
  return sum;
}

// One factor Q_c of the structured mean field, by its marginals and entropy.
struct ChainFactor {
  Eigen::MatrixXd states;             // <S_t^(c)>', n x M_c
  Eigen::MatrixXd transition_counts;  // sum_t <S_{t-1}^(c) S_t^(c)'>
  double entropy = 0.0;               // H(Q_c)
};

// <log pi_c(S_0) + sum_t log A_c(S_{t-1}, S_t)> under the factor.
double expected_log_prior(const ChainFactor& factor, const detail::MarkovChain& chain) {
  return expected_log(factor.states.row(0).transpose(), chain.start) +
         expected_log(factor.transition_counts, chain.transitions);
}

// Q_c ∝ pi_c A_c prod_t h_t(S_t) from log h (n x M_c), by forward-backward on the chain alone.
ChainFactor chain_factor(const detail::MarkovChain& chain, const Eigen::MatrixXd& log_potentials) {
  detail::ChainPosteriors posteriors = detail::forward_backward(chain, log_potentials);
  ChainFactor factor{std::move(posteriors.states), std::move(posteriors.transition_counts), 0.0};
  factor.entropy =
      posteriors.log_likelihood - expected_log_prior(factor, chain) - factor.states.cwiseProduct(log_potentials).sum();
  return factor;
}

// The structured mean-field approximation Q = prod_c Q_c of the posterior over the chains' paths
// (see the top of this file). It starts with each Q_c the chain's prior (h = 1) and is kept across
// EM iterations: the first sweep at new parameters starts from the last Q, so F never decreases
// from one EM iteration to the next.
class MeanField {
 public:
  MeanField(const Eigen::MatrixXd& x, const Parameters& p) {
    for (const detail::MarkovChain& chain : p.chains)
      factors_.push_back(chain_factor(chain, Eigen::MatrixXd::Zero(x.rows(), chain.start.size())));
  }

  // Sweeps over the chains until F gains less than kSweepTolerance (relative), at most kMaxSweeps;
  // returns F. With `updates`, F at the start and after each chain's update is appended to it.
  double run(const Eigen::MatrixXd& x, const Parameters& p, std::vector<double>* updates) {
    const Terms terms(p);
    residual_ = x;
    for (std::size_t c = 0; c < factors_.size(); ++c) residual_ -= factors_[c].states * p.chain_means(c).transpose();
    double bound = this->bound(p, terms);
    if (updates) updates->push_back(bound);
    for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
      for (std::size_t c = 0; c < factors_.size(); ++c) {
        update(c, p, terms);
        if (updates) updates->push_back(this->bound(p, terms));
      }
      const double previous = bound;
      bound = this->bound(p, terms);
      if (bound - previous < kSweepTolerance * std::max(1.0, std::fabs(bound))) break;
    }
    return bound;
  }

  // The M-step's statistics: <s_t s_t'> has the blocks <S_t^(c)> <S_t^(l)>' for c != l (the chains
  // are independent under Q) and diag <S_t^(c)> for c = l (one-hot).
  ExpectedStatistics statistics(const Parameters& p) const {
    ExpectedStatistics out;
    out.features.resize(factors_.front().states.rows(), p.means.cols());
    for (std::size_t c = 0; c < factors_.size(); ++c) {
      out.start_counts.push_back(factors_[c].states.row(0).transpose());
      out.transition_counts.push_back(factors_[c].transition_counts);
      out.features.middleCols(p.offset(c), factors_[c].states.cols()) = factors_[c].states;
    }
    out.moments = out.features.transpose() * out.features;
    for (std::size_t c = 0; c < factors_.size(); ++c) {
      const Eigen::Index offset = p.offset(c), m = factors_[c].states.cols();
      out.moments.block(offset, offset, m, m) = factors_[c].states.colwise().sum().transpose().asDiagonal();
    }
    return out;
  }

 private:
  // What the updates and F need of the parameters.
  struct Terms {
    Eigen::LLT<Eigen::MatrixXd> llt;     // Sigma = L L'
    Eigen::MatrixXd precision_means;     // P W, d x K
    std::vector<Eigen::MatrixXd> grams;  // W_c' P W_c
    explicit Terms(const Parameters& p) : llt(p.cov) {
      precision_means = llt.solve(p.means);
      for (std::size_t c = 0; c < p.chains.size(); ++c)
        grams.push_back(p.chain_means(c).transpose() * precision_means.middleCols(p.offset(c), p.chains[c].start.size()));
    }
  };

  // Q_c from log h_t^(c)(k) = (y_t - yhat_t^(c))' P w_k - 1/2 w_k' P w_k; y_t - yhat_t^(c) is the
  // residual with chain c's expected means added back.
  void update(std::size_t c, const Parameters& p, const Terms& terms) {
    const Eigen::MatrixXd means = p.chain_means(c);
    residual_ += factors_[c].states * means.transpose();
    Eigen::MatrixXd log_potentials = residual_ * terms.precision_means.middleCols(p.offset(c), means.cols());
    log_potentials.rowwise() -= 0.5 * terms.grams[c].diagonal().transpose();
    factors_[c] = chain_factor(p.chains[c], log_potentials);
    residual_ -= factors_[c].states * means.transpose();
  }

  // F(Q) at the parameters p.
  double bound(const Parameters& p, const Terms& terms) const {
    const double n = static_cast<double>(residual_.rows()), d = static_cast<double>(residual_.cols());
    Eigen::MatrixXd whitened = residual_.transpose();  // L^-1 r_t, d x n
    terms.llt.matrixL().solveInPlace(whitened);
    double quadratic = whitened.squaredNorm();
    double chains = 0.0;
    for (std::size_t c = 0; c < factors_.size(); ++c) {
      const Eigen::MatrixXd& gamma = factors_[c].states;
      quadratic += gamma.colwise().sum().dot(terms.grams[c].diagonal().transpose()) -
                   (gamma * terms.grams[c]).cwiseProduct(gamma).sum();
      chains += expected_log_prior(factors_[c], p.chains[c]) + factors_[c].entropy;
    }
    const double log_det = 2.0 * terms.llt.matrixLLT().diagonal().array().log().sum();
    return chains - 0.5 * n * (d * kLog2Pi + log_det) - 0.5 * quadratic;
  }

  std::vector<ChainFactor> factors_;
  Eigen::MatrixXd residual_;  // r_t' = (y_t - sum_c W_c <S_t^(c)>)', n x d, during run()
};

// The mean-field E-step, keeping Q from one call to the next.
class MeanFieldEStep {
 public:
  Expectations operator()(const Eigen::MatrixXd& x, const Parameters& p) {
    if (!q_) q_.emplace(x, p);
    Expectations out;
    out.log_likelihood = q_->run(x, p, nullptr);
    out.statistics = q_->statistics(p);
    return out;
  }

 private:
  std::optional<MeanField> q_;
};

// L's prior terms: a (sum log pi_c + sum log A_c) - (R/2) tr Sigma^-1 (+ log IW(Sigma) under `covariance`).
double log_prior(const Parameters& p, double a, double ridge, const CovariancePrior* covariance) {
  double prior = 0.0;
  for (const detail::MarkovChain& chain : p.chains)
    prior += detail::log_dirichlet_prior(chain.start, a) + detail::log_dirichlet_prior(chain.transitions, a);
  const Eigen::MatrixXd precision = p.cov.llt().solve(Eigen::MatrixXd::Identity(p.cov.rows(), p.cov.cols()));
  return prior - 0.5 * ridge * precision.trace() +
         detail::covariance_log_prior(detail::GaussianComponents{CovarianceForm::full, {}, {p.cov}}, covariance);
}

// The M-step of estimate.hpp from the expected statistics.
void update(const Eigen::MatrixXd& x, const ExpectedStatistics& statistics, double a, double ridge,
            const CovariancePrior* covariance, Parameters& p) {
  for (std::size_t c = 0; c < p.chains.size(); ++c) {
    detail::MarkovChain& chain = p.chains[c];
    Eigen::MatrixXd start = chain.start.transpose();
    detail::normalise_rows(statistics.start_counts[c].transpose(), a, start);
    chain.start = start.transpose();
    detail::normalise_rows(statistics.transition_counts[c], a, chain.transitions);
  }
  const Eigen::MatrixXd cross = x.transpose() * statistics.features;  // sum_t x_t E[s_t]', d x K
  p.means = statistics.moments.completeOrthogonalDecomposition().solve(cross.transpose()).transpose();
  // sum_t E[(x_t - W s_t)(x_t - W s_t)'] = X'X - W cross' - cross W' + W moments W'.
  Eigen::MatrixXd scatter = x.transpose() * x - p.means * cross.transpose() - cross * p.means.transpose() +
                            p.means * statistics.moments * p.means.transpose();
  p.cov = detail::m_step_covariance(0.5 * (scatter + scatter.transpose()), static_cast<double>(x.rows()), ridge,
                                    covariance, CovarianceForm::full);
}

// EM from `p`; returns L after 0, 1, 2, ... M-steps (the last for the final parameters).
template <class EStep>
std::vector<double> run_em(const Eigen::MatrixXd& x, double ridge, const FhmmFitOptions& options, EStep e_step,
                           Parameters& p) {
  std::vector<double> objectives;
  for (long step = 0;; ++step) {
    const Expectations expectations = e_step(x, p);
    const CovariancePrior* covariance = options.prior ? &*options.prior : nullptr;
    const double objective = expectations.log_likelihood + log_prior(p, options.smoothing, ridge, covariance);
    const bool converged =
        !objectives.empty() && objective - objectives.back() < options.tolerance * std::fabs(objective);
    objectives.push_back(objective);
    if (converged || step == options.iterations) break;
    update(x, expectations.statistics, options.smoothing, ridge, covariance, p);
  }
  return objectives;
}

Parameters random_start(const Eigen::MatrixXd& x, const FhmmFitOptions& options, double ridge, std::mt19937_64& rng) {
  Parameters p;
  const double chains = static_cast<double>(options.chains);
  for (long c = 0; c < options.chains; ++c)
    p.chains.push_back({detail::random_rows(1, options.states, rng).transpose(),
                        detail::random_rows(options.states, options.states, rng)});
  const Eigen::RowVectorXd mean = x.colwise().mean();
  const Eigen::MatrixXd centred = x.rowwise() - mean;
  p.cov = centred.transpose() * centred / static_cast<double>(x.rows());
  p.cov.diagonal().array() += ridge;
  const Eigen::VectorXd spread = (p.cov.diagonal() / chains).cwiseSqrt();
  std::normal_distribution<double> normal;
  p.means.resize(x.cols(), options.chains * options.states);
  for (Eigen::Index k = 0; k < p.means.cols(); ++k)
    for (Eigen::Index i = 0; i < x.cols(); ++i) p.means(i, k) = mean[i] / chains + spread[i] * normal(rng);
  return p;
}

class FhmmEstimator : public detail::DataMatrixEstimator {
 public:
  explicit FhmmEstimator(const FhmmFitOptions& options) : options_(options) { check_options(options); }
  std::string family() const override { return "fhmm"; }
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    return std::move(fit_fhmm(detail::data_of(statistics), options_).model);
  }

 private:
  FhmmFitOptions options_;
};

}  // namespace

FhmmFit fit_fhmm(const Eigen::MatrixXd& x, const FhmmFitOptions& options) {
  check_options(options);
  if (x.rows() < 1 || x.cols() < 1) throw EstimationError("the sequence is empty");
  if (!x.allFinite()) throw EstimationError("the vectors must have finite values");
  const double ridge = options.ridge ? *options.ridge : detail::default_ridge(x);
  if (options.prior) check_covariance_prior(*options.prior, CovarianceForm::full, static_cast<long>(x.cols()));
  std::seed_seq seed{options.seed, static_cast<std::uint64_t>(x.rows()), static_cast<std::uint64_t>(x.cols()),
                     detail::fingerprint(x.data(), static_cast<std::size_t>(x.size()))};
  std::mt19937_64 rng(seed);
  Parameters best;
  std::vector<double> best_objectives;
  for (long restart = 0; restart < options.restarts; ++restart) {
    Parameters p = random_start(x, options, ridge, rng);
    std::vector<double> objectives = e_step_of(options) == FhmmEStep::exact
                                         ? run_em(x, ridge, options, ExactEStep(options.chains, options.states), p)
                                         : run_em(x, ridge, options, MeanFieldEStep(), p);
    if (best_objectives.empty() || objectives.back() > best_objectives.back()) {
      best = std::move(p);
      best_objectives = std::move(objectives);
    }
  }
  std::vector<FhmmChain> chains;
  for (long c = 0; c < options.chains; ++c)
    chains.push_back({best.chains[static_cast<std::size_t>(c)].start,
                      best.chains[static_cast<std::size_t>(c)].transitions,
                      best.means.middleCols(c * options.states, options.states)});
  FhmmFit fit;
  fit.model = detail::build_model([&] {
    return std::make_unique<FhmmModel>(std::move(chains), best.cov,
                                       options.length ? *options.length : static_cast<long>(x.rows()) - 1);
  });
  fit.log_likelihoods = std::move(best_objectives);
  return fit;
}

namespace {

// The model's parameters, for scoring the rows of x (EstimationError unless they are vectors of its dimension).
Parameters parameters_of(const FhmmModel& model, const Eigen::MatrixXd& x) {
  if (x.rows() < 1 || x.cols() != model.dim())
    throw EstimationError("the sequence must have at least one vector of dimension " + std::to_string(model.dim()));
  Parameters p;
  for (const FhmmChain& chain : model.chains()) p.chains.push_back({chain.start, chain.trans});
  p.means.resize(model.dim(), p.offset(p.chains.size()));
  for (std::size_t c = 0; c < p.chains.size(); ++c)
    p.means.middleCols(p.offset(c), p.chains[c].start.size()) = model.chains()[c].means;
  p.cov = model.cov();
  return p;
}

}  // namespace

double fhmm_log_likelihood(const FhmmModel& model, const Eigen::MatrixXd& x) {
  const Parameters p = parameters_of(model, x);
  const long states = static_cast<long>(model.chains().front().start.size());
  double count = 1;
  for (std::size_t c = 0; c < model.chains().size(); ++c) count *= static_cast<double>(states);
  if (count > 1024) throw EstimationError("the exact fhmm likelihood needs at most 1024 product states");
  return ExactEStep(static_cast<long>(model.chains().size()), states)(x, p).log_likelihood;
}

FhmmMeanField fhmm_mean_field(const FhmmModel& model, const Eigen::MatrixXd& x) {
  Parameters p = parameters_of(model, x);
  FhmmMeanField out;
  out.bound = MeanField(x, p).run(x, p, &out.updates);
  return out;
}

std::unique_ptr<Estimator> fhmm_estimator(const FhmmFitOptions& options) {
  return std::make_unique<FhmmEstimator>(options);
}

}  // namespace ppk
