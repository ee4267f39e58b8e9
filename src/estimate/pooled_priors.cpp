// The inverse-Wishart evidence and its maximisation (see pooled_priors.hpp).
#include "ppk/estimate/pooled_priors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <string>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <boost/math/tools/minima.hpp>
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "estimate/estimate_detail.hpp"
#include "ppk/estimate/estimate.hpp"

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
  if (!(dof > 0) || !std::isfinite(dof))
    throw EstimationError("the scatter's degrees of freedom must be a finite number > 0, got " +
                          detail::short_number(dof));
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
  const int kGrid = std::max(curve.grid, 3);
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
      boost::math::tools::brent_find_minima(objective, lo, hi, std::numeric_limits<double>::digits / 2, iterations).first;
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
  return maximise_evidence(EvidenceCurve{evidence.lowest_nu(), [&](double nu) { return evidence.log_evidence(nu); },
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
    sum += boost::math::trigamma(shape + t.events) - boost::math::trigamma(shape) + 1 / u - t.offset / (u * u) - 2 / q +
           (shape + t.events) / (q * q);
  }
  return sum;
}

StrengthChoice maximise_evidence(const GammaRateEvidence& evidence) {
  if (evidence.empty()) throw EstimationError("no feature has a positive pooled mean: nothing to choose the prior from");
  return maximise_evidence(EvidenceCurve{evidence.lowest(), [&](double a) { return evidence.log_evidence(a); },
                                         [&](double a) { return evidence.derivative(a); },
                                         [&](double a) { return evidence.second_derivative(a); }});
}

namespace {

// The log integrand of Z(nu, S, L) in u = log a, G(u) = u + (a - 1) L - nu log Gamma(a) +
// log Gamma(nu a + 1) - (nu a + 1) log S, and its first two derivatives in u.
struct GammaShapeIntegrand {
  double nu, sum, log_sum, log_of_sum;
  double operator()(double u) const {
    const double a = std::exp(u);
    return u + (a - 1) * log_sum - nu * std::lgamma(a) + std::lgamma(nu * a + 1) - (nu * a + 1) * log_of_sum;
  }
  // dG/du = 1 + a g1, d2G/du2 = a g1 + a^2 g2 with g1 = dG/da without the Jacobian, g2 its derivative.
  std::pair<double, double> slopes(double u) const {
    const double a = std::exp(u);
    const double g1 = log_sum - nu * boost::math::digamma(a) + nu * boost::math::digamma(nu * a + 1) - nu * log_of_sum;
    const double g2 = -nu * boost::math::trigamma(a) + nu * nu * boost::math::trigamma(nu * a + 1);
    return {1 + a * g1, a * g1 + a * a * g2};
  }
};

// The integral's log, and with `derivatives` its derivatives in N0 (see pooled_priors.hpp).
GammaConjugateIntegral conjugate_integral(double nu, double sum, double log_sum, double mean, double log_mean,
                                          bool derivatives) {
  if (!(nu > 0 && sum > 0 && std::isfinite(sum) && std::isfinite(log_sum) && log_sum / nu < std::log(sum / nu)))
    throw EstimationError(
        "the gamma conjugate prior needs N0 > 0 and a pooled mean of log x below the log of the "
        "pooled mean of x (values that are not all equal)");
  const GammaShapeIntegrand g{nu, sum, log_sum, std::log(sum)};
  // The peak: Newton's method in u from the maximum-likelihood shape's approximation (Minka 2002),
  // each step at most 2 in u (the integrand is log-concave near its peak, not necessarily far off).
  const double s = std::log(sum / nu) - log_sum / nu;
  double u = std::log((3 - s + std::sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s));
  for (int iteration = 0; iteration < 200; ++iteration) {
    const auto [slope, curvature] = g.slopes(u);
    const double step = curvature < 0 ? std::clamp(-slope / curvature, -2.0, 2.0) : (slope > 0 ? 2.0 : -2.0);
    u += step;
    if (std::fabs(step) < 1e-12 * std::max(1.0, std::fabs(u))) break;
  }
  const double curvature = g.slopes(u).second;
  const double scale = curvature < 0 ? 1 / std::sqrt(-curvature) : 1.0;
  const double h = scale / 6, peak = g(u);
  double weights = 0, first = 0, second = 0, square = 0;
  const auto add = [&](double point) {
    const double log_weight = g(point) - peak;
    if (!(log_weight > -45)) return false;
    const double w = std::exp(log_weight);
    weights += w;
    if (derivatives) {
      const double a = std::exp(point), shape_total = nu * a + 1;
      const double dg = (a - 1) * log_mean - std::lgamma(a) + a * boost::math::digamma(shape_total) - a * g.log_of_sum -
                        shape_total * mean / sum;
      const double d2g =
          a * a * boost::math::trigamma(shape_total) - 2 * a * mean / sum + shape_total * mean * mean / (sum * sum);
      first += w * dg, square += w * dg * dg, second += w * d2g;
    }
    return true;
  };
  add(u);
  constexpr long kMaxSteps = 1000000;
  for (long k = 1; k < kMaxSteps && add(u + k * h); ++k) {
  }
  for (long k = 1; k < kMaxSteps && add(u - k * h); ++k) {
  }
  GammaConjugateIntegral result{peak + std::log(weights * h), 0.0, 0.0};
  if (derivatives) {
    const double mean_dg = first / weights;
    result.derivative = mean_dg;
    result.second_derivative = second / weights + square / weights - mean_dg * mean_dg;
  }
  return result;
}

}  // namespace

GammaConjugateIntegral gamma_conjugate_integral(double nu, double sum, double log_sum, double mean, double log_mean) {
  return conjugate_integral(nu, sum, log_sum, mean, log_mean, true);
}

void GammaShapeEvidence::add(double n, const Eigen::VectorXd& sums, const Eigen::VectorXd& log_sums,
                             const Eigen::VectorXd& means, const Eigen::VectorXd& log_means) {
  for (Eigen::Index d = 0; d < sums.size(); ++d) {
    if (!(log_means(d) < std::log(means(d))))
      throw EstimationError("the pooled values at index " + std::to_string(d + 1) +
                            " are all equal: no gamma prior can be centred on them");
    terms_.push_back(Term{n, sums(d), log_sums(d), means(d), log_means(d)});
  }
}

// sum over the examples' features of log Z(N0 + n, N0 m + s, N0 l + t) - log Z(N0, N0 m, N0 l);
// the prior's normaliser is computed once per distinct centre (m, l).
GammaConjugateIntegral GammaShapeEvidence::summed(double count, bool derivatives) const {
  GammaConjugateIntegral total{0.0, 0.0, 0.0};
  const auto accumulate = [&](const GammaConjugateIntegral& term, double weight) {
    total.log_value += weight * term.log_value;
    total.derivative += weight * term.derivative;
    total.second_derivative += weight * term.second_derivative;
  };
  std::map<std::pair<double, double>, double> centres;
  for (const Term& t : terms_) {
    accumulate(conjugate_integral(count + t.n, count * t.mean + t.sum, count * t.log_mean + t.log_sum, t.mean, t.log_mean,
                                  derivatives),
               1.0);
    centres[{t.mean, t.log_mean}] += 1.0;
  }
  for (const auto& [centre, examples] : centres)
    accumulate(
        conjugate_integral(count, count * centre.first, count * centre.second, centre.first, centre.second, derivatives),
        -examples);
  return total;
}

StrengthChoice maximise_evidence(const GammaShapeEvidence& evidence) {
  if (evidence.empty()) throw EstimationError("no example to choose the gamma prior's strength from");
  return maximise_evidence(EvidenceCurve{0.0, [&](double n0) { return evidence.summed(n0, false).log_value; },
                                         [&](double n0) { return evidence.summed(n0, true).derivative; },
                                         [&](double n0) { return evidence.summed(n0, true).second_derivative; }, 60});
}

}  // namespace ppk
