// Random linear dynamical systems (and switching ones) and sequences simulated from them by running
// the recursion, shared by the LDS and SLDS kernel, estimator and Monte Carlo tests.
#pragma once

#include <memory>
#include <random>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "ppk/lds.hpp"
#include "ppk/slds.hpp"

namespace ppk {

// An LDS in plain matrices.
struct Lds {
  Eigen::VectorXd mean0;
  Eigen::MatrixXd cov0, A, Q, C, R;
  long length = 0;
};

inline std::unique_ptr<LdsModel> lds_model(const Lds& s) {
  return std::make_unique<LdsModel>(s.mean0, s.cov0, s.A, s.Q, s.C, s.R, s.length);
}

inline Eigen::MatrixXd random_matrix(std::mt19937& rng, long rows, long cols) {
  std::normal_distribution<double> normal;
  return Eigen::MatrixXd::NullaryExpr(rows, cols, [&] { return normal(rng); });
}

// B B' / dim + floor I: symmetric positive definite.
inline Eigen::MatrixXd random_covariance(std::mt19937& rng, long dim, double floor) {
  const Eigen::MatrixXd b = random_matrix(rng, dim, dim);
  return b * b.transpose() / static_cast<double>(dim) + floor * Eigen::MatrixXd::Identity(dim, dim);
}

// A n x n with spectral norm 0.9: a stable transition (the state covariance stays bounded for any T).
inline Eigen::MatrixXd random_stable_transition(std::mt19937& rng, long n) {
  const Eigen::MatrixXd a = random_matrix(rng, n, n);
  return a * (0.9 / Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues()(0));
}

// A stable LDS (random_stable_transition).
inline Lds random_lds(std::mt19937& rng, long n, long d, long length) {
  Lds s;
  s.mean0 = random_matrix(rng, n, 1);
  s.cov0 = random_covariance(rng, n, 0.1);
  s.A = random_stable_transition(rng, n);
  s.Q = random_covariance(rng, n, 0.05);
  s.C = random_matrix(rng, d, n);
  s.R = random_covariance(rng, d, 0.2);
  s.length = length;
  return s;
}

// One sequence x_0..x_T drawn by running the recursion s_t = A s_{t-1} + w_t, x_t = C s_t + v_t,
// stacked into a (T+1)d vector. Noise by Cholesky factors of cov0, Q and R (positive definite here).
class Simulator {
 public:
  explicit Simulator(const Lds& s) : s_(s), l0_(s.cov0.llt().matrixL()), lq_(s.Q.llt().matrixL()), lr_(s.R.llt().matrixL()) {}
  Eigen::VectorXd draw(std::mt19937& rng, long steps) {
    const long d = s_.C.rows();
    Eigen::VectorXd x((steps + 1) * d);
    Eigen::VectorXd state = s_.mean0 + l0_ * normals(rng, s_.mean0.size());
    for (long t = 0; t <= steps; ++t) {
      if (t > 0) state = s_.A * state + lq_ * normals(rng, state.size());
      x.segment(t * d, d) = s_.C * state + lr_ * normals(rng, d);
    }
    return x;
  }

 private:
  Eigen::VectorXd normals(std::mt19937& rng, long size) {
    Eigen::VectorXd z(size);
    for (long i = 0; i < size; ++i) z[i] = normal_(rng);
    return z;
  }
  Lds s_;
  Eigen::MatrixXd l0_, lq_, lr_;
  std::normal_distribution<double> normal_;
};

// A stochastic vector with every entry at least 0.05 (each state reachable).
inline Eigen::VectorXd random_reachable_probabilities(std::mt19937& rng, long size) {
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  Eigen::VectorXd p = Eigen::VectorXd::NullaryExpr(size, [&] { return uniform(rng); });
  return p / p.sum();
}

// K discrete states, each with a stable A_k (spectral norm 0.9) and its own Q_k.
inline SldsParameters random_slds(std::mt19937& rng, long states, long n, long d, long length, long paths) {
  SldsParameters p;
  p.start = random_reachable_probabilities(rng, states);
  p.transitions.resize(states, states);
  for (long k = 0; k < states; ++k) p.transitions.row(k) = random_reachable_probabilities(rng, states).transpose();
  for (long k = 0; k < states; ++k) {
    p.state_transitions.push_back(random_stable_transition(rng, n));
    p.state_noises.push_back(random_covariance(rng, n, 0.05));
  }
  p.mean0 = random_matrix(rng, n, 1);
  p.cov0 = random_covariance(rng, n, 0.1);
  p.observation = random_matrix(rng, d, n);
  p.observation_noise = random_covariance(rng, d, 0.2);
  p.length = length;
  p.paths = paths;
  return p;
}

}  // namespace ppk
