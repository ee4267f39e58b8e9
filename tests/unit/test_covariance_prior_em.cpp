// The inverse-Wishart prior on the covariances of Gaussian mixtures and Gaussian-emission HMMs
// (estimate.hpp, CovariancePrior; docs/priors-by-evidence.md "Mixtures and Gaussian HMMs"):
// - the MAP M-step against a Nelder-Mead maximisation of the expected complete-data log-likelihood
//   plus the log prior (at EM's fixed point the M-step of the final responsibilities returns the
//   fitted parameters), full, diagonal and isotropic;
// - the MAP-EM objective never decreases, and its last value is the log-likelihood plus the
//   normalised log inverse-Wishart densities minus the ridge penalty, computed here independently;
// - the held-out choosers against a brute-force evaluation of their objective over the grid (the
//   held-out posterior predictive computed here as a ratio of marginal likelihoods; the HMM's and
//   the fhmm's plug-in held-out likelihood by a forward recursion / path enumeration);
// - recovery: the mixture's chosen nu recovers the nu that generated the examples' covariances within
//   3 standard errors measured from repeated draws.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include "estimate_helpers.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/estimate/estimate_hmm.hpp"
#include "ppk/estimate/estimate_fhmm.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/families/fhmm.hpp"
#include "ppk/families/gaussian.hpp"

namespace ppk {
namespace {

// Nelder-Mead minimisation of f from x0 with initial step `step`, restarted from its result until
// a restart no longer improves (so a collapsed simplex does not stop it early).
Eigen::VectorXd nelder_mead(const std::function<double(const Eigen::VectorXd&)>& f, Eigen::VectorXd x0, double step) {
  const Eigen::Index n = x0.size();
  double previous = std::numeric_limits<double>::infinity();
  for (int restart = 0; restart < 50; ++restart) {
    std::vector<Eigen::VectorXd> simplex{x0};
    for (Eigen::Index i = 0; i < n; ++i) {
      Eigen::VectorXd v = x0;
      v(i) += step;
      simplex.push_back(v);
    }
    std::vector<double> values;
    for (const auto& v : simplex) values.push_back(f(v));
    for (int iteration = 0; iteration < 20000; ++iteration) {
      std::vector<std::size_t> order(simplex.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
      std::vector<Eigen::VectorXd> s;
      std::vector<double> v;
      for (std::size_t i : order) {
        s.push_back(simplex[i]);
        v.push_back(values[i]);
      }
      simplex = s;
      values = v;
      if (values.back() - values.front() < 1e-15 * (1 + std::fabs(values.front()))) break;
      Eigen::VectorXd centroid = Eigen::VectorXd::Zero(n);
      for (Eigen::Index i = 0; i < n; ++i) centroid += simplex[static_cast<std::size_t>(i)] / static_cast<double>(n);
      const Eigen::VectorXd worst = simplex.back();
      const Eigen::VectorXd reflected = centroid + (centroid - worst);
      const double fr = f(reflected);
      if (fr < values.front()) {
        const Eigen::VectorXd expanded = centroid + 2.0 * (centroid - worst);
        const double fe = f(expanded);
        simplex.back() = fe < fr ? expanded : reflected;
        values.back() = std::min(fe, fr);
      } else if (fr < values[values.size() - 2]) {
        simplex.back() = reflected;
        values.back() = fr;
      } else {
        const Eigen::VectorXd contracted = centroid + 0.5 * (worst - centroid);
        const double fc = f(contracted);
        if (fc < values.back()) {
          simplex.back() = contracted;
          values.back() = fc;
        } else {
          for (std::size_t i = 1; i < simplex.size(); ++i) {
            simplex[i] = simplex[0] + 0.5 * (simplex[i] - simplex[0]);
            values[i] = f(simplex[i]);
          }
        }
      }
    }
    x0 = simplex.front();
    if (values.front() >= previous - 1e-14 * (1 + std::fabs(previous))) break;
    previous = values.front();
    step = std::max(step * 0.3, 1e-4);
  }
  return x0;
}

// The normalised log inverse-Wishart density log IW(sigma | nu, psi), p x p, written out.
double log_inverse_wishart(const Eigen::MatrixXd& sigma, double nu, const Eigen::MatrixXd& psi) {
  const double p = static_cast<double>(sigma.rows());
  double log_gamma_p = 0.25 * p * (p - 1) * std::log(M_PI);
  for (int j = 1; j <= static_cast<int>(p); ++j) log_gamma_p += std::lgamma(0.5 * (nu + 1 - j));
  return 0.5 * nu * std::log(psi.determinant()) - 0.5 * nu * p * std::log(2.0) - log_gamma_p -
         0.5 * (nu + p + 1) * std::log(sigma.determinant()) - 0.5 * (psi * sigma.inverse()).trace();
}

// log IW of a covariance in `form` under the prior centred on C (the CovariancePrior convention).
double log_prior(const Eigen::MatrixXd& sigma, CovarianceForm form, const CovariancePrior& prior) {
  const double nu = prior.count;
  const Eigen::Index dim = sigma.rows();
  switch (form) {
    case CovarianceForm::full: return log_inverse_wishart(sigma, nu, (nu - static_cast<double>(dim) - 1) * prior.centre);
    case CovarianceForm::diagonal: {
      double total = 0;
      for (Eigen::Index d = 0; d < dim; ++d)
        total += log_inverse_wishart(sigma.block(d, d, 1, 1), nu, (nu - 2) * prior.centre.block(d, 0, 1, 1));
      return total;
    }
    case CovarianceForm::isotropic: break;
  }
  return log_inverse_wishart(sigma.block(0, 0, 1, 1), nu, (nu - 2) * prior.centre);
}

double log_normal(const Eigen::VectorXd& x, const Eigen::VectorXd& mean, const Eigen::MatrixXd& sigma) {
  const Eigen::VectorXd r = x - mean;
  return -0.5 * (static_cast<double>(x.size()) * std::log(2 * M_PI) + std::log(sigma.determinant()) +
                 r.dot(sigma.inverse() * r));
}

// Points in R^2 from two clusters.
Eigen::MatrixXd two_clusters(int n, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(n, 2);
  for (int i = 0; i < n; ++i) {
    const double shift = i % 2 == 0 ? 0.0 : 3.0;
    x(i, 0) = shift + normal(rng);
    x(i, 1) = 0.5 * shift + 0.6 * normal(rng) + 0.3 * x(i, 0);
  }
  return x;
}

CovariancePrior prior_for(CovarianceForm form, double nu) {
  Eigen::MatrixXd full(2, 2);
  full << 2.0, 0.5, 0.5, 1.0;
  switch (form) {
    case CovarianceForm::full: return {nu, full};
    case CovarianceForm::diagonal: return {nu, full.diagonal()};
    case CovarianceForm::isotropic: break;
  }
  return {nu, Eigen::MatrixXd::Constant(1, 1, 1.5)};
}

const GaussianModel& component(const MixtureModel& model, std::size_t k) {
  return dynamic_cast<const GaussianModel&>(model.component(k));
}

// MAP-EM run to its fixed point (tolerance 0) with K components, ridge R and the test prior of strength nu.
MixtureFitOptions exact_em(CovarianceForm form, long components, double ridge, long iterations, double nu) {
  MixtureFitOptions options;
  options.components = components;
  options.covariance = form;
  options.ridge = ridge;
  options.iterations = iterations;
  options.tolerance = 0;
  options.prior = prior_for(form, nu);
  return options;
}

const CovarianceForm kForms[] = {CovarianceForm::full, CovarianceForm::diagonal, CovarianceForm::isotropic};

// At EM's fixed point every component's (mu_k, Sigma_k) maximises
//   Q_k = sum_i r_ik log N(x_i | mu_k, Sigma_k) + log IW(Sigma_k) - (R/2) tr Sigma_k^-1
// for the final responsibilities r: found here by Nelder-Mead over mu_k and a parametrisation of
// Sigma_k in the form (full: Cholesky factor with log diagonal; diagonal: log variances;
// isotropic: the log variance), from the identity.
TEST(CovariancePriorEm, MapMStepMaximisesTheExpectedCompleteLogLikelihoodPlusTheLogPrior) {
  std::mt19937_64 rng(7);
  const Eigen::MatrixXd x = two_clusters(9, rng);
  for (CovarianceForm form : kForms) {
    const MixtureFitOptions options = exact_em(form, 2, 0.05, 5000, form == CovarianceForm::full ? 4.5 : 3.5);
    const GaussianMixtureFit fit = fit_gaussian_mixture(x, options);
    for (std::size_t k = 0; k < 2; ++k) {
      const Eigen::VectorXd r = fit.responsibilities.col(static_cast<Eigen::Index>(k));
      const auto sigma_of = [&](const Eigen::VectorXd& theta) {
        Eigen::MatrixXd sigma = Eigen::MatrixXd::Zero(2, 2);
        if (form == CovarianceForm::full) {
          Eigen::MatrixXd l = Eigen::MatrixXd::Zero(2, 2);
          l << std::exp(theta(2)), 0, theta(3), std::exp(theta(4));
          sigma = l * l.transpose();
        } else if (form == CovarianceForm::diagonal) {
          sigma.diagonal() << std::exp(theta(2)), std::exp(theta(3));
        } else {
          sigma = std::exp(theta(2)) * Eigen::MatrixXd::Identity(2, 2);
        }
        return sigma;
      };
      const auto negative_q = [&](const Eigen::VectorXd& theta) {
        const Eigen::MatrixXd sigma = sigma_of(theta);
        double q = log_prior(sigma, form, *options.prior) - 0.5 * *options.ridge * sigma.inverse().trace();
        for (Eigen::Index i = 0; i < x.rows(); ++i) q += r(i) * log_normal(x.row(i).transpose(), theta.head(2), sigma);
        return -q;
      };
      const Eigen::Index parameters = form == CovarianceForm::full ? 5 : form == CovarianceForm::diagonal ? 4 : 3;
      const Eigen::VectorXd best = nelder_mead(negative_q, Eigen::VectorXd::Zero(parameters), 0.5);
      const GaussianModel& fitted = component(*fit.model, k);
      EXPECT_LT((fitted.mean() - best.head(2)).norm(), 1e-5) << "form " << static_cast<int>(form) << ", k " << k;
      EXPECT_LT((fitted.covariance() - sigma_of(best)).norm(), 1e-5 * sigma_of(best).norm())
          << "form " << static_cast<int>(form) << ", k " << k << "\nfitted\n"
          << fitted.covariance() << "\nbrute force\n"
          << sigma_of(best);
    }
  }
}

// The objective after every iteration never decreases, and the last one (EM converged) is
// sum_i log sum_k w_k N(x_i | mu_k, Sigma_k) + sum_k log IW(Sigma_k) - (R/2) sum_k tr Sigma_k^-1.
TEST(CovariancePriorEm, MixtureObjectiveNeverDecreasesAndIsLikelihoodPlusLogPrior) {
  std::mt19937_64 rng(11);
  const Eigen::MatrixXd x = two_clusters(40, rng);
  for (CovarianceForm form : kForms) {
    const MixtureFitOptions options = exact_em(form, 3, 0.01, 300, form == CovarianceForm::full ? 3.2 : 2.4);
    const GaussianMixtureFit fit = fit_gaussian_mixture(x, options);
    expect_never_decreases(fit.log_likelihoods, 300, "form " + std::to_string(static_cast<int>(form)));
    const MixtureModel& model = *fit.model;
    double objective = 0;
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      double density = 0;
      for (std::size_t k = 0; k < model.size(); ++k)
        density += model.weights()[k] * std::exp(log_normal(x.row(i).transpose(), component(model, k).mean(),
                                                            component(model, k).covariance()));
      objective += std::log(density);
    }
    for (std::size_t k = 0; k < model.size(); ++k) {
      const Eigen::MatrixXd sigma = component(model, k).covariance();
      objective += log_prior(sigma, form, *options.prior) - 0.5 * *options.ridge * sigma.inverse().trace();
    }
    // The last entry is the objective of the parameters before the last M-step when EM ran all its
    // iterations; it has converged far below this tolerance by then.
    EXPECT_NEAR(fit.log_likelihoods.back(), objective, 1e-6 * std::fabs(objective)) << "form " << static_cast<int>(form);
  }
}

// A sequence that switches between two regimes.
Eigen::MatrixXd switching_sequence(int n, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(n, 2);
  int state = 0;
  for (int t = 0; t < n; ++t) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) < 0.1) state = 1 - state;
    x(t, 0) = 3.0 * state + normal(rng);
    x(t, 1) = -1.0 * state + 0.5 * normal(rng);
  }
  return x;
}

TEST(CovariancePriorEm, HmmObjectiveNeverDecreases) {
  std::mt19937_64 rng(5);
  const Eigen::MatrixXd x = switching_sequence(60, rng);
  for (CovarianceForm form : kForms) {
    HmmFitOptions options;
    options.emissions = HmmEmissions::gaussian;
    options.states = 3;
    options.covariance = form;
    options.iterations = 200;
    options.tolerance = 0;
    options.restarts = 1;
    options.prior = prior_for(form, form == CovarianceForm::full ? 3.5 : 2.5);
    const HmmFit fit = fit_gaussian_hmm(x, options);
    expect_never_decreases(fit.log_likelihoods, 200, "hmm form " + std::to_string(static_cast<int>(form)));
  }
}

TEST(CovariancePriorEm, ThePriorPullsSmallComponentsTowardTheCentre) {
  // Three points: maximum likelihood (with the tiny default ridge) gives a nearly singular
  // covariance; a strong prior gives nearly the centre's shape.
  Eigen::MatrixXd x(3, 2);
  x << 0, 0, 1, 1, 2, 2.001;
  MixtureFitOptions options;
  options.components = 1;
  options.prior = prior_for(CovarianceForm::full, 1e6);
  const GaussianMixtureFit fit = fit_gaussian_mixture(x, options);
  const Eigen::MatrixXd sigma = component(*fit.model, 0).covariance();
  EXPECT_LT((sigma - options.prior->centre).norm(), 1e-3 * options.prior->centre.norm()) << sigma;
  options.prior->count = 2.5;  // not > D + 1
  EXPECT_NE(estimation_error([&] { fit_gaussian_mixture(x, options); }).find("prior.count must be"), std::string::npos);
  HmmFitOptions discrete;
  discrete.prior = prior_for(CovarianceForm::full, 5);
  EXPECT_NE(estimation_error([&] {
              fit_discrete_hmm({0, 1, 0}, 2, discrete);
            }).find("emissions gaussian"),
            std::string::npos);
}

// The chooser's objective evaluated by `total` (the summed held-out log-likelihood under options
// carrying the prior of strength nu) at every nu of the grid, with the chooser's cheaper fits (one
// restart, at most 100 iterations, tolerance 1e-6): the totals agree and the choice is their argmax.
template <class Options>
void expect_chooser_agrees(const CovariancePriorChoice& choice, const std::vector<double>& counts, Options cheap,
                           const Eigen::MatrixXd& centre, const std::function<double(const Options&)>& total) {
  ASSERT_EQ(choice.held_out_log_likelihoods.size(), counts.size());
  cheap.restarts = 1;
  cheap.iterations = 100;
  cheap.tolerance = 1e-6;
  std::size_t best = 0;
  std::vector<double> totals;
  for (std::size_t j = 0; j < counts.size(); ++j) {
    cheap.prior = CovariancePrior{counts[j], centre};
    totals.push_back(total(cheap));
    if (totals[j] > totals[best]) best = j;
    EXPECT_NEAR(choice.held_out_log_likelihoods[j], totals[j], 1e-9 * std::fabs(totals[j])) << "nu " << counts[j];
  }
  EXPECT_EQ(choice.count, counts[best]);
}

// log of the marginal likelihood of vectors with weights r_i (N = sum r_i, scatter S about their
// weighted mean) under a flat prior on mu and Sigma ~ IW(nu, Psi), D-variate: integrating mu gives
// (2 pi)^(-(N-1)D/2) N^(-D/2) |Sigma|^(-(N-1)/2) exp(-tr(S Sigma^-1)/2), and Sigma the ratio of the
// inverse-Wishart normalisers, 2^(nu' D/2) Gamma_D(nu'/2) |Psi + S|^(-nu'/2), nu' = nu + N - 1.
double log_marginal_likelihood(double n, const Eigen::MatrixXd& scatter, double nu, const Eigen::MatrixXd& psi) {
  const double d = static_cast<double>(psi.rows());
  const auto log_gamma_d = [d](double a) {
    double out = d * (d - 1) / 4 * std::log(M_PI);
    for (int j = 1; j <= static_cast<int>(d); ++j) out += std::lgamma(a + (1.0 - j) / 2);
    return out;
  };
  const double after = nu + n - 1;
  return -(n - 1) * d / 2 * std::log(2 * M_PI) - d / 2 * std::log(n) + nu / 2 * std::log(psi.determinant()) -
         log_gamma_d(nu / 2) - nu * d / 2 * std::log(2.0) + after * d / 2 * std::log(2.0) + log_gamma_d(after / 2) -
         after / 2 * std::log((psi + scatter).determinant());
}

// The chooser's objective, evaluated here: for each nu, the sum over the examples of the held-out
// vectors' log posterior predictive (every third vector of a set held out), the rest fitted with the
// chooser's cheaper options. The predictive of y from component k is the ratio of marginal
// likelihoods Z(kept weighted by r_k, plus y) / Z(kept weighted by r_k) (not the Student t the code
// evaluates), mixed with weights N_k / n.
TEST(CovariancePriorEm, MixtureChooserMaximisesTheHeldOutPredictiveOverTheGrid) {
  std::mt19937_64 rng(3);
  std::vector<Eigen::MatrixXd> sets;
  for (int i = 0; i < 6; ++i) sets.push_back(two_clusters(12 + i, rng));
  sets.push_back(two_clusters(2, rng));  // too small to split: not used
  MixtureFitOptions options;
  options.components = 2;
  options.ridge = 0.05;
  const CovariancePrior prior = prior_for(CovarianceForm::full, 0);
  const std::vector<double> counts{3.1, 4, 8, 30, 300};
  const CovariancePriorChoice choice = choose_mixture_prior(sets, options, prior.centre, counts, 100, 2);
  EXPECT_EQ(choice.examples_used, 6);
  expect_chooser_agrees<MixtureFitOptions>(choice, counts, options, prior.centre, [&](const MixtureFitOptions& cheap) {
    const double nu = cheap.prior->count;
    const Eigen::MatrixXd psi = (nu - 3) * prior.centre + 0.05 * Eigen::MatrixXd::Identity(2, 2);
    double total = 0;
    for (std::size_t e = 0; e + 1 < sets.size(); ++e) {
      const Eigen::MatrixXd& x = sets[e];
      std::vector<int> kept_rows, held_rows;
      for (int i = 0; i < x.rows(); ++i) (i % 3 == 2 ? held_rows : kept_rows).push_back(i);
      const Eigen::MatrixXd kept = x(kept_rows, Eigen::all);
      const GaussianMixtureFit fit = fit_gaussian_mixture(kept, cheap);
      for (int i : held_rows) {
        double density = 0;
        for (int k = 0; k < 2; ++k) {
          const Eigen::VectorXd r = fit.responsibilities.col(k);
          const double n = r.sum();
          const Eigen::VectorXd mean = kept.transpose() * r / n;
          const Eigen::MatrixXd centred = kept.rowwise() - mean.transpose();
          const Eigen::MatrixXd scatter = centred.transpose() * r.asDiagonal() * centred;
          const Eigen::VectorXd delta = x.row(i).transpose() - mean;
          const Eigen::MatrixXd with_y = scatter + n / (n + 1) * delta * delta.transpose();
          density +=
              n / static_cast<double>(kept.rows()) *
              std::exp(log_marginal_likelihood(n + 1, with_y, nu, psi) - log_marginal_likelihood(n, scatter, nu, psi));
        }
        total += std::log(density);
      }
    }
    return total;
  });
}

// The HMM chooser's objective, evaluated here: each sequence's last third scored by the forward
// recursion in log space under the plug-in fit (cheaper options) to its first two thirds.
TEST(CovariancePriorEm, HmmChooserMaximisesTheHeldOutLikelihoodOverTheGrid) {
  std::mt19937_64 rng(4);
  std::vector<Eigen::MatrixXd> sequences;
  for (int i = 0; i < 4; ++i) sequences.push_back(switching_sequence(20 + 3 * i, rng));
  HmmFitOptions options;
  options.emissions = HmmEmissions::gaussian;
  options.states = 2;
  options.covariance = CovarianceForm::diagonal;
  const CovariancePrior prior = prior_for(CovarianceForm::diagonal, 0);
  const std::vector<double> counts{2.2, 5, 50};
  const CovariancePriorChoice choice = choose_hmm_prior(sequences, options, prior.centre, counts, 100, 1);
  EXPECT_EQ(choice.examples_used, 4);
  expect_chooser_agrees<HmmFitOptions>(choice, counts, options, prior.centre, [&](const HmmFitOptions& cheap) {
    double total = 0;
    for (const Eigen::MatrixXd& x : sequences) {
      const Eigen::Index held = x.rows() / 3;
      const HmmFit fit = fit_gaussian_hmm(x.topRows(x.rows() - held), cheap);
      const HmmModel& m = *fit.model;
      // log alpha_t(q) by log-sum-exp, from the start probabilities.
      Eigen::VectorXd log_alpha(2);
      for (Eigen::Index t = 0; t < held; ++t) {
        const Eigen::VectorXd y = x.row(x.rows() - held + t).transpose();
        Eigen::VectorXd next(2);
        for (int q = 0; q < 2; ++q) {
          const double emission =
              dynamic_cast<const GaussianModel&>(m.emission(static_cast<std::size_t>(q))).log_density(y);
          double into = 0;
          if (t == 0) {
            into = std::log(m.start()(q));
          } else {
            const double top = log_alpha.maxCoeff();
            double sum = 0;
            for (int p = 0; p < 2; ++p) sum += std::exp(log_alpha(p) - top) * m.transitions()(p, q);
            into = top + std::log(sum);
          }
          next(q) = into + emission;
        }
        log_alpha = next;
      }
      const double top = log_alpha.maxCoeff();
      total += top + std::log((log_alpha.array() - top).exp().sum());
    }
    return total;
  });
}

// log p(x_0..x_{n-1}) of a factorial HMM of two chains by brute force: the sum over every pair of
// state paths of prod_t [pi or A terms of both chains] N(x_t; W_1[:, k_t] + W_2[:, l_t], Sigma).
double fhmm_brute_force_log_likelihood(const FhmmModel& model, const Eigen::MatrixXd& x) {
  const FhmmChain& a = model.chains()[0];
  const FhmmChain& b = model.chains()[1];
  const long m = static_cast<long>(a.start.size()), n = static_cast<long>(x.rows());
  long paths = 1;
  for (long t = 0; t < 2 * n; ++t) paths *= m;
  std::vector<double> terms;
  for (long code = 0; code < paths; ++code) {
    long rest = code;
    double log_term = 0;
    long previous_k = 0, previous_l = 0;
    for (long t = 0; t < n; ++t) {
      const long k = rest % m, l = (rest / m) % m;
      rest /= m * m;
      log_term += t == 0 ? std::log(a.start(k)) + std::log(b.start(l))
                         : std::log(a.trans(previous_k, k)) + std::log(b.trans(previous_l, l));
      log_term += log_normal(x.row(t).transpose(), a.means.col(k) + b.means.col(l), model.cov());
      previous_k = k;
      previous_l = l;
    }
    terms.push_back(log_term);
  }
  const double top = *std::max_element(terms.begin(), terms.end());
  double sum = 0;
  for (double v : terms) sum += std::exp(v - top);
  return top + std::log(sum);
}

// fhmm --prior pooled: MAP-EM never decreases L, and L's last value is the brute-force
// log-likelihood plus log IW(Sigma) (written out) minus (R/2) tr Sigma^-1 (smoothing 0: no Dirichlet
// terms); a strong prior makes Sigma the centre.
TEST(CovariancePriorEm, FhmmMapEmIsLikelihoodPlusLogPriorAndNeverDecreases) {
  std::mt19937_64 rng(8);
  const Eigen::MatrixXd x = switching_sequence(6, rng);
  FhmmFitOptions options;
  options.smoothing = 0;
  options.ridge = 0.05;
  options.iterations = 200;
  options.tolerance = 0;
  options.prior = prior_for(CovarianceForm::full, 6);
  const FhmmFit fit = fit_fhmm(x, options);
  for (std::size_t i = 1; i < fit.log_likelihoods.size(); ++i)
    EXPECT_GE(fit.log_likelihoods[i], fit.log_likelihoods[i - 1] - 1e-9 * std::fabs(fit.log_likelihoods[i])) << i;
  const Eigen::MatrixXd& sigma = fit.model->cov();
  const double expected = fhmm_brute_force_log_likelihood(*fit.model, x) +
                          log_inverse_wishart(sigma, 6, (6 - 3) * options.prior->centre) -
                          0.5 * 0.05 * sigma.inverse().trace();
  EXPECT_NEAR(fit.log_likelihoods.back(), expected, 1e-9 * std::fabs(expected));
  EXPECT_NEAR(fhmm_log_likelihood(*fit.model, x), fhmm_brute_force_log_likelihood(*fit.model, x),
              1e-9 * std::fabs(expected));
  options.prior->count = 1e7;
  const Eigen::MatrixXd strong = fit_fhmm(x, options).model->cov();
  EXPECT_LT((strong - options.prior->centre).norm(), 1e-4 * options.prior->centre.norm()) << strong;
}

// The fhmm chooser's objective, evaluated here: each sequence's last third scored by the
// brute-force log-likelihood under the fit (cheaper options) to its first two thirds.
TEST(CovariancePriorEm, FhmmChooserMaximisesTheHeldOutLikelihoodOverTheGrid) {
  std::mt19937_64 rng(9);
  std::vector<Eigen::MatrixXd> sequences;
  for (int i = 0; i < 3; ++i) sequences.push_back(switching_sequence(12 + 3 * i, rng));
  FhmmFitOptions options;
  options.ridge = 0.05;
  const CovariancePrior prior = prior_for(CovarianceForm::full, 0);
  const std::vector<double> counts{3.2, 6, 60};
  const CovariancePriorChoice choice = choose_fhmm_prior(sequences, options, prior.centre, counts, 100, 2);
  EXPECT_EQ(choice.examples_used, 3);
  expect_chooser_agrees<FhmmFitOptions>(choice, counts, options, prior.centre, [&](const FhmmFitOptions& cheap) {
    double total = 0;
    for (const Eigen::MatrixXd& x : sequences) {
      const Eigen::Index held = x.rows() / 3;
      total += fhmm_brute_force_log_likelihood(*fit_fhmm(x.topRows(x.rows() - held), cheap).model, x.bottomRows(held));
    }
    return total;
  });
  options.states = 11;
  options.chains = 3;  // 1331 product states: no exact likelihood
  EXPECT_NE(estimation_error([&] { choose_fhmm_prior(sequences, options, prior.centre, counts); }).find("prior.count"),
            std::string::npos);
}

// Examples of n points from two well separated components whose covariances are drawn from
// IW(nu_true, (nu_true - 3) C): Sigma^-1 ~ Wishart(nu_true, Psi^-1), a sum of nu_true outer
// products of N(0, Psi^-1) draws (nu_true whole).
std::vector<Eigen::MatrixXd> generated_sets(int nu_true, const Eigen::MatrixXd& centre, int sets, int n,
                                            std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  const Eigen::MatrixXd psi_inverse = ((nu_true - 3.0) * centre).inverse();
  const Eigen::MatrixXd root = psi_inverse.llt().matrixL();
  std::vector<Eigen::MatrixXd> out;
  for (int s = 0; s < sets; ++s) {
    Eigen::MatrixXd x(n, 2);
    for (int k = 0; k < 2; ++k) {
      Eigen::MatrixXd precision = Eigen::MatrixXd::Zero(2, 2);
      for (int j = 0; j < nu_true; ++j) {
        const Eigen::Vector2d z = root * Eigen::Vector2d(normal(rng), normal(rng));
        precision += z * z.transpose();
      }
      const Eigen::MatrixXd l = Eigen::MatrixXd(precision.inverse()).llt().matrixL();
      for (int i = k; i < n; i += 2)
        x.row(i) = (Eigen::Vector2d(60.0 * k, 0) + l * Eigen::Vector2d(normal(rng), normal(rng))).transpose();
    }
    out.push_back(x);
  }
  return out;
}

// Recovery: examples drawn from the model the chooser assumes (two well separated components per
// set, each covariance drawn from IW(nu_true, (nu_true - 3) C)), 100 sets of 30 points (about 10
// kept and 5 held-out points per component), the chooser given C, over a fine grid
// nu = 3 + 2^(j/4), j = -12..40. The posterior predictive's expected log score is maximised at the
// generating nu (a proper scoring rule under the generating model), so the choice is centred on
// nu_true up to sampling noise; its standard error is measured here from `replicates` independent
// draws of the 100 sets. On log(nu - 3), the scale on which the grid is even: the mean over the
// replicates must lie within 3 standard errors of the mean of log(nu_true - 3).
TEST(CovariancePriorEm, ChosenStrengthRecoversTheGeneratingOneWithinItsStandardError) {
  Eigen::MatrixXd centre(2, 2);
  centre << 1.0, 0.3, 0.3, 0.5;
  MixtureFitOptions options;
  options.components = 2;
  std::vector<double> counts;
  for (int j = -12; j <= 40; ++j) counts.push_back(3.0 + std::exp2(j / 4.0));
  constexpr int replicates = 6;
  for (int nu_true : {5, 7, 11, 19}) {
    std::vector<double> logs;
    for (int r = 0; r < replicates; ++r) {
      std::mt19937_64 rng(1000 + 10 * nu_true + r);
      const std::vector<Eigen::MatrixXd> sets = generated_sets(nu_true, centre, 100, 30, rng);
      logs.push_back(std::log(choose_mixture_prior(sets, options, centre, counts, 100, 2).count - 3.0));
    }
    double mean = 0, square = 0;
    for (double v : logs) mean += v / replicates;
    for (double v : logs) square += (v - mean) * (v - mean) / (replicates - 1);
    const double standard_error = std::sqrt(square / replicates), target = std::log(nu_true - 3.0);
    std::printf("nu_true %d: chosen nu - 3 geometric mean %.3g (log %.3f, SE %.3f, z %.2f)\n", nu_true, std::exp(mean),
                mean, standard_error, (mean - target) / standard_error);
    EXPECT_LE(std::fabs(mean - target), 3 * standard_error)
        << "nu_true " << nu_true << ": mean log(nu - 3) " << mean << ", SE " << standard_error;
  }
}

}  // namespace
}  // namespace ppk
