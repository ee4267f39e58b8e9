// Factorial HMMs in plain numbers and the exact kernel k~ through the equivalent HMM over the product
// state space (the oracle of the fhmm bound, test_fhmm.cpp, and of its Monte Carlo estimate,
// test_montecarlo_state_space.cpp), with the enumeration of hidden paths.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "kernel_params.hpp"
#include "ppk/families/fhmm.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/hmm.hpp"

namespace ppk::fhmm_oracles {

// A factorial HMM in plain numbers.
struct Fhmm {
  std::vector<FhmmChain> chains;
  Eigen::MatrixXd cov;
  long length = 0;
};

inline std::unique_ptr<FhmmModel> fhmm_model(const Fhmm& f) {
  return std::make_unique<FhmmModel>(f.chains, f.cov, f.length);
}

// A probability vector drawn uniformly from the simplex (normalised exponentials).
inline Eigen::VectorXd random_probabilities(std::mt19937& rng, long size) {
  std::exponential_distribution<double> exponential;
  Eigen::VectorXd p = Eigen::VectorXd::NullaryExpr(size, [&] { return exponential(rng); });
  return p / p.sum();
}

// C chains with the given state counts, means of spread `spread` (N(0, spread^2) entries) in d
// dimensions, and a covariance B B'/d + 0.2 I.
inline Fhmm random_fhmm(std::mt19937& rng, const std::vector<long>& states, long d, long length, double spread) {
  std::normal_distribution<double> normal;
  Fhmm f;
  for (long m : states) {
    FhmmChain chain;
    chain.start = random_probabilities(rng, m);
    chain.trans.resize(m, m);
    for (long p = 0; p < m; ++p) chain.trans.row(p) = random_probabilities(rng, m).transpose();
    chain.means = spread * Eigen::MatrixXd::NullaryExpr(d, m, [&] { return normal(rng); });
    f.chains.push_back(chain);
  }
  const Eigen::MatrixXd b = Eigen::MatrixXd::NullaryExpr(d, d, [&] { return normal(rng); });
  f.cov = b * b.transpose() / static_cast<double>(d) + 0.2 * Eigen::MatrixXd::Identity(d, d);
  f.length = length;
  return f;
}

// The product state space: state s is the tuple (k_0..k_{C-1}) with k_0 varying fastest.
inline std::vector<long> state_tuple(const Fhmm& f, long s) {
  std::vector<long> tuple;
  for (const FhmmChain& chain : f.chains) {
    const long m = static_cast<long>(chain.start.size());
    tuple.push_back(s % m);
    s /= m;
  }
  return tuple;
}

inline long product_states(const Fhmm& f) {
  long count = 1;
  for (const FhmmChain& chain : f.chains) count *= static_cast<long>(chain.start.size());
  return count;
}

// The equivalent HMM: start prod_c pi_c(k_c), transitions prod_c A_c(k_c, l_c), and the emission
// N(sum_c W_c[:, k_c], Sigma) in state (k_c)_c.
inline std::unique_ptr<HmmModel> product_hmm(const Fhmm& f) {
  const long count = product_states(f);
  Eigen::VectorXd start(count);
  Eigen::MatrixXd trans(count, count);
  std::vector<std::unique_ptr<Model>> emissions;
  for (long s = 0; s < count; ++s) {
    const std::vector<long> from = state_tuple(f, s);
    start[s] = 1.0;
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(f.cov.rows());
    for (std::size_t c = 0; c < f.chains.size(); ++c) {
      start[s] *= f.chains[c].start[from[c]];
      mean += f.chains[c].means.col(from[c]);
    }
    for (long r = 0; r < count; ++r) {
      const std::vector<long> to = state_tuple(f, r);
      trans(s, r) = 1.0;
      for (std::size_t c = 0; c < f.chains.size(); ++c) trans(s, r) *= f.chains[c].trans(from[c], to[c]);
    }
    emissions.push_back(GaussianModel::full(mean, f.cov));
  }
  return std::make_unique<HmmModel>(start, trans, std::move(emissions), f.length);
}

inline double exact_log_kernel(const Fhmm& a, const Fhmm& b, double rho) {
  auto hmm_a = product_hmm(a), hmm_b = product_hmm(b);
  hmm_a->prepare(with_rho(rho));
  hmm_b->prepare(with_rho(rho));
  return hmm_a->log_kernel(*hmm_b);
}

inline double bound_log_kernel(const Fhmm& a, const Fhmm& b, double rho) {
  auto model_a = fhmm_model(a), model_b = fhmm_model(b);
  model_a->prepare(with_rho(rho));
  model_b->prepare(with_rho(rho));
  return model_a->log_kernel(*model_b);
}

// Calls f(path) for every sequence of `steps` + 1 product states.
inline void for_each_path(long states, long steps, const std::function<void(const std::vector<long>&)>& f) {
  std::vector<long> path(static_cast<std::size_t>(steps + 1), 0);
  for (;;) {
    f(path);
    std::size_t t = 0;
    while (t < path.size() && ++path[t] == states) path[t++] = 0;
    if (t == path.size()) return;
  }
}

// p(path) = prod_c [pi_c(k_0^c) prod_t A_c(k_{t-1}^c, k_t^c)], from the chains directly.
inline double path_probability(const Fhmm& f, const std::vector<long>& path) {
  double p = 1.0;
  for (std::size_t t = 0; t < path.size(); ++t) {
    const std::vector<long> now = state_tuple(f, path[t]);
    for (std::size_t c = 0; c < f.chains.size(); ++c) {
      if (t == 0) {
        p *= f.chains[c].start[now[c]];
      } else {
        p *= f.chains[c].trans(state_tuple(f, path[t - 1])[c], now[c]);
      }
    }
  }
  return p;
}

}  // namespace ppk::fhmm_oracles
