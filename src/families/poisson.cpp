// Poisson models over count vectors and their kernel (see poisson.hpp; JMLR 2004 section 3,
// docs/design.md "Mathematics").
//
// One dimension with rates l, l' and pmf(x; l) = l^x exp(-l) / x!. Write z = sqrt(l l'). Then
//     pmf(x; l)^rho pmf(x; l')^rho = (l l')^(rho x) exp(-rho (l + l')) / (x!)^(2 rho)
//                                  = exp(-rho (sqrt(l) - sqrt(l'))^2) pmf(x; z)^(2 rho),
// so every rho > 0 has
//     log k_d = -rho (sqrt(l) - sqrt(l'))^2 + log P(z),   P(z) = sum_{x >= 0} pmf(x; z)^(2 rho),
// P(z) being the self-kernel of the Poisson model of rate z:
//   rho = 1/2:  P(z) = 1 (a pmf sums to 1), so log k_d = -(sqrt(l) - sqrt(l'))^2 / 2;
//   rho = 1:    P(z) = exp(-2z) I0(2z), so log k_d = -(l + l') + log I0(2 sqrt(l l'));
//   other rho:  the series, summed outward from its peak (log_power_sum_series below).
// A rate of 0 has pmf(x; 0) = [x = 0]: then z = 0, P(0) = 1 and log k_d = -rho l'. A pair
// therefore costs O(coordinates with a positive rate): only coordinates listed by both models
// have a P(z) term. Writing sqrt(l) - sqrt(l') = (l - l') / (sqrt(l) + sqrt(l')) keeps it to full
// relative precision however large and close the rates (log k = 0 exactly for l = l'), where
// -rho (l + l') + 2 rho z would cancel.
#include "ppk/families/poisson.hpp"

#include <climits>
#include <cmath>
#include <limits>
#include <numeric>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/math/distributions/poisson.hpp>
#include <boost/math/special_functions/bessel.hpp>

#include "families/gamma_integrals.hpp"
#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"

namespace ppk {

namespace {

const char* const kFamily = "poisson";
constexpr double kPi = 3.14159265358979323846;

// Boost.Math in plain double precision (its default promotes doubles to long double): the
// functions used below are accurate to a few ulps either way, and this is the kernel's hot path.
using DoublePrecision = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

// log(exp(-z) I0(z)) for z >= 0, accurate to a few 1e-16 in absolute terms (hence log I0(z) to a
// relative 1e-16): exp(-z) I0(z) is about 1 / sqrt(2 pi z), so neither form below overflows.
//
// Below kAsymptoticBesselFrom, Boost's I0 (a few ulps) times exp(-z). From there on the asymptotic
// series (DLMF 10.40.1)
//     exp(-z) I0(z) = (2 pi z)^(-1/2) [sum_{k < n} t_k + E],   t_k = [(2k-1)!!]^2 / (k! (8z)^k),
// with n = kAsymptoticBesselTerms. Its error bound (all terms are positive): substituting
// u = 1 - cos t in I0(z) = (1/pi) int_0^pi exp(z cos t) dt gives
//     exp(-z) I0(z) = (1/pi) int_0^2 exp(-zu) u^(-1/2) (2 - u)^(-1/2) du.
// Expand (2 - u)^(-1/2) = 2^(-1/2) (1 - v)^(-1/2), v = u/2, in its Taylor series
// sum_k c_k v^k (c_k = (2k-1)!! / (2^k k!)): term k, integrated over u in [0, inf), gives exactly
// t_k (2 pi z)^(-1/2) (Watson's lemma). Taylor's theorem (the derivatives of (1 - v)^(-1/2)
// increase) bounds the remainder after n terms by c_n v^n (1 - v)^(-n-1/2), which is at most
// c_n v^n exp((2n+1) v) for v <= 1/2; so the part of E from u in [0, 1] is at most
// t_n (1 - (n + 1/2)/z)^(-(n+1/2)), and the parts from u > 1 are of order exp(-z) sqrt(z). At
// z >= 100 with n = 10, t_10 <= 1.1e-18 and |E| <= 3.6e-18 + 1e-40: far below the rounding of
// the sum (the t_k for k >= 1 are summed first and added by log1p).
constexpr double kAsymptoticBesselFrom = 100.0;
constexpr int kAsymptoticBesselTerms = 10;

double log_scaled_bessel_i0(double z) {
  if (z < kAsymptoticBesselFrom) return std::log(boost::math::cyl_bessel_i(0, z, DoublePrecision()) * std::exp(-z));
  double term = 1.0, tail = 0.0;  // t_k and sum_{1 <= k < n} t_k
  for (int k = 1; k < kAsymptoticBesselTerms; ++k) {
    term *= (2.0 * k - 1.0) * (2.0 * k - 1.0) / (8.0 * k * z);
    tail += term;
  }
  return std::log1p(tail) - 0.5 * std::log(2.0 * kPi * z);
}

// The series for rho other than 1/2 and 1 is summed until the neglected tail is below this
// fraction of the sum (2^-53 is 1.1e-16), on each side of the peak.
constexpr double kSeriesTolerance = 1e-17;
// Beyond this rate prepare() refuses the series (rho other than 1/2 and 1): it needs about
// 2 sqrt(60 z / rho) terms (see below), a million at 10^9, and x must stay an exact integer.
constexpr double kMaxSeriesRate = 1e9;

// log P(z) = log sum_{x >= 0} pmf(x; z)^(2 rho) for z > 0 and any rho > 0.
//
// With t_x = pmf(x; z)^(2 rho), t_{x+1} / t_x = (z / (x+1))^(2 rho): the terms rise while x + 1 <= z
// and fall after, so t_x peaks at the mode m = floor(z). The sum is log t_m + log sum_x t_x / t_m,
// the ratios (<= 1) accumulated outward from m in both directions. Truncation bound: above the
// peak, for x >= x0 > z every step ratio (z/(x+1))^(2 rho) is at most q = (z/(x0+1))^(2 rho) < 1,
// so the terms after t_x0 sum to at most t_x0 (q + q^2 + ...) = t_x0 q / (1 - q). Below the peak,
// for x <= x0 < z every step ratio t_{x-1} / t_x = (x/z)^(2 rho) is at most q = (x0/z)^(2 rho) < 1,
// and the terms before t_x0 sum to at most t_x0 q / (1 - q) likewise. Each direction stops once
// its bound is below kSeriesTolerance times the running sum (which only grows): the relative
// truncation error of P is below 2 kSeriesTolerance. log t_m = 2 rho log pmf(m; z) comes from
// Boost's Poisson pmf, accurate to a few ulps at any z (x log z - z - lgamma(x+1) would cancel
// to an absolute error of about z log z * 2^-53).
//
// on_term(x, t_x / t_m) is called for every term of the sum: the peak x = m first, then upwards from
// m + 1, then downwards from m - 1 (the tilted sampler tabulates them; the kernel ignores them).
template <class OnTerm>
double log_power_sum_series(double z, double rho, OnTerm&& on_term) {
  const double two_rho = 2.0 * rho;
  const double mode = std::floor(z);
  double sum = 1.0;  // sum of t_x / t_m so far
  double term = 1.0;
  on_term(mode, term);
  for (double x = mode + 1.0;; x += 1.0) {  // adds t_x / t_m; term is t_{x-1} / t_m
    const double ratio = std::pow(z / x, two_rho);
    if (term * ratio < kSeriesTolerance * (1.0 - ratio) * sum) break;
    term *= ratio;
    sum += term;
    on_term(x, term);
  }
  term = 1.0;
  for (double x = mode; x > 0.0; x -= 1.0) {        // adds t_{x-1} / t_m; term is t_x / t_m
    const double ratio = std::pow(x / z, two_rho);  // 1 (no bound yet) only at x = z
    if (term * ratio < kSeriesTolerance * (1.0 - ratio) * sum) break;
    term *= ratio;
    sum += term;
    on_term(x - 1.0, term);
  }
  const double log_peak =
      two_rho * std::log(boost::math::pdf(boost::math::poisson_distribution<double, DoublePrecision>(z), mode));
  return log_peak + std::log(sum);
}

// log P(z), z = sqrt(l l') > 0, with the closed forms at rho = 1/2 and 1.
double log_power_sum(double z, double rho) {
  if (rho == 0.5) return 0.0;
  if (rho == 1.0) return log_scaled_bessel_i0(2.0 * z);
  return log_power_sum_series(z, rho, [](double, double) {});
}

bool has_closed_form(double rho) { return rho == 0.5 || rho == 1.0; }

// theta_d = log rate_d (-inf for a rate of 0); `rates` is validated first.
Eigen::VectorXd natural_parameters_of(const std::vector<double>& rates) {
  if (rates.empty() || rates.size() > static_cast<std::size_t>(detail::kMaxDimension))
    throw detail::field_error(kFamily, "rate", "between 1 and 100000000 rates", std::to_string(rates.size()));
  detail::check_positive_entries(kFamily, "rate", rates, /*allow_zero=*/true);
  Eigen::VectorXd theta(static_cast<Eigen::Index>(rates.size()));
  for (std::size_t d = 0; d < rates.size(); ++d) theta[static_cast<Eigen::Index>(d)] = std::log(rates[d]);
  return theta;
}

}  // namespace

template <class Archive>
void PoissonParameters::fields(Archive& archive) {
  const auto dim = archive.dimension("dim", static_cast<long>(rate.size()), 1, detail::kMaxDimension);
  archive.reals("rate", rate, dim);
}

struct PoissonModel::Impl : PoissonParameters {
  // The coordinates with a positive rate, each with its rate and sqrt(rate).
  struct ListedRate {
    long index;
    double rate;
    double sqrt_rate;
  };
  std::vector<ListedRate> listed;
  double rho = 0.0;  // set by prepare()
};

PoissonModel::PoissonModel(Parameters parameters)
    : SamplableExponentialFamilyModel(natural_parameters_of(parameters.rate)), impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  static_cast<PoissonParameters&>(m) = std::move(parameters);
  for (std::size_t d = 0; d < m.rate.size(); ++d)
    if (m.rate[d] > 0.0) m.listed.push_back({static_cast<long>(d), m.rate[d], std::sqrt(m.rate[d])});
}

PoissonModel::~PoissonModel() = default;

const std::vector<double>& PoissonModel::rates() const { return impl_->rate; }

const PoissonParameters& PoissonModel::parameters() const { return *impl_; }

const FamilyInfo& PoissonModel::family() const { return poisson_family(); }

SampleSpace PoissonModel::sample_space() const { return {"count vectors", static_cast<long>(impl_->rate.size())}; }

// Any rho > 0 (ExponentialFamilyModel::prepare would allow only rho = 1/2, where the measure
// 1/x! scales).
void PoissonModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  const std::vector<double>& rates = impl_->rate;
  if (!has_closed_form(params.rho)) {
    for (std::size_t d = 0; d < rates.size(); ++d)
      if (rates[d] > kMaxSeriesRate)
        throw KernelDomainError(std::string(kFamily) + " kernel at rho = " + detail::format_number(params.rho) +
                                ": rate " + detail::format_number(rates[d]) + " (coordinate " + std::to_string(d) +
                                ") is above 10^9, the largest rate the series for rho other than 1/2 and 1 "
                                "sums; use rho = 0.5 or 1 (-g), which have closed forms");
  }
  impl_->rho = params.rho;
}

// log k = sum over the coordinates listed by either model of -rho (sqrt(l) - sqrt(l'))^2 (an
// unlisted rate is 0), plus log P(sqrt(l l')) where both list the coordinate (top of this file).
double PoissonModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const PoissonModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.rate.size() != b.rate.size()) detail::throw_unprepared_pair(kFamily);
  const double rho = a.rho;
  double log_k = 0.0;
  const Impl::ListedRate *i = a.listed.data(), *const i_end = i + a.listed.size();
  const Impl::ListedRate *j = b.listed.data(), *const j_end = j + b.listed.size();
  while (i < i_end || j < j_end) {
    const long di = i < i_end ? i->index : LONG_MAX, dj = j < j_end ? j->index : LONG_MAX;
    const double rate_a = di <= dj ? i->rate : 0.0, rate_b = dj <= di ? j->rate : 0.0;
    const double sqrt_a = di <= dj ? i->sqrt_rate : 0.0, sqrt_b = dj <= di ? j->sqrt_rate : 0.0;
    const double gap = (rate_a - rate_b) / (sqrt_a + sqrt_b);  // sqrt(l) - sqrt(l'), to full relative precision
    log_k -= rho * gap * gap;
    if (di == dj) log_k += log_power_sum(sqrt_a * sqrt_b, rho);  // z >= min(l, l') > 0: no underflow
    i += di <= dj;
    j += dj <= di;
  }
  return log_k;
}

// log Z(rho) = sum_d log sum_x pmf(x; l_d)^rho = sum_d log P(l_d) with the exponent 2 rho' = rho, the
// series of the kernel (top of this file) at rho' = rho/2: 0 at rho = 1, the Bessel form at rho = 2.
// A rate of 0 (the point mass at 0) contributes log 1 = 0.
double PoissonModel::log_tilted_normalizer(double rho) const {
  double log_z = 0.0;
  for (const Impl::ListedRate& entry : impl_->listed) {
    if (entry.rate > kMaxSeriesRate)
      throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                              ": Monte Carlo draws from p^rho / Z at rho = " + detail::format_number(rho) + ": rate " +
                              detail::format_number(entry.rate) + " (coordinate " + std::to_string(entry.index) +
                              ") is above 10^9, the largest rate whose tilted "
                              "pmf the sampler tabulates");
    log_z += log_power_sum(entry.rate, 0.5 * rho);
  }
  return log_z;
}

// Per coordinate of positive rate l, by inverse CDF over the terms of the series for P(l) at
// rho' = rho/2: t_x / t_m = (pmf(x; l) / pmf(m; l))^rho, tabulated in the order of x, then one
// categorical draw per sample. The terms the series leaves out weigh below 2e-17 of the total
// (the bound at kSeriesTolerance), less than the 2^-53 resolution of a uniform draw. A rate of 0
// draws 0. Coordinates in order, all samples of one coordinate at a time.
void PoissonModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  samples.setZero();
  std::vector<double> below, above, cumulative;  // terms of x < m (downwards), of x >= m (upwards)
  for (const Impl::ListedRate& entry : impl_->listed) {
    below.clear();
    above.clear();
    const double mode = std::floor(entry.rate);
    log_power_sum_series(entry.rate, 0.5 * rho,
                         [&](double x, double term) { (x < mode ? below : above).push_back(term); });
    cumulative.assign(below.rbegin(), below.rend());
    cumulative.insert(cumulative.end(), above.begin(), above.end());
    std::partial_sum(cumulative.begin(), cumulative.end(), cumulative.begin());
    const double lowest = mode - static_cast<double>(below.size());
    for (Eigen::Index s = 0; s < samples.cols(); ++s)
      samples(entry.index, s) = lowest + static_cast<double>(generator.categorical(cumulative.data(), cumulative.size()));
  }
}

// log p(x) = sum_d [x_d log l_d - l_d - log x_d!], with 0 log 0 = 0 at a rate of 0 (-inf for x_d > 0).
double PoissonModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Impl& m = *impl_;
  double log_p = 0.0;
  std::size_t next = 0;  // the next listed coordinate
  for (std::size_t d = 0; d < m.rate.size(); ++d) {
    const double x_d = x[static_cast<Eigen::Index>(d)];
    if (next < m.listed.size() && m.listed[next].index == static_cast<long>(d)) {
      const double rate = m.listed[next++].rate;
      log_p += x_d * std::log(rate) - rate - detail::log_gamma(x_d + 1.0);
    } else if (x_d != 0.0) {
      return -std::numeric_limits<double>::infinity();
    }
  }
  return log_p;
}

// K(theta) = sum_d exp(theta_d): the log of the normalizer sum_x exp(theta . x) / prod_d x_d!.
double PoissonModel::log_partition(const Eigen::VectorXd& theta) const { return theta.array().exp().sum(); }

// Theta = R^D: every finite theta is a valid natural parameter.
bool PoissonModel::in_natural_domain(const Eigen::VectorXd& theta) const { return theta.allFinite(); }

const FamilyInfo& poisson_family() {
  static const FamilyInfo info = make_family<PoissonModel>(kFamily, 4);
  return info;
}

}  // namespace ppk
