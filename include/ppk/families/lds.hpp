// Linear dynamical systems over sequences x_0 .. x_T of real d-vectors (JMLR 2004 section 4.4):
//     s_0 ~ N(mean0, cov0),  s_t = A s_{t-1} + w_t,  w_t ~ N(0, Q),
//     x_t = C s_t + v_t,  v_t ~ N(0, R),  t = 0..T,
// with an n-dimensional hidden state. X = (x_0..x_T) is jointly Gaussian (dimension (T+1)d), and the
// kernel is the exact probability product kernel between those two Gaussians (JMLR 2004 eq. 5), any
// rho > 0: not the k~ over hidden variables, and not the JMLR text's product of per-step kernels
// (docs/design.md "Mathematics", LDS: the observations are correlated across time). Two LDSs may differ in their state
// dimension; they must agree in d and T.
//
// log k is computed in time linear in T by a Kalman filter over the coupled pair of state chains
// (lds.cpp); dense_log_kernel builds both joint Gaussians explicitly (the test oracle).
// T is the kernel's -d when > 0, else the model's own length (as for HMMs).
//
// Row fields (family code 11): 3: n (>= 1)   4: d (>= 1)   5: length T (>= 0)
//   then mean0 (n values), cov0 (lower triangle, n(n+1)/2 values: S11, S21, S22, S31, ...),
//   A (n x n, row by row), Q (lower triangle), C (d x n, row by row), R (lower triangle, d(d+1)/2).
// JSON: {"family":"lds","mean0":[..],"cov0":[[..]],"A":[[..]],"Q":[[..]],"C":[[..]],"R":[[..]],"length":T}
#pragma once

#include <memory>
#include <optional>

#include <Eigen/Core>

#include "ppk/core/family.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"

namespace ppk {

// The sizes of an LDS or SLDS row (and of `ppk fit lds|slds --state-dim`, --length): the state and
// observation dimensions n and d, whose n^2 and d n values must fit in a row (kMaxRowDenseValues), and
// the length T, stored or given by -d T: 10^6, as for factorial HMMs. A kernel runs Kalman filters
// over the T + 1 steps, O(T n^3) each (10^6 steps of a 2-state LDS: 2.6 s per pair); a row claiming
// 10^8 steps would hang the Gram matrix for minutes per pair.
constexpr long kMaxStateSpaceDim = 1000;
constexpr long kMaxSequenceLength = 1000000;

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp):
// the row's n and d, then "length", "mean0", "cov0", "A", "Q", "C", "R".
struct LdsParameters {
  Eigen::VectorXd mean0;  // n
  Eigen::MatrixXd cov0;   // n x n, symmetric
  Eigen::MatrixXd A;      // transition, n x n
  Eigen::MatrixXd Q;      // state noise, n x n, symmetric
  Eigen::MatrixXd C;      // observation, d x n
  Eigen::MatrixXd R;      // observation noise, d x d, symmetric
  long length = 0;        // T
  template <class Archive>
  void fields(Archive& archive);
};

class LdsModel : public Model, public SamplableModel {
 public:
  static constexpr const char* kNameArticle = "an";  // an LDS: the name is read letter by letter
  // Throws ModelError (a FieldError naming field and element) unless every value is finite, the shapes
  // agree (mean0: n, cov0, A, Q: n x n, C: d x n, R: d x d, n and d >= 1), cov0 and Q are symmetric
  // positive semidefinite, R is symmetric positive definite, and length >= 0.
  using Parameters = LdsParameters;
  explicit LdsModel(Parameters parameters);
  LdsModel(Eigen::VectorXd mean0, Eigen::MatrixXd cov0, Eigen::MatrixXd transition, Eigen::MatrixXd state_noise,
           Eigen::MatrixXd observation, Eigen::MatrixXd observation_noise, long length)
      : LdsModel(Parameters{std::move(mean0), std::move(cov0), std::move(transition), std::move(state_noise),
                            std::move(observation), std::move(observation_noise), length}) {}
  Parameters parameters() const;
  const Eigen::VectorXd& mean0() const;
  const Eigen::MatrixXd& cov0() const;
  const Eigen::MatrixXd& transition() const;         // A
  const Eigen::MatrixXd& state_noise() const;        // Q
  const Eigen::MatrixXd& observation() const;        // C
  const Eigen::MatrixXd& observation_noise() const;  // R
  long state_dim() const;                            // n
  long observation_dim() const;                      // d
  long length() const;                               // the stored default T
  long steps() const;  // the T of the kernel once prepared (-d if > 0, else length()); length() before

  // The joint Gaussian of X = (x_0..x_steps()), built densely: mean blocks C A^t mean0, covariance
  // blocks cov(x_t, x_u) = C A^(t-u) Sigma_u C' (t >= u) plus R when t = u, Sigma_u the state covariance.
  std::unique_ptr<GaussianModel> joint_observations() const;

  ~LdsModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;             // uses the prepared T once prepared
  void prepare(const KernelParams& params) override;     // T = params.length if > 0; log|S| by a Kalman filter
  double log_kernel(const Model& other) const override;  // linear in T
  // Every T up to the prepared one from one run of the pair's Kalman filter and of each model's own (their
  // sums over steps 0..T are the kernel's terms at T), at about 1 + 2 (n + d)^3 / (2n + d)^3 times the cost
  // of the kernel at the largest T.
  bool log_kernel_over_lengths(const Model& other, const int* lengths, std::size_t n, double* out) const override;
  double kernel_work() const override;  // (T + 1) (2n + d)^3 (prepare)
  // steps()
  std::optional<long> sequence_steps() const override;

  // SamplableModel interface (sampling.hpp), any rho > 0. A sample is x_0..x_T stacked ((T + 1) d
  // values, T = steps()). Scaling cov0, Q and R by 1/rho scales the joint covariance S by 1/rho, so
  // p^rho / Z = N(m, S / rho) is the same LDS with its noises divided by rho; log Z(rho) is the
  // Gaussian's (gaussian.cpp) with log|S| the sum of the Kalman filter's innovation log-determinants,
  // and log p(x) is the filter's prediction-error decomposition on x.
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double log_probability_work() const override;  // a filter of T + 1 steps: (T + 1) (n + d)^3

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend double dense_log_kernel(const LdsModel& a, const LdsModel& b);
};

// log k_rho between the joint Gaussians of two prepared LDSs (the same rho and T), by the Gaussian
// family's kernel on the dense (T+1)d-dimensional joints: O((T d)^3), the oracle for log_kernel.
// Throws ModelError when (T+1)d exceeds the Gaussian family's largest full covariance (5000).
double dense_log_kernel(const LdsModel& a, const LdsModel& b);

const FamilyInfo& lds_family();

}  // namespace ppk
