// The inverse-Wishart evidence and its maximisation (see pooled_priors.hpp).
#include "ppk/pooled_priors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <boost/math/tools/minima.hpp>
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "estimate_detail.hpp"
#include "ppk/estimate.hpp"

namespace ppk {
namespace {

constexpr double kLogPi = 1.1447298858494001741;  // log(pi)

// sum_{j=1..p} f(x + (1 - j)/2): the multivariate digamma (f = digamma) and trigamma.
template <class F>
double multivariate_sum(long p, double x, F f) {
  double sum = 0.0;
  for (long j = 1; j <= p; ++j) sum += f(x + 0.5 * static_cast<double>(1 - j));
  return sum;
}

}  // namespace

double log_multivariate_gamma(long p, double x) {
  const double pd = static_cast<double>(p);
  return 0.25 * pd * (pd - 1) * kLogPi + multivariate_sum(p, x, [](double y) { return std::lgamma(y); });
}

void InverseWishartEvidence::add(const Eigen::MatrixXd& centre, const Eigen::MatrixXd& scatter, double dof) {
  if (centre.rows() != centre.cols() || scatter.rows() != centre.rows() || scatter.cols() != centre.cols() ||
      centre.rows() < 1)
    throw EstimationError("a scatter and its prior centre must be square matrices of one size");
  detail::check_option("the scatter's degrees of freedom", dof, 0, true);
  const Eigen::LLT<Eigen::MatrixXd> cholesky(centre);
  const Eigen::VectorXd diagonal = cholesky.matrixL().toDenseMatrix().diagonal();
  if (cholesky.info() != Eigen::Success || !(diagonal.minCoeff() > 0))
    throw EstimationError("the prior's centre covariance is not positive definite");
  // C^-1 S has the eigenvalues of L^-1 S L^-T.
  const Eigen::MatrixXd half = cholesky.matrixL().solve(scatter);
  const Eigen::MatrixXd whitened = cholesky.matrixL().solve(half.transpose());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(0.5 * (whitened + whitened.transpose()), Eigen::EigenvaluesOnly);
  Group group{centre.rows(), dof, eigen.eigenvalues().cwiseMax(0.0), 2.0 * diagonal.array().log().sum()};
  lowest_nu_ = std::max(lowest_nu_, static_cast<double>(group.p) + 1.0);
  groups_.push_back(std::move(group));
}

// The log evidence (order 0) or its first or second derivative in nu, summed over the groups.
double InverseWishartEvidence::summed(double nu, int order) const {
  double sum = 0.0;
  for (const Group& g : groups_) {
    const double p = static_cast<double>(g.p), m = g.dof, a = nu - p - 1.0;
    const Eigen::ArrayXd shifted = g.eigenvalues.array() + a;  // a + lambda_k
    if (order == 0) {
      sum += -0.5 * m * p * kLogPi - 0.5 * m * g.log_det_centre + log_multivariate_gamma(g.p, 0.5 * (nu + m)) -
             log_multivariate_gamma(g.p, 0.5 * nu) + 0.5 * nu * p * std::log(a) - 0.5 * (nu + m) * shifted.log().sum();
    } else if (order == 1) {
      const auto digamma = [](double y) { return boost::math::digamma(y); };
      sum += 0.5 * (multivariate_sum(g.p, 0.5 * (nu + m), digamma) - multivariate_sum(g.p, 0.5 * nu, digamma)) +
             0.5 * p * std::log(a) + 0.5 * nu * p / a - 0.5 * shifted.log().sum() -
             0.5 * (nu + m) * shifted.inverse().sum();
    } else {
      const auto trigamma = [](double y) { return boost::math::trigamma(y); };
      sum += 0.25 * (multivariate_sum(g.p, 0.5 * (nu + m), trigamma) - multivariate_sum(g.p, 0.5 * nu, trigamma)) +
             p / a - 0.5 * nu * p / (a * a) - shifted.inverse().sum() + 0.5 * (nu + m) * shifted.square().inverse().sum();
    }
  }
  return sum;
}

StrengthChoice maximise_evidence(const EvidenceCurve& curve) {
  const double lowest = curve.lowest;
  const auto nu_of = [lowest](double t) { return lowest + std::exp(t); };
  const auto objective = [&](double t) { return -curve.log_evidence(nu_of(t)); };
  const double t_low = std::log(1e-6), t_high = std::log(1e8);
  constexpr int kGrid = 200;
  const double step = (t_high - t_low) / (kGrid - 1);
  int best = 0;
  double best_value = std::numeric_limits<double>::infinity();
  for (int i = 0; i < kGrid; ++i) {
    const double value = objective(t_low + step * i);
    if (value < best_value) best_value = value, best = i;
  }
  StrengthChoice choice;
  if (best == kGrid - 1) {
    choice.nu = nu_of(t_high);
    choice.at_upper_bound = true;
    choice.standard_error = std::numeric_limits<double>::infinity();
    return choice;
  }
  const double lo = t_low + step * std::max(best - 1, 0), hi = t_low + step * (best + 1);
  std::uintmax_t iterations = 200;
  const double t =
      boost::math::tools::brent_find_minima(objective, lo, hi, std::numeric_limits<double>::digits / 2, iterations)
          .first;
  // Newton's method on the derivative polishes Brent's t (tolerance about 1e-8) to full precision,
  // each step kept only while it stays inside the bracket and does not lower the evidence.
  double nu = nu_of(t);
  for (int polish = 0; polish < 4; ++polish) {
    const double curvature = curve.second_derivative(nu);
    if (!(curvature < 0)) break;
    const double next = nu - curve.derivative(nu) / curvature;
    if (!(next > nu_of(lo) && next < nu_of(hi)) || curve.log_evidence(next) < curve.log_evidence(nu)) break;
    nu = next;
  }
  choice.nu = nu;
  const double curvature = curve.second_derivative(choice.nu);
  choice.standard_error = curvature < 0 ? 1.0 / std::sqrt(-curvature) : std::numeric_limits<double>::infinity();
  return choice;
}

StrengthChoice maximise_evidence(const InverseWishartEvidence& evidence) {
  if (evidence.empty())
    throw EstimationError("no scatter to choose the prior's strength from (every example has a single vector)");
  return maximise_evidence(EvidenceCurve{evidence.lowest_nu(),
                                         [&](double nu) { return evidence.log_evidence(nu); },
                                         [&](double nu) { return evidence.derivative(nu); },
                                         [&](double nu) { return evidence.second_derivative(nu); }});
}

void GammaRateEvidence::add_counts(double n, const Eigen::VectorXd& sums, const Eigen::VectorXd& rates) {
  for (Eigen::Index d = 0; d < sums.size(); ++d)
    if (rates(d) > 0) terms_.push_back(Term{n, sums(d), rates(d), 0.0});
}

void GammaRateEvidence::add_waiting_times(double n, const Eigen::VectorXd& sums, const Eigen::VectorXd& scales) {
  for (Eigen::Index d = 0; d < sums.size(); ++d)
    if (scales(d) > 0) terms_.push_back(Term{sums(d), n, 1.0 / scales(d), 1.0}), lowest_ = 1.0;
}

// With u = A - c, b = u / r (db/dA = 1/r) and q = r (b + t) = u + r t:
//   f'  = digamma(A + k) - digamma(A) + log b + A / u - log(b + t) - (A + k) / q,
//   f'' = trigamma(A + k) - trigamma(A) + 1 / u - c / u^2 - 2 / q + (A + k) / q^2.
double GammaRateEvidence::log_evidence(double shape) const {
  double sum = 0.0;
  for (const Term& t : terms_) {
    const double b = (shape - t.offset) / t.rate;
    sum += std::lgamma(shape + t.events) - std::lgamma(shape) + shape * std::log(b) -
           (shape + t.events) * std::log(b + t.exposure);
  }
  return sum;
}

double GammaRateEvidence::derivative(double shape) const {
  double sum = 0.0;
  for (const Term& t : terms_) {
    const double u = shape - t.offset, b = u / t.rate, q = u + t.rate * t.exposure;
    sum += boost::math::digamma(shape + t.events) - boost::math::digamma(shape) + std::log(b) + shape / u -
           std::log(b + t.exposure) - (shape + t.events) / q;
  }
  return sum;
}

double GammaRateEvidence::second_derivative(double shape) const {
  double sum = 0.0;
  for (const Term& t : terms_) {
    const double u = shape - t.offset, q = u + t.rate * t.exposure;
    sum += boost::math::trigamma(shape + t.events) - boost::math::trigamma(shape) + 1 / u - t.offset / (u * u) -
           2 / q + (shape + t.events) / (q * q);
  }
  return sum;
}

StrengthChoice maximise_evidence(const GammaRateEvidence& evidence) {
  if (evidence.empty())
    throw EstimationError("no feature has a positive pooled mean: nothing to choose the prior from");
  return maximise_evidence(EvidenceCurve{evidence.lowest(), [&](double a) { return evidence.log_evidence(a); },
                                         [&](double a) { return evidence.derivative(a); },
                                         [&](double a) { return evidence.second_derivative(a); }});
}

}  // namespace ppk
