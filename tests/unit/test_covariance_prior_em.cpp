// The inverse-Wishart prior on the covariances of Gaussian mixtures and Gaussian-emission HMMs
// (estimate.hpp, CovariancePrior; docs/priors-by-evidence.md "Mixtures and Gaussian HMMs"):
// - the MAP M-step against a Nelder-Mead maximisation of the expected complete-data log-likelihood
//   plus the log prior (at EM's fixed point the M-step of the final responsibilities returns the
//   fitted parameters), full, diagonal and isotropic;
// - the MAP-EM objective never decreases, and its last value is the log-likelihood plus the
//   normalised log inverse-Wishart densities minus the ridge penalty, computed here independently;
// - the held-out choosers against a brute-force evaluation of their objective over the grid (the
//   held-out log-likelihood computed here: a log-sum-exp over components, a forward recursion);
// - recovery: the chosen nu grows with the nu that generated the examples' covariances, biased upward
//   (by a factor 1 to 8 on nu - p - 1).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include "estimate_helpers.hpp"
#include "ppk/estimate.hpp"
#include "ppk/gaussian.hpp"

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
    case CovarianceForm::full:
      return log_inverse_wishart(sigma, nu, (nu - static_cast<double>(dim) - 1) * prior.centre);
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
          << "form " << static_cast<int>(form) << ", k " << k << "\nfitted\n" << fitted.covariance() << "\nbrute force\n"
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
  EXPECT_NE(estimation_error([&] { fit_gaussian_mixture(x, options); }).find("--prior-count must be"), std::string::npos);
  HmmFitOptions discrete;
  discrete.prior = prior_for(CovarianceForm::full, 5);
  EXPECT_NE(estimation_error([&] { fit_discrete_hmm({0, 1, 0}, 2, discrete); }).find("--emission gaussian"),
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

// The chooser's objective, evaluated here: for each nu, the sum over the examples of the held-out
// log-likelihood (every third vector of a set; the last third of a sequence, by a forward
// recursion from the start probabilities), the rest fitted with the chooser's cheaper options.
TEST(CovariancePriorEm, MixtureChooserMaximisesTheHeldOutLikelihoodOverTheGrid) {
  std::mt19937_64 rng(3);
  std::vector<Eigen::MatrixXd> sets;
  for (int i = 0; i < 6; ++i) sets.push_back(two_clusters(12 + i, rng));
  sets.push_back(two_clusters(2, rng));  // too small to split: not used
  MixtureFitOptions options;
  options.components = 2;
  const CovariancePrior prior = prior_for(CovarianceForm::full, 0);
  const std::vector<double> counts{3.1, 4, 8, 30, 300};
  const CovariancePriorChoice choice = choose_mixture_prior(sets, options, prior.centre, counts, 100, 2);
  EXPECT_EQ(choice.examples_used, 6);
  expect_chooser_agrees<MixtureFitOptions>(choice, counts, options, prior.centre, [&](const MixtureFitOptions& cheap) {
    double total = 0;
    for (std::size_t e = 0; e + 1 < sets.size(); ++e) {
      const Eigen::MatrixXd& x = sets[e];
      std::vector<int> kept_rows, held_rows;
      for (int i = 0; i < x.rows(); ++i) (i % 3 == 2 ? held_rows : kept_rows).push_back(i);
      const GaussianMixtureFit fit = fit_gaussian_mixture(x(kept_rows, Eigen::all), cheap);
      for (int i : held_rows) {
        double density = 0;
        for (std::size_t k = 0; k < 2; ++k)
          density += fit.model->weights()[k] * std::exp(component(*fit.model, k).log_density(x.row(i).transpose()));
        total += std::log(density);
      }
    }
    return total;
  });
}

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
          const double emission = dynamic_cast<const GaussianModel&>(m.emission(static_cast<std::size_t>(q))).log_density(y);
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
        x.row(i) = (Eigen::Vector2d(12.0 * k, 0) + l * Eigen::Vector2d(normal(rng), normal(rng))).transpose();
    }
    out.push_back(x);
  }
  return out;
}

// The chosen nu against the generating one, 100 sets of 30 points (about 10 kept points per
// component). Held-out likelihood of the plug-in MAP fit is not the evidence: the MAP covariance
// divides by nu + N_k + D + 1, more than the weights' sum, so a weak prior shrinks small components
// and the held-out vectors then favour a stronger prior. Measured (two seeds each), nu_true -> chosen:
// 4 -> 7, 5 -> 11, 7 -> 19, 11 -> 35, 19 -> 67, 35 and 67 -> 1027 (the grid's end). So the tolerance
// is one-sided and wide: nu - 3 within [1, 8] times nu_true - 3, the choices non-decreasing in nu_true.
TEST(CovariancePriorEm, ChosenStrengthTracksTheGeneratingOneWithAnUpwardBias) {
  Eigen::MatrixXd centre(2, 2);
  centre << 1.0, 0.3, 0.3, 0.5;
  MixtureFitOptions options;
  options.components = 2;
  double previous = 0;
  for (int nu_true : {4, 5, 7, 11, 19}) {
    std::mt19937_64 rng(1000 + nu_true);
    const std::vector<Eigen::MatrixXd> sets = generated_sets(nu_true, centre, 100, 30, rng);
    const CovariancePriorChoice choice =
        choose_mixture_prior(sets, options, centre, default_prior_counts(CovarianceForm::full, 2), 100, 2);
    const double excess = choice.count - 3.0, true_excess = nu_true - 3.0;
    EXPECT_GE(excess, true_excess) << "nu_true " << nu_true << ", chosen " << choice.count;
    EXPECT_LE(excess, true_excess * 8) << "nu_true " << nu_true << ", chosen " << choice.count;
    EXPECT_GE(choice.count, previous) << "nu_true " << nu_true;
    previous = choice.count;
  }
}

}  // namespace
}  // namespace ppk
