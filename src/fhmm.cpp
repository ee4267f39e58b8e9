// Factorial HMMs and their structured mean-field kernel bound (see fhmm.hpp).
//
// The bound (JMLR 2004 section 6). With Y(X, q, q') = p(X, q) p'(X, q'), for any distribution Q over
// (X, q, q') Jensen's inequality gives
//     log k~ = log sum_{q, q'} integral Q (Y^rho / Q) >= rho E_Q[log Y] + H(Q) = log B(Q).
// Structured mean field (JMLR 2004 section 6.1, figure 5c): Q = prod_t Q(x_t) prod_c Q_c(q^c)
// prod_c Q'_c(q'^c), each Q_c a distribution over the whole path q^c = (q_0^c..q_T^c) of chain c.
// Maximising log B over one factor with the others fixed gives Q_n ∝ exp(rho E_{Q without n}[log Y])
// (JMLR 2004, the update before figure 5), so each step below never decreases B.
//
// The terms of log Y, for this model (additive means mu(q_t) = sum_c W_c[:, q_t^c], shared Sigma,
// P = Sigma^-1; the JMLR text writes its updates for one mean and covariance per state, a different
// parameterisation):
//     log p(X, q) = sum_c [log pi_c(q_0^c) + sum_{t>=1} log A_c(q_{t-1}^c, q_t^c)]
//                   + sum_t [-d/2 log 2pi - 1/2 log|Sigma| - 1/2 (x_t - mu(q_t))' P (x_t - mu(q_t))].
//
// Update of Q(x_t). As a function of x_t, rho E[log Y] = -rho/2 (x_t - Emu_t)' P (x_t - Emu_t)
// - rho/2 (x_t - Emu'_t)' P' (x_t - Emu'_t) + const, Emu_t = sum_c W_c gamma_t^c the expected mean
// (gamma_t^c the marginal of q_t^c under Q_c), so Q(x_t) = N(m_t, V) with
//     V = (rho (P + P'))^-1 (the same for every t),   m_t = (P + P')^-1 (P Emu_t + P' Emu'_t).
//
// Update of Q_c. Under Q the chains are independent of each other and of X, so with w_k = W_c[:, k]
// and the residual r_t = m_t - sum_{c' != c} W_c' gamma_t^c' (what the other chains leave of m_t),
//     E[(x_t - mu(q_t))' P (x_t - mu(q_t)) | q_t^c = k] = w_k' P w_k - 2 w_k' P r_t + (terms free of k),
// so Q_c(q^c) ∝ pi_c(q_0)^rho prod_{t>=1} A_c(q_{t-1}, q_t)^rho prod_t exp(rho h_t(q_t)),
//     h_t(k) = w_k' P r_t - 1/2 w_k' P w_k:
// an HMM-shaped distribution with potentials pi^rho, A^rho (elementwise powers, not normalised) and
// exp(rho h_t). Its marginals gamma_t and pairwise marginals xi_t(i, j) = Q(q_{t-1} = i, q_t = j)
// come from forward-backward in log space.
//
// Evaluating log B from the marginals (not from the updates' normalisers):
//     rho E_Q[log pi_c + sum log A_c] = rho [sum_k gamma_0(k) log pi(k) + sum_{t>=1} sum_{ij} xi_t(i,j) log A(i,j)],
//     H(Q_c) = -sum_k gamma_0(k) log gamma_0(k) - sum_{t>=1} sum_{ij} xi_t(i,j) log(xi_t(i,j) / gamma_{t-1}(i)),
//     E_Q[(x_t - mu(q_t))' P (x_t - mu(q_t))] = tr(P V) + (m_t - Emu_t)' P (m_t - Emu_t)
//                                            + sum_c [sum_k gamma_t^c(k) w_k' P w_k - Emu_t^c' P Emu_t^c],
//        Emu_t^c = W_c gamma_t^c (the chains are independent, so their covariances add),
//     H(Q(x_t)) = d/2 log(2 pi e) + 1/2 log|V|.
// The trace terms of p and p' add up to rho tr((P + P') V) = d, which cancels the d/2 of the entropy:
//     log B = sum over the chains of both models of [rho E log(prior) + H(Q_c)]
//             + rho sum_t [-d/2 log 2pi - 1/2 log|Sigma| - 1/2 (the quadratic and chain-variance terms)] (p and p')
//             + (T + 1) [d/2 log 2pi - d/2 log rho - 1/2 log|P + P'|].
// With one chain of one state per model this is JMLR 2004 eq. 5 (the bound is exact for Gaussians).
//
// Iteration: Q_c starts as the chain's own prior raised to rho (h = 0), deterministic; then Q(x),
// and sweeps of (each chain of p and of p' in chain order, then Q(x)) until a sweep gains less than
// 1e-10 of max(1, |log B|), at most 1000 sweeps. The chain-c updates of p and p' depend only on m and
// their own model, and every expression treats p and p' alike, so swapping the models gives the
// same iterations: the bound is symmetric up to rounding.
#include "ppk/fhmm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <nlohmann/json.hpp>

#include "matrix_fields.hpp"
#include "model_fields.hpp"
#include "ppk/row.hpp"

namespace ppk {

using detail::FieldError;
using detail::format_number;
using detail::json_matrix;
using detail::json_rows;
using detail::write_lower_triangle;

namespace {

const char* const kFamily = "fhmm";
constexpr long kMaxChains = 1000;
constexpr long kMaxStates = 10000;       // M_c^2 transitions must fit in a row
constexpr long kMaxDim = 1000;           // d(d+1)/2 covariance entries must fit in a row
constexpr long kMaxLength = 1000000;  // 10^6: the mean field keeps every step's marginals, O(T (sum_c M_c + d)) memory
constexpr double kRelativeTolerance = 1e-10;  // a sweep gaining less than this (relative) ends the ascent
constexpr int kMaxSweeps = 1000;
constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);

// How errors address chain c: `fhmm chains[1] field "trans"[0][1]` (JSON) or `... (index 17)` (rows).
std::string chain_family(std::size_t c) { return std::string(kFamily) + " chains[" + std::to_string(c) + "]"; }

// log of each entry; log 0 = -inf marks an impossible start or transition.
Eigen::MatrixXd log_entries(const Eigen::MatrixXd& probabilities) { return probabilities.array().log().matrix(); }

// exp of each entry by std::exp, so that exp(-inf) is exactly 0 (Eigen's vectorised exp clamps its
// argument and returns about 1e-308 there, which would turn an impossible state into a possible one).
template <class Array>
Eigen::ArrayXXd exact_exp(const Array& a) {
  return a.unaryExpr([](double v) { return std::exp(v); });
}

// log sum_i exp(v_i); -inf when every v_i is -inf.
double log_sum_exp(const Eigen::ArrayXd& v) { return detail::log_sum_exp(v.data(), static_cast<std::size_t>(v.size())); }

// x log x summed where x > 0 is skipped otherwise: 0 log 0 = 0, and 0 (-inf) = 0 for impossible events.
double weighted_sum(double weight, double log_value) { return weight > 0.0 ? weight * log_value : 0.0; }

// What a chain contributes to the mean field, independent of rho (from the constructor).
struct ChainTerms {
  Eigen::VectorXd log_start;        // log pi_c
  Eigen::MatrixXd log_trans;        // log A_c
  Eigen::MatrixXd precision_means;  // P W_c (d x M_c)
  Eigen::VectorXd mean_norms;       // w_k' P w_k
};

// The model's parameters and what the mean field needs of them.
struct Fhmm {
  std::vector<FhmmChain> chains;
  Eigen::MatrixXd cov;
  long length = 0;
  // Independent of rho, from the constructor:
  Eigen::MatrixXd precision;  // P = Sigma^-1
  double log_det_cov = 0.0;   // log|Sigma|
  std::vector<ChainTerms> terms;
  // Set by prepare():
  double rho = 0.0;
  long steps = -1;  // the T of the kernel
};

}  // namespace

struct FhmmModel::Impl : Fhmm {};

FhmmModel::FhmmModel(std::vector<FhmmChain> chains, Eigen::MatrixXd cov, long length) : impl_(std::make_unique<Impl>()) {
  if (chains.empty() || static_cast<long>(chains.size()) > kMaxChains)
    throw detail::field_error(kFamily, "chains", "1 to " + std::to_string(kMaxChains) + " chains",
                              std::to_string(chains.size()));
  if (length < 0 || length > kMaxLength)
    throw detail::field_error(kFamily, "length", detail::whole_numbers(0, kMaxLength), std::to_string(length));
  const Eigen::Index d = cov.rows();
  if (d < 1 || d > kMaxDim || cov.cols() != d)
    throw detail::field_error(kFamily, "cov",
                              "a square d x d matrix, d in [1, " + std::to_string(kMaxDim) + "] (the observation dimension)",
                              std::to_string(cov.rows()) + " x " + std::to_string(cov.cols()));
  detail::check_symmetric(kFamily, "cov", cov);
  Impl& m = *impl_;
  m.cov = 0.5 * (cov + cov.transpose());
  const Eigen::LLT<Eigen::MatrixXd> llt(m.cov);
  if (llt.info() != Eigen::Success || !(llt.matrixLLT().diagonal().array() > 0.0).all())
    throw detail::field_error(kFamily, "cov", "a positive definite matrix (its Cholesky factorisation failed)");
  m.precision = llt.solve(Eigen::MatrixXd::Identity(d, d));
  m.precision = 0.5 * (m.precision + m.precision.transpose());
  m.log_det_cov = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  for (std::size_t c = 0; c < chains.size(); ++c) {
    FhmmChain& chain = chains[c];
    const Eigen::Index states = chain.start.size();
    if (states < 1 || states > kMaxStates)
      throw FieldError(chain_family(c), "start", -1, "", "1 to " + std::to_string(kMaxStates) + " probabilities",
                       std::to_string(states) + " values");
    if (chain.trans.rows() != states || chain.trans.cols() != states)
      throw FieldError(chain_family(c), "trans", -1, "",
                       "a " + std::to_string(states) + " x " + std::to_string(states) + " matrix (one row per state of \"start\")",
                       std::to_string(chain.trans.rows()) + " x " + std::to_string(chain.trans.cols()));
    if (chain.means.rows() != d || chain.means.cols() != states)
      throw FieldError(chain_family(c), "means", -1, "",
                       std::to_string(states) + " mean vectors (one per state) of dimension " + std::to_string(d) +
                           " (the size of \"cov\")",
                       std::to_string(chain.means.cols()) + " of dimension " + std::to_string(chain.means.rows()));
    detail::normalise_probabilities(chain_family(c), "start", chain.start, -1, 0);
    for (Eigen::Index p = 0; p < states; ++p)
      detail::normalise_probabilities(chain_family(c), "trans", chain.trans.row(p), static_cast<long>(p),
                                      static_cast<long>(p * states));
    for (Eigen::Index k = 0; k < states; ++k)
      for (Eigen::Index i = 0; i < d; ++i)
        if (!std::isfinite(chain.means(i, k)))
          throw FieldError(chain_family(c), "means", static_cast<long>(k * d + i),
                           "[" + std::to_string(k) + "][" + std::to_string(i) + "]", "a finite number",
                           format_number(chain.means(i, k)));
    ChainTerms terms;
    terms.log_start = log_entries(chain.start);
    terms.log_trans = log_entries(chain.trans);
    terms.precision_means = m.precision * chain.means;
    terms.mean_norms = chain.means.cwiseProduct(terms.precision_means).colwise().sum().transpose();
    m.terms.push_back(std::move(terms));
  }
  m.chains = std::move(chains);
  m.length = length;
}

FhmmModel::~FhmmModel() = default;

const std::vector<FhmmChain>& FhmmModel::chains() const { return impl_->chains; }
const Eigen::MatrixXd& FhmmModel::cov() const { return impl_->cov; }
long FhmmModel::dim() const { return static_cast<long>(impl_->cov.rows()); }
long FhmmModel::length() const { return impl_->length; }
long FhmmModel::steps() const { return impl_->steps >= 0 ? impl_->steps : impl_->length; }

const FamilyInfo& FhmmModel::family() const { return fhmm_family(); }

// x_0..x_T, T + 1 real d-vectors. A kind of its own (as for LDSs): no kernel with HMM rows is written.
SampleSpace FhmmModel::sample_space() const {
  return {"factorial-HMM sequences of " + std::to_string(steps() + 1) + " real vectors", dim()};
}

void FhmmModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  if (params.length > kMaxLength)
    throw KernelDomainError(std::string(kFamily) + " kernel: -d " + std::to_string(params.length) +
                            " exceeds the longest sequence the mean field holds, T = " + std::to_string(kMaxLength));
  impl_->rho = params.rho;
  impl_->steps = params.length > 0 ? params.length : impl_->length;
}

namespace {

// Q_c: its marginals and the two terms of log B it contributes.
struct ChainPosterior {
  Eigen::MatrixXd marginals;      // gamma_t(k) = Q_c(q_t = k), M_c x (T + 1)
  double expected_log_prior = 0;  // E_Q[log pi(q_0) + sum_{t>=1} log A(q_{t-1}, q_t)]
  double entropy = 0;             // H(Q_c)
};

// Forward-backward in log space for Q_c(q) ∝ exp(rho log pi(q_0) + sum_{t>=1} rho log A(q_{t-1}, q_t)
// + sum_t node(q_t, t)), node = rho h (M x (T + 1)); then the marginals, E log(prior) and the
// entropy from the pairwise marginals (the file comment).
ChainPosterior chain_posterior(const Fhmm& model, std::size_t c, const Eigen::MatrixXd& node) {
  const auto& terms = model.terms[c];
  const Eigen::Index states = node.rows(), count = node.cols();
  const Eigen::ArrayXd log_start_power = model.rho * terms.log_start.array();
  const Eigen::ArrayXXd log_trans_power = model.rho * terms.log_trans.array();
  Eigen::ArrayXXd forward(states, count), backward(states, count);
  forward.col(0) = log_start_power + node.col(0).array();
  for (Eigen::Index t = 1; t < count; ++t)
    for (Eigen::Index j = 0; j < states; ++j)
      forward(j, t) = node(j, t) + log_sum_exp(forward.col(t - 1) + log_trans_power.col(j));
  backward.col(count - 1).setZero();
  for (Eigen::Index t = count - 2; t >= 0; --t) {
    const Eigen::ArrayXd next = node.col(t + 1).array() + backward.col(t + 1);
    for (Eigen::Index i = 0; i < states; ++i) backward(i, t) = log_sum_exp(log_trans_power.row(i).transpose() + next);
  }
  const double log_normaliser = log_sum_exp(forward.col(count - 1));
  const Eigen::ArrayXXd log_marginals = forward + backward - log_normaliser;
  ChainPosterior posterior;
  posterior.marginals = exact_exp(log_marginals).matrix();
  for (Eigen::Index k = 0; k < states; ++k) {
    const double g = posterior.marginals(k, 0);
    posterior.expected_log_prior += weighted_sum(g, terms.log_start[k]);
    posterior.entropy -= weighted_sum(g, log_marginals(k, 0));
  }
  for (Eigen::Index t = 1; t < count; ++t)
    for (Eigen::Index i = 0; i < states; ++i)
      for (Eigen::Index j = 0; j < states; ++j) {
        const double log_pair = forward(i, t - 1) + log_trans_power(i, j) + node(j, t) + backward(j, t) - log_normaliser;
        const double pair = std::exp(log_pair);  // xi_t(i, j)
        posterior.expected_log_prior += weighted_sum(pair, terms.log_trans(i, j));
        posterior.entropy -= weighted_sum(pair, log_pair - log_marginals(i, t - 1));
      }
  return posterior;
}

// One model's side of the mean field: its chains' posteriors and expected mean Emu (d x (T + 1)).
struct Side {
  const Fhmm* model;
  std::vector<ChainPosterior> chains;
  Eigen::MatrixXd expected_mean;

  void update_expected_mean() {
    expected_mean.setZero(model->cov.rows(), chains[0].marginals.cols());
    for (std::size_t c = 0; c < chains.size(); ++c) expected_mean.noalias() += model->chains[c].means * chains[c].marginals;
  }
  // Q_c ∝ the chain's prior to the power rho (h = 0): the deterministic start.
  void initialise(long steps) {
    for (std::size_t c = 0; c < model->chains.size(); ++c)
      chains.push_back(chain_posterior(*model, c, Eigen::MatrixXd::Zero(model->chains[c].start.size(), steps + 1)));
    update_expected_mean();
  }
  // The optimal Q_c given Q(x) (means x_means) and the other chains: node potentials rho h_t(k).
  void update_chain(std::size_t c, const Eigen::MatrixXd& x_means) {
    const auto& terms = model->terms[c];
    const Eigen::MatrixXd residual = x_means - expected_mean + model->chains[c].means * chains[c].marginals;  // r_t
    Eigen::MatrixXd node = terms.precision_means.transpose() * residual;  // w_k' P r_t
    node.colwise() -= 0.5 * terms.mean_norms;
    chains[c] = chain_posterior(*model, c, model->rho * node);
    update_expected_mean();
  }
  // This model's terms of log B (the file comment): the chains' rho E log(prior) + H, and
  // rho sum_t [-d/2 log 2pi - 1/2 log|Sigma| - 1/2 ((m_t - Emu_t)' P (m_t - Emu_t) + chain variances)].
  double log_bound_terms(const Eigen::MatrixXd& x_means) const {
    const Fhmm& m = *model;
    const double count = static_cast<double>(x_means.cols()), d = static_cast<double>(x_means.rows());
    double chain_terms = 0.0, quadratic = 0.0;
    for (std::size_t c = 0; c < chains.size(); ++c) {
      chain_terms += m.rho * chains[c].expected_log_prior + chains[c].entropy;
      const Eigen::MatrixXd chain_mean = m.chains[c].means * chains[c].marginals;  // Emu_t^c
      quadratic += (m.terms[c].mean_norms.transpose() * chains[c].marginals).sum() -
                   chain_mean.cwiseProduct(m.precision * chain_mean).sum();
    }
    const Eigen::MatrixXd deviation = x_means - expected_mean;
    quadratic += deviation.cwiseProduct(m.precision * deviation).sum();
    return chain_terms + m.rho * (count * (-0.5 * d * kLog2Pi - 0.5 * m.log_det_cov) - 0.5 * quadratic);
  }
};

MeanFieldTrace run_mean_field(const Fhmm& a, const Fhmm& b) {
  if (a.rho <= 0.0 || a.rho != b.rho || a.steps != b.steps || a.cov.rows() != b.cov.rows())
    detail::throw_unprepared_pair(kFamily);
  const double rho = a.rho, d = static_cast<double>(a.cov.rows()), count = static_cast<double>(a.steps + 1);
  const Eigen::LLT<Eigen::MatrixXd> precision_sum(a.precision + b.precision);  // P + P', positive definite
  const double log_det_precision_sum = 2.0 * precision_sum.matrixLLT().diagonal().array().log().sum();
  // The entropies of the Q(x_t) with the trace terms of both models (the file comment).
  const double shared = count * (0.5 * d * kLog2Pi - 0.5 * d * std::log(rho) - 0.5 * log_det_precision_sum);
  Side side_a{&a, {}, {}}, side_b{&b, {}, {}};
  side_a.initialise(a.steps);
  side_b.initialise(b.steps);
  Eigen::MatrixXd x_means;
  const auto update_x = [&] {
    x_means = precision_sum.solve(a.precision * side_a.expected_mean + b.precision * side_b.expected_mean);
  };
  const auto log_bound = [&] { return side_a.log_bound_terms(x_means) + side_b.log_bound_terms(x_means) + shared; };
  update_x();
  MeanFieldTrace trace;
  trace.log_bounds.push_back(log_bound());
  for (int sweep = 0; sweep < kMaxSweeps && !trace.converged; ++sweep) {
    for (std::size_t c = 0; c < std::max(side_a.chains.size(), side_b.chains.size()); ++c) {
      if (c < side_a.chains.size()) side_a.update_chain(c, x_means);
      if (c < side_b.chains.size()) side_b.update_chain(c, x_means);
    }
    update_x();
    const double previous = trace.log_bounds.back(), current = log_bound();
    trace.log_bounds.push_back(current);
    if (!std::isfinite(current)) break;  // not converged: the kernel reports the value
    trace.converged = current - previous < kRelativeTolerance * std::max(1.0, std::fabs(current));
  }
  return trace;
}

}  // namespace

MeanFieldTrace mean_field_trace(const FhmmModel& a, const FhmmModel& b) { return run_mean_field(*a.impl_, *b.impl_); }

double FhmmModel::log_kernel(const Model& other) const {
  return run_mean_field(*impl_, *static_cast<const FhmmModel&>(other).impl_).log_bounds.back();
}

// Row fields: C, d, T, M_1..M_C, each chain's start, trans and means, then Sigma (see fhmm.hpp).
void FhmmModel::encode_fields(RowWriter& out) const {
  const Impl& m = *impl_;
  out.real(static_cast<double>(m.chains.size()));
  out.real(static_cast<double>(dim()));
  out.real(static_cast<double>(m.length));
  for (const FhmmChain& chain : m.chains) out.real(static_cast<double>(chain.start.size()));
  for (const FhmmChain& chain : m.chains) {
    out.reals(chain.start.data(), chain.start.data() + chain.start.size());
    for (Eigen::Index p = 0; p < chain.trans.rows(); ++p)
      for (Eigen::Index q = 0; q < chain.trans.cols(); ++q) out.real(chain.trans(p, q));
    out.reals(chain.means.data(), chain.means.data() + chain.means.size());  // column-major: state by state
  }
  write_lower_triangle(out, m.cov);
}

void FhmmModel::to_json(nlohmann::json& out) const {
  const Impl& m = *impl_;
  out = nlohmann::json::object();
  out["family"] = kFamily;
  nlohmann::json chains = nlohmann::json::array();
  for (const FhmmChain& chain : m.chains)
    chains.push_back({{"start", std::vector<double>(chain.start.data(), chain.start.data() + chain.start.size())},
                      {"trans", json_rows(chain.trans)},
                      {"means", json_rows(chain.means.transpose())}});
  out["chains"] = std::move(chains);
  out["cov"] = json_rows(m.cov);
  out["length"] = m.length;
}

namespace {

// Where chain c's fields lie in a row.
struct ChainInRow {
  long start, trans, means, states;
};

std::unique_ptr<Model> decode_fhmm(RowReader& fields) {
  const long chain_count = fields.integer("chains", 1, kMaxChains);
  const long d = fields.integer("d", 1, kMaxDim);
  const long length_first = fields.next_index();
  const long length = fields.integer("length", 0, kMaxLength);
  std::vector<long> states;
  for (long c = 0; c < chain_count; ++c) states.push_back(fields.integer("states", 1, kMaxStates));
  std::vector<FhmmChain> chains;
  std::vector<ChainInRow> where;
  for (long c = 0; c < chain_count; ++c) {
    const long m = states[static_cast<std::size_t>(c)];
    ChainInRow at{fields.next_index(), 0, 0, m};
    const std::vector<double> start = fields.reals("start", static_cast<std::size_t>(m));
    at.trans = fields.next_index();
    const std::vector<double> trans = fields.reals("trans", static_cast<std::size_t>(m * m));
    at.means = fields.next_index();
    const std::vector<double> means = fields.reals("means", static_cast<std::size_t>(m * d));
    chains.push_back({Eigen::Map<const Eigen::VectorXd>(start.data(), m),
                      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(trans.data(), m, m),
                      Eigen::Map<const Eigen::MatrixXd>(means.data(), d, m)});
    where.push_back(at);
  }
  const long cov_first = fields.next_index(), cov_count = d * (d + 1) / 2;
  const std::vector<double> lower = fields.reals("cov", static_cast<std::size_t>(cov_count));
  Eigen::MatrixXd cov(d, d);
  for (long i = 0; i < d; ++i)
    for (long j = 0; j <= i; ++j) cov(i, j) = cov(j, i) = lower[detail::lower_triangle_offset(i, j)];
  try {
    return std::make_unique<FhmmModel>(std::move(chains), std::move(cov), length);
  } catch (const FieldError& error) {
    for (std::size_t c = 0; c < where.size(); ++c)
      if (error.family() == chain_family(c)) {
        const ChainInRow& at = where[c];
        throw detail::at_row(error, {{"start", at.start, at.states},
                                     {"trans", at.trans, at.states * at.states},
                                     {"means", at.means, at.states * d}});
      }
    throw detail::at_row(error, {{"length", length_first, 1}, {"cov", cov_first, cov_count}});
  }
}

std::unique_ptr<Model> fhmm_from_json(const nlohmann::json& object) {
  const detail::JsonFields fields(object, kFamily, {"chains", "cov", "length"});
  const nlohmann::json& array = fields.required("chains");
  if (!array.is_array() || array.empty() || static_cast<long>(array.size()) > kMaxChains)
    throw fields.invalid("chains", "an array of 1 to " + std::to_string(kMaxChains) + " chain objects");
  std::vector<FhmmChain> chains;
  for (std::size_t c = 0; c < array.size(); ++c) {
    const detail::JsonFields chain(array[c], chain_family(c), {"start", "trans", "means"});
    const std::vector<double> start = chain.reals("start");
    chains.push_back({Eigen::Map<const Eigen::VectorXd>(start.data(), static_cast<Eigen::Index>(start.size())),
                      json_matrix(chain, "trans"), json_matrix(chain, "means").transpose()});
  }
  const long length = fields.whole_number("length", 0, kMaxLength);
  return std::make_unique<FhmmModel>(std::move(chains), json_matrix(fields, "cov"), length);
}

}  // namespace

// ---- Sampling (fhmm.hpp): ancestral draws, and log p(x) by the forward algorithm over the product
// states, rho = 1 ----

namespace {

// prod_c M_c, counted only up to kMaxSampledProductStates + 1 (no overflow for many chains).
long capped_product_states(const std::vector<FhmmChain>& chains) {
  long count = 1;
  for (const FhmmChain& chain : chains) count = std::min(count * static_cast<long>(chain.start.size()), kMaxSampledProductStates + 1);
  return count;
}

// sum_i weights_i, i = 0..n-1, as partial sums (SampleGenerator::categorical).
std::vector<double> partial_sums(const double* weights, Eigen::Index n, Eigen::Index stride) {
  std::vector<double> sums(static_cast<std::size_t>(n));
  double total = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) sums[static_cast<std::size_t>(i)] = total += weights[i * stride];
  return sums;
}

}  // namespace

long FhmmModel::sample_size() const { return (steps() + 1) * dim(); }

double FhmmModel::log_tilted_normalizer(double rho) const {
  if (rho != 1.0)
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": Monte Carlo draws from a factorial HMM only at rho = 1 (p^rho / Z is not a factorial "
                            "HMM and Z has no closed form); got rho = " + format_number(rho));
  if (capped_product_states(impl_->chains) > kMaxSampledProductStates)
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": the Monte Carlo kernel evaluates p(x) by the forward algorithm over the product states "
                            "prod_c M_c, at most " + std::to_string(kMaxSampledProductStates) +
                            "; this model has more (rho = " + format_number(rho) + ")");
  return 0.0;
}

// Per sample, per step t: each chain's state (from pi_c at t = 0, else from its row of A_c), then
// the d normals of the emission noise, x_t = sum_c W_c[:, q_t^c] + L z (L L' = Sigma).
void FhmmModel::sample_tilted(double, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const Impl& m = *impl_;
  const Eigen::MatrixXd factor = Eigen::LLT<Eigen::MatrixXd>(m.cov).matrixL();
  std::vector<std::vector<double>> start_sums;
  std::vector<std::vector<std::vector<double>>> trans_sums;  // [chain][from state]
  for (const FhmmChain& chain : m.chains) {
    const Eigen::Index states = chain.start.size();
    start_sums.push_back(partial_sums(chain.start.data(), states, 1));
    trans_sums.emplace_back();
    for (Eigen::Index p = 0; p < states; ++p) trans_sums.back().push_back(partial_sums(&chain.trans(p, 0), states, states));
  }
  const Eigen::Index d = dim();
  std::vector<std::size_t> state(m.chains.size());
  Eigen::VectorXd x_t(d), noise(d);
  for (Eigen::Index k = 0; k < samples.cols(); ++k)
    for (long t = 0; t <= steps(); ++t) {
      x_t.setZero();
      for (std::size_t c = 0; c < m.chains.size(); ++c) {
        const std::vector<double>& sums = t == 0 ? start_sums[c] : trans_sums[c][state[c]];
        state[c] = generator.categorical(sums.data(), sums.size());
        x_t += m.chains[c].means.col(static_cast<Eigen::Index>(state[c]));
      }
      for (Eigen::Index i = 0; i < d; ++i) noise[i] = generator.normal();
      samples.col(k).segment(t * d, d) = x_t + factor * noise;
    }
}

// The scaled forward algorithm over the product states s = (k_0..k_{C-1}) (k_0 varying fastest,
// stride_c = M_0 .. M_{c-1}): alpha_0(s) = prod_c pi_c(k_c) N(x_0; mu_s, Sigma), alpha_t(s) =
// sum_r alpha_{t-1}(r) prod_c A_c(r_c, k_c) N(x_t; mu_s, Sigma) with mu_s = sum_c W_c[:, k_c]; the
// transition is applied one chain at a time (the chains are independent). Each step is normalised
// and its log scale added to log p(x); the emissions enter relative to their largest value among
// the states alpha can reach, so nothing underflows.
double FhmmModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Impl& m = *impl_;
  const long states = capped_product_states(m.chains);
  if (states > kMaxSampledProductStates) log_tilted_normalizer(1.0);  // throws the limit's KernelDomainError
  const Eigen::Index d = dim();
  const Eigen::LLT<Eigen::MatrixXd> llt(m.cov);
  std::vector<long> strides(m.chains.size());
  Eigen::MatrixXd state_means = Eigen::MatrixXd::Zero(d, states);  // mu_s
  Eigen::ArrayXd alpha = Eigen::ArrayXd::Ones(states), next(states), log_emission(states);
  long stride = 1;
  for (std::size_t c = 0; c < m.chains.size(); ++c) {
    const long chain_states = static_cast<long>(m.chains[c].start.size());
    strides[c] = stride;
    for (long s = 0; s < states; ++s) {
      const long k = (s / stride) % chain_states;
      state_means.col(s) += m.chains[c].means.col(k);
      alpha[s] *= m.chains[c].start[k];
    }
    stride *= chain_states;
  }
  llt.matrixL().solveInPlace(state_means);  // L^-1 mu_s: the quadratic form is |L^-1 x_t - L^-1 mu_s|^2
  const double log_constant = -0.5 * (static_cast<double>(d) * kLog2Pi + m.log_det_cov);
  double log_p = 0.0;
  Eigen::VectorXd whitened(d);
  for (long t = 0; t <= steps(); ++t) {
    if (t > 0)
      for (std::size_t c = 0; c < m.chains.size(); ++c) {
        const Eigen::MatrixXd& trans = m.chains[c].trans;
        const long chain_states = trans.rows();
        next.setZero();
        for (long s = 0; s < states; ++s) {
          if (alpha[s] == 0.0) continue;
          const long from = (s / strides[c]) % chain_states, base = s - from * strides[c];
          for (long to = 0; to < chain_states; ++to) next[base + to * strides[c]] += alpha[s] * trans(from, to);
        }
        alpha.swap(next);
      }
    whitened = llt.matrixL().solve(x.segment(t * d, d));
    double largest = kMinusInfinity;
    for (long s = 0; s < states; ++s) {
      log_emission[s] = log_constant - 0.5 * (whitened - state_means.col(s)).squaredNorm();
      if (alpha[s] > 0.0) largest = std::max(largest, log_emission[s]);
    }
    alpha *= (log_emission - largest).exp();
    const double total = alpha.sum();
    if (!(total > 0.0)) return kMinusInfinity;
    alpha /= total;
    log_p += largest + std::log(total);
  }
  return log_p;
}

const FamilyInfo& fhmm_family() {
  static const FamilyInfo info{kFamily, 15, &decode_fhmm, &fhmm_from_json};
  return info;
}

}  // namespace ppk
