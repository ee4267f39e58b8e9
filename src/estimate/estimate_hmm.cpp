// The HMM estimator (see estimate.hpp): Baum-Welch on one sequence, with discrete (one-event
// multinomial) or Gaussian emissions. Like the mixtures, an HMM is not an exponential family: the
// estimator keeps the example's sequence (the symbols, or the data matrix "x") and cannot pool.
// Also the pooled HMM of many sequences and its MAP adaptation to one (adaptation.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "estimate/estimate_hmm_emissions.hpp"
#include "estimate/gaussian_em.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/core/thread_pool.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/fisher.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/multinomial.hpp"

namespace ppk {

namespace detail {

namespace {

// sum_t log c_t as the logs of running products of the c_t: one log per hundreds of steps rather
// than one per step. A product is logged and restarted when it leaves [1e-100, 1e100], and a c_t
// outside that range is logged alone, so no product overflows or underflows.
class LogOfProduct {
 public:
  void add(double c) {
    if (!(c >= kSmallest && c <= kLargest)) {
      log_ += std::log(c);  // also 0 (-inf) and NaN, which then stay in the sum
      return;
    }
    product_ *= c;
    if (product_ < kSmallest || product_ > kLargest) {
      log_ += std::log(product_);
      product_ = 1.0;
    }
  }
  double value() const { return log_ + std::log(product_); }

 private:
  static constexpr double kSmallest = 1e-100, kLargest = 1e100;
  double log_ = 0.0, product_ = 1.0;
};

// scaled_forward_backward with M known at compile time (or Eigen::Dynamic). Each step works on
// local vectors: at fixed M the step's M x M product is unrolled and the vectors stay in
// registers, where dynamic-size expressions reading the previous step back from the storage
// spend most of their time in set-up and in loads waiting on the store just made (docs/
// performance.md, the per-sequence fit). The backward pass keeps beta_t local and writes gamma_t over alpha_t once
// xi_{t-1} has used alpha_{t-1}. (At Eigen::Dynamic the local vectors and xi's sum are allocated once per call.)
template <int M>
double scaled_recursions(const MarkovChain& chain, ForwardBackwardStorage& storage,
                         Eigen::Ref<Eigen::MatrixXd>& transition_counts) {
  using Vector = Eigen::Matrix<double, M, 1>;
  using Square = Eigen::Matrix<double, M, M>;
  const Eigen::Index m = chain.start.size(), n = storage.emissions.cols();
  const Eigen::Map<const Square> a(chain.transitions.data(), m, m);
  const auto b = [&](Eigen::Index t) {
    return Eigen::Map<const Vector>(storage.emissions.data() + t * storage.emissions.outerStride(), m);
  };
  const auto states = [&](Eigen::Index t) {
    return Eigen::Map<Vector>(storage.states.data() + t * storage.states.outerStride(), m);
  };
  Eigen::Ref<Eigen::VectorXd>& scale = storage.scales;
  LogOfProduct log_scale;
  Vector alpha = Eigen::Map<const Vector>(chain.start.data(), m).cwiseProduct(b(0)), next(m);
  for (Eigen::Index t = 0;;) {
    scale(t) = alpha.sum();
    log_scale.add(scale(t));
    alpha /= scale(t);
    states(t) = alpha;
    if (++t == n) break;
    next.noalias() = a.transpose() * alpha;
    alpha = next.cwiseProduct(b(t));
  }
  Vector& beta = next;
  Vector& ahead = alpha;  // b_t .* beta_t / c_t
  Square xi = Square::Zero(m, m);
  beta.setOnes();
  for (Eigen::Index t = n - 1; t > 0; --t) {
    ahead = b(t).cwiseProduct(beta) * (1.0 / scale(t));  // 1 / c_t off the chain of steps
    xi.noalias() += states(t - 1) * ahead.transpose();
    states(t) = states(t).cwiseProduct(beta);
    beta.noalias() = a * ahead;
  }
  states(0) = states(0).cwiseProduct(beta);
  transition_counts += a.cwiseProduct(xi);
  return log_scale.value();
}

}  // namespace

double scaled_forward_backward(const MarkovChain& chain, ForwardBackwardStorage storage,
                               Eigen::Ref<Eigen::MatrixXd> transition_counts) {
  switch (chain.start.size()) {
    case 1: return scaled_recursions<1>(chain, storage, transition_counts);
    case 2: return scaled_recursions<2>(chain, storage, transition_counts);
    case 3: return scaled_recursions<3>(chain, storage, transition_counts);
    case 4: return scaled_recursions<4>(chain, storage, transition_counts);
    case 5: return scaled_recursions<5>(chain, storage, transition_counts);
    case 6: return scaled_recursions<6>(chain, storage, transition_counts);
    default: return scaled_recursions<Eigen::Dynamic>(chain, storage, transition_counts);
  }
}

double scale_log_emissions(const Eigen::Ref<const Eigen::MatrixXd>& log_emissions, Eigen::Ref<Eigen::MatrixXd> scaled) {
  double log_scale = 0.0;
  for (Eigen::Index t = 0; t < log_emissions.rows(); ++t) {
    const double log_max = log_emissions.row(t).maxCoeff();  // log m_t
    scaled.col(t) = detail::exp_entries(log_emissions.row(t).transpose().array() - log_max).matrix();
    log_scale += log_max;
  }
  return log_scale;
}

ChainPosteriors forward_backward(const MarkovChain& chain, const Eigen::Ref<const Eigen::MatrixXd>& log_emissions) {
  const Eigen::Index n = log_emissions.rows(), m = log_emissions.cols();
  Eigen::MatrixXd b(m, n), states(m, n);
  Eigen::VectorXd scale(n);
  ChainPosteriors out;
  out.transition_counts.setZero(m, m);
  const double log_scale = scale_log_emissions(log_emissions, b);
  out.log_likelihood = scaled_forward_backward(chain, {b, states, scale}, out.transition_counts) + log_scale;
  out.states = states.transpose();
  return out;
}

void normalise_rows(const Eigen::MatrixXd& counts, const Eigen::MatrixXd& pseudo_counts, Eigen::MatrixXd& rows) {
  for (Eigen::Index p = 0; p < counts.rows(); ++p) {
    const double total = counts.row(p).sum() + pseudo_counts.row(p).sum();
    if (total > 0.0) rows.row(p) = (counts.row(p) + pseudo_counts.row(p)) / total;
  }
}

void normalise_rows(const Eigen::MatrixXd& counts, double a, Eigen::MatrixXd& rows) {
  normalise_rows(counts, Eigen::MatrixXd::Constant(counts.rows(), counts.cols(), a), rows);
}

double log_dirichlet_prior(const Eigen::MatrixXd& p, double a) { return a > 0.0 ? a * p.array().log().sum() : 0.0; }

double log_dirichlet_prior(const Eigen::Ref<const Eigen::ArrayXXd>& p,
                           const Eigen::Ref<const Eigen::ArrayXXd>& pseudo_counts) {
  return (pseudo_counts > 0.0).select(pseudo_counts * p.log(), 0.0).sum();
}

Eigen::MatrixXd random_rows(Eigen::Index rows, Eigen::Index cols, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Eigen::MatrixXd p(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index c = 0; c < cols; ++c) p(r, c) = 0.5 + uniform(rng);
    p.row(r) /= p.row(r).sum();
  }
  return p;
}

Eigen::MatrixXd one_event_emission_table(const HmmModel& hmm, const std::string& why) {
  const std::size_t states = hmm.states();
  Eigen::MatrixXd table(static_cast<Eigen::Index>(states), hmm.emission(0).sample_space().dim);
  for (std::size_t q = 0; q < states; ++q) {
    const auto* multinomial = dynamic_cast<const MultinomialModel*>(&hmm.emission(q));
    if (multinomial == nullptr || multinomial->trials().kind != Trials::one_event || multinomial->leveled() != nullptr)
      throw EstimationError("the pooled HMM's emission " + std::to_string(q + 1) + " is a " +
                            (multinomial == nullptr ? hmm.emission(q).family().name + " model"
                                                    : std::string("multinomial over counts or a leveled base")) +
                            ": " + why);
    const std::vector<double> row = multinomial->probabilities().dense();
    table.row(static_cast<Eigen::Index>(q)) =
        Eigen::Map<const Eigen::RowVectorXd>(row.data(), static_cast<Eigen::Index>(row.size()));
  }
  return table;
}

}  // namespace detail

namespace {

// Why a symbol sequence needs one-event multinomial emissions.
constexpr const char* kDiscreteOnly = "a symbol sequence adapts only an HMM whose emissions are one-event multinomials";

using Chain = detail::MarkovChain;
using detail::normalise_rows;
using detail::random_rows;

// The sequences of a fit stacked as the rows of one data matrix (or one symbol vector): sequence s
// is the rows [bounds[s], bounds[s + 1]). A per-example fit has one sequence, a pooled fit many.
using SequenceBounds = std::vector<Eigen::Index>;

// The Dirichlet pseudo-counts of a probability table (a row vector or matrix of rows): the M-step
// sets each row to (expected counts + pseudo-counts) / (its total), the MAP under the prior
// prod p^pseudo, and the objective gains sum pseudo .* log p. `fixed`: the table keeps its value
// and adds nothing to the objective (a parameter that is not adapted).
struct TablePrior {
  Eigen::MatrixXd pseudo_counts;
  bool fixed = false;
  // The per-example fit's smoothing a on every entry.
  static TablePrior smoothing(Eigen::Index rows, Eigen::Index cols, double a) {
    return {Eigen::MatrixXd::Constant(rows, cols, a), false};
  }
  // Adaptation: tau times the pooled table (adaptation.hpp).
  static TablePrior adapted(const Eigen::MatrixXd& pooled, double tau, bool adapt) { return {tau * pooled, !adapt}; }
  double log_prior(const Eigen::MatrixXd& p) const {
    if (fixed) return 0.0;
    return detail::log_dirichlet_prior(p.array(), pseudo_counts.array());
  }
  void update(const Eigen::MatrixXd& counts, Eigen::MatrixXd& p) const {
    if (!fixed) normalise_rows(counts, pseudo_counts, p);
  }
};

struct ChainPrior {
  TablePrior start;  // 1 x M
  TablePrior transitions;
};

// The emission models of the M hidden states during Baum-Welch, over the stacked sequences.
class Emissions {
 public:
  virtual ~Emissions() = default;
  // b_t(q) = p_q(x_t) / m_t, m_t = max_q p_q(x_t), into `scaled` (M x n, column t; see
  // detail::ForwardBackwardStorage); returns sum_t log m_t.
  virtual double scaled_probabilities(Eigen::Ref<Eigen::MatrixXd> scaled) const = 0;
  // The emissions' terms of the penalised (MAP) objective L.
  virtual double log_prior() const = 0;
  // The M-step from gamma_t(q) (M x n, column t).
  virtual void update(const Eigen::MatrixXd& states) = 0;
  virtual std::unique_ptr<Model> model(std::size_t q) const = 0;
};

// E_qo = P(x_t = o | s_t = q); the symbols in 0..O-1.
class DiscreteEmissions : public Emissions {
 public:
  DiscreteEmissions(const std::vector<long>& sequence, Eigen::MatrixXd probabilities, TablePrior prior)
      : sequence_(sequence),
        probabilities_(std::move(probabilities)),
        prior_(std::move(prior)),
        counts_(probabilities_.rows(), probabilities_.cols()),
        scaled_(probabilities_.rows(), probabilities_.cols()),
        log_maxima_(probabilities_.cols()) {
    scale_table();
  }
  // b_t = column x_t of E divided by its largest entry: a look-up, no exp or log per step.
  double scaled_probabilities(Eigen::Ref<Eigen::MatrixXd> scaled) const override {
    double log_scale = 0.0;
    for (std::size_t t = 0; t < sequence_.size(); ++t) {
      scaled.col(static_cast<Eigen::Index>(t)) = scaled_.col(sequence_[t]);
      log_scale += log_maxima_(sequence_[t]);
    }
    return log_scale;
  }
  double log_prior() const override { return prior_.log_prior(probabilities_); }
  // E_qo ∝ sum_{t: x_t = o} gamma_t(q) + the pseudo-count.
  void update(const Eigen::MatrixXd& states) override {
    counts_.setZero();
    for (std::size_t t = 0; t < sequence_.size(); ++t)
      counts_.col(sequence_[t]) += states.col(static_cast<Eigen::Index>(t));
    prior_.update(counts_, probabilities_);
    scale_table();
  }
  std::unique_ptr<Model> model(std::size_t q) const override {
    const Eigen::VectorXd row = probabilities_.row(static_cast<Eigen::Index>(q)).transpose();
    return detail::build_model([&] {
      return std::make_unique<MultinomialModel>(
          SparseProbabilities::from_dense(std::vector<double>(row.data(), row.data() + row.size())), Trials{});
    });
  }

 private:
  // scaled_ = each column of E divided by its largest entry m_o, log_maxima_(o) = log m_o.
  void scale_table() {
    for (Eigen::Index o = 0; o < probabilities_.cols(); ++o) {
      const double largest = probabilities_.col(o).maxCoeff();
      scaled_.col(o) = probabilities_.col(o) / largest;
      log_maxima_(o) = std::log(largest);
    }
  }

  const std::vector<long>& sequence_;
  Eigen::MatrixXd probabilities_;  // M x O
  TablePrior prior_;
  Eigen::MatrixXd counts_;      // the M-step's expected counts (storage reused by every update)
  Eigen::MatrixXd scaled_;      // M x O
  Eigen::VectorXd log_maxima_;  // O
};

// N(mu_q, Sigma_q) updated as the mixture's components, with responsibilities gamma_t(q): by ML
// with the ridge (and `prior` when not null), or adapted toward the pooled Gaussians.
class GaussianEmissions : public Emissions {
 public:
  GaussianEmissions(const Eigen::MatrixXd& x, detail::GaussianComponents gaussians, double ridge,
                    const CovariancePrior* prior)
      : x_(x), gaussians_(std::move(gaussians)), ridge_(ridge), prior_(prior) {}
  GaussianEmissions(const Eigen::MatrixXd& x, const detail::GaussianAdaptation& adaptation, double ridge)
      : x_(x), gaussians_(*adaptation.pooled), ridge_(ridge), prior_(nullptr), adaptation_(adaptation) {}
  double scaled_probabilities(Eigen::Ref<Eigen::MatrixXd> scaled) const override {
    return detail::scale_log_emissions(detail::log_densities(x_, gaussians_), scaled);
  }
  double log_prior() const override {
    const double adapted = adaptation_ ? detail::adaptation_log_prior(gaussians_, *adaptation_) : 0.0;
    return adapted + detail::covariance_log_prior(gaussians_, prior_) - detail::ridge_penalty(gaussians_, ridge_);
  }
  void update(const Eigen::MatrixXd& states) override {
    responsibilities_ = states.transpose();
    if (adaptation_)
      detail::adapt_gaussians(x_, responsibilities_, ridge_, *adaptation_, gaussians_);
    else
      detail::update_gaussians(x_, responsibilities_, ridge_, prior_, gaussians_);
  }
  std::unique_ptr<Model> model(std::size_t q) const override { return detail::gaussian_model(gaussians_, q); }

 private:
  const Eigen::MatrixXd& x_;
  detail::GaussianComponents gaussians_;
  double ridge_;
  const CovariancePrior* prior_;  // null: none
  std::optional<detail::GaussianAdaptation> adaptation_;
  Eigen::MatrixXd responsibilities_;  // gamma_t(q), n x M as the mixture's M-step takes them
};

// How long Baum-Welch runs, and on how many threads its E-step does.
struct EmControl {
  long iterations = 0;
  double tolerance = 0.0;
  unsigned threads = 1;
};

// The E-step's xi sums are taken over blocks of consecutive sequences, one M x M sum per block:
// at most 64 blocks (parallel work enough for a few dozen threads), and together at most 2^22
// values (32 MB) unless one block alone is larger. The blocks depend on M and the number of
// sequences only, so the sums do not depend on the threads; and their storage does not grow with
// the sequences, as one sum per sequence (10^4 sequences of 100 states: 800 MB) would.
constexpr double kMaxBlockSumValues = 4194304.0;  // 2^22
constexpr std::size_t kMaxSequenceBlocks = 64;
std::size_t sequence_blocks(Eigen::Index m, std::size_t sequences) {
  const double fit = std::floor(kMaxBlockSumValues / (static_cast<double>(m) * static_cast<double>(m)));
  return std::max<std::size_t>(1,
                               std::min({sequences, kMaxSequenceBlocks, static_cast<std::size_t>(std::max(fit, 1.0))}));
}

// Baum-Welch's storage over the stacked sequences of `bounds`: made once per run of restarts and
// reused by every iteration, so that an iteration of discrete-emission Baum-Welch allocates nothing.
// After e_step: log p(X); `states` gamma_t (M x n); `start_counts` sum_s gamma_0 of each sequence
// (1 x M); `transition_counts` sum_s sum_t xi_t (M x M).
struct BaumWelchWorkspace {
  BaumWelchWorkspace(Eigen::Index m, const SequenceBounds& sequence_bounds)
      : bounds(sequence_bounds),
        blocks(sequence_blocks(m, bounds.size() - 1)),
        emissions(m, bounds.back()),
        states(m, bounds.back()),
        scales(bounds.back()),
        block_transition_counts(m, m * static_cast<Eigen::Index>(blocks)),
        sequence_log_scales(static_cast<Eigen::Index>(bounds.size() - 1)),
        start_counts(1, m),
        transition_counts(m, m),
        start(1, m) {}
  // The first sequence of block b (b = blocks: one past the last sequence).
  std::size_t block_start(std::size_t b) const { return b * (bounds.size() - 1) / blocks; }
  const SequenceBounds& bounds;
  std::size_t blocks;  // sequence_blocks
  // detail::ForwardBackwardStorage of every sequence, side by side (sequence s in columns
  // [bounds[s], bounds[s + 1])).
  Eigen::MatrixXd emissions, states;
  Eigen::VectorXd scales;
  Eigen::MatrixXd block_transition_counts;  // block b's sum_s sum_t xi_t in columns [b M, (b + 1) M)
  Eigen::VectorXd sequence_log_scales;      // sequence s's sum_t log c_t
  double log_likelihood = 0.0;
  Eigen::MatrixXd start_counts, transition_counts;
  Eigen::MatrixXd start;  // pi as the 1 x M table of its TablePrior
};

// The E-step over the stacked sequences: forward-backward on each (blocks of sequences in parallel;
// the sums are taken in sequence and block order, so the result does not depend on the threads),
// into `workspace`.
void e_step(const Chain& chain, const Emissions& emissions, unsigned threads, BaumWelchWorkspace& workspace) {
  const SequenceBounds& bounds = workspace.bounds;
  const std::size_t count = bounds.size() - 1;
  const Eigen::Index m = chain.start.size();
  const double log_scale = emissions.scaled_probabilities(workspace.emissions);
  // In parallel only when the E-step is long (20 ms): a short one finishes within a scheduler time
  // slice, and a helper descheduled by another process while it holds a range would delay it more
  // than the helper saves. (The lambda captures two references: std::function keeps it without
  // allocating.)
  for_each_range(workspace.blocks, threads, 1, 0.02, [&chain, &workspace](std::size_t begin, std::size_t end) {
    BaumWelchWorkspace& w = workspace;
    const Eigen::Index states = chain.start.size();
    for (std::size_t b = begin; b < end; ++b) {
      Eigen::Ref<Eigen::MatrixXd> counts =
          w.block_transition_counts.middleCols(static_cast<Eigen::Index>(b) * states, states);
      counts.setZero();
      for (std::size_t s = w.block_start(b); s < w.block_start(b + 1); ++s) {
        const Eigen::Index first = w.bounds[s], length = w.bounds[s + 1] - w.bounds[s];
        w.sequence_log_scales(static_cast<Eigen::Index>(s)) = detail::scaled_forward_backward(
            chain,
            {w.emissions.middleCols(first, length), w.states.middleCols(first, length), w.scales.segment(first, length)},
            counts);
      }
    }
  });
  workspace.log_likelihood = log_scale;
  workspace.start_counts.setZero();
  workspace.transition_counts.setZero();
  for (std::size_t s = 0; s < count; ++s) {
    workspace.log_likelihood += workspace.sequence_log_scales(static_cast<Eigen::Index>(s));
    workspace.start_counts += workspace.states.col(bounds[s]).transpose();
  }
  for (std::size_t b = 0; b < workspace.blocks; ++b)
    workspace.transition_counts += workspace.block_transition_counts.middleCols(static_cast<Eigen::Index>(b) * m, m);
}

// Baum-Welch from the given start; returns the objective L (log p(X) plus the priors' terms) after
// 0, 1, 2, ... M-steps (the last for the final parameters).
std::vector<double> run_baum_welch(Chain& chain, Emissions& emissions, const ChainPrior& prior, const EmControl& control,
                                   BaumWelchWorkspace& workspace) {
  std::vector<double> objectives;
  // Room for the usual number of iterations (ppk fit hmm's 400), so that the record does not grow
  // inside the loop; a larger --iterations grows it as needed.
  objectives.reserve(static_cast<std::size_t>(std::min(control.iterations, 1024L)) + 1);
  for (long step = 0;; ++step) {
    e_step(chain, emissions, control.threads, workspace);
    workspace.start = chain.start.transpose();
    const double objective = workspace.log_likelihood + prior.start.log_prior(workspace.start) +
                             prior.transitions.log_prior(chain.transitions) + emissions.log_prior();
    const bool converged =
        !objectives.empty() && objective - objectives.back() < control.tolerance * std::fabs(objective);
    objectives.push_back(objective);
    if (converged || step == control.iterations) break;
    // M-step: pi_q ∝ sum_s gamma_0(q) + pseudo, A_pq ∝ sum_t xi_t(p, q) + pseudo, then the emissions.
    prior.start.update(workspace.start_counts, workspace.start);
    chain.start = workspace.start.transpose();
    prior.transitions.update(workspace.transition_counts, chain.transitions);
    emissions.update(workspace.states);
  }
  return objectives;
}

Chain random_chain(long states, std::mt19937_64& rng) {
  Chain chain;
  chain.start = random_rows(1, states, rng).transpose();
  chain.transitions = random_rows(states, states, rng);
  return chain;
}

void check_options(const HmmFitOptions& options) {
  if (options.states && (*options.states < 1 || *options.states > kMaxHmmFitStates))
    throw OptionError("{states} must be in [1, " + std::to_string(kMaxHmmFitStates) +
                      "] (or auto; M + M^2 + M values must fit in a row), got " + std::to_string(*options.states));
  detail::check_option("param_ratio", options.param_ratio, 0, true);
  detail::check_sequence_em_options(options, kMaxHmmLength);
  if (options.prior && options.emissions != HmmEmissions::gaussian)
    throw OptionError("{prior} is a prior on Gaussian emissions' covariances: it needs {emissions} gaussian");
}

// The number of emission parameters per state, the O of the state rule for Gaussian emissions.
long gaussian_parameters(long dim, CovarianceForm form) {
  switch (form) {
    case CovarianceForm::isotropic: return dim + 1;
    case CovarianceForm::diagonal: return 2 * dim;
    case CovarianceForm::full: break;
  }
  return dim + dim * (dim + 1) / 2;
}

// The HMM of the chain and emissions, storing length T.
HmmFit hmm_fit(const Chain& chain, const Emissions& emissions, long length, std::vector<double> objectives) {
  std::vector<std::unique_ptr<Model>> models;
  for (Eigen::Index q = 0; q < chain.start.size(); ++q) models.push_back(emissions.model(static_cast<std::size_t>(q)));
  HmmFit fit;
  fit.model = detail::build_model(
      [&] { return std::make_unique<HmmModel>(chain.start, chain.transitions, std::move(models), length); });
  fit.log_likelihoods = std::move(objectives);
  return fit;
}

// The bytes Baum-Welch holds at once in best_of_restarts: each restart's chain (M^2 + M) and
// emissions (`emission_values`), the chain prior's pseudo-counts and the kept model (M^2 + M each),
// and a workspace for each thread running restarts (the emissions' and states' M x n, the blocks'
// sums, and M x M for the E-step's and M-step's counts and each recursion's local xi sum).
double baum_welch_bytes(Eigen::Index m, const SequenceBounds& bounds, double emission_values, std::size_t restarts,
                        unsigned threads) {
  const double states = static_cast<double>(m), square = states * states, n = static_cast<double>(bounds.back());
  const double workers = static_cast<double>(std::min<std::size_t>(restarts, std::max(threads, 1U)));
  const double workspace = 2.0 * states * n + n + static_cast<double>(bounds.size()) +
                           (static_cast<double>(sequence_blocks(m, bounds.size() - 1)) + 3.0) * square;
  return 8.0 * (static_cast<double>(restarts) * (square + states + emission_values) + 2.0 * (square + states) +
                workers * workspace);
}

// The restarts from `seed_stream`: each makes a chain and emissions (holding `emission_values`
// doubles) from the generator, runs Baum-Welch with the smoothing's pseudo-counts, and the largest
// final L is kept; then the HMM storing T = the first sequence's length - 1 (or options.length).
// WorkingMemoryError before anything is allocated if the working memory is beyond the limit.
template <class MakeEmissions>
HmmFit best_of_restarts(long states, const SequenceBounds& bounds, double emission_values, std::seed_seq& seed_stream,
                        const HmmFitOptions& options, unsigned threads, MakeEmissions make_emissions) {
  const auto restarts = static_cast<std::size_t>(options.restarts);
  const std::string need = "Baum-Welch with {states} " + std::to_string(states) +
                           (restarts > 1 ? " and {restarts} " + std::to_string(restarts) : "") + " over " +
                           std::to_string(bounds.back()) + " observations";
  const auto run = [&] {
    std::mt19937_64 rng(seed_stream);
    const ChainPrior prior{TablePrior::smoothing(1, states, options.smoothing),
                           TablePrior::smoothing(states, states, options.smoothing)};
    const EmControl control{options.iterations, options.tolerance, threads};
    // Every restart's start is drawn first, in order, so that the restarts can run in parallel (each
    // a whole Baum-Welch run: coarse enough to share a loaded machine) with the same result.
    std::vector<Chain> chains;
    std::vector<std::unique_ptr<Emissions>> emissions;
    for (std::size_t restart = 0; restart < restarts; ++restart) {
      chains.push_back(random_chain(states, rng));
      emissions.push_back(make_emissions(rng));
    }
    std::vector<std::vector<double>> log_likelihoods(restarts);
    for_each_range(restarts, threads, 1, 0.01, [&](std::size_t begin, std::size_t end) {
      BaumWelchWorkspace workspace(states, bounds);
      for (std::size_t restart = begin; restart < end; ++restart)
        log_likelihoods[restart] = run_baum_welch(chains[restart], *emissions[restart], prior, control, workspace);
    });
    std::size_t best = 0;  // the first of the largest final L
    for (std::size_t restart = 1; restart < restarts; ++restart)
      if (log_likelihoods[restart].back() > log_likelihoods[best].back()) best = restart;
    const long length = options.length ? *options.length : static_cast<long>(bounds[1] - bounds[0]) - 1;
    return hmm_fit(chains[best], *emissions[best], length, std::move(log_likelihoods[best]));
  };
  return detail::with_working_memory(baum_welch_bytes(states, bounds, emission_values, restarts, threads), need,
                                     restarts > 1 ? "lower {states} or {restarts}" : "lower {states}", run);
}

void check_symbols(const std::vector<long>& sequence, long alphabet, const std::string& where) {
  if (sequence.empty()) throw EstimationError(where + "is empty");
  for (std::size_t t = 0; t < sequence.size(); ++t)
    if (sequence[t] < 0 || sequence[t] >= alphabet)
      throw EstimationError("symbol " + std::to_string(sequence[t]) + " at position " + std::to_string(t + 1) +
                            (where == "the sequence " ? "" : " of " + where.substr(0, where.size() - 1)) +
                            " is outside the alphabet 0.." + std::to_string(alphabet - 1));
}

void check_vectors(const Eigen::MatrixXd& x, const std::string& where) {
  if (x.rows() < 1 || x.cols() < 1) throw EstimationError(where + "is empty");
  if (!x.allFinite()) throw EstimationError("the vectors of " + where + "must have finite values");
}

// "sequence 3 " of a pooled fit, "the sequence " of one.
std::string sequence_name(std::size_t s, std::size_t count) {
  return count == 1 ? "the sequence " : "sequence " + std::to_string(s + 1) + " ";
}

class HmmEstimator : public Estimator {
 public:
  explicit HmmEstimator(const HmmFitOptions& options) : options_(options) { check_options(options); }
  std::string family() const override { return "hmm"; }
  std::unique_ptr<FisherScores> fisher_scores(const Model& pooled, const AdaptedParameters& parameters) const override {
    return hmm_fisher_scores(detail::pooled_model_as<HmmModel>(pooled, family()), parameters);
  }
  // Discrete: the symbols, each vector one-hot; Gaussian: the data matrix "x".
  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    if (options_.emissions == HmmEmissions::gaussian) {
      statistics.sums["x"] = detail::data_matrix(vectors, dim);
      return statistics;
    }
    statistics.sums["symbols"] =
        detail::one_hot_symbols(vectors,
                                "discrete emissions take each vector as a single index:1 entry, the symbol's index (use "
                                "{emissions} gaussian for real vectors)");
    return statistics;
  }
  Statistics pool(const Statistics&, const Statistics&, double) const override { detail::reject_pooling(family()); }
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    if (options_.emissions == HmmEmissions::gaussian)
      return std::move(fit_gaussian_hmm(detail::data_of(statistics), options_).model);
    return std::move(fit_discrete_hmm(detail::symbols_of(statistics), statistics.dim, options_).model);
  }
  std::unique_ptr<Model> fit_pooled(const std::vector<Statistics>& examples, unsigned threads) const override {
    if (examples.empty()) throw EstimationError("there are no sequences to fit");
    if (options_.emissions == HmmEmissions::gaussian) {
      std::vector<Eigen::MatrixXd> sequences;
      for (const Statistics& example : examples) sequences.push_back(detail::data_of(example));
      return std::move(fit_pooled_gaussian_hmm(sequences, options_, threads).model);
    }
    std::vector<std::vector<long>> sequences;
    for (const Statistics& example : examples) sequences.push_back(detail::symbols_of(example));
    return std::move(fit_pooled_discrete_hmm(sequences, examples[0].dim, options_, threads).model);
  }
  std::unique_ptr<Model> adapt(const Model& pooled, const Statistics& example,
                               const AdaptationOptions& options) const override {
    const auto& hmm = detail::pooled_model_as<HmmModel>(pooled, family());
    AdaptationOptions adaptation = options;
    if (!adaptation.length) adaptation.length = options_.length;
    if (options_.emissions == HmmEmissions::gaussian)
      return std::move(adapt_hmm(hmm, detail::data_of(example), adaptation).model);
    return std::move(adapt_hmm(hmm, detail::symbols_of(example), adaptation).model);
  }

 private:
  HmmFitOptions options_;
};

// The MAP adaptation's chain prior and EM control (adaptation.hpp).
ChainPrior adapted_chain_prior(const HmmModel& pooled, const AdaptationOptions& options) {
  return {TablePrior::adapted(pooled.start().transpose(), options.relevance, options.adapt.start),
          TablePrior::adapted(pooled.transitions(), options.relevance, options.adapt.transitions)};
}
Chain pooled_chain(const HmmModel& pooled) { return Chain{pooled.start(), pooled.transitions()}; }
EmControl adaptation_control(const AdaptationOptions& options) {
  return EmControl{options.iterations, options.tolerance, 1};
}
std::vector<const Model*> emission_models(const HmmModel& model) {
  std::vector<const Model*> models;
  for (std::size_t q = 0; q < model.states(); ++q) models.push_back(&model.emission(q));
  return models;
}

// Sequences of symbols stacked as one vector (their bounds as for stack_rows), checked
// (EstimationError naming the sequence).
struct StackedSymbols {
  std::vector<long> symbols;
  SequenceBounds bounds{0};
};
StackedSymbols stack_symbols(const std::vector<std::vector<long>>& sequences, long alphabet) {
  if (sequences.empty()) throw EstimationError("there are no sequences to fit");
  if (alphabet < 1) throw EstimationError("the alphabet must have at least 1 symbol");
  StackedSymbols out;
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    check_symbols(sequences[s], alphabet, sequence_name(s, sequences.size()));
    out.symbols.insert(out.symbols.end(), sequences[s].begin(), sequences[s].end());
    out.bounds.push_back(static_cast<Eigen::Index>(out.symbols.size()));
  }
  return out;
}

// log p of the stacked sequences under the HMM's chain and these emissions: the forward recursion.
double sequences_log_likelihood(const HmmModel& hmm, const Emissions& emissions, const SequenceBounds& bounds,
                                unsigned threads) {
  BaumWelchWorkspace workspace(static_cast<Eigen::Index>(hmm.states()), bounds);
  e_step(pooled_chain(hmm), emissions, threads, workspace);
  return workspace.log_likelihood;
}

}  // namespace

long hmm_auto_states(long symbols, long length, double param_ratio) {
  const double o = static_cast<double>(symbols), t = static_cast<double>(length);
  return static_cast<long>(std::floor(0.5 * std::sqrt(o * o + 4.0 * (t * param_ratio + o + 1.0)) - 0.5 * o)) + 1;
}

HmmFit fit_discrete_hmm(const std::vector<long>& sequence, long alphabet, const HmmFitOptions& options) {
  return fit_pooled_discrete_hmm({sequence}, alphabet, options);
}

HmmFit fit_pooled_discrete_hmm(const std::vector<std::vector<long>>& sequences, long alphabet,
                               const HmmFitOptions& options, unsigned threads) {
  check_options(options);
  const StackedSymbols data = stack_symbols(sequences, alphabet);
  const long n = static_cast<long>(data.symbols.size());
  const long states = options.states ? *options.states : hmm_auto_states(alphabet, n, options.param_ratio);
  std::seed_seq seed{options.seed, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(alphabet),
                     detail::fingerprint(data.symbols.data(), data.symbols.size())};
  // Each restart's emissions: the M x O table, its counts, scaled probabilities and pseudo-counts.
  const double emission_values = 4.0 * static_cast<double>(states) * static_cast<double>(alphabet);
  return best_of_restarts(states, data.bounds, emission_values, seed, options, threads,
                          [&](std::mt19937_64& rng) -> std::unique_ptr<Emissions> {
                            return std::make_unique<DiscreteEmissions>(
                                data.symbols, random_rows(states, alphabet, rng),
                                TablePrior::smoothing(states, alphabet, options.smoothing));
                          });
}

HmmFit fit_gaussian_hmm(const Eigen::MatrixXd& x, const HmmFitOptions& options) {
  return fit_pooled_gaussian_hmm({x}, options);
}

HmmFit fit_pooled_gaussian_hmm(const std::vector<Eigen::MatrixXd>& sequences, const HmmFitOptions& options,
                               unsigned threads) {
  check_options(options);
  const detail::StackedRows data = detail::stack_rows(sequences, "sequence");
  const Eigen::MatrixXd& x = data.x;
  const long n = static_cast<long>(x.rows()), dim = static_cast<long>(x.cols());
  const long states = options.states
                          ? *options.states
                          : hmm_auto_states(gaussian_parameters(dim, options.covariance), n, options.param_ratio);
  const double ridge = options.ridge ? *options.ridge : detail::default_ridge(x);
  if (options.prior) check_covariance_prior(*options.prior, options.covariance, dim);
  const CovariancePrior* prior = options.prior ? &*options.prior : nullptr;
  std::seed_seq seed{options.seed, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(dim),
                     detail::fingerprint(x.data(), static_cast<std::size_t>(x.size()))};
  // Each restart's emissions: the n x M responsibilities, and M means, covariances and their factors.
  const double emission_values = static_cast<double>(states) * static_cast<double>(n + dim + 2 * dim * dim);
  return best_of_restarts(states, data.bounds, emission_values, seed, options, threads,
                          [&](std::mt19937_64& rng) -> std::unique_ptr<Emissions> {
                            return std::make_unique<GaussianEmissions>(
                                x, detail::seed_gaussians(x, states, options.covariance, ridge, rng), ridge, prior);
                          });
}

std::vector<long> default_state_grid() { return {1, 2, 3, 4, 5, 6, 8, 10, 12, 16}; }

SizeChoice choose_pooled_states(const std::vector<Statistics>& examples, const HmmFitOptions& options,
                                const std::vector<long>& grid, unsigned threads) {
  check_options(options);
  if (examples.size() < 5)
    throw OptionError(
        "choosing {states} for a pooled HMM holds out every fifth sequence: it needs at least 5 "
        "sequences, got " +
        std::to_string(examples.size()) + "; give {states}");
  const bool gaussian = options.emissions == HmmEmissions::gaussian;
  std::vector<std::vector<long>> kept_symbols, held_symbols;
  std::vector<Eigen::MatrixXd> kept_vectors, held_vectors;
  for (std::size_t i = 0; i < examples.size(); ++i) {
    const bool held = i % 5 == 4;
    if (gaussian)
      (held ? held_vectors : kept_vectors).push_back(detail::data_of(examples[i]));
    else
      (held ? held_symbols : kept_symbols).push_back(detail::symbols_of(examples[i]));
  }
  HmmFitOptions cheaper = options;
  cheaper.iterations = std::min(options.iterations, 100L);
  SizeChoice choice;
  choice.grid = grid;
  for (long states : grid) {
    cheaper.states = states;
    double score = 0.0;
    if (gaussian) {
      const HmmFit fit = fit_pooled_gaussian_hmm(kept_vectors, cheaper, threads);
      const detail::StackedRows held = detail::stack_rows(held_vectors, "sequence");
      score = sequences_log_likelihood(
          *fit.model,
          GaussianEmissions(held.x, detail::gaussian_components(emission_models(*fit.model), "emission"), 0.0, nullptr),
          held.bounds, threads);
    } else {
      const long alphabet = examples[0].dim;
      const HmmFit fit = fit_pooled_discrete_hmm(kept_symbols, alphabet, cheaper, threads);
      const StackedSymbols held = stack_symbols(held_symbols, alphabet);
      score = sequences_log_likelihood(
          *fit.model,
          DiscreteEmissions(held.symbols, detail::one_event_emission_table(*fit.model, kDiscreteOnly), TablePrior{}),
          held.bounds, threads);
    }
    choice.held_out_log_likelihoods.push_back(score);
    if (choice.held_out_log_likelihoods.size() == 1 || score > choice.best_score) {
      choice.size = states;
      choice.best_score = score;
    }
  }
  return choice;
}

HmmFit adapt_hmm(const HmmModel& pooled, const std::vector<long>& sequence, const AdaptationOptions& options) {
  check_adaptation_options(options);
  check_adapted_parameters(options.adapt, "hmm with discrete emissions", {"start", "transitions", "emissions"});
  const Eigen::MatrixXd emission_table = detail::one_event_emission_table(pooled, kDiscreteOnly);
  check_symbols(sequence, emission_table.cols(), "the sequence ");
  Chain chain = pooled_chain(pooled);
  DiscreteEmissions emissions(sequence, emission_table,
                              TablePrior::adapted(emission_table, options.relevance, options.adapt.emissions));
  const SequenceBounds bounds{0, static_cast<Eigen::Index>(sequence.size())};
  BaumWelchWorkspace workspace(chain.start.size(), bounds);
  std::vector<double> objectives =
      run_baum_welch(chain, emissions, adapted_chain_prior(pooled, options), adaptation_control(options), workspace);
  const long length = options.length ? *options.length : static_cast<long>(sequence.size()) - 1;
  return hmm_fit(chain, emissions, length, std::move(objectives));
}

HmmFit adapt_hmm(const HmmModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options) {
  check_adaptation_options(options);
  check_adapted_parameters(options.adapt, "hmm with gaussian emissions",
                           {"start", "transitions", "means", "covariances"});
  const detail::GaussianComponents gaussians =
      detail::gaussian_components(emission_models(pooled), "the pooled HMM's emission");
  check_vectors(x, "the sequence ");
  if (x.cols() != static_cast<Eigen::Index>(gaussians.means[0].size()))
    throw EstimationError("the sequence's vectors have " + std::to_string(x.cols()) +
                          " coordinates, the pooled HMM's emissions " + std::to_string(gaussians.means[0].size()));
  Chain chain = pooled_chain(pooled);
  const detail::GaussianAdaptation adaptation{&gaussians, options.relevance, options.adapt.means,
                                              options.adapt.covariances};
  GaussianEmissions emissions(x, adaptation, options.ridge.value_or(0.0));
  const SequenceBounds bounds{0, x.rows()};
  BaumWelchWorkspace workspace(chain.start.size(), bounds);
  std::vector<double> objectives =
      run_baum_welch(chain, emissions, adapted_chain_prior(pooled, options), adaptation_control(options), workspace);
  const long length = options.length ? *options.length : static_cast<long>(x.rows()) - 1;
  return hmm_fit(chain, emissions, length, std::move(objectives));
}

std::unique_ptr<Estimator> hmm_estimator(const HmmFitOptions& options) { return std::make_unique<HmmEstimator>(options); }

}  // namespace ppk
