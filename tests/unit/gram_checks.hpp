// Gram matrices of exact kernels on random models are positive semidefinite (JMLR 2004 eq. 2:
// k is an inner product in L2), for every family's tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "ppk/core/kernel.hpp"

namespace ppk {

// The Gram matrices of `evaluate(kind)` over `models`, for both kernel kinds, are symmetric and
// positive semidefinite (smallest eigenvalue >= -tolerance x largest), and k_norm(p, p) = 1.
inline void expect_positive_semidefinite(const std::vector<PreparedModel>& models, const std::string& what,
                                         double tolerance = 1e-9) {
  for (KernelKind kind : {KernelKind::ppk, KernelKind::ppk_norm}) {
    const Eigen::Index n = static_cast<Eigen::Index>(models.size());
    Eigen::MatrixXd gram(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j) gram(i, j) = evaluate(kind, models[i], models[j]);
    ASSERT_TRUE(gram.allFinite()) << what;
    EXPECT_LT((gram - gram.transpose()).cwiseAbs().maxCoeff(), 1e-12 * gram.cwiseAbs().maxCoeff()) << what;
    const Eigen::VectorXd eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram).eigenvalues();
    EXPECT_GE(eigenvalues.minCoeff(), -tolerance * eigenvalues.maxCoeff())
        << what << (kind == KernelKind::ppk ? " ppk" : " ppk_norm") << ": eigenvalues " << eigenvalues.transpose();
  }
  for (const PreparedModel& model : models) EXPECT_NEAR(normalized_kernel(model, model), 1.0, 1e-12) << what;
}

}  // namespace ppk
