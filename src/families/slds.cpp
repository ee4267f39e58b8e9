// Switching linear dynamical systems and their hybrid-sampling kernel (see slds.hpp).
//
// Given a path q of one model and q' of the other, X and X' are the observations of two
// non-stationary LDSs, and log k_rho between their joint Gaussians is lds.cpp's: each model's share
// (1-2rho)D/4 log 2pi - D/4 log rho + (1-rho)/2 log|S_q| (state_space.hpp log_kernel_share; log|S_q| by
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
#include <vector>

#include <nlohmann/json.hpp>

#include "core/family_fields.hpp"
#include "core/model_fields.hpp"
#include "ppk/core/row.hpp"
#include "families/state_space.hpp"

namespace ppk {

using detail::field_error;
using detail::MatrixField;

namespace {

const char* const kFamily = "slds";
constexpr long kMaxStates = 1000;  // K: K^2 transitions must fit in a row
constexpr long kMaxPaths = 1000;   // S: a kernel evaluation runs up to S S' filters

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

struct SldsModel::Impl {
  SldsParameters parameters;
  detail::SwitchingStateSpace space;  // regime k: (A_k, Q_k)
  std::uint64_t seed = 0;
  // Set by prepare():
  double rho = 0.0;
  long steps = -1;                      // the T of the kernel
  std::vector<std::vector<int>> paths;  // the S drawn paths, q_0..q_T each
  std::vector<std::size_t> distinct;    // one index into paths per distinct path
  std::vector<double> log_share;        // per distinct path: log c_i + log_kernel_share(log|S_q|)
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
  m.steps = params.length > 0 ? params.length : p.length;
  // The paths (slds.hpp): S (T+1) uniforms from the seeded generator, in order.
  std::mt19937_64 bits(m.seed);
  const auto uniform = [&bits] { return static_cast<double>(bits() >> 11) * 0x1.0p-53; };
  m.paths.assign(static_cast<std::size_t>(p.paths), std::vector<int>(static_cast<std::size_t>(m.steps + 1)));
  for (std::vector<int>& path : m.paths) {
    path[0] = draw_state(p.start.transpose(), uniform());
    for (std::size_t t = 1; t < path.size(); ++t) path[t] = draw_state(p.transitions.row(path[t - 1]), uniform());
  }
  // Distinct paths and their counts; the share of each in log k (the file comment).
  std::vector<std::size_t> order(m.paths.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return m.paths[i] < m.paths[j]; });
  m.distinct.clear();
  m.log_share.clear();
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first + 1;
    while (last < order.size() && m.paths[order[last]] == m.paths[order[first]]) ++last;
    const std::vector<int>& path = m.paths[order[first]];
    detail::check_finite_moments(kFamily, m.space, m.steps, [&path](long t) { return path[t]; });
    const double log_det = detail::innovation_sums(m.space, m.steps, [&path](long t) { return path[t]; }).log_det;
    m.distinct.push_back(order[first]);
    m.log_share.push_back(std::log(static_cast<double>(last - first)) +
                          detail::log_kernel_share(m.rho, m.steps, observation_dim(), log_det));
    first = last;
  }
}

double SldsModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const SldsModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.steps != b.steps || a.space.observation.rows() != b.space.observation.rows())
    detail::throw_unprepared_pair(kFamily);
  thread_local detail::SwitchingStateSpace pair;
  thread_local std::vector<double> terms;
  detail::stack_difference(a.space, b.space, pair);
  const int regimes_b = static_cast<int>(b.space.dynamics.size());
  terms.clear();
  for (std::size_t i = 0; i < a.distinct.size(); ++i)
    for (std::size_t j = 0; j < b.distinct.size(); ++j) {
      const std::vector<int>& path_a = a.paths[a.distinct[i]];
      const std::vector<int>& path_b = b.paths[b.distinct[j]];
      const auto pair_regime = [&](long t) { return path_a[t] * regimes_b + path_b[t]; };
      terms.push_back(detail::log_kernel_from_sums(a.log_share[i], b.log_share[j], a.rho,
                                                   detail::innovation_sums(pair, a.steps, pair_regime)));
    }
  return detail::log_sum_exp(terms) - std::log(static_cast<double>(a.paths.size())) -
         std::log(static_cast<double>(b.paths.size()));
}

// Row fields: K, n, d, T, S, start, trans, A, Q, mean0, cov0, C, R (see slds.hpp).
void SldsModel::encode_fields(RowWriter& out) const {
  const SldsParameters& p = impl_->parameters;
  out.real(static_cast<double>(discrete_states()));
  out.real(static_cast<double>(state_dim()));
  out.real(static_cast<double>(observation_dim()));
  out.real(static_cast<double>(p.length));
  out.real(static_cast<double>(p.paths));
  out.reals(p.start.data(), p.start.data() + p.start.size());
  detail::write_row_major(out, p.transitions);
  for (const Eigen::MatrixXd& a : p.state_transitions) detail::write_row_major(out, a);
  for (const Eigen::MatrixXd& q : p.state_noises) detail::write_lower_triangle(out, q);
  out.reals(p.mean0.data(), p.mean0.data() + p.mean0.size());
  detail::write_lower_triangle(out, p.cov0);
  detail::write_row_major(out, p.observation);
  detail::write_lower_triangle(out, p.observation_noise);
}

void SldsModel::to_json(nlohmann::json& out) const {
  const SldsParameters& p = impl_->parameters;
  const auto json_list = [](const std::vector<Eigen::MatrixXd>& matrices) {
    nlohmann::json list = nlohmann::json::array();
    for (const Eigen::MatrixXd& matrix : matrices) list.push_back(detail::json_rows(matrix));
    return list;
  };
  out = nlohmann::json::object();
  out["family"] = kFamily;
  out["start"] = std::vector<double>(p.start.data(), p.start.data() + p.start.size());
  out["trans"] = detail::json_rows(p.transitions);
  out["A"] = json_list(p.state_transitions);
  out["Q"] = json_list(p.state_noises);
  out["mean0"] = std::vector<double>(p.mean0.data(), p.mean0.data() + p.mean0.size());
  out["cov0"] = detail::json_rows(p.cov0);
  out["C"] = detail::json_rows(p.observation);
  out["R"] = detail::json_rows(p.observation_noise);
  out["length"] = p.length;
  out["paths"] = p.paths;
}

namespace {

Eigen::VectorXd vector_of(const std::vector<double>& values) {
  return Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

std::unique_ptr<Model> decode_slds(RowReader& fields) {
  const long states = fields.integer("K", 1, kMaxStates);
  const long n = fields.integer("n", 1, detail::kMaxStateSpaceDim);
  const long d = fields.integer("d", 1, detail::kMaxStateSpaceDim);
  const long length_first = fields.next_index();
  SldsParameters p;
  p.length = fields.integer("length", 0, detail::kMaxSequenceLength);
  const long paths_first = fields.next_index();
  p.paths = fields.integer("paths", 1, kMaxPaths);
  const long start_first = fields.next_index();
  p.start = vector_of(fields.reals("start", static_cast<std::size_t>(states)));
  detail::RowMatrix transitions = detail::read_general(fields, "trans", states, states);
  detail::RowMatrices state_transitions = detail::read_general_list(fields, "A", states, n, n);
  detail::RowMatrices state_noises = detail::read_symmetric_list(fields, "Q", states, n);
  const long mean_first = fields.next_index();
  p.mean0 = vector_of(fields.reals("mean0", static_cast<std::size_t>(n)));
  detail::RowMatrix cov0 = detail::read_symmetric(fields, "cov0", n);
  detail::RowMatrix observation = detail::read_general(fields, "C", d, n);
  detail::RowMatrix observation_noise = detail::read_symmetric(fields, "R", d);
  return detail::build_from_row({{"length", length_first, 1},
                                 {"paths", paths_first, 1},
                                 {"start", start_first, states},
                                 transitions.span,
                                 state_transitions.span,
                                 state_noises.span,
                                 {"mean0", mean_first, n},
                                 cov0.span,
                                 observation.span,
                                 observation_noise.span},
                                [&] {
                                  p.transitions = std::move(transitions.matrix);
                                  p.state_transitions = std::move(state_transitions.matrices);
                                  p.state_noises = std::move(state_noises.matrices);
                                  p.cov0 = std::move(cov0.matrix);
                                  p.observation = std::move(observation.matrix);
                                  p.observation_noise = std::move(observation_noise.matrix);
                                  return std::make_unique<SldsModel>(std::move(p));
                                });
}

std::unique_ptr<Model> slds_from_json(const nlohmann::json& object) {
  const detail::JsonFields fields(object, kFamily,
                                  {"start", "trans", "A", "Q", "mean0", "cov0", "C", "R", "length", "paths"});
  SldsParameters p;
  p.start = vector_of(fields.reals("start"));
  p.transitions = detail::json_matrix(fields, "trans");
  p.state_transitions = detail::json_matrices(fields, "A");
  p.state_noises = detail::json_matrices(fields, "Q");
  p.mean0 = vector_of(fields.reals("mean0"));
  p.cov0 = detail::json_matrix(fields, "cov0");
  p.observation = detail::json_matrix(fields, "C");
  p.observation_noise = detail::json_matrix(fields, "R");
  p.length = fields.whole_number("length", 0, detail::kMaxSequenceLength);
  p.paths = fields.whole_number("paths", 1, kMaxPaths);
  return std::make_unique<SldsModel>(std::move(p));
}

}  // namespace

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

const FamilyInfo& slds_family() {
  static const FamilyInfo info = hand_written_family<SldsModel>(kFamily, 13, &decode_slds, &slds_from_json);
  return info;
}

}  // namespace ppk
