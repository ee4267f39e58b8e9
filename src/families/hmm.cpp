// Hidden Markov models and their kernel (see hmm.hpp).
//
// JMLR 2004 section 4.2 (docs/design.md "Mathematics"): the kernel k~ raises the joint of the hidden
// path s = (s_0..s_T) and the observations X = (x_0..x_T) to the power rho,
//     k~ = sum_{s, s'} integral over X of [p(s, X) p'(s', X)]^rho dX,
//     p(s, X) = pi_{s_0} prod_{t=1..T} A_{s_{t-1} s_t} prod_{t=0..T} p_{s_t}(x_t).
// Given both paths the integral factorises over t into prod_t psi(s_t, s'_t), psi(q, q') the
// emission kernel k_rho(emission_q, emission'_q'), so the sum over path pairs is a forward
// recursion over pairs of states:
//     Phi_0(q, q') = (pi_q pi'_q')^rho,
//     Phi_t(q, q') = sum_{p, p'} (A_pq A'_p'q')^rho psi(p, p') Phi_{t-1}(p, p'),
//     k~ = sum_{q, q'} psi(q, q') Phi_T(q, q');
// as matrices Phi_t = (A^rho)' (psi .* Phi_{t-1}) A'^rho. psi is stored divided by its largest entry
// and each Phi_t divided by its largest entry; the logs of those factors are summed, so log k~ is
// exact where k~ itself would underflow (long sequences).
#include "ppk/families/hmm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk {

namespace {

const char* const kFamily = "hmm";
constexpr long kMaxStates = 10000;          // M^2 transitions must fit in a row
constexpr long kMaxLength = kMaxHmmLength;  // (hmm.hpp)

}  // namespace

template <class Archive>
void HmmParameters::fields(Archive& archive) {
  const auto states = archive.dimension("states", static_cast<long>(start.size()), 1, kMaxStates);
  archive.whole_number("length", length, 0, kMaxLength);
  archive.reals("start", start, states);
  archive.matrix("trans", trans, states, states);
  archive.models("emissions", emissions, states);
}

struct HmmModel::Impl : HmmParameters {
  // Set by prepare():
  double rho = 0.0;
  long steps = -1;                    // the T of the kernel
  double kernel_work = 0.0;           // kernel_work()
  bool timed_emissions = false;       // an emission is a sequence model, whose kernel depends on T itself
  Eigen::VectorXd start_power;        // pi^rho
  Eigen::MatrixXd transitions_power;  // A^rho (elementwise)
};

HmmModel::HmmModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  Eigen::VectorXd& start = parameters.start;
  Eigen::MatrixXd& transitions = parameters.trans;
  const std::vector<std::unique_ptr<Model>>& emissions = parameters.emissions;
  const long length = parameters.length;
  const long states = static_cast<long>(start.size());
  if (states < 1 || states > kMaxStates)
    throw detail::field_error(kFamily, "states", detail::whole_numbers(1, kMaxStates), std::to_string(states));
  if (length < 0 || length > kMaxLength)
    throw detail::field_error(kFamily, "length", detail::whole_numbers(0, kMaxLength), std::to_string(length));
  if (transitions.rows() != states || transitions.cols() != states)
    throw detail::field_error(kFamily, "trans",
                              "a " + std::to_string(states) + " x " + std::to_string(states) + " matrix",
                              std::to_string(transitions.rows()) + " x " + std::to_string(transitions.cols()));
  detail::normalise_probabilities(kFamily, "start", start, -1, 0);
  for (long p = 0; p < states; ++p) detail::normalise_probabilities(kFamily, "trans", transitions.row(p), p, p * states);
  if (static_cast<long>(emissions.size()) != states)
    throw detail::field_error(kFamily, "emissions", std::to_string(states) + " emission models (one per state)",
                              std::to_string(emissions.size()));
  for (std::size_t q = 0; q < emissions.size(); ++q) {
    const std::string path = "[" + std::to_string(q) + "]";
    const long element = static_cast<long>(q);
    if (!emissions[q]) throw detail::FieldError(kFamily, "emissions", element, path, "a model", "nothing");
    if (&emissions[q]->family() == &hmm_family())
      throw detail::FieldError(kFamily, "emissions", element, path, "an emission model that is not an HMM", "an hmm");
    if (emissions[q]->sample_space() != emissions[0]->sample_space())
      throw detail::FieldError(kFamily, "emissions", element, path,
                               "the sample space of emission 0 (" + emissions[0]->sample_space().describe() + ")",
                               emissions[q]->sample_space().describe());
  }
  static_cast<HmmParameters&>(*impl_) = std::move(parameters);
}

HmmModel::~HmmModel() = default;

const HmmParameters& HmmModel::parameters() const { return *impl_; }
const Eigen::VectorXd& HmmModel::start() const { return impl_->start; }
const Eigen::MatrixXd& HmmModel::transitions() const { return impl_->trans; }
std::size_t HmmModel::states() const { return impl_->emissions.size(); }
const Model& HmmModel::emission(std::size_t q) const { return *impl_->emissions.at(q); }
long HmmModel::length() const { return impl_->length; }
long HmmModel::steps() const { return impl_->steps >= 0 ? impl_->steps : impl_->length; }

const FamilyInfo& HmmModel::family() const { return hmm_family(); }

// x_0..x_T: T + 1 observations from the emissions' sample space.
SampleSpace HmmModel::sample_space() const {
  const SampleSpace emission = impl_->emissions[0]->sample_space();
  return {"sequences of " + std::to_string(steps() + 1) + " " + emission.kind, emission.dim};
}

void HmmModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.timed_emissions = false;
  for (const auto& emission : m.emissions) {
    emission->prepare(params);
    m.timed_emissions = m.timed_emissions || emission->sequence_steps().has_value();
  }
  m.rho = params.rho;
  m.steps = params.length > 0 ? params.length : m.length;
  // The forward recursion does T steps of an M x M times M x M' and an M x M' times M' x M' product,
  // T (M^2 M' + M M'^2) <= T (M^3 + M'^3) multiply-adds (AM-GM): M^3 per step is this row's share. The
  // M x M' emission kernels psi come once per evaluation (detail::parts_kernel_work).
  const double states = static_cast<double>(m.start.size());
  const double emission_work = detail::parts_kernel_work(m.emissions);
  m.kernel_work = detail::check_kernel_work(
      kFamily,
      "T + 1 (" + std::to_string(m.steps + 1) + ", the length or -d T) x M^3 (M = " + std::to_string(m.start.size()) +
          " states) + " + detail::format_number(emission_work) + " for the emission kernels",
      static_cast<double>(m.steps + 1) * states * states * states + emission_work,
      "give a smaller -d T, fewer states or smaller emission models");
  m.start_power = m.start.array().pow(m.rho).matrix();
  m.transitions_power = m.trans.array().pow(m.rho).matrix();
}

namespace {

// The forward recursion over pairs of states (the file comment) for an M-state and an N-state
// HMM, given psi divided by its largest entry. For each T = lengths[k] (strictly ascending) writes
// log(sum psi .* Phi_T) minus the log of the powers of two divided out of Phi up to step T into out[k];
// -inf when no pair of paths has positive weight. Phi_t does not depend on the T it is run to, so one
// run to the largest T reads every smaller T's value at its step: the kernel at a single T is the call
// with one length.
// Whenever the largest entry of Phi leaves [2^-256, 2^256], Phi is divided by 2^e, e the binary
// exponent of that entry: exact (a power of two), so the result is the same as rescaling at
// every step, without the cost of a rescale per step; the entries stay far from underflow and
// overflow (a step changes them by at most a factor M N).
// M and N are compile-time sizes for small HMMs, where Eigen's fixed-size products unroll and a
// step costs a few nanoseconds, or Eigen::Dynamic (the scratch is then reused per thread, since
// the kernel runs for many pairs under OpenMP).
template <int M, int N>
void log_forward(const Eigen::MatrixXd& psi_dynamic, const Eigen::VectorXd& start_a, const Eigen::VectorXd& start_b,
                 const Eigen::MatrixXd& transitions_a, const Eigen::MatrixXd& transitions_b, const int* lengths,
                 std::size_t count, double* out) {
  using PairMatrix = Eigen::Matrix<double, M, N>;
  const Eigen::Index m = start_a.size(), n = start_b.size();
  const Eigen::Map<const PairMatrix> psi(psi_dynamic.data(), m, n);
  const Eigen::Map<const Eigen::Matrix<double, M, 1>> pi_a(start_a.data(), m);
  const Eigen::Map<const Eigen::Matrix<double, N, 1>> pi_b(start_b.data(), n);
  const Eigen::Map<const Eigen::Matrix<double, M, M>> a(transitions_a.data(), m, m);
  const Eigen::Map<const Eigen::Matrix<double, N, N>> b(transitions_b.data(), n, n);
  thread_local PairMatrix phi, weighted, half_step;
  long exponents = 0;
  std::size_t done = 0;                     // out[0..done) written
  long stop = lengths[0];                   // the next T, held apart from the array in the step loop
  phi.noalias() = pi_a * pi_b.transpose();  // Phi_0
  constexpr double kSmall = 0x1p-256, kLarge = 0x1p256;
  for (long t = 0;; ++t) {
    const double largest = phi.maxCoeff();
    if (!(largest >= kSmall && largest <= kLarge)) {
      if (!(largest > 0.0)) {  // Phi_t = 0, and so is every later Phi
        std::fill(out + done, out + count, -std::numeric_limits<double>::infinity());
        return;
      }
      int exponent = 0;
      std::frexp(largest, &exponent);
      phi *= std::ldexp(1.0, -exponent);
      exponents += exponent;
    }
    if (t == stop) {
      const double sum = psi.cwiseProduct(phi).sum();
      out[done] = sum > 0.0 ? std::log(sum) + static_cast<double>(exponents) * std::log(2.0)
                            : -std::numeric_limits<double>::infinity();
      if (++done == count) return;
      stop = lengths[done];
    }
    weighted = psi.cwiseProduct(phi);  // psi .* Phi_t
    half_step.noalias() = a.transpose() * weighted;
    phi.noalias() = half_step * b;  // Phi_{t+1}
  }
}

using LogForward = void (*)(const Eigen::MatrixXd&, const Eigen::VectorXd&, const Eigen::VectorXd&,
                            const Eigen::MatrixXd&, const Eigen::MatrixXd&, const int*, std::size_t, double*);

// log_forward for N states, M fixed: N in 1..4 at compile time, else dynamic.
template <int M>
LogForward log_forward_for(Eigen::Index n) {
  switch (n) {
    case 1: return &log_forward<M, 1>;
    case 2: return &log_forward<M, 2>;
    case 3: return &log_forward<M, 3>;
    case 4: return &log_forward<M, 4>;
    default: return &log_forward<Eigen::Dynamic, Eigen::Dynamic>;
  }
}

LogForward log_forward_for(Eigen::Index m, Eigen::Index n) {
  switch (m) {
    case 1: return log_forward_for<1>(n);
    case 2: return log_forward_for<2>(n);
    case 3: return log_forward_for<3>(n);
    case 4: return log_forward_for<4>(n);
    default: return &log_forward<Eigen::Dynamic, Eigen::Dynamic>;
  }
}

// The same recursion in log space (log_sum_exp over pairs of states), for emission kernels whose logs
// span more than kLinearRange: there psi / max psi underflows to 0 (below exp(-708) it is subnormal,
// below exp(-745) zero), so the linear recursion would drop pairs of states that may carry every
// path pair the transitions allow, e.g. when the best-matching pair of states cannot be reached.
// log_psi: log psi; log_start_*, log_transitions_*: rho log pi, rho log A. out[k] = log k~ at
// T = lengths[k], as log_forward's.
constexpr double kLinearRange = 700.0;

void log_forward_in_logs(const Eigen::MatrixXd& log_psi, const Eigen::VectorXd& log_start_a,
                         const Eigen::VectorXd& log_start_b, const Eigen::MatrixXd& log_transitions_a,
                         const Eigen::MatrixXd& log_transitions_b, const int* lengths, std::size_t count, double* out) {
  const Eigen::Index m = log_psi.rows(), n = log_psi.cols();
  Eigen::MatrixXd log_phi = log_start_a.replicate(1, n).rowwise() + log_start_b.transpose();  // log Phi_0
  Eigen::MatrixXd weighted(m, n), half_step(m, n);
  std::vector<double> terms(static_cast<std::size_t>(std::max(m, n)));
  for (long t = 0, done = 0;; ++t) {
    weighted = log_psi + log_phi;  // log(psi .* Phi_t)
    if (t == lengths[done]) {
      out[done] = detail::log_sum_exp(weighted.data(), static_cast<std::size_t>(weighted.size()));
      if (static_cast<std::size_t>(++done) == count) return;
    }
    // log (A' (psi .* Phi_t)): over the first model's previous state p.
    for (Eigen::Index q = 0; q < m; ++q)
      for (Eigen::Index r = 0; r < n; ++r) {
        for (Eigen::Index p = 0; p < m; ++p) terms[p] = log_transitions_a(p, q) + weighted(p, r);
        half_step(q, r) = detail::log_sum_exp(terms.data(), static_cast<std::size_t>(m));
      }
    // log Phi_{t+1} = log (half_step B): over the second model's previous state.
    for (Eigen::Index q = 0; q < m; ++q)
      for (Eigen::Index r = 0; r < n; ++r) {
        for (Eigen::Index p = 0; p < n; ++p) terms[p] = half_step(q, p) + log_transitions_b(p, r);
        log_phi(q, r) = detail::log_sum_exp(terms.data(), static_cast<std::size_t>(n));
      }
  }
}

}  // namespace

// The kernel at the prepared T: the pass below with one length.
double HmmModel::log_kernel(const Model& other) const {
  const int steps = static_cast<int>(impl_->steps);  // <= kMaxHmmLength
  double value = 0.0;
  log_kernel_over_lengths(other, &steps, 1, &value);
  return value;
}

// The emission kernels psi once, then one forward recursion to the largest T, whose Phi_t is the same
// whatever T it is run to (the file comment). psi enters T + 1 times at T (once per step and once in the
// final sum), so each T's value gets (T + 1) log max psi back.
bool HmmModel::log_kernel_over_lengths(const Model& other, const int* lengths, std::size_t count, double* out) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const HmmModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.steps != b.steps) detail::throw_unprepared_pair(kFamily);
  check_kernel_lengths(lengths, count, a.steps);
  // Emissions that are sequence models were prepared for the largest T, and their kernels at a smaller
  // T are not the ones prepared there: only that T comes from this pass.
  if ((a.timed_emissions || b.timed_emissions) && !(count == 1 && lengths[0] == a.steps)) return false;
  const Eigen::Index m = a.start.size(), n = b.start.size();

  thread_local Eigen::MatrixXd psi;
  psi.resize(m, n);
  double log_psi_max = -std::numeric_limits<double>::infinity();
  for (Eigen::Index q = 0; q < m; ++q)
    for (Eigen::Index r = 0; r < n; ++r) {
      psi(q, r) = ppk::log_kernel(*a.emissions[q], *b.emissions[r]);
      if (psi(q, r) > log_psi_max) log_psi_max = psi(q, r);
    }
  // -inf: every emission pair has kernel 0, so k = 0; +inf: an emission kernel overflows, so does k.
  if (std::isinf(log_psi_max)) {
    std::fill(out, out + count, log_psi_max);
    return true;
  }
  double log_psi_min = log_psi_max;  // the smallest positive emission kernel
  for (Eigen::Index i = 0; i < psi.size(); ++i)
    if (std::isfinite(psi(i))) log_psi_min = std::min(log_psi_min, psi(i));
  if (log_psi_max - log_psi_min > kLinearRange) {
    log_forward_in_logs(psi, a.rho * a.start.array().log().matrix(), b.rho * b.start.array().log().matrix(),
                        a.rho * a.trans.array().log().matrix(), b.rho * b.trans.array().log().matrix(), lengths, count,
                        out);
    return true;
  }
  psi = detail::exp_entries(psi.array() - log_psi_max).matrix();  // psi / max psi; exp(-inf) = 0
  log_forward_for(m, n)(psi, a.start_power, b.start_power, a.transitions_power, b.transitions_power, lengths, count, out);
  for (std::size_t k = 0; k < count; ++k) out[k] += static_cast<double>(lengths[k] + 1) * log_psi_max;
  return true;
}

bool HmmModel::can_sample() const {
  for (const auto& emission : impl_->emissions)
    if (as_samplable(*emission) == nullptr) return false;
  return true;
}

long HmmModel::sample_size() const { return (steps() + 1) * as_samplable(*impl_->emissions.front())->sample_size(); }

double HmmModel::log_tilted_normalizer(double rho) const {
  require_rho_one(*this, "an HMM", "p^rho / Z is not an HMM and Z has no closed form", rho);
  return 0.0;
}

// The hidden paths of every sequence first (label s (T+1) + t is the state of x_t in sequence s),
// then each emission's draws. An emission sample of e doubles is column s (T+1) + t of an
// e x N(T+1) matrix, whose memory is the (T+1)e x N matrix of the stacked sequences.
void HmmModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const Impl& m = *impl_;
  const Eigen::Index states = m.start.size();
  const std::size_t length = static_cast<std::size_t>(steps()) + 1;
  const auto cumulative = [](const Eigen::VectorXd& p) {
    Eigen::VectorXd sums(p.size());
    std::partial_sum(p.data(), p.data() + p.size(), sums.data());
    return sums;
  };
  const Eigen::VectorXd start_cumulative = cumulative(m.start);
  std::vector<Eigen::VectorXd> transition_cumulative;
  for (Eigen::Index p = 0; p < states; ++p) transition_cumulative.push_back(cumulative(m.trans.row(p).transpose()));
  std::vector<std::size_t> labels(length * static_cast<std::size_t>(samples.cols()));
  for (std::size_t s = 0; s < static_cast<std::size_t>(samples.cols()); ++s) {
    std::size_t state = generator.categorical(start_cumulative.data(), static_cast<std::size_t>(states));
    labels[s * length] = state;
    for (std::size_t t = 1; t < length; ++t) {
      state = generator.categorical(transition_cumulative[state].data(), static_cast<std::size_t>(states));
      labels[s * length + t] = state;
    }
  }
  std::vector<const SamplableModel*> emissions;
  for (const auto& emission : m.emissions) emissions.push_back(as_samplable(*emission));
  const Eigen::Index emission_size = emissions.front()->sample_size();
  Eigen::MatrixXd draws(emission_size, static_cast<Eigen::Index>(labels.size()));
  sample_parts(emissions, labels, rho, generator, draws);
  samples =
      Eigen::Map<const Eigen::MatrixXd>(draws.data(), emission_size * static_cast<Eigen::Index>(length), samples.cols());
}

// The scaled forward algorithm: alpha_0 = pi .* e_0, alpha_t = (A' alpha_(t-1)) .* e_t with
// e_t(q) = p_q(x_t), p(X) = sum_q alpha_T(q). Each e_t is divided by its largest entry and each
// alpha_t by its sum; log p(X) is the sum of the logs of those factors.
double HmmModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Impl& m = *impl_;
  const Eigen::Index states = m.start.size();
  std::vector<const SamplableModel*> emissions;
  for (const auto& emission : m.emissions) emissions.push_back(as_samplable(*emission));
  const Eigen::Index emission_size = emissions.front()->sample_size();
  Eigen::VectorXd alpha = m.start, log_emission(states);
  double log_p = 0.0;
  for (long t = 0; t <= steps(); ++t) {
    const auto x_t = x.segment(t * emission_size, emission_size);
    for (Eigen::Index q = 0; q < states; ++q) log_emission[q] = emissions[q]->log_probability(x_t);
    const double largest = log_emission.maxCoeff();
    if (!std::isfinite(largest)) return -std::numeric_limits<double>::infinity();
    if (t > 0) alpha = m.trans.transpose() * alpha;
    alpha.array() *= detail::exp_entries(log_emission.array() - largest);
    const double sum = alpha.sum();
    if (!(sum > 0.0)) return -std::numeric_limits<double>::infinity();
    alpha /= sum;
    log_p += largest + std::log(sum);
  }
  return log_p;
}

double HmmModel::kernel_work() const { return impl_->kernel_work; }
std::optional<long> HmmModel::sequence_steps() const { return steps(); }
std::optional<SampleSpace> HmmModel::step_space() const { return emission(0).sample_space(); }

double HmmModel::log_probability_work() const {
  const double states = static_cast<double>(impl_->start.size());
  double step = states * states;
  for (const auto& emission : impl_->emissions) step += as_samplable(*emission)->log_probability_work();
  return static_cast<double>(steps() + 1) * step;
}

const FamilyInfo& hmm_family() {
  static const FamilyInfo info = make_family<HmmModel>(kFamily, 9);
  return info;
}

}  // namespace ppk
