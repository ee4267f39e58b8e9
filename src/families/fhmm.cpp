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
// exp(rho h_t). Its marginals gamma_t and normaliser Z_c come from forward-backward (in linear space
// rescaled by exact powers of two; in log space where that underflows).
//
// Evaluating log B. Since log Q_c(q) = rho log(prior(q)) + sum_t rho h_t(q_t) - log Z_c,
//     rho E_Q[log pi_c + sum log A_c] + H(Q_c) = log Z_c - sum_t sum_k gamma_t(k) rho h_t(k),
// taken when Q_c is set (no pairwise marginals needed); then
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
//
// No kernel at every T from one pass (Model::log_kernel_over_lengths stays false): Q is optimised over the
// whole sequence, and each Q_c's marginals gamma_t come from forward-backward over t = 0..T, so the
// backward messages from the steps after a smaller T' change the fixed point's factors at t <= T' (and
// the sweeps to convergence depend on T). The terms of the converged log B at T summed to step T' are
// then not log B at T': each T is its own mean-field run.
#include "ppk/families/fhmm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"

namespace ppk {

using detail::FieldError;
using detail::format_number;

namespace {

const char* const kFamily = "fhmm";
constexpr long kMaxChains = 1000;
constexpr long kMaxStates = 10000;            // M_c^2 transitions must fit in a row
constexpr long kMaxDim = 1000;                // d(d+1)/2 covariance entries must fit in a row
constexpr long kMaxLength = kMaxFhmmLength;   // (fhmm.hpp)
constexpr double kRelativeTolerance = 1e-10;  // a sweep gaining less than this (relative) ends the ascent
constexpr int kMaxSweeps = 1000;
constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);
const double kLog2 = std::log(2.0);

// How errors address chain c: `fhmm chains[1] field "trans"[0][1]` (JSON) or `... (index 17)` (rows).
std::string chain_family(std::size_t c) { return detail::record_family(kFamily, "chains", static_cast<long>(c)); }

// log of each entry; log 0 = -inf marks an impossible start or transition.
Eigen::MatrixXd log_entries(const Eigen::MatrixXd& probabilities) { return probabilities.array().log().matrix(); }

// log sum_i exp(v_i) of an Eigen array expression; -inf when every v_i is -inf. The largest term
// contributes exp(0) = 1, so Eigen's exp(-inf) ~ 1e-308 for the others changes nothing.
template <class Array>
double log_sum_exp(const Array& v) {
  const double top = v.maxCoeff();
  return top == kMinusInfinity ? top : top + std::log((v - top).exp().sum());
}

// What a chain contributes to the mean field.
struct ChainTerms {
  // Independent of rho, from the constructor:
  Eigen::VectorXd log_start;      // log pi_c
  Eigen::MatrixXd log_trans;      // log A_c
  Eigen::MatrixXd mean_products;  // W_c' P W_c (M_c x M_c); its diagonal holds w_k' P w_k
  // Set by prepare():
  Eigen::VectorXd start_power;             // pi_c^rho (exactly 0 where pi_c is)
  Eigen::MatrixXd trans_power;             // A_c^rho elementwise (exactly 0 where A_c is)
  Eigen::MatrixXd trans_power_transposed;  // (A_c^rho)': its column i is row i of A_c^rho
  Eigen::MatrixXd node_weights;            // rho (P W_c)' (M_c x d): node(k, t) = rho w_k' P r_t + node_offsets(k)
  Eigen::VectorXd node_offsets;            // -rho/2 w_k' P w_k
};

// The model's parameters and what the mean field needs of them.
struct Fhmm {
  FhmmParameters parameters;  // as validated; never copied (the references below point into it)
  std::vector<FhmmChain>& chains = parameters.chains;
  Eigen::MatrixXd& cov = parameters.cov;
  long& length = parameters.length;
  // Independent of rho, from the constructor:
  Eigen::MatrixXd precision;  // P = Sigma^-1
  double log_det_cov = 0.0;   // log|Sigma|
  std::vector<ChainTerms> terms;
  long largest_chain = 0;  // max_c M_c
  // Set by prepare():
  double rho = 0.0;
  long steps = -1;                  // the T of the kernel
  double kernel_work = 0.0;         // kernel_work()
  double log_bound_constant = 0.0;  // rho (T + 1) (-d/2 log 2pi - 1/2 log|Sigma|)
};

}  // namespace

namespace {

// The sizes of the chains' fields: M_c (a row's M_1..M_C; unknown, -1, in JSON) and d.
struct ChainSizes {
  std::vector<detail::Dimension> states;
  detail::Dimension dim;
  detail::Dimension states_of(long c) const {
    return static_cast<std::size_t>(c) < states.size() ? states[static_cast<std::size_t>(c)]
                                                       : detail::Dimension{-1, 1, kMaxStates, "states"};
  }
};

}  // namespace

template <class Archive, class Sizes>
void FhmmChain::fields(Archive& archive, const Sizes& sizes, long c) {
  const detail::Dimension states = sizes.states_of(c);
  archive.reals("start", start, states);
  archive.matrix("trans", trans, states, states);
  archive.columns("means", means, sizes.dim, states);
}

// The row's C, d and T, then M_1..M_C, then the chains, then Sigma.
template <class Archive>
void FhmmParameters::fields(Archive& archive) {
  const auto count = archive.dimension("chains", static_cast<long>(chains.size()), 1, kMaxChains);
  ChainSizes sizes{{}, archive.dimension("d", static_cast<long>(cov.rows()), 1, kMaxDim)};
  archive.whole_number("length", length, 0, kMaxLength);
  for (long c = 0; c < count.value; ++c) {
    const long states =
        static_cast<std::size_t>(c) < chains.size() ? chains[static_cast<std::size_t>(c)].start.size() : 0;
    sizes.states.push_back(archive.dimension("states", states, 1, kMaxStates));
  }
  archive.records("chains", chains, count, "chain", sizes);
  archive.symmetric_matrix("cov", cov, sizes.dim);
}

struct FhmmModel::Impl : Fhmm {};

FhmmModel::FhmmModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  std::vector<FhmmChain>& chains = parameters.chains;
  const Eigen::MatrixXd& cov = parameters.cov;
  const long length = parameters.length;
  if (chains.empty() || static_cast<long>(chains.size()) > kMaxChains)
    throw detail::field_error(kFamily, "chains", "1 to " + std::to_string(kMaxChains) + " chains",
                              std::to_string(chains.size()));
  if (length < 0 || length > kMaxLength)
    throw detail::field_error(kFamily, "length", detail::whole_numbers(0, kMaxLength), std::to_string(length));
  const Eigen::Index d = cov.rows();
  if (d < 1 || d > kMaxDim || cov.cols() != d)
    throw detail::field_error(
        kFamily, "cov", "a square d x d matrix, d in [1, " + std::to_string(kMaxDim) + "] (the observation dimension)",
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
      throw FieldError(
          chain_family(c), "trans", -1, "",
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
    terms.mean_products = chain.means.transpose() * m.precision * chain.means;
    m.terms.push_back(std::move(terms));
    m.largest_chain = std::max(m.largest_chain, static_cast<long>(states));
  }
  m.chains = std::move(chains);
  m.length = length;
}

FhmmModel::~FhmmModel() = default;

const FhmmParameters& FhmmModel::parameters() const { return impl_->parameters; }
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
  Impl& m = *impl_;
  m.rho = params.rho;
  m.steps = params.length > 0 ? params.length : m.length;
  const double d = static_cast<double>(m.cov.rows()), count = static_cast<double>(m.steps + 1);
  // This row's share of run_mean_field's workspace: 3 d x d matrices, and per step 5 d + 4 max_c M_c + 1
  // scratch values and each chain's M_c marginals and d means.
  double per_step = 5.0 * d + 4.0 * static_cast<double>(m.largest_chain) + 1.0;
  for (const FhmmChain& chain : m.chains) per_step += static_cast<double>(chain.start.size()) + d;
  detail::check_kernel_storage(kFamily,
                               "T + 1 (" + std::to_string(m.steps + 1) + ", the field \"length\" or -d T) x " +
                                   detail::format_number(per_step) +
                                   " values per step of the mean field (fields \"d\", \"states\")",
                               3.0 * d * d + count * per_step);
  // The kernel's work: at most kMaxSweeps sweeps, each per step every chain's forward-backward and
  // potentials (M_c^2 + M_c d; a pair's sweep runs the chains of both rows, so this row's are its share)
  // and the update of Q(x_t) (d^2).
  double work_per_step = d * d;
  for (const FhmmChain& chain : m.chains) {
    const double states = static_cast<double>(chain.start.size());
    work_per_step += states * states + states * d;
  }
  m.kernel_work =
      detail::check_kernel_work(kFamily,
                                std::to_string(kMaxSweeps) + " sweeps x T + 1 (" + std::to_string(m.steps + 1) +
                                    ", the field \"length\" or -d T) x " + detail::format_number(work_per_step) +
                                    " per step (the sum over the chains of M_c^2 + M_c d, plus d^2)",
                                kMaxSweeps * count * work_per_step, "give a smaller -d T");
  m.log_bound_constant = m.rho * count * (-0.5 * d * kLog2Pi - 0.5 * m.log_det_cov);
  for (std::size_t c = 0; c < m.chains.size(); ++c) {
    ChainTerms& terms = m.terms[c];
    terms.start_power = detail::exp_entries(m.rho * terms.log_start.array()).matrix();
    terms.trans_power = detail::exp_entries(m.rho * terms.log_trans.array()).matrix();
    terms.trans_power_transposed = terms.trans_power.transpose();
    terms.node_weights = m.rho * (m.precision * m.chains[c].means).transpose();
    terms.node_offsets = -0.5 * m.rho * terms.mean_products.diagonal();
  }
}

namespace {

using MatrixMap = Eigen::Map<Eigen::MatrixXd>;

// out = left * right for the products of the mean field, whose inner dimension (d or M_c) is
// usually small against their T + 1 columns: there Eigen's coefficient-wise product beats its
// blocked one, which packs both operands first.
template <class Left, class Right>
void multiply(const Left& left, const Right& right, MatrixMap out) {
  constexpr Eigen::Index kLargestLazyInner = 16;
  if (left.cols() <= kLargestLazyInner)
    out.noalias() = left.lazyProduct(right);
  else
    out.noalias() = left * right;
}

// Q_c during one kernel evaluation: its marginals and what it contributes to log B.
struct ChainPosterior {
  double* marginals = nullptr;  // gamma_t(k) = Q_c(q_t = k), M_c x (T + 1)
  double* mean = nullptr;       // Emu_t^c = W_c gamma_t, d x (T + 1)
  double log_terms = 0.0;       // rho E_Q[log pi(q_0) + sum_{t>=1} log A(q_{t-1}, q_t)] + H(Q_c)
  double variance = 0.0;        // sum_t [sum_k gamma_t(k) w_k' P w_k - Emu_t^c' P Emu_t^c]
};

// Per-thread storage of one evaluation (kernels run from several threads at once), carved into
// matrices. It only grows, so evaluations after the first of the largest pair allocate nothing.
class Workspace {
 public:
  void reset(std::size_t values, std::size_t chains) {
    if (values_.size() < values) values_.resize(values);
    if (chains_.size() < chains) chains_.resize(chains);
    used_ = 0;
  }
  double* take(Eigen::Index rows, Eigen::Index cols) {
    double* start = values_.data() + used_;
    used_ += static_cast<std::size_t>(rows * cols);
    return start;
  }
  MatrixMap matrix(Eigen::Index rows, Eigen::Index cols) { return {take(rows, cols), rows, cols}; }
  ChainPosterior* chains() { return chains_.data(); }

 private:
  std::vector<double> values_;
  std::vector<ChainPosterior> chains_;
  std::size_t used_ = 0;
};

// The scratch space of one chain update: room for M x n matrices, M = the largest chain of the
// pair, n = T + 1 columns; chain c uses them as M_c x n.
struct ChainScratch {
  double* node;      // rho h_t(k)
  double* emission;  // exp(node(k, t) - max_k node(k, t))
  double* forward;   // alpha_t (the log forward messages in log_forward_backward)
  double* backward;  // beta_t (the log backward messages there)
  double* scales;    // n values: the column maxima of node, then the powers of two c_t
};

// A forward sum this far below the previous one has lost the states that matter to underflow.
constexpr double kSmallestScale = 1e-200;

// Forward-backward in log space for Q_c(q) ∝ exp(rho log pi(q_0) + sum_{t>=1} rho log A(q_{t-1}, q_t)
// + sum_t node(q_t, t)): the marginals into `marginals`; returns log Z. The fallback of
// scaled_forward_backward when an emission potential e^node underflows on every reachable state.
double log_forward_backward(const Fhmm& model, const ChainTerms& terms, const MatrixMap& node, ChainScratch& scratch,
                            MatrixMap& marginals) {
  const Eigen::Index states = node.rows(), count = node.cols();
  const double rho = model.rho;
  MatrixMap forward(scratch.forward, states, count), backward(scratch.backward, states, count);
  forward.col(0) = rho * terms.log_start + node.col(0);
  for (Eigen::Index t = 1; t < count; ++t)
    for (Eigen::Index j = 0; j < states; ++j)
      forward(j, t) = node(j, t) + log_sum_exp(forward.col(t - 1).array() + rho * terms.log_trans.col(j).array());
  backward.col(count - 1).setZero();
  for (Eigen::Index t = count - 2; t >= 0; --t)
    for (Eigen::Index i = 0; i < states; ++i)
      backward(i, t) = log_sum_exp(rho * terms.log_trans.row(i).transpose().array() + node.col(t + 1).array() +
                                   backward.col(t + 1).array());
  const double log_normaliser = log_sum_exp(forward.col(count - 1).array());
  marginals = detail::exp_entries(forward.array() + backward.array() - log_normaliser).matrix();
  return log_normaliser;
}

// The same distribution by forward-backward in linear space, rescaled by exact powers of two:
// with e_t = exp(node_t - max_k node_t(k)) and c_t = 1 unless the forward sum leaves [2^-128, 2^128],
// then the power of two that brings it back (exact, so no rounding),
//     alpha_0 = c_0 pi^rho .* e_0,  alpha_t = c_t (A^rho' alpha_{t-1}) .* e_t,
//     beta_T = 1,  beta_{t-1} = c_t A^rho (e_t .* beta_t),
//     gamma_t = alpha_t .* beta_t / sum(alpha_T),  log Z = log sum(alpha_T) - sum_t log c_t + sum_t max_k node_t(k)
// (alpha_t beta_t carries every c once, whatever t). Falls back to log_forward_backward when a step's
// forward sum drops below 1e-200 of the previous one (every state the chain can reach has a node
// potential hundreds of nats below an unreachable one) or a beta overflows.
double scaled_forward_backward(const Fhmm& model, const ChainTerms& terms, const MatrixMap& node, ChainScratch& scratch,
                               MatrixMap& marginals) {
  const Eigen::Index states = node.rows(), count = node.cols();
  MatrixMap emission(scratch.emission, states, count), forward(scratch.forward, states, count),
      backward(scratch.backward, states, count);
  Eigen::Map<Eigen::RowVectorXd> scales(scratch.scales, count);  // c_t
  scales = node.colwise().maxCoeff();
  double log_normaliser = scales.sum();
  emission = node;
  emission.rowwise() -= scales;
  emission = emission.array().exp().matrix();  // arguments finite and <= 0
  // Plain loops, each sum a dot product with a contiguous column of A^rho or of its transpose: the
  // chains are small, and Eigen's per-call overhead on M-vectors would dominate.
  const double* power = terms.trans_power.data();
  const double* power_transposed = terms.trans_power_transposed.data();
  double previous_sum = 1.0;
  int exponent = 0;  // sum_t log2 c_t
  for (Eigen::Index t = 0; t < count; ++t) {
    double* alpha = forward.col(t).data();
    const double* previous = alpha - states;
    const double* e = emission.col(t).data();
    double sum = 0.0;
    for (Eigen::Index j = 0; j < states; ++j) {
      double value = 0.0;  // (A^rho' alpha_{t-1})(j), or pi^rho(j) at t = 0
      if (t == 0)
        value = terms.start_power[j];
      else
        for (Eigen::Index i = 0; i < states; ++i) value += power[i + j * states] * previous[i];
      alpha[j] = value * e[j];
      sum += alpha[j];
    }
    if (!(sum >= kSmallestScale * previous_sum)) return log_forward_backward(model, terms, node, scratch, marginals);
    scales[t] = 1.0;
    if (!(sum >= 0x1p-128 && sum <= 0x1p128)) {
      int shift = 0;
      std::frexp(sum, &shift);
      scales[t] = std::ldexp(1.0, -shift);
      for (Eigen::Index j = 0; j < states; ++j) alpha[j] *= scales[t];
      sum *= scales[t];
      exponent -= shift;
    }
    previous_sum = sum;
  }
  log_normaliser += std::log(previous_sum) - exponent * kLog2;
  backward.col(count - 1).setOnes();
  for (Eigen::Index t = count - 1; t > 0; --t) {
    double* e = emission.col(t).data();  // e_t is not needed again
    const double* beta = backward.col(t).data();
    double* previous = backward.col(t - 1).data();
    for (Eigen::Index j = 0; j < states; ++j) e[j] *= beta[j] * scales[t];
    for (Eigen::Index i = 0; i < states; ++i) {
      double value = 0.0;
      for (Eigen::Index j = 0; j < states; ++j) value += power_transposed[j + i * states] * e[j];
      previous[i] = value;
    }
  }
  marginals = forward.cwiseProduct(backward) * (1.0 / previous_sum);
  if (!std::isfinite(marginals.sum())) return log_forward_backward(model, terms, node, scratch, marginals);
  return log_normaliser;
}

// One model's side of the mean field: its chains' posteriors and expected mean Emu (d x (T + 1)).
struct Side {
  const Fhmm* model;
  ChainPosterior* chains;
  MatrixMap expected_mean;

  Eigen::Index states(std::size_t c) const { return model->chains[c].start.size(); }
  MatrixMap marginals(std::size_t c) const { return {chains[c].marginals, states(c), expected_mean.cols()}; }
  MatrixMap chain_mean(std::size_t c) const { return {chains[c].mean, expected_mean.rows(), expected_mean.cols()}; }

  // The optimal Q_c given node potentials node = rho h (M_c x (T + 1)), and its terms of log B:
  // with log Q_c(q) = rho log(prior(q)) + sum_t node(q_t, t) - log Z,
  //     rho E log(prior) + H(Q_c) = log Z - sum_t sum_k gamma_t(k) node(k, t);
  // the chain's variance sum_t [gamma_t' diag(W'PW) - gamma_t' W'PW gamma_t].
  void set_chain(std::size_t c, const MatrixMap& node, ChainScratch& scratch) {
    const ChainTerms& terms = model->terms[c];
    MatrixMap gamma = marginals(c);
    const double log_normaliser = scaled_forward_backward(*model, terms, node, scratch, gamma);
    chains[c].log_terms = log_normaliser - node.cwiseProduct(gamma).sum();
    multiply(model->chains[c].means, gamma, chain_mean(c));
    MatrixMap products(scratch.emission, gamma.rows(), gamma.cols());
    multiply(terms.mean_products, gamma, products);
    chains[c].variance =
        (gamma.array().colwise() * terms.mean_products.diagonal().array()).sum() - products.cwiseProduct(gamma).sum();
  }
  void update_expected_mean() {
    expected_mean = chain_mean(0);
    for (std::size_t c = 1; c < model->chains.size(); ++c) expected_mean += chain_mean(c);
  }
  // Q_c ∝ the chain's prior to the power rho (node = 0): the deterministic start.
  void initialise(ChainScratch& scratch) {
    for (std::size_t c = 0; c < model->chains.size(); ++c) {
      MatrixMap node(scratch.node, states(c), expected_mean.cols());
      node.setZero();
      set_chain(c, node, scratch);
    }
    update_expected_mean();
  }
  // The optimal Q_c given Q(x) (means x_means, r_t = m_t - the other chains' expected means):
  // node(k, t) = rho (w_k' P r_t - 1/2 w_k' P w_k).
  void update_chain(std::size_t c, const MatrixMap& x_means, MatrixMap& residual, ChainScratch& scratch) {
    const ChainTerms& terms = model->terms[c];
    residual = x_means - expected_mean + chain_mean(c);
    MatrixMap node(scratch.node, states(c), x_means.cols());
    multiply(terms.node_weights, residual, node);
    node.colwise() += terms.node_offsets;
    set_chain(c, node, scratch);
    update_expected_mean();
  }
  // This model's terms of log B (the file comment): the chains' rho E log(prior) + H, and
  // rho sum_t [-d/2 log 2pi - 1/2 log|Sigma| - 1/2 ((m_t - Emu_t)' P (m_t - Emu_t) + chain variances)].
  double log_bound_terms(const MatrixMap& x_means, MatrixMap& deviation, MatrixMap& weighted) const {
    const Fhmm& m = *model;
    double chain_terms = 0.0, quadratic = 0.0;
    for (std::size_t c = 0; c < m.chains.size(); ++c) {
      chain_terms += chains[c].log_terms;
      quadratic += chains[c].variance;
    }
    deviation = x_means - expected_mean;
    multiply(m.precision, deviation, weighted);
    quadratic += deviation.cwiseProduct(weighted).sum();
    return chain_terms + m.log_bound_constant - 0.5 * m.rho * quadratic;
  }
};

struct MeanFieldResult {
  double log_bound = 0.0;
  bool converged = false;
};

// The coordinate ascent for the pair; each log B on the way is appended to `history` when given.
MeanFieldResult run_mean_field(const Fhmm& a, const Fhmm& b, std::vector<double>* history) {
  if (a.rho <= 0.0 || a.rho != b.rho || a.steps != b.steps || a.cov.rows() != b.cov.rows())
    detail::throw_unprepared_pair(kFamily);
  const Eigen::Index d = a.cov.rows(), count = a.steps + 1;
  const Eigen::Index states = std::max(a.largest_chain, b.largest_chain);
  std::size_t values = static_cast<std::size_t>(3 * d * d + count * (5 * d + 4 * states + 1));
  for (const Fhmm* m : {&a, &b})
    for (const FhmmChain& chain : m->chains) values += static_cast<std::size_t>(count * (chain.start.size() + d));
  thread_local Workspace workspace;
  workspace.reset(values, a.chains.size() + b.chains.size());

  // Q(x_t) = N(m_t, (rho (P + P'))^-1) with m_t = G Emu_t + G' Emu'_t, G = (P + P')^-1 P, G' = (P + P')^-1 P'.
  MatrixMap precision_sum = workspace.matrix(d, d), gain_a = workspace.matrix(d, d), gain_b = workspace.matrix(d, d);
  precision_sum = a.precision + b.precision;  // positive definite
  const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> factor(precision_sum);
  const double log_det_precision_sum = 2.0 * factor.matrixLLT().diagonal().array().log().sum();
  gain_a = a.precision;
  factor.solveInPlace(gain_a);
  gain_b = b.precision;
  factor.solveInPlace(gain_b);
  // The entropies of the Q(x_t) with the trace terms of both models (the file comment).
  const double shared = static_cast<double>(count) *
                        (0.5 * static_cast<double>(d) * (kLog2Pi - std::log(a.rho)) - 0.5 * log_det_precision_sum);

  MatrixMap x_means = workspace.matrix(d, count), residual = workspace.matrix(d, count),
            weighted = workspace.matrix(d, count);
  ChainScratch scratch{workspace.take(states, count), workspace.take(states, count), workspace.take(states, count),
                       workspace.take(states, count), workspace.take(count, 1)};
  Side side_a{&a, workspace.chains(), workspace.matrix(d, count)};
  Side side_b{&b, workspace.chains() + a.chains.size(), workspace.matrix(d, count)};
  for (Side* side : {&side_a, &side_b})
    for (std::size_t c = 0; c < side->model->chains.size(); ++c) {
      side->chains[c].marginals = workspace.take(side->states(c), count);
      side->chains[c].mean = workspace.take(d, count);
    }
  side_a.initialise(scratch);
  side_b.initialise(scratch);
  const auto update_x = [&] {
    multiply(gain_a, side_a.expected_mean, x_means);
    multiply(gain_b, side_b.expected_mean, residual);
    x_means += residual;
  };
  const auto log_bound = [&] {
    return side_a.log_bound_terms(x_means, residual, weighted) + side_b.log_bound_terms(x_means, residual, weighted) +
           shared;
  };
  update_x();
  MeanFieldResult result{log_bound(), false};
  if (history) history->push_back(result.log_bound);
  const std::size_t chain_count = std::max(a.chains.size(), b.chains.size());
  for (int sweep = 0; sweep < kMaxSweeps && !result.converged; ++sweep) {
    for (std::size_t c = 0; c < chain_count; ++c) {
      if (c < a.chains.size()) side_a.update_chain(c, x_means, residual, scratch);
      if (c < b.chains.size()) side_b.update_chain(c, x_means, residual, scratch);
    }
    update_x();
    const double previous = result.log_bound;
    result.log_bound = log_bound();
    if (history) history->push_back(result.log_bound);
    if (!std::isfinite(result.log_bound)) break;  // not converged: the kernel reports the value
    result.converged = result.log_bound - previous < kRelativeTolerance * std::max(1.0, std::fabs(result.log_bound));
  }
  return result;
}

}  // namespace

MeanFieldTrace mean_field_trace(const FhmmModel& a, const FhmmModel& b) {
  MeanFieldTrace trace;
  trace.converged = run_mean_field(*a.impl_, *b.impl_, &trace.log_bounds).converged;
  return trace;
}

double FhmmModel::log_kernel(const Model& other) const {
  return run_mean_field(*impl_, *static_cast<const FhmmModel&>(other).impl_, nullptr).log_bound;
}

// ---- Sampling (fhmm.hpp): ancestral draws, and log p(x) by the forward algorithm over the product
// states, rho = 1 ----

namespace {

// prod_c M_c, counted only up to kMaxSampledProductStates + 1 (no overflow for many chains).
long capped_product_states(const std::vector<FhmmChain>& chains) {
  long count = 1;
  for (const FhmmChain& chain : chains)
    count = std::min(count * static_cast<long>(chain.start.size()), kMaxSampledProductStates + 1);
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

double FhmmModel::kernel_work() const { return impl_->kernel_work; }
std::optional<long> FhmmModel::sequence_steps() const { return steps(); }

// log_probability: the factor of Sigma (d^3), the S whitened state means (S d^2), then per step each
// chain's transition over the S product states (S sum_c M_c) and the S quadratic forms (S d).
double FhmmModel::log_probability_work() const {
  const double states = static_cast<double>(capped_product_states(impl_->chains)), d = static_cast<double>(dim());
  double chain_states = 0.0;
  for (const FhmmChain& chain : impl_->chains) chain_states += static_cast<double>(chain.start.size());
  return d * d * d + states * d * d + static_cast<double>(steps() + 1) * states * (chain_states + d);
}

double FhmmModel::log_tilted_normalizer(double rho) const {
  require_rho_one(*this, "a factorial HMM", "p^rho / Z is not a factorial HMM and Z has no closed form", rho);
  if (capped_product_states(impl_->chains) > kMaxSampledProductStates)
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": the Monte Carlo kernel evaluates p(x) by the forward algorithm over the product states "
                            "prod_c M_c, at most " +
                            std::to_string(kMaxSampledProductStates) +
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
    for (Eigen::Index p = 0; p < states; ++p)
      trans_sums.back().push_back(partial_sums(&chain.trans(p, 0), states, states));
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
    alpha *= detail::exp_entries(log_emission - largest);
    const double total = alpha.sum();
    if (!(total > 0.0)) return kMinusInfinity;
    alpha /= total;
    log_p += largest + std::log(total);
  }
  return log_p;
}

const FamilyInfo& fhmm_family() {
  static const FamilyInfo info =
      make_family<FhmmModel>(kFamily, 15, "a structured mean-field lower bound on k~ (JMLR 2004 section 6)");
  return info;
}

}  // namespace ppk
