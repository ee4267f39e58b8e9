// Internal to libppk: the held-out choice of the covariance prior's strength (covariance_prior.hpp),
// shared by the mixture's, the hmm's and the fhmm's choices: the examples split into the vectors
// fitted and the vectors scored, and the grid's scores summed over the used examples.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include <Eigen/Core>

#include "ppk/estimate/covariance_prior.hpp"

namespace ppk::detail {

// One example split into the vectors fitted and the vectors scored.
struct Split {
  Eigen::MatrixXd kept, held;
};

// The examples split by `split` (none when it returns false), evenly spaced, at most max_examples
// of them and about 3000 vectors in all (at least one).
std::vector<Split> used_splits(const std::vector<Eigen::MatrixXd>& examples, long max_examples,
                               const std::function<bool(const Eigen::MatrixXd&, Split&)>& split);

// Scores every (count, example) pair by score(split, nu) and picks the count of the largest sum.
CovariancePriorChoice choose_on_splits(const std::vector<Split>& used, const std::vector<double>& counts,
                                       unsigned threads, const std::function<double(const Split&, double)>& score);

// A sequence split into its first two thirds and its last third, held out (a sequence's order
// matters); false for fewer than 3 vectors.
bool last_third(const Eigen::MatrixXd& x, Split& out);

// Cheaper fits than the final ones, under the prior IW(nu, (nu - p - 1) centre).
template <class Options>
Options choice_fit_options(const Options& options, const Eigen::MatrixXd& centre, double nu) {
  Options out = options;
  out.restarts = 1;
  out.iterations = std::min(options.iterations, 100L);
  out.tolerance = std::max(options.tolerance, 1e-6);
  out.prior = CovariancePrior{nu, centre};
  return out;
}

}  // namespace ppk::detail
