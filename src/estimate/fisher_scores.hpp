// Internal to libppk: the pieces of Fisher scores (fisher.hpp) that the families' scores share.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

namespace ppk::detail {

// "name[i]": a feature's block and one more index.
std::string indexed(const std::string& name, long i);
// The names block[i][j] of a matrix's entries, row by row; of its upper triangle (j >= i) only when
// `upper_triangle` (a symmetric matrix's free entries).
void name_entries(const std::string& block, long rows, long cols, bool upper_triangle, std::vector<std::string>& names);

// The scores of the logits a of p = softmax(a) from the expected counts c: c_o - (sum c) p_o.
template <class Out>
void write_logit_scores(const Eigen::Ref<const Eigen::VectorXd>& counts, const Eigen::Ref<const Eigen::VectorXd>& p,
                        Out&& out) {
  out = counts - counts.sum() * p;
}

// The scores of the upper-triangle entries s_ij (i <= j) of a full covariance Sigma with precision P,
// from the expected scatter S about its mean and the expected count N: with
// G = (P S P - N P) / 2, G_ii for i = j and 2 G_ij for i < j, row by row, from index j; returns the
// next index.
Eigen::Index write_covariance_entry_scores(const Eigen::MatrixXd& precision, const Eigen::MatrixXd& scatter, double count,
                                           Eigen::VectorXd& out, Eigen::Index j);

// The entries of a matrix row by row into out from index j; returns the next index.
Eigen::Index write_row_by_row(const Eigen::MatrixXd& m, Eigen::VectorXd& out, Eigen::Index j);

// EstimationError unless the rows of x (the vectors of the `example`, "sequence" or "set") are at
// least one, of dimension `dim`, and finite.
void check_rows(const Eigen::MatrixXd& x, long dim, const char* example);

// A log-likelihood that is not finite: the example ("sequence", "set") has probability 0 under the
// pooled model, and its Fisher score is not defined (EstimationError).
void check_probability(double log_likelihood, const char* example);

}  // namespace ppk::detail
