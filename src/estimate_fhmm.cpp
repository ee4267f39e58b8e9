// The factorial-HMM estimator (see estimate.hpp): EM with the exact E-step on the product state
// space. Like the HMM estimator it keeps the example's data matrix "x" and cannot pool.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "estimate_detail.hpp"
#include "gaussian_em.hpp"
#include "ppk/estimate.hpp"

namespace ppk {
namespace {

constexpr long kMaxProductStates = 1024;
const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);

void check_options(const FhmmFitOptions& options) {
  if (options.chains < 1) throw EstimationError("--chains must be at least 1, got " + std::to_string(options.chains));
  if (options.states < 1) throw EstimationError("--states must be at least 1, got " + std::to_string(options.states));
  double product = 1.0;
  for (long c = 0; c < options.chains; ++c) product *= static_cast<double>(options.states);
  if (product > static_cast<double>(kMaxProductStates))
    throw EstimationError("--states " + std::to_string(options.states) + " and --chains " + std::to_string(options.chains) +
                          " give " + detail::short_number(product) + " product states; the exact E-step takes at most " +
                          std::to_string(kMaxProductStates));
  detail::check_sequence_em_options(options);
}

// The parameters during EM.
struct Parameters {
  std::vector<detail::MarkovChain> chains;
  Eigen::MatrixXd means;  // W = [W_1 .. W_C], d x C M
  Eigen::MatrixXd cov;    // Sigma
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
      for (long r = 0; r < space.count; ++r) product.transitions(s, r) *= chain.transitions(space.state_of(s, c), space.state_of(r, c));
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

// L's prior terms: a (sum log pi_c + sum log A_c) - (R/2) tr Sigma^-1.
double log_prior(const Parameters& p, double a, double ridge) {
  double prior = 0.0;
  for (const detail::MarkovChain& chain : p.chains)
    prior += detail::log_dirichlet_prior(chain.start, a) + detail::log_dirichlet_prior(chain.transitions, a);
  const Eigen::MatrixXd precision = p.cov.llt().solve(Eigen::MatrixXd::Identity(p.cov.rows(), p.cov.cols()));
  return prior - 0.5 * ridge * precision.trace();
}

// The M-step of estimate.hpp from the product posteriors.
void update(const Eigen::MatrixXd& x, const detail::ChainPosteriors& posteriors, const ProductSpace& space, double a,
            double ridge, Parameters& p) {
  const long m = space.states;
  for (long c = 0; c < space.chains; ++c) {
    Eigen::MatrixXd start_counts = Eigen::MatrixXd::Zero(1, m), transition_counts = Eigen::MatrixXd::Zero(m, m);
    for (long s = 0; s < space.count; ++s) {
      start_counts(0, space.state_of(s, c)) += posteriors.states(0, s);
      for (long r = 0; r < space.count; ++r)
        transition_counts(space.state_of(s, c), space.state_of(r, c)) += posteriors.transition_counts(s, r);
    }
    detail::MarkovChain& chain = p.chains[static_cast<std::size_t>(c)];
    Eigen::MatrixXd start = chain.start.transpose();
    detail::normalise_rows(start_counts, a, start);
    chain.start = start.transpose();
    detail::normalise_rows(transition_counts, a, chain.transitions);
  }
  const Eigen::MatrixXd features = posteriors.states * space.indicators;  // E[s_t]', n x K
  const Eigen::MatrixXd moments =
      space.indicators.transpose() * posteriors.states.colwise().sum().transpose().asDiagonal() * space.indicators;
  const Eigen::MatrixXd cross = x.transpose() * features;  // sum_t x_t E[s_t]', d x K
  p.means = moments.completeOrthogonalDecomposition().solve(cross.transpose()).transpose();
  // sum_t E[(x_t - W s_t)(x_t - W s_t)'] = X'X - W cross' - cross W' + W moments W'.
  Eigen::MatrixXd scatter = x.transpose() * x - p.means * cross.transpose() - cross * p.means.transpose() +
                            p.means * moments * p.means.transpose();
  scatter = 0.5 * (scatter + scatter.transpose());
  scatter.diagonal().array() += ridge;
  p.cov = scatter / static_cast<double>(x.rows());
}

// EM from `p`; returns L after 0, 1, 2, ... M-steps (the last for the final parameters).
std::vector<double> run_em(const Eigen::MatrixXd& x, const ProductSpace& space, double ridge, const FhmmFitOptions& options,
                           Parameters& p) {
  std::vector<double> objectives;
  for (long step = 0;; ++step) {
    const detail::ChainPosteriors posteriors = detail::forward_backward(product_chain(p, space), log_emissions(x, p, space));
    const double objective = posteriors.log_likelihood + log_prior(p, options.smoothing, ridge);
    const bool converged = !objectives.empty() && objective - objectives.back() < options.tolerance * std::fabs(objective);
    objectives.push_back(objective);
    if (converged || step == options.iterations) break;
    update(x, posteriors, space, options.smoothing, ridge, p);
  }
  return objectives;
}

Parameters random_start(const Eigen::MatrixXd& x, const FhmmFitOptions& options, double ridge, std::mt19937_64& rng) {
  Parameters p;
  const double chains = static_cast<double>(options.chains);
  for (long c = 0; c < options.chains; ++c)
    p.chains.push_back({detail::random_rows(1, options.states, rng).transpose(), detail::random_rows(options.states, options.states, rng)});
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
  const ProductSpace space(options.chains, options.states);
  const double ridge = options.ridge ? *options.ridge : detail::default_ridge(x);
  std::seed_seq seed{options.seed, static_cast<std::uint64_t>(x.rows()), static_cast<std::uint64_t>(x.cols()),
                     detail::fingerprint(x.data(), static_cast<std::size_t>(x.size()))};
  std::mt19937_64 rng(seed);
  Parameters best;
  std::vector<double> best_objectives;
  for (long restart = 0; restart < options.restarts; ++restart) {
    Parameters p = random_start(x, options, ridge, rng);
    std::vector<double> objectives = run_em(x, space, ridge, options, p);
    if (best_objectives.empty() || objectives.back() > best_objectives.back()) {
      best = std::move(p);
      best_objectives = std::move(objectives);
    }
  }
  std::vector<FhmmChain> chains;
  for (long c = 0; c < options.chains; ++c)
    chains.push_back({best.chains[static_cast<std::size_t>(c)].start, best.chains[static_cast<std::size_t>(c)].transitions,
                      best.means.middleCols(c * options.states, options.states)});
  FhmmFit fit;
  fit.model = detail::build_model([&] {
    return std::make_unique<FhmmModel>(std::move(chains), best.cov, options.length ? *options.length : static_cast<long>(x.rows()) - 1);
  });
  fit.log_likelihoods = std::move(best_objectives);
  return fit;
}

std::unique_ptr<Estimator> fhmm_estimator(const FhmmFitOptions& options) { return std::make_unique<FhmmEstimator>(options); }

}  // namespace ppk
