// Fisher scores of pooled HMMs, Gaussian mixtures, LDSs and networks (formulas in fisher.hpp). The
// E-step is Baum-Welch's forward-backward (estimate_hmm.cpp), the mixture's responsibilities
// (gaussian_em.cpp), the LDS's Kalman filter and RTS smoother with their sufficient statistics
// (lds_em.hpp) or the network's expected counts (estimate_bayesnet.cpp) under the pooled parameters;
// the scores are then expected counts minus their expectations, the Gaussian blocks weighted sums of
// residuals, and the LDS's blocks expected complete-data gradients.
#include "ppk/estimate/fisher.hpp"

#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "estimate/gaussian_em.hpp"
#include "estimate/lds_em.hpp"
#include "ppk/core/family.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_bayesnet.hpp"
#include "ppk/estimate/estimate_lds.hpp"
#include "ppk/families/bayesnet.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/families/mixture.hpp"

namespace ppk {

namespace {

enum class ScoredModel { discrete_hmm, gaussian_hmm, gaussian_mixture, lds, bayesnet };

std::string indexed(const std::string& name, long i) { return name + "[" + std::to_string(i) + "]"; }

// The names block[i][j] of a matrix's entries, row by row; of its upper triangle (j >= i) only when
// `upper_triangle` (a symmetric matrix's free entries).
void name_entries(const std::string& block, long rows, long cols, bool upper_triangle, std::vector<std::string>& names) {
  for (long i = 0; i < rows; ++i)
    for (long k = upper_triangle ? i : 0; k < cols; ++k) names.push_back(indexed(indexed(block, i), k));
}

// The scores of the logits a of p = softmax(a) from the expected counts c: c_o - (sum c) p_o.
template <class Out>
void write_logit_scores(const Eigen::Ref<const Eigen::VectorXd>& counts, const Eigen::Ref<const Eigen::VectorXd>& p,
                        Out&& out) {
  out = counts - counts.sum() * p;
}

// The scores of the upper-triangle entries s_ij (i <= j) of a full covariance Sigma with precision P,
// from the expected scatter S about its mean and the expected count N: with
// G = (P S P - N P) / 2, G_ii for i = j and 2 G_ij for i < j, row by row, from index j; returns the
// next index.
Eigen::Index write_covariance_entry_scores(const Eigen::MatrixXd& precision, const Eigen::MatrixXd& scatter, double count,
                                           Eigen::VectorXd& out, Eigen::Index j) {
  const Eigen::MatrixXd gradient = 0.5 * (precision * scatter * precision - count * precision);
  for (Eigen::Index i = 0; i < gradient.rows(); ++i)
    for (Eigen::Index k = i; k < gradient.cols(); ++k) out(j++) = (i == k ? 1.0 : 2.0) * gradient(i, k);
  return j;
}

// The entries of a matrix row by row into out from index j; returns the next index.
Eigen::Index write_row_by_row(const Eigen::MatrixXd& m, Eigen::VectorXd& out, Eigen::Index j) {
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index k = 0; k < m.cols(); ++k) out(j++) = m(i, k);
  return j;
}

// S^-1 of a covariance S of the pooled LDS, EstimationError naming it and the block that needs it
// unless S is numerically positive definite.
Eigen::MatrixXd lds_precision(const Eigen::MatrixXd& covariance, const char* name, const char* block) {
  const Eigen::LLT<Eigen::MatrixXd> llt(covariance);
  if (llt.info() != Eigen::Success || !(llt.matrixLLT().diagonal().array() > 0.0).all())
    throw EstimationError(std::string("the pooled LDS's ") + name + " is not positive definite: the Fisher score of " +
                          block + " needs its inverse");
  return llt.solve(Eigen::MatrixXd::Identity(covariance.rows(), covariance.cols()));
}

}  // namespace

struct FisherScorer::Impl {
  ScoredModel kind = ScoredModel::discrete_hmm;
  // The selected blocks that apply to `kind`.
  bool start = false, transitions = false, emissions = false, weights = false, means = false, covariances = false;
  detail::MarkovChain chain;                // HMMs: pi, A
  Eigen::VectorXd mixture_weights;          // mixtures: w
  Eigen::MatrixXd emission_probabilities;   // discrete HMMs: E, M x O
  Eigen::MatrixXd log_emissions_by_symbol;  // discrete HMMs: log E', O x M (row o: log E_.o)
  detail::GaussianComponents gaussians;     // Gaussian states: their form, mu_q, dense Sigma_q
  std::unique_ptr<BayesNetModel> network;   // networks: a copy of the discrete nodes
  std::vector<Eigen::MatrixXd> precisions;  // Gaussian states: P_q = Sigma_q^-1
  std::unique_ptr<LdsModel> lds;            // LDSs: a copy of the pooled model
  // LDSs: cov0^-1, Q^-1 and R^-1, each when its block (start, transitions, emissions) is selected.
  Eigen::MatrixXd start_precision, state_noise_precision, observation_noise_precision;
  long dim = 0;  // O (discrete) or D (Gaussian; an LDS's d)
  std::vector<std::string> names;

  void read_gaussians(const std::vector<const Model*>& models, const std::string& what);
  void name_features();
  Eigen::Index write_gaussian_scores(const Eigen::MatrixXd& x, const Eigen::Ref<const Eigen::VectorXd>& weights,
                                     std::size_t q, Eigen::VectorXd& out, Eigen::Index j) const;
  Eigen::Index write_chain_scores(const detail::ChainPosteriors& posteriors, Eigen::VectorXd& out) const;
  Eigen::VectorXd lds_score(const Eigen::MatrixXd& x) const;
  void check_vectors(const Eigen::MatrixXd& x) const;
};

void FisherScorer::Impl::read_gaussians(const std::vector<const Model*>& models, const std::string& what) {
  gaussians = detail::gaussian_components(models, what);
  dim = static_cast<long>(gaussians.means.front().size());
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(dim, dim);
  for (const Eigen::MatrixXd& sigma : gaussians.covariances) precisions.push_back(sigma.llt().solve(identity));
}

void FisherScorer::Impl::name_features() {
  if (kind == ScoredModel::bayesnet) {
    for (std::size_t i = 0; i < network->size(); ++i)
      for (std::size_t e = 0; e < network->node(i).cpt.size(); ++e)
        names.push_back(indexed(indexed("cpts", static_cast<long>(i)), static_cast<long>(e)));
    return;
  }
  if (kind == ScoredModel::lds) {
    const long n = lds->state_dim(), d = lds->observation_dim();
    if (start) {
      for (long i = 0; i < n; ++i) names.push_back(indexed("mean0", i));
      name_entries("cov0", n, n, true, names);
    }
    if (transitions) {
      name_entries("A", n, n, false, names);
      name_entries("Q", n, n, true, names);
    }
    if (emissions) {
      name_entries("C", d, n, false, names);
      name_entries("R", d, d, true, names);
    }
    return;
  }
  const long states = kind == ScoredModel::gaussian_mixture ? static_cast<long>(mixture_weights.size())
                                                            : static_cast<long>(chain.start.size());
  if (start)
    for (long q = 0; q < states; ++q) names.push_back(indexed("start", q));
  if (transitions)
    for (long p = 0; p < states; ++p)
      for (long q = 0; q < states; ++q) names.push_back(indexed(indexed("transitions", p), q));
  if (weights)
    for (long m = 0; m < states; ++m) names.push_back(indexed("weights", m));
  for (long q = 0; q < states; ++q) {
    if (emissions)
      for (long o = 0; o < dim; ++o) names.push_back(indexed(indexed("emissions", q), o));
    if (means)
      for (long d = 0; d < dim; ++d) names.push_back(indexed(indexed("means", q), d));
    if (!covariances) continue;
    const std::string block = indexed("covariances", q);
    switch (gaussians.form) {
      case CovarianceForm::isotropic: names.push_back(block); break;
      case CovarianceForm::diagonal:
        for (long d = 0; d < dim; ++d) names.push_back(indexed(indexed(block, d), d));
        break;
      case CovarianceForm::full: name_entries(block, dim, dim, true, names); break;
    }
  }
}

FisherScorer::FisherScorer(const Model& pooled, const AdaptedParameters& parameters) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  if (const auto* hmm = dynamic_cast<const HmmModel*>(&pooled)) {
    m.chain.start = hmm->start();
    m.chain.transitions = hmm->transitions();
    std::vector<const Model*> states;
    for (std::size_t q = 0; q < hmm->states(); ++q) states.push_back(&hmm->emission(q));
    if (dynamic_cast<const GaussianModel*>(states.front()) != nullptr) {
      m.kind = ScoredModel::gaussian_hmm;
      m.read_gaussians(states, "the pooled HMM's emission");
      m.means = parameters.means;
      m.covariances = parameters.covariances;
      check_adapted_parameters(parameters, "hmm with gaussian emissions",
                               {"start", "transitions", "means", "covariances"});
    } else {
      m.kind = ScoredModel::discrete_hmm;
      m.emission_probabilities = detail::one_event_emission_table(
          *hmm, "Fisher scores need every emission a one-event multinomial or a Gaussian");
      m.log_emissions_by_symbol = m.emission_probabilities.transpose().array().log().matrix();
      m.dim = static_cast<long>(m.emission_probabilities.cols());
      m.emissions = parameters.emissions;
      check_adapted_parameters(parameters, "hmm with discrete emissions", {"start", "transitions", "emissions"});
    }
    m.start = parameters.start;
    m.transitions = parameters.transitions;
  } else if (const auto* mixture = dynamic_cast<const MixtureModel*>(&pooled)) {
    m.kind = ScoredModel::gaussian_mixture;
    m.mixture_weights =
        Eigen::Map<const Eigen::VectorXd>(mixture->weights().data(), static_cast<Eigen::Index>(mixture->size()));
    std::vector<const Model*> components;
    for (std::size_t c = 0; c < mixture->size(); ++c) components.push_back(&mixture->component(c));
    m.read_gaussians(components, "the pooled mixture's component");
    m.weights = parameters.weights;
    m.means = parameters.means;
    m.covariances = parameters.covariances;
    check_adapted_parameters(parameters, "mixture", {"weights", "means", "covariances"});
  } else if (const auto* lds = dynamic_cast<const LdsModel*>(&pooled)) {
    m.kind = ScoredModel::lds;
    check_adapted_parameters(parameters, "lds", {"start", "transitions", "emissions"});
    m.lds = std::make_unique<LdsModel>(lds->parameters());
    m.start = parameters.start;
    m.transitions = parameters.transitions;
    m.emissions = parameters.emissions;
    m.dim = lds->observation_dim();
    if (m.start) m.start_precision = lds_precision(lds->cov0(), "cov0", "start (mean0, cov0)");
    if (m.transitions) m.state_noise_precision = lds_precision(lds->state_noise(), "Q", "transitions (A, Q)");
    if (m.emissions) m.observation_noise_precision = lds_precision(lds->observation_noise(), "R", "emissions (C, R)");
  } else if (const auto* network = dynamic_cast<const BayesNetModel*>(&pooled)) {
    m.kind = ScoredModel::bayesnet;
    std::vector<BayesNode> nodes;
    for (std::size_t i = 0; i < network->size(); ++i) {
      const BayesNode& from = network->node(i);
      if (from.states == 0)
        throw EstimationError("the pooled network's node " + std::to_string(i) +
                              " is an emission leaf: Fisher scores need every node discrete");
      BayesNode node;
      node.states = from.states;
      node.variable = from.variable;
      node.parents = from.parents;
      node.cpt = from.cpt;
      nodes.push_back(std::move(node));
    }
    m.network = std::make_unique<BayesNetModel>(std::move(nodes));
    check_adapted_parameters(parameters, "bayesnet", {"cpts"});
  } else {
    throw EstimationError("the pooled model is " + detail::with_article(pooled.family().name) +
                          " model: Fisher scores need an HMM, a mixture of Gaussians, an LDS or a network");
  }
  m.name_features();
}

FisherScorer::~FisherScorer() = default;
FisherScorer::FisherScorer(FisherScorer&&) noexcept = default;
FisherScorer& FisherScorer::operator=(FisherScorer&&) noexcept = default;

long FisherScorer::size() const { return static_cast<long>(impl_->names.size()); }

const std::vector<std::string>& FisherScorer::feature_names() const { return impl_->names; }

// Start and transition scores from gamma and the expected transition counts; returns the next index.
Eigen::Index FisherScorer::Impl::write_chain_scores(const detail::ChainPosteriors& posteriors,
                                                    Eigen::VectorXd& out) const {
  const Eigen::Index states = chain.start.size();
  Eigen::Index j = 0;
  if (start) {
    write_logit_scores(posteriors.states.row(0).transpose(), chain.start, out.segment(j, states));
    j += states;
  }
  if (transitions)
    for (Eigen::Index p = 0; p < states; ++p, j += states)
      write_logit_scores(posteriors.transition_counts.row(p).transpose(), chain.transitions.row(p).transpose(),
                         out.segment(j, states));
  return j;
}

// State (component) q's mean and covariance scores with gamma_t(q) = weights(t), from index j;
// returns the next index.
Eigen::Index FisherScorer::Impl::write_gaussian_scores(const Eigen::MatrixXd& x,
                                                       const Eigen::Ref<const Eigen::VectorXd>& weights, std::size_t q,
                                                       Eigen::VectorXd& out, Eigen::Index j) const {
  const Eigen::MatrixXd residuals = x.rowwise() - gaussians.means[q].transpose();  // e_t, n x D
  const Eigen::MatrixXd& precision = precisions[q];
  if (means) {
    out.segment(j, dim) = precision * (residuals.transpose() * weights);
    j += dim;
  }
  if (!covariances) return j;
  const double count = weights.sum();  // N_q
  const Eigen::MatrixXd& sigma = gaussians.covariances[q];
  switch (gaussians.form) {
    case CovarianceForm::isotropic: {
      const double trace_scatter = residuals.rowwise().squaredNorm().dot(weights);
      out(j++) = 0.5 * (trace_scatter / sigma(0, 0) - count * static_cast<double>(dim));
      break;
    }
    case CovarianceForm::diagonal: {
      const Eigen::VectorXd scatter_diagonal = residuals.array().square().matrix().transpose() * weights;
      out.segment(j, dim) = 0.5 * (scatter_diagonal.array() / sigma.diagonal().array() - count).matrix();
      j += dim;
      break;
    }
    case CovarianceForm::full:  // S_q = sum_t gamma_t(q) e_t e_t'
      j = write_covariance_entry_scores(precision, residuals.transpose() * weights.asDiagonal() * residuals, count, out,
                                        j);
      break;
  }
  return j;
}

// The LDS's score (fisher.hpp) from the smoother's moments of x's states (lds_em.hpp's sums).
Eigen::VectorXd FisherScorer::Impl::lds_score(const Eigen::MatrixXd& x) const {
  LdsPosterior posterior;
  try {
    posterior = smooth_lds(*lds, x);
  } catch (const OptionError&) {  // it suggests a ridge, which is the pooled fit's, not the scorer's
    throw EstimationError(
        "the pooled LDS's Kalman smoother failed on the sequence: a predicted state or innovation covariance is not "
        "numerically positive definite (cov0 and Q singular along it)");
  }
  const Eigen::Index n = lds->state_dim();
  Eigen::VectorXd out(static_cast<Eigen::Index>(names.size()));
  Eigen::Index j = 0;
  if (start) {
    // s_0 ~ N(mean0, cov0), one expected observation: the Gaussian's mean and full covariance scores
    // with e = E[s_0] - mean0 and S = Cov(s_0 | X) + e e'.
    const Eigen::VectorXd residual = posterior.means[0] - lds->mean0();
    out.segment(j, n) = start_precision * residual;
    j = write_covariance_entry_scores(start_precision, posterior.covariances[0] + residual * residual.transpose(), 1.0,
                                      out, j + n);
  }
  if (transitions) {
    const detail::TransitionSums sums =
        detail::transition_sums(posterior, std::vector<int>(static_cast<std::size_t>(x.rows()), 0), 0);
    const Eigen::MatrixXd& a = lds->transition();
    const Eigen::MatrixXd lag_residual = sums.lag - a * sums.previous;  // P1 - A P-
    j = write_row_by_row(state_noise_precision * lag_residual, out, j);
    // sum_t E[(s_t - A s_t-1)(s_t - A s_t-1)'] = P+ - A P1' - P1 A' + A P- A' = (P+ - A P1') - (P1 - A P-) A'.
    j = write_covariance_entry_scores(
        state_noise_precision, detail::symmetrised(sums.next - a * sums.lag.transpose() - lag_residual * a.transpose()),
        sums.steps, out, j);
  }
  if (emissions) {
    detail::ObservationSums sums;
    detail::add_observation_sums(x, posterior, sums);
    const Eigen::MatrixXd& c = lds->observation();
    const Eigen::MatrixXd cross_residual = sums.observed_states - c * sums.states;  // Sxs - C P
    j = write_row_by_row(observation_noise_precision * cross_residual, out, j);
    // sum_t E[(x_t - C s_t)(x_t - C s_t)'] = Sxx - C Sxs' - Sxs C' + C P C' = (Sxx - C Sxs') - (Sxs - C P) C'.
    write_covariance_entry_scores(
        observation_noise_precision,
        detail::symmetrised(sums.observations - c * sums.observed_states.transpose() - cross_residual * c.transpose()),
        sums.count, out, j);
  }
  return out / static_cast<double>(x.rows());
}

void FisherScorer::Impl::check_vectors(const Eigen::MatrixXd& x) const {
  if (kind == ScoredModel::discrete_hmm)
    throw EstimationError("the pooled HMM has discrete emissions: score a sequence of symbols, not vectors");
  if (kind == ScoredModel::bayesnet)
    throw EstimationError("the pooled model is a network: score its joint observations, not vectors");
  const char* example = kind == ScoredModel::gaussian_mixture ? "set" : "sequence";
  if (x.rows() < 1) throw EstimationError(std::string("the ") + example + " is empty");
  if (kind == ScoredModel::lds && x.rows() < 2)
    throw EstimationError(
        "the sequence has 1 vector; an LDS's Fisher score, like its fit, needs at least 2 (one transition)");
  if (x.cols() != dim)
    throw EstimationError(std::string("the ") + example + "'s vectors have dimension " + std::to_string(x.cols()) +
                          " where the pooled model's have " + std::to_string(dim));
  for (Eigen::Index t = 0; t < x.rows(); ++t)
    for (Eigen::Index d = 0; d < x.cols(); ++d)
      if (!std::isfinite(x(t, d)))
        throw EstimationError("vector " + std::to_string(t + 1) + " of the " + example + " has the value " +
                              detail::short_number(x(t, d)) + " at index " + std::to_string(d + 1) +
                              ": the values must be finite");
}

namespace {

// A log-likelihood that is not finite: the example has probability 0 under the pooled model.
void check_probability(double log_likelihood, const char* example) {
  if (!std::isfinite(log_likelihood))
    throw EstimationError(std::string("the ") + example +
                          " has probability 0 under the pooled model: its Fisher score is not defined");
}

}  // namespace

Eigen::VectorXd FisherScorer::score(const std::vector<long>& sequence) const {
  const Impl& m = *impl_;
  if (m.kind != ScoredModel::discrete_hmm)
    throw EstimationError(std::string(m.kind == ScoredModel::gaussian_hmm ? "the pooled HMM has Gaussian emissions"
                                      : m.kind == ScoredModel::gaussian_mixture
                                          ? "the pooled mixture has Gaussian components"
                                      : m.kind == ScoredModel::lds ? "the pooled model is an LDS"
                                                                   : "the pooled model is a network") +
                          ": score the rows of a matrix, not a sequence of symbols");
  if (sequence.empty()) throw EstimationError("the sequence is empty");
  const Eigen::Index n = static_cast<Eigen::Index>(sequence.size()), states = m.chain.start.size();
  Eigen::MatrixXd log_emissions(n, states);  // log E_q,x_t
  for (Eigen::Index t = 0; t < n; ++t) {
    const long symbol = sequence[static_cast<std::size_t>(t)];
    if (symbol < 0 || symbol >= m.dim)
      throw EstimationError("symbol " + std::to_string(symbol) + " at position " + std::to_string(t + 1) +
                            " is outside the pooled HMM's alphabet 0.." + std::to_string(m.dim - 1));
    log_emissions.row(t) = m.log_emissions_by_symbol.row(symbol);
    if (!std::isfinite(log_emissions.row(t).maxCoeff()))
      throw EstimationError("symbol " + std::to_string(symbol) + " at position " + std::to_string(t + 1) +
                            " has probability 0 in every state of the pooled HMM: its Fisher score is not defined");
  }
  const detail::ChainPosteriors posteriors = detail::forward_backward(m.chain, log_emissions);
  check_probability(posteriors.log_likelihood, "sequence");
  Eigen::VectorXd out(size());
  Eigen::Index j = m.write_chain_scores(posteriors, out);
  if (m.emissions) {
    // c_qo = sum_{t: x_t = o} gamma_t(q), M x O: each step adds gamma_t to the column of its symbol.
    Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(states, m.dim);
    for (Eigen::Index t = 0; t < n; ++t)
      counts.col(sequence[static_cast<std::size_t>(t)]) += posteriors.states.row(t).transpose();
    for (Eigen::Index q = 0; q < states; ++q, j += m.dim)
      write_logit_scores(counts.row(q).transpose(), m.emission_probabilities.row(q).transpose(), out.segment(j, m.dim));
  }
  return out / static_cast<double>(n);
}

Eigen::VectorXd FisherScorer::score(const Eigen::MatrixXd& x) const {
  const Impl& m = *impl_;
  m.check_vectors(x);
  if (m.kind == ScoredModel::lds) return m.lds_score(x);
  Eigen::VectorXd out(size());
  Eigen::Index j = 0;
  Eigen::MatrixXd responsibilities;  // gamma_t(q) or r_t(m), n x M
  if (m.kind == ScoredModel::gaussian_hmm) {
    detail::ChainPosteriors posteriors = detail::forward_backward(m.chain, detail::log_densities(x, m.gaussians));
    check_probability(posteriors.log_likelihood, "sequence");
    j = m.write_chain_scores(posteriors, out);
    responsibilities = std::move(posteriors.states);
  } else {
    detail::MixtureEStep step = detail::mixture_e_step(x, m.mixture_weights, m.gaussians);
    check_probability(step.log_rows.sum(), "set");
    if (m.weights) {
      write_logit_scores(step.responsibilities.colwise().sum().transpose(), m.mixture_weights,
                         out.segment(j, m.mixture_weights.size()));
      j += m.mixture_weights.size();
    }
    responsibilities = std::move(step.responsibilities);
  }
  for (std::size_t q = 0; q < m.gaussians.means.size(); ++q)
    j = m.write_gaussian_scores(x, responsibilities.col(static_cast<Eigen::Index>(q)), q, out, j);
  return out / static_cast<double>(x.rows());
}

Eigen::VectorXd FisherScorer::score(const std::vector<std::vector<long>>& observations) const {
  if (impl_->kind != ScoredModel::bayesnet)
    throw EstimationError("the pooled model is not a network: score its sequences or vectors");
  const BayesNetExpectedCounts expected = bayesnet_expected_counts(*impl_->network, observations);
  return score(expected.counts, static_cast<double>(observations.size()));
}

Eigen::VectorXd FisherScorer::score(const std::vector<Eigen::VectorXd>& expected_counts, double observations) const {
  const Impl& m = *impl_;
  if (m.kind != ScoredModel::bayesnet)
    throw EstimationError("the pooled model is not a network: score its sequences or vectors");
  if (!(observations > 0)) throw EstimationError("there are no observations");
  if (expected_counts.size() != m.network->size())
    throw EstimationError("the counts are of " + std::to_string(expected_counts.size()) +
                          " nodes, the pooled network has " + std::to_string(m.network->size()));
  Eigen::VectorXd out(size());
  Eigen::Index j = 0;
  for (std::size_t i = 0; i < m.network->size(); ++i) {
    const BayesNode& node = m.network->node(i);
    const Eigen::Index entries = static_cast<Eigen::Index>(node.cpt.size());
    if (expected_counts[i].size() != entries)
      throw EstimationError("node " + std::to_string(i) + "'s counts have " + std::to_string(expected_counts[i].size()) +
                            " entries, its CPT " + std::to_string(entries));
    const Eigen::Map<const Eigen::VectorXd> cpt(node.cpt.data(), entries);
    for (Eigen::Index row = 0; row < entries; row += node.states)
      write_logit_scores(expected_counts[i].segment(row, node.states), cpt.segment(row, node.states),
                         out.segment(j + row, node.states));
    j += entries;
  }
  return out / observations;
}

FisherScaling::FisherScaling(Eigen::VectorXd information_diagonal)
    : information_diagonal_(std::move(information_diagonal)) {
  for (Eigen::Index j = 0; j < information_diagonal_.size(); ++j)
    if (!std::isfinite(information_diagonal_(j)) || information_diagonal_(j) < 0.0)
      throw EstimationError("the Fisher information's diagonal entry " + std::to_string(j + 1) + " is " +
                            detail::short_number(information_diagonal_(j)) + ": it must be finite and >= 0");
}

FisherScaling FisherScaling::from_training_scores(const std::vector<Eigen::VectorXd>& scores) {
  if (scores.empty()) throw EstimationError("no training scores to estimate the Fisher information from");
  Eigen::VectorXd sum_of_squares = Eigen::VectorXd::Zero(scores.front().size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (scores[i].size() != sum_of_squares.size())
      throw EstimationError("training score " + std::to_string(i + 1) + " has " + std::to_string(scores[i].size()) +
                            " features where the first has " + std::to_string(sum_of_squares.size()));
    if (!scores[i].allFinite())
      throw EstimationError("training score " + std::to_string(i + 1) + " has a value that is not finite");
    sum_of_squares += scores[i].cwiseAbs2();
  }
  return FisherScaling(sum_of_squares / static_cast<double>(scores.size()));
}

Eigen::VectorXd FisherScaling::features(const Eigen::VectorXd& score) const {
  if (score.size() != information_diagonal_.size())
    throw EstimationError("the score has " + std::to_string(score.size()) + " features where the Fisher scaling has " +
                          std::to_string(information_diagonal_.size()));
  Eigen::VectorXd phi(score.size());
  for (Eigen::Index j = 0; j < score.size(); ++j)
    phi(j) = information_diagonal_(j) > 0.0 ? score(j) / std::sqrt(information_diagonal_(j)) : 0.0;
  return phi;
}

}  // namespace ppk
