// Random linear dynamical systems (and switching ones), sequences simulated from them by running
// the recursion, the dense joint Gaussian of an LDS's states and observations, and utterance-like
// sequences built to provoke explosive fits with a check that the fitted models' kernels are finite,
// and a check of the Gram of adapted rows;
// shared by the LDS and SLDS kernel, estimator, adaptation and Monte Carlo tests.
#pragma once

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "ppk/core/kernel.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/lds.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/slds.hpp"

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
  explicit Simulator(const Lds& s)
      : s_(s), l0_(s.cov0.llt().matrixL()), lq_(s.Q.llt().matrixL()), lr_(s.R.llt().matrixL()) {}
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

// The stacked (T+1)d vector of the simulator as the rows x_0..x_T.
inline Eigen::MatrixXd as_rows(const Eigen::VectorXd& stacked, long d) {
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(stacked.data(),
                                                                                                  stacked.size() / d, d);
}

inline Eigen::MatrixXd simulate_rows(const Lds& s, long count, unsigned seed) {
  std::mt19937 rng(seed);
  return as_rows(Simulator(s).draw(rng, count - 1), s.C.rows());
}

// `count` sequences of 18, 21, 24, 18, ... vectors, the i-th simulate(length, seed + i).
template <class Simulate>
std::vector<Eigen::MatrixXd> simulated_sequences(int count, unsigned seed, Simulate simulate) {
  std::vector<Eigen::MatrixXd> sequences;
  for (int i = 0; i < count; ++i) sequences.push_back(simulate(18 + 3 * (i % 3), seed + static_cast<unsigned>(i)));
  return sequences;
}

// The rows x_0..x_{N-1} stacked into one vector.
inline Eigen::VectorXd stacked(const Eigen::MatrixXd& x) {
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = x;
  return Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size());
}

// log p(X) by the dense joint Gaussian of the observations (lds.hpp), a model of stored length N - 1.
inline double dense_log_likelihood(const LdsModel& model, const Eigen::MatrixXd& x) {
  return model.joint_observations()->log_density(stacked(x));
}

// The joint Gaussian of the states S = (s_0..s_T) and observations X = (x_0..x_T) of an SLDS given
// its regime path r_0..r_T (a non-stationary LDS; an LDS is the case of one regime), built densely
// from the model's equations: E s_t = A_{r_t} E s_{t-1}, Cov(s_t, s_u) = A_{r_t} .. A_{r_{u+1}} Sigma_u
// (t >= u) with Sigma_0 = cov0, Sigma_u = A_{r_u} Sigma_{u-1} A_{r_u}' + Q_{r_u}; X = (I kron C) S + V
// with V ~ N(0, I kron R).
struct DenseJoint {
  Eigen::VectorXd state_mean, observation_mean;
  Eigen::MatrixXd state_cov, cross_cov, observation_cov;  // Cov(S), Cov(X, S), Cov(X)
};

inline DenseJoint dense_path_joint(const SldsParameters& p, const std::vector<int>& path) {
  const long count = static_cast<long>(path.size()), n = p.mean0.size(), d = p.observation.rows();
  const auto transition = [&](long t) -> const Eigen::MatrixXd& {
    return p.state_transitions[static_cast<std::size_t>(path[static_cast<std::size_t>(t)])];
  };
  DenseJoint j;
  j.state_mean.resize(count * n);
  j.state_cov.resize(count * n, count * n);
  Eigen::VectorXd mean = p.mean0;
  Eigen::MatrixXd marginal = p.cov0;
  for (long u = 0; u < count; ++u) {
    j.state_mean.segment(u * n, n) = mean;
    Eigen::MatrixXd block = marginal;  // A_{r_t} .. A_{r_{u+1}} Sigma_u
    for (long t = u; t < count; ++t) {
      j.state_cov.block(t * n, u * n, n, n) = block;
      j.state_cov.block(u * n, t * n, n, n) = block.transpose();
      if (t + 1 < count) block = transition(t + 1) * block;
    }
    if (u + 1 < count) {
      const Eigen::MatrixXd& a = transition(u + 1);
      mean = a * mean;
      marginal = a * marginal * a.transpose() + p.state_noises[static_cast<std::size_t>(path[u + 1])];
    }
  }
  Eigen::MatrixXd c_big = Eigen::MatrixXd::Zero(count * d, count * n),
                  r_big = Eigen::MatrixXd::Zero(count * d, count * d);
  for (long t = 0; t < count; ++t) {
    c_big.block(t * d, t * n, d, n) = p.observation;
    r_big.block(t * d, t * d, d, d) = p.observation_noise;
  }
  j.observation_mean = c_big * j.state_mean;
  j.cross_cov = c_big * j.state_cov;
  j.observation_cov = c_big * j.state_cov * c_big.transpose() + r_big;
  return j;
}

// The LDS as an SLDS of one regime (its chain certain).
inline SldsParameters one_regime(const Lds& s) {
  SldsParameters p;
  p.start = Eigen::VectorXd::Ones(1);
  p.transitions = Eigen::MatrixXd::Ones(1, 1);
  p.state_transitions = {s.A};
  p.state_noises = {s.Q};
  p.mean0 = s.mean0;
  p.cov0 = s.cov0;
  p.observation = s.C;
  p.observation_noise = s.R;
  p.length = s.length;
  return p;
}

inline DenseJoint dense_joint(const Lds& s, long count) {
  return dense_path_joint(one_regime(s), std::vector<int>(static_cast<std::size_t>(count), 0));
}

// log p(X | r) of an SLDS by the dense joint Gaussian of X given the path.
inline double dense_path_log_likelihood(const SldsParameters& p, const std::vector<int>& path, const Eigen::MatrixXd& x) {
  const DenseJoint joint = dense_path_joint(p, path);
  const Eigen::LLT<Eigen::MatrixXd> llt(joint.observation_cov);
  const Eigen::VectorXd whitened = llt.matrixL().solve(stacked(x) - joint.observation_mean);
  return -0.5 * (static_cast<double>(x.size()) * std::log(2.0 * 3.14159265358979323846) +
                 2.0 * llt.matrixLLT().diagonal().array().log().sum() + whitened.squaredNorm());
}

// The conditional moments of the states given the observations x (rows x_0..x_{N-1}) from the dense
// joint: E[S | X] = m_S + Cov(S, X) Cov(X)^-1 (X - m_X), Cov(S | X) = Cov(S) - Cov(S, X) Cov(X)^-1 Cov(X, S).
struct DensePosterior {
  Eigen::VectorXd mean;  // E[S | X], (s_0..s_{N-1}) stacked
  Eigen::MatrixXd cov;   // Cov(S | X)
};
inline DensePosterior dense_posterior(const DenseJoint& joint, const Eigen::MatrixXd& x) {
  const Eigen::LDLT<Eigen::MatrixXd> observation_cov(joint.observation_cov);
  return {joint.state_mean + joint.cross_cov.transpose() * observation_cov.solve(stacked(x) - joint.observation_mean),
          joint.state_cov - joint.cross_cov.transpose() * observation_cov.solve(joint.cross_cov)};
}
inline DensePosterior dense_posterior(const Lds& s, const Eigen::MatrixXd& x) {
  return dense_posterior(dense_joint(s, x.rows()), x);
}

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

// An utterance-like sequence built to provoke explosive, noise-free LDS estimates (estimate_lds.hpp,
// "Finite kernels by construction"): `frames` vectors of d coordinates (13 MFCCs per frame, 24-40
// frames per word), a large per-utterance mean (the LDS has no offset), an onset and a decay of the
// first coordinate (the energy), three "phones" blended smoothly, a burst in a random direction that
// grows 2.5-fold per frame into the last frame (a release), and little noise (0.3 against coordinate
// scales of 1-40). Unconstrained EM with n = 4 fits the burst by a transition eigenvalue near 2.5 and
// drives R's smallest eigenvalues to 1e-4 of the coordinates' variances (measured: 2.46-2.54 on 12
// such sequences, and self-kernels that are NaN from T = 30 on).
inline Eigen::MatrixXd provoking_utterance(std::mt19937& rng, long frames, long d) {
  std::normal_distribution<double> normal;
  Eigen::VectorXd mean(d);
  for (long j = 0; j < d; ++j) mean(j) = (j == 0 ? 40.0 : 12.0 / (1.0 + j)) * normal(rng);
  const long phones = 3;
  Eigen::MatrixXd targets(phones, d);
  for (long k = 0; k < phones; ++k)
    for (long j = 0; j < d; ++j) targets(k, j) = (j == 0 ? 10.0 : 8.0 / (1.0 + 0.5 * j)) * normal(rng);
  const Eigen::VectorXd burst = 20.0 * Eigen::VectorXd::NullaryExpr(d, [&] { return normal(rng); });
  Eigen::MatrixXd x(frames, d);
  for (long t = 0; t < frames; ++t) {
    const double position = (t + 0.5) / static_cast<double>(frames) * phones - 0.5;
    Eigen::VectorXd blend = Eigen::VectorXd::Zero(d);
    double weights = 0;
    for (long k = 0; k < phones; ++k) {
      const double w = std::exp(-2.0 * (position - k) * (position - k));
      blend += w * targets.row(k).transpose();
      weights += w;
    }
    const double envelope = 1.0 / (1.0 + std::exp(4.0 - t)) / (1.0 + std::exp(t - frames + 5.0));
    Eigen::VectorXd frame = mean + envelope * blend / weights;
    frame(0) += 30.0 * envelope;
    frame += std::pow(2.5, static_cast<double>(t - frames + 1)) * burst;
    for (long j = 0; j < d; ++j) frame(j) += 0.3 * normal(rng);
    x.row(t) = frame.transpose();
  }
  return x;
}

// The kernels between fitted state-space models at T = 10, 100, 1000 and rho = 0.1, 0.5, 1 (estimate_lds.hpp,
// "Finite kernels by construction"): every log k (self and cross, the ppk kernel in log space) finite,
// every ppk_norm value finite and at most 1 (Cauchy-Schwarz), and every ppk value finite unless
// check_finite_kernel_values refuses the row because k(p, p) itself is beyond the largest double.
inline void fitted_kernels_are_finite(const std::vector<std::unique_ptr<Model>>& models) {
  for (long length : {10L, 100L, 1000L})
    for (double rho : {0.1, 0.5, 1.0}) {
      const std::string what = "T " + std::to_string(length) + ", rho " + std::to_string(rho);
      KernelParams params;
      params.rho = rho;
      params.length = length;
      std::vector<std::unique_ptr<PreparedModel>> prepared;
      for (const auto& model : models)  // throws when a self-kernel is not finite
        prepared.push_back(std::make_unique<PreparedModel>(decode_row(encode_row(*model)), params));
      std::vector<bool> representable;  // k(p, p) within a double: check_finite_kernel_values accepts ppk
      for (const auto& p : prepared) {
        try {
          check_finite_kernel_values(KernelKind::ppk, *p);
          representable.push_back(true);
        } catch (const KernelDomainError&) {
          representable.push_back(false);
        }
      }
      for (std::size_t i = 0; i < prepared.size(); ++i)
        for (std::size_t j = i; j < prepared.size(); ++j) {
          const std::string pair = what + ", models " + std::to_string(i) + ", " + std::to_string(j);
          EXPECT_TRUE(std::isfinite(log_kernel(*prepared[i], *prepared[j]))) << pair;
          const double normalized = normalized_kernel(*prepared[i], *prepared[j]);
          EXPECT_TRUE(std::isfinite(normalized) && normalized <= 1.0 + 1e-9) << pair << ": " << normalized;
          if (representable[i] && representable[j]) {
            EXPECT_TRUE(std::isfinite(kernel(*prepared[i], *prepared[j]))) << pair;
          }
        }
    }
}

// The kernels between rows at T = `length` and rho = 0.5, 1: every log k finite, and the normalised
// Gram k(a, b) / sqrt(k(a, a) k(b, b)), from the log kernels, PSD (the adapted rows of a pooled
// state-space model with the pooled row).
inline void expect_finite_kernels_and_psd_normalised_gram(const std::vector<std::unique_ptr<Model>>& rows, int length) {
  for (double rho : {0.5, 1.0}) {
    std::vector<PreparedModel> prepared;
    for (const auto& row : rows) prepared.emplace_back(decode_row(encode_row(*row)), KernelParams{rho, length});
    const Eigen::Index count = static_cast<Eigen::Index>(prepared.size());
    Eigen::MatrixXd gram(count, count);
    for (Eigen::Index i = 0; i < count; ++i)
      for (Eigen::Index j = 0; j < count; ++j) {
        const double value = log_kernel(prepared[static_cast<std::size_t>(i)], prepared[static_cast<std::size_t>(j)]);
        ASSERT_TRUE(std::isfinite(value)) << "rho " << rho << ", rows " << i << ", " << j;
        gram(i, j) = value;
      }
    Eigen::MatrixXd normalised(count, count);
    for (Eigen::Index i = 0; i < count; ++i)
      for (Eigen::Index j = 0; j < count; ++j) normalised(i, j) = std::exp(gram(i, j) - 0.5 * (gram(i, i) + gram(j, j)));
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(normalised).eigenvalues().minCoeff(), -1e-9)
        << "rho " << rho;
  }
}

}  // namespace ppk
