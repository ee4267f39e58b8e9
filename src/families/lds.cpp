// Linear dynamical systems and their kernel (see lds.hpp).
//
// The observations X = (x_0..x_T) of an LDS are jointly Gaussian, N(m, S), dimension D = (T+1)d
// (docs/design.md "Mathematics", LDS: S is not block diagonal). The kernel is JMLR 2004 eq. 5 between N(m, S) and
// N(m', S'), in the covariance-sum form of gaussian.cpp:
//     log k = (1-2rho)D/2 log 2pi - D/2 log rho + (1-rho)/2 (log|S| + log|S'|)
//             - 1/2 log|S + S'| - rho/2 (m - m')' (S + S')^-1 (m - m').
// (Equivalently: p^rho = N(X; m, S/rho) (2pi)^((1-rho)D/2) rho^(-D/2) |S|^((1-rho)/2), and the
// integral of N(X; m, S/rho) N(X; m', S'/rho) is N(m - m'; 0, (S + S')/rho).)
//
// Linear time. Every term is a Gaussian log-likelihood term of some state-space model, which a
// Kalman filter evaluates by the prediction-error decomposition: for a model with observations
// y_0..y_T, the joint density factorises as prod_t N(y_t; yhat_t, F_t), yhat_t and F_t the predicted
// mean and innovation covariance of y_t given y_0..y_{t-1}, so for the joint V and mean M of Y
//     log|V| = sum_t log|F_t|,   (y - M)' V^-1 (y - M) = sum_t (y_t - yhat_t)' F_t^-1 (y_t - yhat_t).
//  * log|S|: the filter of the LDS itself (F_t does not depend on the data), once per model at
//    prepare(), for the kernel's T.
//  * S + S' and m - m': Y = X - X' with X, X' drawn independently from the two LDSs is the observation
//    sequence of the LDS with the stacked state z = (s, s') (dimension n + n'):
//        z_0 ~ N((mean0, mean0'), blockdiag(cov0, cov0')),  z_t = blockdiag(A, A') z_{t-1} + N(0, blockdiag(Q, Q')),
//        y_t = [C, -C'] z_t + N(0, R + R'),
//    whose mean is m - m' (E y_t = C A^t mean0 - C' A'^t mean0') and whose covariance is S + S'. Its
//    filter run on the all-zero sequence y = 0 gives log|S + S'| and (0 - (m - m'))' (S + S')^-1 (0 - (m - m')),
//    the quadratic form above.
// Each model contributes (1-2rho)D/4 log 2pi - D/4 log rho + (1-rho)/2 log|S| (prepare()); a pair costs
// one filter over T + 1 steps with an (n + n')-dimensional state: O(T (n + n' + d)^3).
//
// The filter, the stacked model and the dense joints are lds_state_space.hpp's, written for dynamics that
// switch between regimes (the slds family); an LDS is the case of one regime.
//
// dense_log_kernel builds N(m, S) and N(m', S') explicitly and evaluates the Gaussian family's kernel.
#include "ppk/families/lds.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "families/lds_state_space.hpp"

namespace ppk {

namespace {

const char* const kFamily = "lds";
using detail::kMaxSequenceLength;
using detail::kMaxStateSpaceDim;

// Step t of an LDS follows its one regime.
constexpr auto kStationary = [](long) { return 0; };

}  // namespace

template <class Archive>
void LdsParameters::fields(Archive& archive) {
  const auto states = archive.dimension("n", static_cast<long>(mean0.size()), 1, kMaxStateSpaceDim);
  const auto dim = archive.dimension("d", static_cast<long>(C.rows()), 1, kMaxStateSpaceDim);
  archive.whole_number("length", length, 0, kMaxSequenceLength);
  archive.reals("mean0", mean0, states);
  archive.symmetric_matrix("cov0", cov0, states);
  archive.matrix("A", A, states, states);
  archive.symmetric_matrix("Q", Q, states);
  archive.matrix("C", C, dim, states);
  archive.symmetric_matrix("R", R, dim);
}

struct LdsModel::Impl {
  detail::SwitchingStateSpace space;  // one regime: A = dynamics[0].transition, Q = dynamics[0].noise
  long length = 0;
  // Set by prepare():
  double rho = 0.0;
  long steps = -1;           // the T of the kernel
  double kernel_work = 0.0;  // kernel_work()
  double log_det = 0.0;      // log|S|
  double log_scale = 0.0;    // (1-2rho)D/4 log 2pi - D/4 log rho + (1-rho)/2 log|S|
};

LdsModel::LdsModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  impl_->space = detail::checked_state_space(kFamily, std::move(parameters.mean0), std::move(parameters.cov0),
                                             std::move(parameters.C), std::move(parameters.R), parameters.length);
  detail::add_dynamics(impl_->space, kFamily, std::move(parameters.A), std::move(parameters.Q), -1);
  impl_->length = parameters.length;
}

LdsParameters LdsModel::parameters() const {
  return {mean0(), cov0(), transition(), state_noise(), observation(), observation_noise(), length()};
}

LdsModel::~LdsModel() = default;

const Eigen::VectorXd& LdsModel::mean0() const { return impl_->space.mean0; }
const Eigen::MatrixXd& LdsModel::cov0() const { return impl_->space.cov0; }
const Eigen::MatrixXd& LdsModel::transition() const { return impl_->space.dynamics[0].transition; }
const Eigen::MatrixXd& LdsModel::state_noise() const { return impl_->space.dynamics[0].noise; }
const Eigen::MatrixXd& LdsModel::observation() const { return impl_->space.observation; }
const Eigen::MatrixXd& LdsModel::observation_noise() const { return impl_->space.observation_noise; }
long LdsModel::state_dim() const { return static_cast<long>(impl_->space.mean0.size()); }
long LdsModel::observation_dim() const { return static_cast<long>(impl_->space.observation.rows()); }
long LdsModel::length() const { return impl_->length; }
long LdsModel::steps() const { return impl_->steps >= 0 ? impl_->steps : impl_->length; }

const FamilyInfo& LdsModel::family() const { return lds_family(); }

// x_0..x_T, T + 1 real d-vectors. A kind of its own: an HMM with Gaussian emissions lives on the same
// set, but no kernel between the two families is written, and a mixture must not mix them.
SampleSpace LdsModel::sample_space() const {
  return {"linear-Gaussian sequences of " + std::to_string(steps() + 1) + " real vectors", observation_dim()};
}

void LdsModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.rho = params.rho;
  if (params.length > kMaxSequenceLength)
    throw KernelDomainError(std::string(kFamily) + " kernel: -d " + std::to_string(params.length) +
                            " exceeds the longest sequence, T = " + std::to_string(kMaxSequenceLength) +
                            " (docs/families.md, \"Limits\")");
  m.steps = params.length > 0 ? params.length : m.length;
  // A pair's filter: T + 1 steps of the stacked model, (2n + d)^3 per step as this row's share.
  m.kernel_work = detail::check_kernel_work(
      kFamily,
      "T + 1 (" + std::to_string(m.steps + 1) + ", the length or -d T) x (2n + d)^3 (n = " + std::to_string(state_dim()) +
          ", d = " + std::to_string(observation_dim()) + ")",
      static_cast<double>(m.steps + 1) * detail::filter_step_work(2 * state_dim(), observation_dim()),
      "give a smaller -d T");
  detail::check_finite_moments(kFamily, m.space, m.steps, kStationary);
  m.log_det = detail::innovation_sums(m.space, m.steps, kStationary).log_det;
  m.log_scale = detail::log_kernel_share(m.rho, m.steps, observation_dim(), m.log_det);
}

namespace {

// log k(a, b) at each T = lengths[k] from the models' shares there (the file comment): the filter of the
// stacked model of Y = X - X', assembled in per-thread scratch, run once to the largest T.
void pair_log_kernels(const detail::SwitchingStateSpace& a, const detail::SwitchingStateSpace& b, double rho,
                      const int* lengths, std::size_t count, const double* share_a, const double* share_b, double* out) {
  thread_local detail::SwitchingStateSpace pair;
  thread_local detail::FilterScratch scratch;
  thread_local std::vector<detail::InnovationSums> sums;
  detail::stack_difference(a, b, pair);
  pair.dynamics.resize(1);
  detail::stack_dynamics(a.dynamics[0], b.dynamics[0], pair.dynamics[0]);
  sums.resize(count);
  detail::innovation_sums(pair, lengths, count, kStationary, sums.data(), scratch);
  for (std::size_t k = 0; k < count; ++k) out[k] = detail::log_kernel_from_sums(share_a[k], share_b[k], rho, sums[k]);
}

}  // namespace

// The kernel at the prepared T: the shares of prepare() and the pair's filter to T.
double LdsModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const LdsModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.steps != b.steps || a.space.observation.rows() != b.space.observation.rows())
    detail::throw_unprepared_pair(kFamily);
  if (&b == &a) return detail::log_self_kernel(a.log_scale, a.steps, observation_dim(), a.log_det);
  const int steps = static_cast<int>(a.steps);  // <= kMaxSequenceLength
  double value = 0.0;
  pair_log_kernels(a.space, b.space, a.rho, &steps, 1, &a.log_scale, &b.log_scale, &value);
  return value;
}

// Every term of the kernel at T is a sum over the steps t = 0..T of a Kalman filter whose step t depends on
// the steps before it only: each model's own filter (log|S| at T, in its share) and the pair's. One run of
// each to the largest T gives every T; log|S| at a smaller T is not kept by prepare() (it would take T + 1
// values per row), so the own filters run here, (n + d)^3 per step against the pair's (n + n' + d)^3.
bool LdsModel::log_kernel_over_lengths(const Model& other, const int* lengths, std::size_t count, double* out) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const LdsModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.steps != b.steps || a.space.observation.rows() != b.space.observation.rows())
    detail::throw_unprepared_pair(kFamily);
  check_kernel_lengths(lengths, count, a.steps);
  const long d = observation_dim();
  // Per model: log|S| at each T, then its share; a separate scratch per filter (lds_state_space.hpp), the
  // smaller state's first whatever the order of the pair, so that pairs of two shapes do not reallocate.
  thread_local detail::FilterScratch smaller, larger;
  const bool a_smaller = a.space.mean0.size() <= b.space.mean0.size();
  thread_local std::vector<detail::InnovationSums> own;
  thread_local std::vector<double> share_a, share_b;
  own.resize(count);
  const auto shares = [&](const Impl& model, detail::FilterScratch& scratch, std::vector<double>& share) {
    detail::innovation_sums(model.space, lengths, count, kStationary, own.data(), scratch);
    share.resize(count);
    for (std::size_t k = 0; k < count; ++k) share[k] = detail::log_kernel_share(a.rho, lengths[k], d, own[k].log_det);
  };
  shares(a, a_smaller ? smaller : larger, share_a);
  if (&b == &a) {  // from log|S| (lds_state_space.hpp log_self_kernel), as log_kernel
    for (std::size_t k = 0; k < count; ++k) out[k] = detail::log_self_kernel(share_a[k], lengths[k], d, own[k].log_det);
    return true;
  }
  shares(b, a_smaller ? larger : smaller, share_b);
  pair_log_kernels(a.space, b.space, a.rho, lengths, count, share_a.data(), share_b.data(), out);
  return true;
}

std::unique_ptr<GaussianModel> LdsModel::joint_observations() const {
  return detail::joint_observations(impl_->space, std::vector<int>(static_cast<std::size_t>(steps() + 1), 0));
}

double dense_log_kernel(const LdsModel& a, const LdsModel& b) {
  if (a.impl_->rho <= 0.0 || a.impl_->rho != b.impl_->rho || a.steps() != b.steps())
    detail::throw_unprepared_pair(kFamily);
  KernelParams params;
  params.rho = a.impl_->rho;
  const auto joint_a = a.joint_observations(), joint_b = b.joint_observations();
  joint_a->prepare(params);
  joint_b->prepare(params);
  return joint_a->log_kernel(*joint_b);
}

long LdsModel::sample_size() const { return (steps() + 1) * observation_dim(); }

double LdsModel::log_tilted_normalizer(double rho) const {
  const double log_det = detail::innovation_sums(impl_->space, steps(), kStationary).log_det;  // log|S|
  return detail::log_tilted_normalizer(rho, steps(), observation_dim(), log_det);
}

void LdsModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  detail::sample_tilted_along(impl_->space, {std::vector<int>(static_cast<std::size_t>(steps() + 1), 0)},
                              std::vector<std::size_t>(static_cast<std::size_t>(samples.cols()), 0), rho, generator,
                              samples);
}

double LdsModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return detail::log_density(impl_->space, x, kStationary);
}

double LdsModel::kernel_work() const { return impl_->kernel_work; }
std::optional<long> LdsModel::sequence_steps() const { return steps(); }

double LdsModel::log_probability_work() const {
  return static_cast<double>(steps() + 1) * detail::filter_step_work(state_dim(), observation_dim());
}

const FamilyInfo& lds_family() {
  static const FamilyInfo info = make_family<LdsModel>(kFamily, 11);
  return info;
}

}  // namespace ppk
