// Switching linear dynamical systems and their hybrid-sampling kernel (see slds.hpp).
//
// Given a path q of one model and q' of the other, X and X' are the observations of two
// non-stationary LDSs, and log k_rho between their joint Gaussians is lds.cpp's: each model's share
// (1-2rho)D/4 log 2pi - D/4 log rho + (1-rho)/2 log|S_q| (lds_state_space.hpp log_kernel_share; log|S_q| by
// the model's own Kalman filter along q, once per distinct path at prepare()), plus
// -1/2 (log|S_q + S'_q'| + rho (m_q - m'_q')' (S_q + S'_q')^-1 (m_q - m'_q')) from the filter of the
// stacked difference model whose step t follows the pair of regimes (q_t, q'_t).
//
// The mean over the S x S' pairs, with c_i the number of drawn paths equal to distinct path i:
//     log k = logsumexp_{i, j} [log c_i + log c'_j + log k_rho(q_i, q'_j)] - log S - log S'.
#include "ppk/families/slds.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/core/row.hpp"
#include "families/lds_state_space.hpp"

namespace ppk {

using detail::field_error;
using detail::MatrixField;

namespace {

const char* const kFamily = "slds";
constexpr long kMaxStates = kMaxSldsStates;  // (slds.hpp)
constexpr long kMaxPaths = kMaxSldsPaths;

// FNV-1a, 64 bits, over `bytes` bytes of `value`, least significant first (independent of endianness).
void hash_bytes(std::uint64_t& hash, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    hash ^= (value >> (8 * i)) & 0xffu;
    hash *= 0x100000001b3u;
  }
}

// splitmix64's finaliser: every bit of the seed depends on every bit of the hash.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

// A discrete state drawn from the probabilities p with the uniform u in [0, 1): the first state
// whose cumulative probability exceeds u; the last state of positive probability when rounding
// leaves the total at or below u.
int draw_state(const Eigen::Ref<const Eigen::RowVectorXd>& p, double u) {
  double cumulative = 0.0;
  int last_positive = 0;
  for (Eigen::Index k = 0; k < p.size(); ++k) {
    if (p[k] <= 0.0) continue;
    cumulative += p[k];
    last_positive = static_cast<int>(k);
    if (u < cumulative) return last_positive;
  }
  return last_positive;
}

}  // namespace

template <class Archive>
void SldsParameters::fields(Archive& archive) {
  const auto states = archive.dimension("K", static_cast<long>(start.size()), 1, kMaxStates);
  const auto n = archive.dimension("n", static_cast<long>(mean0.size()), 1, detail::kMaxStateSpaceDim);
  const auto d = archive.dimension("d", static_cast<long>(observation.rows()), 1, detail::kMaxStateSpaceDim);
  archive.whole_number("length", length, 0, detail::kMaxSequenceLength);
  archive.whole_number("paths", paths, 1, kMaxPaths);
  archive.reals("start", start, states);
  archive.matrix("trans", transitions, states, states);
  archive.matrices("A", state_transitions, states, n, n);
  archive.symmetric_matrices("Q", state_noises, states, n);
  archive.reals("mean0", mean0, n);
  archive.symmetric_matrix("cov0", cov0, n);
  archive.matrix("C", observation, d, n);
  archive.symmetric_matrix("R", observation_noise, d);
}

struct SldsModel::Impl {
  SldsParameters parameters;
  detail::SwitchingStateSpace space;  // regime k: (A_k, Q_k)
  std::uint64_t seed = 0;
  // Set by prepare():
  double rho = 0.0;
  long steps = -1;                      // the T of the kernel
  double kernel_work = 0.0;             // kernel_work()
  std::vector<std::vector<int>> paths;  // the S drawn paths, q_0..q_T each
  std::vector<std::size_t> distinct;    // one index into paths per distinct path
  std::vector<double> log_share;        // per distinct path: log c_i + log_kernel_share(log|S_q|)
  std::vector<double> log_det;          // per distinct path: log|S_q|
};

SldsModel::SldsModel(SldsParameters p) : impl_(std::make_unique<Impl>()) {
  const Eigen::Index states = p.start.size();
  if (states < 1 || states > kMaxStates)
    throw field_error(kFamily, "start", "between 1 and " + std::to_string(kMaxStates) + " values (the discrete states)",
                      std::to_string(states) + " values");
  if (p.paths < 1 || p.paths > kMaxPaths)
    throw field_error(kFamily, "paths", detail::whole_numbers(1, kMaxPaths), std::to_string(p.paths));
  check_shape(MatrixField{kFamily, "trans", 0, ""}, p.transitions, states, states, "K x K, K = the length of start");
  detail::normalise_probabilities(kFamily, "start", p.start, -1, 0);
  for (Eigen::Index j = 0; j < states; ++j)
    detail::normalise_probabilities(kFamily, "trans", p.transitions.row(j), j, j * states);
  detail::SwitchingStateSpace& space = impl_->space;
  space = detail::checked_state_space(kFamily, p.mean0, p.cov0, p.observation, p.observation_noise, p.length);
  for (const auto& [name, list] :
       {std::pair<const char*, std::vector<Eigen::MatrixXd>*>{"A", &p.state_transitions}, {"Q", &p.state_noises}})
    if (static_cast<Eigen::Index>(list->size()) != states)
      throw field_error(kFamily, name, std::to_string(states) + " matrices (one per discrete state)",
                        std::to_string(list->size()));
  for (Eigen::Index k = 0; k < states; ++k) {
    detail::add_dynamics(space, kFamily, p.state_transitions[static_cast<std::size_t>(k)],
                         p.state_noises[static_cast<std::size_t>(k)], static_cast<long>(k));
    p.state_noises[static_cast<std::size_t>(k)] = space.dynamics.back().noise;  // symmetrised
  }
  p.cov0 = space.cov0;
  p.observation_noise = space.observation_noise;
  impl_->parameters = std::move(p);
  // The row determines the paths (slds.hpp).
  std::uint64_t hash = 0xcbf29ce484222325u;
  for (const RowEntry& entry : encode_row(*this)) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &entry.value, sizeof bits);
    hash_bytes(hash, static_cast<std::uint64_t>(entry.index), 4);
    hash_bytes(hash, bits, 8);
  }
  impl_->seed = mix(hash);
}

SldsModel::~SldsModel() = default;

const SldsParameters& SldsModel::parameters() const { return impl_->parameters; }
long SldsModel::discrete_states() const { return static_cast<long>(impl_->parameters.start.size()); }
long SldsModel::state_dim() const { return static_cast<long>(impl_->parameters.mean0.size()); }
long SldsModel::observation_dim() const { return static_cast<long>(impl_->parameters.observation.rows()); }
long SldsModel::steps() const { return impl_->steps >= 0 ? impl_->steps : impl_->parameters.length; }
std::uint64_t SldsModel::path_seed() const { return impl_->seed; }
const std::vector<std::vector<int>>& SldsModel::drawn_paths() const { return impl_->paths; }

std::unique_ptr<GaussianModel> SldsModel::joint_observations(std::size_t path) const {
  return detail::joint_observations(impl_->space, impl_->paths.at(path));
}

const FamilyInfo& SldsModel::family() const { return slds_family(); }

// x_0..x_T, T + 1 real d-vectors; a kind of its own, as for LDSs (no kernel between the families).
SampleSpace SldsModel::sample_space() const {
  return {"switching linear-Gaussian sequences of " + std::to_string(steps() + 1) + " real vectors", observation_dim()};
}

void SldsModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  const SldsParameters& p = m.parameters;
  m.rho = params.rho;
  if (params.length > kMaxSequenceLength)
    throw KernelDomainError(std::string(kFamily) + " kernel: -d " + std::to_string(params.length) +
                            " exceeds the longest sequence, T = " + std::to_string(kMaxSequenceLength) +
                            " (docs/families.md, \"Limits\")");
  m.steps = params.length > 0 ? params.length : p.length;
  detail::check_kernel_storage(kFamily,
                               "field \"paths\" (" + std::to_string(p.paths) + ") x T + 1 (" +
                                   std::to_string(m.steps + 1) + ", the length or -d T) path states",
                               static_cast<double>(p.paths) * static_cast<double>(m.steps + 1));
  // The paths (slds.hpp): S (T+1) uniforms from the seeded generator, in order.
  std::mt19937_64 bits(m.seed);
  const auto uniform = [&bits] { return static_cast<double>(bits() >> 11) * 0x1.0p-53; };
  m.paths.assign(static_cast<std::size_t>(p.paths), std::vector<int>(static_cast<std::size_t>(m.steps + 1)));
  for (std::vector<int>& path : m.paths) {
    path[0] = draw_state(p.start.transpose(), uniform());
    for (std::size_t t = 1; t < path.size(); ++t) path[t] = draw_state(p.transitions.row(path[t - 1]), uniform());
  }
  // Distinct paths and their counts (log c_i, the first term of each one's share in log k: the file comment).
  std::vector<std::size_t> order(m.paths.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return m.paths[i] < m.paths[j]; });
  m.distinct.clear();
  m.log_share.clear();
  m.log_det.clear();
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first + 1;
    while (last < order.size() && m.paths[order[last]] == m.paths[order[first]]) ++last;
    m.distinct.push_back(order[first]);
    m.log_share.push_back(std::log(static_cast<double>(last - first)));
    first = last;
  }
  // The kernel's cost, one filter of T + 1 steps per pair of distinct paths, bounded before any filter runs.
  const double distinct = static_cast<double>(m.distinct.size());
  const double kernel_steps = distinct * distinct * static_cast<double>(m.steps + 1);
  if (kernel_steps > kMaxSldsKernelSteps)
    throw KernelDomainError(
        std::string(kFamily) + " kernel: " + std::to_string(m.distinct.size()) + " distinct paths (of field \"paths\", " +
        std::to_string(p.paths) + ") squared x T + 1 (" + std::to_string(m.steps + 1) +
        ", the length or -d T) = " + detail::format_number(kernel_steps) +
        " Kalman-filter steps per kernel evaluation, more than " + detail::format_number(kMaxSldsKernelSteps) +
        " (docs/families.md, \"Limits\"); give fewer paths or a smaller -d T");
  // Each of those steps costs (2n + d)^3 as this row's share (lds_state_space.hpp filter_step_work).
  m.kernel_work = detail::check_kernel_work(
      kFamily,
      std::to_string(m.distinct.size()) + " distinct paths squared x T + 1 (" + std::to_string(m.steps + 1) +
          ") x (2n + d)^3 (n = " + std::to_string(state_dim()) + ", d = " + std::to_string(observation_dim()) + ")",
      kernel_steps * detail::filter_step_work(2 * state_dim(), observation_dim()), "give fewer paths or a smaller -d T");
  for (std::size_t i = 0; i < m.distinct.size(); ++i) {
    const std::vector<int>& path = m.paths[m.distinct[i]];
    detail::check_finite_moments(kFamily, m.space, m.steps, [&path](long t) { return path[t]; });
    m.log_det.push_back(detail::innovation_sums(m.space, m.steps, [&path](long t) { return path[t]; }).log_det);
    m.log_share[i] += detail::log_kernel_share(m.rho, m.steps, observation_dim(), m.log_det.back());
  }
}

double SldsModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const SldsModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.steps != b.steps || a.space.observation.rows() != b.space.observation.rows())
    detail::throw_unprepared_pair(kFamily);
  thread_local detail::SwitchingStateSpace pair;
  thread_local detail::StateDynamics step;  // the stacked dynamics of the regime pair (k, k') = `built`
  thread_local std::vector<double> terms;
  detail::stack_difference(a.space, b.space, pair);
  std::pair<int, int> built{-1, -1};
  terms.clear();
  for (std::size_t i = 0; i < a.distinct.size(); ++i)
    for (std::size_t j = 0; j < b.distinct.size(); ++j) {
      const std::vector<int>& path_a = a.paths[a.distinct[i]];
      const std::vector<int>& path_b = b.paths[b.distinct[j]];
      if (&b == &a && i == j) {  // a path with itself: from log|S_q| (lds_state_space.hpp log_self_kernel)
        terms.push_back(detail::log_self_kernel(a.log_share[i], a.steps, observation_dim(), a.log_det[i]));
        continue;
      }
      // The dynamics of step t, rebuilt when the pair of regimes changes: (n + n')^2 copies, against the
      // step's (n + n' + d)^3, and no K K' stacked regimes held (slds.hpp kMaxSldsStates).
      const auto pair_dynamics = [&](long t) -> const detail::StateDynamics& {
        const std::pair<int, int> regimes{path_a[t], path_b[t]};
        if (regimes != built) {
          detail::stack_dynamics(a.space.dynamics[static_cast<std::size_t>(regimes.first)],
                                 b.space.dynamics[static_cast<std::size_t>(regimes.second)], step);
          built = regimes;
        }
        return step;
      };
      terms.push_back(detail::log_kernel_from_sums(a.log_share[i], b.log_share[j], a.rho,
                                                   detail::innovation_sums(pair, a.steps, pair_dynamics)));
    }
  return detail::log_sum_exp(terms) - std::log(static_cast<double>(a.paths.size())) -
         std::log(static_cast<double>(b.paths.size()));
}

// ---- Sampling (slds.hpp): the row as the equal-weight mixture of its path-conditioned LDSs, rho = 1 ----

long SldsModel::sample_size() const { return (steps() + 1) * observation_dim(); }

double SldsModel::log_tilted_normalizer(double rho) const {
  require_rho_one(*this, "an SLDS", "p^rho / Z is not a mixture of LDSs and Z has no closed form", rho);
  return 0.0;
}

// The path of each column first (uniform over the S drawn paths), then the draws along them.
void SldsModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const Impl& m = *impl_;
  if (m.paths.empty()) throw std::logic_error("SldsModel::sample_tilted before prepare()");
  std::vector<double> cumulative(m.paths.size());
  for (std::size_t i = 0; i < cumulative.size(); ++i) cumulative[i] = static_cast<double>(i + 1);
  std::vector<std::size_t> path_of_column(static_cast<std::size_t>(samples.cols()));
  for (std::size_t& path : path_of_column) path = generator.categorical(cumulative.data(), cumulative.size());
  detail::sample_tilted_along(m.space, m.paths, path_of_column, rho, generator, samples);
}

// log (1/S) sum_i p(x | q^(i)).
double SldsModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Impl& m = *impl_;
  if (m.paths.empty()) throw std::logic_error("SldsModel::log_probability before prepare()");
  thread_local std::vector<double> terms;
  terms.clear();
  for (const std::vector<int>& path : m.paths)
    terms.push_back(detail::log_density(m.space, x, [&path](long t) { return path[static_cast<std::size_t>(t)]; }));
  return detail::log_sum_exp(terms) - std::log(static_cast<double>(m.paths.size()));
}

double SldsModel::kernel_work() const { return impl_->kernel_work; }
std::optional<long> SldsModel::sequence_steps() const { return steps(); }

double SldsModel::log_probability_work() const {
  return static_cast<double>(impl_->paths.size()) * static_cast<double>(steps() + 1) *
         detail::filter_step_work(state_dim(), observation_dim());
}

const FamilyInfo& slds_family() {
  static const FamilyInfo info = make_family<SldsModel>(kFamily, 13);
  return info;
}

}  // namespace ppk
