// Independent oracles for the closed-form kernels: each computes
//     k_rho(p, p') = integral (or sum) of p(x)^rho p'(x)^rho
// straight from the definition (JMLR 2004 eq. 2), with the densities written out from their
// textbook expressions, never from the code under test.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include <boost/math/quadrature/gauss_kronrod.hpp>

namespace ppk::oracle {

constexpr double kPi = 3.14159265358979323846;

// Adaptive Gauss-Kronrod (61 points) on [a, b], bisecting at most `depth` times, to the
// relative accuracy `tolerance`.
inline double integrate(const std::function<double(double)>& f, double a, double b, double tolerance = 1e-13,
                        unsigned depth = 15) {
  return boost::math::quadrature::gauss_kronrod<double, 61>::integrate(f, a, b, depth, tolerance);
}

// N(x; mean, var) = exp(-(x - mean)^2 / (2 var)) / sqrt(2 pi var).
inline double normal_density(double x, double mean, double var) {
  return std::exp(-(x - mean) * (x - mean) / (2.0 * var)) / std::sqrt(2.0 * kPi * var);
}

// A Gaussian over R^2 written out explicitly: the inverse of [[a, b], [b, c]] is
// [[c, -b], [-b, a]] / (ac - b^2).
struct Gaussian2 {
  double m1, m2;         // mean
  double s11, s12, s22;  // covariance
  double density(double x1, double x2) const {
    const double det = s11 * s22 - s12 * s12;
    const double d1 = x1 - m1, d2 = x2 - m2;
    const double quadratic = (s22 * d1 * d1 - 2.0 * s12 * d1 * d2 + s11 * d2 * d2) / det;
    return std::exp(-0.5 * quadratic) / (2.0 * kPi * std::sqrt(det));
  }
};

// Half-width of an interval around the means that holds all but a negligible part of
// p^rho p'^rho: p^rho is a Gaussian shape of variance var/rho, so 40 of its standard deviations.
inline double reach(double mean_gap, double max_var, double rho) {
  return mean_gap + 40.0 * std::sqrt(max_var / std::min(rho, 1.0));
}

// integral over R of N(x; m1, v1)^rho N(x; m2, v2)^rho dx.
inline double gaussian_ppk_1d(double m1, double v1, double m2, double v2, double rho) {
  const double center = 0.5 * (m1 + m2), half = reach(std::fabs(m1 - m2), std::max(v1, v2), rho);
  return integrate(
      [&](double x) { return std::pow(normal_density(x, m1, v1), rho) * std::pow(normal_density(x, m2, v2), rho); },
      center - half, center + half);
}

// integral over R^2 of p(x)^rho p'(x)^rho dx, by nested one-dimensional quadrature.
inline double gaussian_ppk_2d(const Gaussian2& p, const Gaussian2& q, double rho) {
  const double max_var = std::max({p.s11, p.s22, q.s11, q.s22});
  const double gap = std::hypot(p.m1 - q.m1, p.m2 - q.m2);
  const double half = reach(gap, max_var, rho);
  const double c1 = 0.5 * (p.m1 + q.m1), c2 = 0.5 * (p.m2 + q.m2);
  return integrate(
      [&](double x1) {
        return integrate([&](double x2) { return std::pow(p.density(x1, x2), rho) * std::pow(q.density(x1, x2), rho); },
                         c2 - half, c2 + half, 1e-12, 12);
      },
      c1 - half, c1 + half, 1e-11, 12);
}

// Sum over all x in {0,1}^D of p(x)^rho p'(x)^rho, p(x) = prod_d g_d^x_d (1 - g_d)^(1 - x_d).
inline double bernoulli_ppk(const std::vector<double>& g, const std::vector<double>& h, double rho) {
  const std::size_t dim = g.size();
  double total = 0.0;
  for (unsigned long x = 0; x < (1ul << dim); ++x) {
    double p = 1.0, q = 1.0;
    for (std::size_t d = 0; d < dim; ++d) {
      const bool one = (x >> d) & 1ul;
      p *= one ? g[d] : 1.0 - g[d];
      q *= one ? h[d] : 1.0 - h[d];
    }
    total += std::pow(p, rho) * std::pow(q, rho);
  }
  return total;
}

// Calls f(x) for every count vector x of length D with sum s.
inline void for_each_count_vector(std::size_t dim, long s, const std::function<void(const std::vector<long>&)>& f) {
  std::vector<long> x(dim, 0);
  std::function<void(std::size_t, long)> place = [&](std::size_t d, long left) {
    if (d + 1 == dim) {
      x[d] = left;
      f(x);
      return;
    }
    for (long c = 0; c <= left; ++c) {
      x[d] = c;
      place(d + 1, left - c);
    }
  };
  place(0, s);
}

// The multinomial probability of counts x: s! / prod x_d! prod a_d^x_d (0^0 = 1).
inline double multinomial_pmf(const std::vector<long>& x, const std::vector<double>& a) {
  long s = 0;
  double log_p = 0.0;
  for (std::size_t d = 0; d < x.size(); ++d) {
    s += x[d];
    if (x[d] == 0) continue;
    if (a[d] == 0.0) return 0.0;
    log_p += static_cast<double>(x[d]) * std::log(a[d]) - std::lgamma(static_cast<double>(x[d]) + 1.0);
  }
  return std::exp(log_p + std::lgamma(static_cast<double>(s) + 1.0));
}

// Sum over the count vectors with s trials of sqrt(p(x) p'(x)) (the Bhattacharyya kernel).
inline double multinomial_counts_bhattacharyya(const std::vector<double>& a, const std::vector<double>& b, long s) {
  double total = 0.0;
  for_each_count_vector(a.size(), s, [&](const std::vector<long>& x) {
    total += std::sqrt(multinomial_pmf(x, a) * multinomial_pmf(x, b));
  });
  return total;
}

// Relative difference |x - y| / |y|.
inline double relative_error(double x, double y) { return std::fabs(x - y) / std::fabs(y); }

}  // namespace ppk::oracle
