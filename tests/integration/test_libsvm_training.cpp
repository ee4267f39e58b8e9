// Training and prediction through the patched LIBSVM with the ppk kernel types,
// checked against LIBSVM's own kernels on equivalent data:
//  * isotropic Gaussians N(x, s I) at rho = 1 give k = c exp(-|x-x'|^2 / (4s)) with
//    c = (4 pi s)^(-D/2) (JMLR 2004, section 3.1): an RBF kernel with gamma = 1/(4s)
//    scaled by c. Training with C/c gives alpha/c and the same decision values.
//  * one-event multinomials at rho = 1/2 give sum_d sqrt(a_d a'_d): the linear
//    kernel on sqrt(a) (JMLR 2004, section 2.1).
// LIBSVM's kernel cache holds Q in single precision (Qfloat = float), so c*K and K
// round differently and the solver's path differs at float precision: decision
// values agree to ~1e-6 relative, not to the last bit. kDecisionTolerance is a
// hundred times float's rounding error amplified by such paths, and far below what
// a wrong gamma or constant would give (> 1e-2); the support vectors must be the same.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ppk/families/gamma.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/core/row.hpp"
#include "svm.h"

namespace {

constexpr double kPi = 3.14159265358979323846;

// A LIBSVM problem that owns its rows.
struct Problem {
  std::vector<std::vector<svm_node>> rows;
  std::vector<double> labels;
  std::vector<svm_node*> pointers;
  svm_problem prob{};

  // `row` ends with LIBSVM's terminator (index -1).
  void add(double label, std::vector<svm_node> row) {
    labels.push_back(label);
    rows.push_back(std::move(row));
  }
  const svm_problem* get() {
    pointers.clear();
    for (auto& r : rows) pointers.push_back(r.data());
    prob.l = static_cast<int>(rows.size());
    prob.y = labels.data();
    prob.x = pointers.data();
    return &prob;
  }
};

svm_parameter parameters(int kernel_type, double gamma, double C) {
  svm_parameter p{};
  p.svm_type = C_SVC;
  p.kernel_type = kernel_type;
  p.degree = 0;
  p.gamma = gamma;
  p.coef0 = 0;
  p.cache_size = 40;
  p.eps = 1e-6;
  p.C = C;
  p.nu = 0.5;
  p.p = 0.1;
  p.shrinking = 1;
  p.probability = 0;
  return p;
}

struct ModelDeleter {
  void operator()(svm_model* m) const { svm_free_and_destroy_model(&m); }
};
using ModelPtr = std::unique_ptr<svm_model, ModelDeleter>;

ModelPtr train(Problem& data, const svm_parameter& param) {
  const char* error = svm_check_parameter(data.get(), &param);
  EXPECT_EQ(error, nullptr) << error;
  return ModelPtr(svm_train(data.get(), &param));
}

double decision_value(const svm_model* model, const std::vector<svm_node>& row) {
  double value = 0;
  svm_predict_values(model, row.data(), &value);
  return value;
}

void silence_libsvm() {
  svm_set_print_string_function([](const char*) {});
}

// Two overlapping classes of points in the plane, reproducibly.
struct Points {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
};
Points make_points(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  Points points;
  for (int i = 0; i < n; ++i) {
    const double label = i % 2 ? 1.0 : -1.0;
    const double r = 1.0 + 0.6 * label + 0.4 * noise(rng);
    const double angle = 2 * kPi * (rng() % 1000) / 1000.0;
    points.x.push_back({r * std::cos(angle), r * std::sin(angle)});
    points.y.push_back(label);
  }
  return points;
}

std::vector<svm_node> dense_row(const std::vector<double>& v) {
  std::vector<svm_node> row;
  for (std::size_t d = 0; d < v.size(); ++d) row.push_back({static_cast<int>(d) + 1, v[d]});
  row.push_back({-1, 0.0});
  return row;
}

std::vector<svm_node> model_row(const ppk::Model& model) {
  std::vector<svm_node> row;
  for (const ppk::RowEntry& e : ppk::encode_row(model)) row.push_back({e.index, e.value});
  row.push_back({-1, 0.0});
  return row;
}

std::unique_ptr<ppk::Model> point_model(const std::vector<double>& x, double variance) {
  return ppk::GaussianModel::isotropic(Eigen::Map<const Eigen::VectorXd>(x.data(), x.size()), variance);
}

constexpr double kVariance = 0.5;                             // s
constexpr double kRbfGamma = 1.0 / (4.0 * kVariance);         // gamma = 1/(4s)
const double kScale = std::pow(4.0 * kPi * kVariance, -1.0);  // c = (4 pi s)^(-D/2), D = 2
constexpr double kDecisionTolerance = 1e-5;

std::vector<int> support_vector_indices(const svm_model* model) {
  std::vector<int> indices(svm_get_nr_sv(model));
  svm_get_sv_indices(model, indices.data());
  return indices;
}

TEST(LibsvmTraining, IsotropicGaussianAtRhoOneTrainsLikeRbf) {
  silence_libsvm();
  const Points train_points = make_points(80, 7), test_points = make_points(40, 8);
  Problem ppk_data, rbf_data;
  for (std::size_t i = 0; i < train_points.x.size(); ++i) {
    ppk_data.add(train_points.y[i], model_row(*point_model(train_points.x[i], kVariance)));
    rbf_data.add(train_points.y[i], dense_row(train_points.x[i]));
  }
  const double C = 4.0;
  ModelPtr ppk_model = train(ppk_data, parameters(5, 1.0, C / kScale));
  ModelPtr rbf_model = train(rbf_data, parameters(RBF, kRbfGamma, C));
  ASSERT_TRUE(ppk_model && rbf_model);
  EXPECT_EQ(support_vector_indices(ppk_model.get()), support_vector_indices(rbf_model.get()));
  for (const auto& x : test_points.x) {
    const double ppk_value = decision_value(ppk_model.get(), model_row(*point_model(x, kVariance)));
    const double rbf_value = decision_value(rbf_model.get(), dense_row(x));
    EXPECT_NEAR(ppk_value, rbf_value, kDecisionTolerance * std::max(1.0, std::abs(rbf_value)));
  }
}

TEST(LibsvmTraining, CrossValidationAndProbabilitiesMatchRbf) {
  silence_libsvm();
  const Points points = make_points(60, 11);
  Problem ppk_data, rbf_data;
  for (std::size_t i = 0; i < points.x.size(); ++i) {
    ppk_data.add(points.y[i], model_row(*point_model(points.x[i], kVariance)));
    rbf_data.add(points.y[i], dense_row(points.x[i]));
  }
  const double C = 2.0;
  svm_parameter ppk_param = parameters(5, 1.0, C / kScale), rbf_param = parameters(RBF, kRbfGamma, C);
  std::vector<double> ppk_target(points.x.size()), rbf_target(points.x.size());
  std::srand(3);  // svm_cross_validation draws its folds with rand()
  svm_cross_validation(ppk_data.get(), &ppk_param, 5, ppk_target.data());
  std::srand(3);
  svm_cross_validation(rbf_data.get(), &rbf_param, 5, rbf_target.data());
  EXPECT_EQ(ppk_target, rbf_target);

  ppk_param.probability = rbf_param.probability = 1;
  std::srand(5);
  ModelPtr ppk_model = train(ppk_data, ppk_param);
  std::srand(5);
  ModelPtr rbf_model = train(rbf_data, rbf_param);
  ASSERT_TRUE(ppk_model && rbf_model);
  double ppk_prob[2], rbf_prob[2];
  for (const auto& x : make_points(10, 12).x) {
    svm_predict_probability(ppk_model.get(), model_row(*point_model(x, kVariance)).data(), ppk_prob);
    svm_predict_probability(rbf_model.get(), dense_row(x).data(), rbf_prob);
    EXPECT_NEAR(ppk_prob[0], rbf_prob[0], 1e-6);
  }
}

TEST(LibsvmTraining, MultinomialBhattacharyyaTrainsLikeLinearOnSquareRoots) {
  silence_libsvm();
  std::mt19937 rng(21);
  std::gamma_distribution<double> gamma(0.7, 1.0);
  const int D = 8;
  auto random_probabilities = [&](double label) {
    std::vector<double> a(D);
    double sum = 0;
    for (int d = 0; d < D; ++d) sum += a[d] = gamma(rng) * (d < 3 && label > 0 ? 2.5 : 1.0);
    for (double& v : a) v /= sum;
    return a;
  };
  auto sqrt_row = [](const std::vector<double>& a) {
    std::vector<double> root(a.size());
    for (std::size_t d = 0; d < a.size(); ++d) root[d] = std::sqrt(a[d]);
    return dense_row(root);
  };
  auto model = [](const std::vector<double>& a) {
    return std::make_unique<ppk::MultinomialModel>(ppk::SparseProbabilities::from_dense(a), ppk::Trials{});
  };
  Problem ppk_data, linear_data;
  for (int i = 0; i < 80; ++i) {
    const double label = i % 2 ? 1.0 : -1.0;
    const std::vector<double> a = random_probabilities(label);
    ppk_data.add(label, model_row(*model(a)));
    linear_data.add(label, sqrt_row(a));
  }
  ModelPtr ppk_model = train(ppk_data, parameters(5, 0.5, 10.0));
  ModelPtr linear_model = train(linear_data, parameters(LINEAR, 0.0, 10.0));
  ASSERT_TRUE(ppk_model && linear_model);
  EXPECT_EQ(support_vector_indices(ppk_model.get()), support_vector_indices(linear_model.get()));
  for (int i = 0; i < 30; ++i) {
    const std::vector<double> a = random_probabilities(i % 2 ? 1.0 : -1.0);
    const double ppk_value = decision_value(ppk_model.get(), model_row(*model(a)));
    const double linear_value = decision_value(linear_model.get(), sqrt_row(a));
    EXPECT_NEAR(ppk_value, linear_value, kDecisionTolerance * std::max(1.0, std::abs(linear_value)));
  }
}

// Full-covariance Gaussians: a model file must keep every digit (%.17g) so that a
// reloaded model predicts exactly what the trained one did.
class ModelFileRoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(ModelFileRoundTrip, SaveLoadPredictGivesIdenticalDecisionValues) {
  silence_libsvm();
  std::mt19937 rng(31);
  std::normal_distribution<double> noise(0.0, 1.0);
  auto random_gaussian = [&](double label) {
    Eigen::Vector2d mean(noise(rng) + label, noise(rng));
    Eigen::Matrix2d factor;
    factor << 1.0 + 0.3 * noise(rng), 0.0, 0.5 * noise(rng), 0.7 + 0.2 * std::abs(noise(rng));
    return ppk::GaussianModel::full(mean, factor * factor.transpose() / 3.0);
  };
  Problem data;
  for (int i = 0; i < 40; ++i) {
    const double label = i % 3 ? 1.0 : 2.0;
    data.add(label, model_row(*random_gaussian(label)));
  }
  ModelPtr model = train(data, parameters(GetParam(), 0.5, 3.0));
  ASSERT_TRUE(model);
  const std::string path = ::testing::TempDir() + "ppk_round_trip_" + std::to_string(GetParam()) + ".model";
  ASSERT_EQ(svm_save_model(path.c_str(), model.get()), 0);
  ModelPtr loaded(svm_load_model(path.c_str()));
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->param.kernel_type, GetParam());
  EXPECT_EQ(loaded->param.gamma, 0.5);
  for (int i = 0; i < 20; ++i) {
    const std::vector<svm_node> row = model_row(*random_gaussian(i % 2 ? 1.0 : -1.0));
    EXPECT_EQ(decision_value(model.get(), row), decision_value(loaded.get(), row));
    EXPECT_EQ(svm_predict(model.get(), row.data()), svm_predict(loaded.get(), row.data()));
  }
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(PpkAndPpkNorm, ModelFileRoundTrip, ::testing::Values(5, 6));

TEST(LibsvmTraining, BadRowsAreRejectedWithRowAndField) {
  Problem data;
  data.add(1, model_row(*point_model({0.0, 1.0}, 1.0)));
  data.add(-1, model_row(*point_model({1.0, 0.0}, 1.0)));
  // Row 3: variance -1 (version 1, gaussian, D = 2, isotropic, mean (1, 1)).
  data.add(1, {{1, 1}, {2, 1}, {3, 2}, {4, 1}, {5, 1}, {6, 1}, {7, -1}, {-1, 0}});
  svm_parameter param = parameters(5, 1.0, 1.0);
  const char* error = svm_check_parameter(data.get(), &param);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("row 3"), std::string::npos) << error;
  EXPECT_NE(std::string(error).find("\"var\""), std::string::npos) << error;
}

TEST(LibsvmTraining, ModelsOverDifferentSampleSpacesAreRejected) {
  Problem data;
  data.add(1, model_row(*point_model({0.0, 1.0}, 1.0)));
  data.add(-1, model_row(*point_model({1.0, 0.0, 2.0}, 1.0)));
  svm_parameter param = parameters(6, 1.0, 1.0);
  const char* error = svm_check_parameter(data.get(), &param);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("rows 1 and 2"), std::string::npos) << error;
  EXPECT_NE(std::string(error).find("dimension 3"), std::string::npos) << error;
}

// Isotropic Gaussians with variance 1e-3 in D = 40: k(p, p) = (4 pi 1e-3)^(-20) ~ e^87 is
// fine at rho = 1, but at rho = 8, k(p, p) = (2 rho)^(-D/2) (2 pi s)^((1-2rho)D/2) ~ e^1466 overflows.
TEST(LibsvmTraining, UnnormalizedKernelsThatOverflowAskForPpkNorm) {
  Problem data;
  data.add(1, model_row(*point_model(std::vector<double>(40, 0.0), 1e-3)));
  data.add(-1, model_row(*point_model(std::vector<double>(40, 1.0), 1e-3)));
  svm_parameter param = parameters(5, 8.0, 1.0);
  const char* error = svm_check_parameter(data.get(), &param);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("row 1"), std::string::npos) << error;
  EXPECT_NE(std::string(error).find("ppk_norm"), std::string::npos) << error;
  param.kernel_type = 6;
  EXPECT_EQ(svm_check_parameter(data.get(), &param), nullptr);
}

// A gamma row with shape 0.3 has kernels only for rho < 1 / (2 (1 - 0.3)) = 0.714...: at rho = 2
// svm_check_parameter names the row, the field and the bound; at rho = 0.5 it trains.
TEST(LibsvmTraining, RhoOutsideAGammaRowsDomainIsRejectedWithRowFieldAndBound) {
  Problem data;
  data.add(1, model_row(ppk::GammaModel({2.0, 1.5}, {1.0, 2.0})));
  data.add(-1, model_row(ppk::GammaModel({1.0, 0.3}, {0.5, 1.0})));
  svm_parameter param = parameters(6, 2.0, 1.0);
  const char* error = svm_check_parameter(data.get(), &param);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("row 2"), std::string::npos) << error;
  EXPECT_NE(std::string(error).find("\"shape\"[1] = 0.3"), std::string::npos) << error;
  EXPECT_NE(std::string(error).find("rho < 0.714285714"), std::string::npos) << error;
  param.gamma = 0.5;
  EXPECT_EQ(svm_check_parameter(data.get(), &param), nullptr);
}

TEST(LibsvmTraining, RhoMustBePositive) {
  Problem data;
  data.add(1, model_row(*point_model({0.0, 1.0}, 1.0)));
  for (double rho : {0.0, -1.0, std::nan("")}) {
    svm_parameter param = parameters(5, rho, 1.0);
    const char* error = svm_check_parameter(data.get(), &param);
    ASSERT_NE(error, nullptr);
    EXPECT_NE(std::string(error).find("-g"), std::string::npos) << error;
  }
}

}  // namespace
