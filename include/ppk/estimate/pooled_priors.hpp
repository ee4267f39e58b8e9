// Priors centred on pooled training statistics, and their strength chosen by maximum evidence
// (empirical Bayes; docs/priors-by-evidence.md): an inverse-Wishart prior on covariances centred on a
// pooled covariance, and a Gamma prior on Poisson and exponential rates centred on the pooled ones.
//
// The prior on a p x p covariance Sigma, centred on C (positive definite) with nu degrees of freedom:
//   Sigma ~ IW(nu, Psi),  Psi = (nu - p - 1) C,  nu > p + 1,
//   p(Sigma) = |Psi|^(nu/2) / (2^(nu p/2) Gamma_p(nu/2)) |Sigma|^(-(nu + p + 1)/2) exp(-tr(Psi Sigma^-1)/2),
// whose mean E[Sigma] = Psi / (nu - p - 1) is C for every nu (so a pooled covariance estimates the
// centre whatever the strength), and which concentrates on C as nu grows. For p = 1 this is the
// scaled inverse-chi^2 distribution of a variance.
//
// The data seen by the prior: scatters S = sum_j y_j y_j' of m zero-mean Gaussian vectors
// y_j ~ N(0, Sigma), m > 0 (a Gaussian example of n vectors with a flat prior on its mean gives
// m = n - 1 and S its centred scatter). The evidence of one scatter integrates Sigma out:
//   log p(S | nu) = log integral prod_j N(y_j | 0, Sigma) p(Sigma) dSigma
//     = -(m p/2) log pi + log Gamma_p((nu + m)/2) - log Gamma_p(nu/2)
//       + (nu/2) log|Psi| - ((nu + m)/2) log|Psi + S|,
// Gamma_p the multivariate gamma function. With a = nu - p - 1 and lambda_k the eigenvalues of
// C^-1 S (computed as those of L^-1 S L^-T, C = L L'), |Psi + S| = |C| prod_k (a + lambda_k), so
//   log p(S | nu) = -(m p/2) log pi - (m/2) log|C| + log Gamma_p((nu + m)/2) - log Gamma_p(nu/2)
//                   + (nu p/2) log a - ((nu + m)/2) sum_k log(a + lambda_k),
// and its derivatives in nu are sums of digamma/trigamma terms and rational functions of a.
#pragma once

#include <functional>
#include <vector>

#include <Eigen/Core>

namespace ppk {

// The scatters of many groups under one prior strength nu (each with its own centre, so that the
// diagonal and isotropic Gaussian forms are groups of 1 x 1 blocks).
class InverseWishartEvidence {
 public:
  // One scatter S (p x p, symmetric positive semidefinite) of m > 0 zero-mean vectors under
  // IW(nu, (nu - p - 1) centre). EstimationError unless the centre is positive definite and the
  // shapes agree.
  void add(const Eigen::MatrixXd& centre, const Eigen::MatrixXd& scatter, double dof);

  bool empty() const { return groups_.empty(); }
  // The smallest admissible nu is lowest_nu() (exclusive): the largest p + 1 over the groups.
  double lowest_nu() const { return lowest_nu_; }
  // The summed log evidence and its first and second derivatives in nu (nu > lowest_nu()).
  double log_evidence(double nu) const { return summed(nu, 0); }
  double derivative(double nu) const { return summed(nu, 1); }
  double second_derivative(double nu) const { return summed(nu, 2); }

 private:
  double summed(double nu, int order) const;
  struct Group {
    long p;
    double dof;
    Eigen::VectorXd eigenvalues;  // of C^-1 S
    double log_det_centre;
  };
  std::vector<Group> groups_;
  double lowest_nu_ = 0.0;
};

// The strength that maximises the summed evidence. nu is searched as nu = lowest + exp(t) over
// t in [log 1e-6, log 1e8] (a grid of 200 points, then Brent's method around the best one);
// when the best is the upper end the evidence still rises there (the groups' covariances are as
// alike as the centre allows) and `at_upper_bound` says so.
struct StrengthChoice {
  double nu = 0.0;
  // 1 / sqrt(observed information), -1/second_derivative(nu); infinite at the upper bound or when
  // the curvature is not negative.
  double standard_error = 0.0;
  bool at_upper_bound = false;
};
// EstimationError when there is nothing to choose from (no group).
StrengthChoice maximise_evidence(const InverseWishartEvidence& evidence);

// The same search for any smooth log evidence f(s) of a strength s > lowest (s = lowest + exp(t),
// t in [log 1e-6, log 1e8]), given f and its first and second derivatives in s.
// `grid` points (at least 3) for the first scan: fewer for curves that are costly to evaluate.
struct EvidenceCurve {
  double lowest = 0.0;
  std::function<double(double)> log_evidence, derivative, second_derivative;
  int grid = 200;
};
StrengthChoice maximise_evidence(const EvidenceCurve& curve);

// The evidence of rates under a Gamma prior centred on pooled means, shared by Poisson and
// exponential rows: rate_d ~ Gamma(A, B_d), shape A shared by the features, B_d = (A - c) / r_d.
// Both likelihoods are rate^k exp(-rate t) ("k events in exposure t"), so one term
//   log p(data | A) = log Gamma(A + k) - log Gamma(A) + A log B_d - (A + k) log(B_d + t)
// serves both:
//  - Poisson (negative binomial evidence; c = 0, so E[rate_d] = r_d, the pooled rate): an example of
//    n vectors whose counts of feature d sum to s has k = s, t = n; the term -sum_j log x_jd! does
//    not depend on A and is left out.
//  - exponential (Lomax evidence, exact; c = 1, r_d = 1 / bbar_d, bbar_d the pooled mean): B_d =
//    (A - 1) bbar_d, so that the prior mean of the scale E[1 / rate_d] = B_d / (A - 1) = bbar_d,
//    which is what the pooled mean of x estimates whatever A (E[x] = E[1 / rate]); it needs A > 1.
//    An example of n values of feature d summing to S has k = n, t = S, and the term is the Lomax
//    marginal log [B^A Gamma(A + n) / (Gamma(A) (B + S)^(A + n))].
// Features with r_d = 0 (Poisson) or bbar_d = 0 (exponential) carry no information and are skipped.
class GammaRateEvidence {
 public:
  // A Poisson example: its number of vectors n and the D x 1 count sums s_d; `rates` the pooled r_d.
  void add_counts(double n, const Eigen::VectorXd& sums, const Eigen::VectorXd& rates);
  // An exponential example: its number of vectors n (absent coordinates are 0-valued observations)
  // and the D x 1 value sums S_d; `scales` the pooled means bbar_d.
  void add_waiting_times(double n, const Eigen::VectorXd& sums, const Eigen::VectorXd& scales);
  bool empty() const { return terms_.empty(); }
  // The shape must exceed lowest(): 0 with counts only, 1 with waiting times.
  double lowest() const { return lowest_; }
  double log_evidence(double shape) const;
  double derivative(double shape) const;
  double second_derivative(double shape) const;

 private:
  struct Term {
    double exposure, events, rate, offset;  // t, k, r, c
  };
  std::vector<Term> terms_;
  double lowest_ = 0.0;
};
StrengthChoice maximise_evidence(const GammaRateEvidence& evidence);

// The evidence of gamma rows under the conjugate prior of the gamma family centred on pooled
// statistics (ppk fit gamma --prior pooled; docs/priors-by-evidence.md). For one feature, a gamma
// with shape a and rate beta = 1/b has natural parameters (a - 1, -beta) and sufficient statistics
// (log x, x). The conjugate prior of strength N0 > 0 centred on the pooled means m = E[x] and
// l = E[log x] (l < log m by Jensen) is N0 pseudo-observations with those statistics, with respect
// to da dbeta:
//   p(a, beta | N0) = exp(N0 [(a - 1) l - beta m + a log beta - log Gamma(a)]) / Z(N0, N0 m, N0 l),
//   Z(nu, S, L) = integral over a, beta > 0 of exp((a - 1) L - beta S + nu a log beta - nu log Gamma(a))
//               = integral over a > 0 of exp((a - 1) L - nu log Gamma(a) + log Gamma(nu a + 1)
//                                         - (nu a + 1) log S) da
// (the beta integral is a gamma integral; the a integral is finite for L / nu < log(S / nu)). Its
// mode is the maximum-likelihood fit of nu observations with sums S, L, which is why the map
// estimate is the ML fit of the data plus the pseudo-observations. An example of n vectors whose
// values of the feature sum to s and whose logs sum to t has the exact evidence
//   log p(x | N0) = log Z(N0 + n, N0 m + s, N0 l + t) - log Z(N0, N0 m, N0 l)
// (the likelihood prod_j x_j^(a - 1) exp(-beta x_j) beta^a / Gamma(a) has no other factor); the
// features are independent and their terms add.
//
// Z is a 1-D integral, computed in u = log a (da = e^u du) by the trapezoidal rule around the
// integrand's peak, with steps of a sixth of its curvature scale until it falls below e^-45 of the
// peak; the integrand is smooth and decays exponentially on both sides, where the trapezoidal rule
// converges geometrically (checked against Boost's adaptive quadrature over (a, beta) in the tests).
// The derivatives in N0 are moments of d/dN0 of the log integrand under the normalised integrand:
//   d log Z / dN0 = E[h],  d^2 log Z / dN0^2 = E[h'] + Var[h],
//   h  = (a - 1) l - log Gamma(a) + a digamma(nu a + 1) - a log S - (nu a + 1) m / S,
//   h' = a^2 trigamma(nu a + 1) - 2 a m / S + (nu a + 1) m^2 / S^2.
struct GammaConjugateIntegral {
  double log_value, derivative, second_derivative;  // log Z and its derivatives in N0
};
// Z(nu, S, L) for a prior centred on (m, l) (the derivatives are along nu = N0 + n, S = N0 m + s,
// L = N0 l + t). EstimationError unless nu > 0, S > 0 and L / nu < log(S / nu).
GammaConjugateIntegral gamma_conjugate_integral(double nu, double sum, double log_sum, double mean, double log_mean);

class GammaShapeEvidence {
 public:
  // An example of n vectors whose values of feature d sum to sums(d) and whose logs sum to
  // log_sums(d), under the prior centred on means(d) (of x) and log_means(d) (of log x).
  void add(double n, const Eigen::VectorXd& sums, const Eigen::VectorXd& log_sums, const Eigen::VectorXd& means,
           const Eigen::VectorXd& log_means);
  bool empty() const { return terms_.empty(); }
  // The summed log evidence at N0 = count, and with `derivatives` its derivatives in N0.
  GammaConjugateIntegral summed(double count, bool derivatives) const;

 private:
  struct Term {
    double n, sum, log_sum, mean, log_mean;
  };
  std::vector<Term> terms_;
};
// The strength N0 > 0 of maximum evidence (a 60-point first scan: each evaluation integrates).
StrengthChoice maximise_evidence(const GammaShapeEvidence& evidence);

// The log of the multivariate gamma function Gamma_p(x) = pi^(p(p-1)/4) prod_{j=1..p} Gamma(x + (1 - j)/2).
double log_multivariate_gamma(long p, double x);

}  // namespace ppk
