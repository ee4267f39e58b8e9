// The degenerate-kernel diagnostic (kernel_diagnostic.hpp) and the values written for LIBSVM
// (libsvm_readable in row.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "ppk/families/gaussian.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/kernel_diagnostic.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/core/row.hpp"
#include "kernel_params.hpp"

namespace ppk {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The value of "1:V" as LIBSVM's readers parse it (svm-train.c, svm-predict.c): strtod, and a
// value for which strtod sets errno is an input error. Fails the test if it would be one.
double read_as_libsvm(const std::string& entry) {
  const std::string text = entry.substr(entry.find(':') + 1);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  EXPECT_EQ(errno, 0) << "LIBSVM refuses " << entry;
  EXPECT_EQ(*end, '\0') << entry;
  return value;
}

TEST(LibsvmReadable, SubnormalsBecomeTheSmallestNormalDoubleOfTheirSign) {
  const double smallest_subnormal = std::numeric_limits<double>::denorm_min();
  for (double subnormal : {smallest_subnormal, 1.8433880745067955e-317, std::nextafter(DBL_MIN, 0.0), 1e-310}) {
    // The oracle that the fix is needed: LIBSVM's strtod refuses the value as %.17g writes it.
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", subnormal);
    errno = 0;
    std::strtod(text, nullptr);
    EXPECT_EQ(errno, ERANGE) << text;

    EXPECT_EQ(libsvm_readable(subnormal), DBL_MIN);
    EXPECT_EQ(libsvm_readable(-subnormal), -DBL_MIN);
    EXPECT_EQ(read_as_libsvm(format_entries({{1, subnormal}})), DBL_MIN);
    EXPECT_EQ(read_as_libsvm(format_entries({{1, -subnormal}})), -DBL_MIN);
  }
  // Everything else is written as it is and reads back as the same double.
  for (double normal : {0.0, -0.0, DBL_MIN, -DBL_MIN, 1e-300, 0.5, -3.25, DBL_MAX, -DBL_MAX}) {
    EXPECT_EQ(libsvm_readable(normal), normal);
    EXPECT_EQ(read_as_libsvm(format_entries({{1, normal}})), normal);
  }
}

TEST(LibsvmReadable, AModelWithASubnormalProbabilityIsWrittenAsARowLibsvmReads) {
  // A multinomial with a probability of 1e-320 (an EM estimate can underflow so far).
  const auto model = [] {
    return std::make_unique<MultinomialModel>(SparseProbabilities::from_dense({1.0, 1e-320, 0.0}), Trials{});
  };
  const Row encoded = encode_row(*model());
  ASSERT_TRUE(std::any_of(encoded.begin(), encoded.end(), [](const RowEntry& entry) {
    return entry.value != 0 && std::fabs(entry.value) < DBL_MIN;
  })) << "the row has no subnormal value to write";
  const std::string text = format_entries(encoded);
  Row row;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find(' ', begin), text.size());
    const std::string entry = text.substr(begin, end - begin);
    row.push_back({std::stoi(entry), read_as_libsvm(entry)});
    begin = end + 1;
  }
  // The same kernel as the model written (the probability changed by less than 2.3e-308).
  const PreparedModel original(model(), with_rho(0.5));
  const PreparedModel read(decode_row(row), with_rho(0.5));
  EXPECT_EQ(kernel(original, read), kernel(original, original));
}

TEST(KernelQuantiles, AreTheOrderStatisticsOfRankCeilPercentTimesNOver100) {
  // 100 values: percentile p is the p-th smallest (the minimum for p = 0).
  std::vector<double> values;
  for (int k = 100; k >= 1; --k) values.push_back(-0.5 * k);  // unsorted
  const std::vector<KernelQuantile> quantiles = kernel_quantiles(values);
  const std::vector<int> percents = {0, 1, 10, 25, 50, 75, 90, 99, 100};
  ASSERT_EQ(quantiles.size(), percents.size());
  for (std::size_t q = 0; q < percents.size(); ++q) {
    EXPECT_EQ(quantiles[q].percent, percents[q]);
    const int rank = std::max(1, percents[q]);  // the rank-th smallest of -50, -49.5, ..., -0.5
    EXPECT_EQ(quantiles[q].log_value, -0.5 * (101 - rank));
  }
  // 7 values: the median is the 4th smallest, the 10% quantile the 1st, the 90% one the 7th.
  const std::vector<KernelQuantile> seven = kernel_quantiles({-7, -1, -6, -2, -5, -3, -4});
  EXPECT_EQ(seven[4].log_value, -4);
  EXPECT_EQ(seven[2].log_value, -7);
  EXPECT_EQ(seven[6].log_value, -1);
  EXPECT_TRUE(kernel_quantiles({}).empty());
}

TEST(DegenerateKernelWarning, FiresAtNinetyFivePercentNearZeroOrNearOne) {
  const KernelParams params = with_rho_and_length(0.25, 9);
  const double tiny = std::log(1e-7), middling = std::log(0.3), close_to_one = std::log1p(-1e-7);
  std::vector<double> values(19, tiny);
  values.push_back(middling);  // 19 of 20 = 95% below 1e-6
  const std::string identity = degenerate_kernel_warning(kernel_spread(values), params);
  EXPECT_TRUE(contains(identity, "nearly the identity")) << identity;
  EXPECT_TRUE(contains(identity, "19 of 20")) << identity;
  EXPECT_TRUE(contains(identity, "rho = 0.25 (-g) and T = 9 (-d)")) << identity;
  EXPECT_TRUE(contains(identity, "median 1e-07")) << identity;
  EXPECT_TRUE(contains(identity, "smaller rho")) << identity;
  values[0] = middling;  // 18 of 20
  EXPECT_EQ(degenerate_kernel_warning(kernel_spread(values), params), "");

  std::vector<double> alike(19, close_to_one);
  alike.push_back(middling);
  const std::string constant = degenerate_kernel_warning(kernel_spread(alike), with_rho(1.0));
  EXPECT_TRUE(contains(constant, "nearly constant")) << constant;
  EXPECT_TRUE(contains(constant, "T = 0 (-d, 0: each model's own length)")) << constant;
  EXPECT_TRUE(contains(constant, "larger rho")) << constant;
  // Exactly at the thresholds is neither; one value is no evidence.
  EXPECT_EQ(degenerate_kernel_warning(kernel_spread(std::vector<double>(20, std::log(1e-6))), params), "");
  EXPECT_EQ(degenerate_kernel_warning(kernel_spread({tiny}), params), "");
  // k = 0 (log c = -inf) is below 1e-6.
  const double none = -std::numeric_limits<double>::infinity();
  EXPECT_TRUE(contains(degenerate_kernel_warning(kernel_spread({none, none, none}), params), "3 of 3"));
}

TEST(FormatExp, WritesAnyMagnitude) {
  EXPECT_EQ(format_exp(std::log(1.5e-7), 6), "1.5e-07");
  EXPECT_EQ(format_exp(std::log(0.25), 2), "2.5e-01");
  EXPECT_EQ(format_exp(-1000 * std::log(10.0), 3), "1e-1000");
  EXPECT_EQ(format_exp(std::log(9.999999), 2), "1e+01");  // the mantissa rounds to 10
  EXPECT_EQ(format_exp(0, 6), "1e+00");
  EXPECT_EQ(format_exp(-std::numeric_limits<double>::infinity(), 6), "0");
}

// Isotropic Gaussians N(mu_i, s2 I) on a line: log c(i, j) = -rho |mu_i - mu_j|^2 / (4 s2) (JMLR 2004
// section 3.1: the normalised kernel is an RBF kernel in the means).
struct GaussianRows {
  std::vector<std::unique_ptr<PreparedModel>> owned;
  std::vector<const PreparedModel*> models;
  std::vector<double> means;
  double rho = 0.5, variance = 2.0;
  explicit GaussianRows(int n) {
    for (int i = 0; i < n; ++i) {
      means.push_back(0.37 * i * i);
      owned.push_back(std::make_unique<PreparedModel>(
          GaussianModel::isotropic(Eigen::Vector2d(means.back(), 1.0), variance), with_rho(rho)));
      models.push_back(owned.back().get());
    }
  }
  double log_c(std::size_t i, std::size_t j) const {
    const double d = means[i] - means[j];
    return -rho * d * d / (4 * variance);
  }
};

TEST(SampleLogNormalizedKernels, EveryPairWhenFewAFixedSampleWhenMany) {
  const GaussianRows few(6);  // 15 pairs i < j
  const std::vector<double> all = sample_log_normalized_kernels(few.models, few.models, true);
  ASSERT_EQ(all.size(), 15u);
  std::size_t k = 0;
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = i + 1; j < 6; ++j, ++k) EXPECT_NEAR(all[k], few.log_c(i, j), 1e-12 * (1 + std::fabs(all[k])));
  // A against B: all 6 x 2 pairs, the pairs (i, i) included.
  const std::vector<const PreparedModel*> two(few.models.begin(), few.models.begin() + 2);
  EXPECT_EQ(sample_log_normalized_kernels(few.models, two, false).size(), 12u);

  const GaussianRows many(40);  // 780 pairs: a sample of 200, each a pair i != j
  const std::vector<double> sample = sample_log_normalized_kernels(many.models, many.models, true);
  ASSERT_EQ(sample.size(), kDiagnosticPairs);
  EXPECT_EQ(sample, sample_log_normalized_kernels(many.models, many.models, true));  // the same every time
  std::set<double> distinct;
  for (double value : sample) {
    bool found = false;
    for (std::size_t i = 0; i < 40 && !found; ++i)
      for (std::size_t j = 0; j < 40 && !found; ++j)
        found = i != j && std::fabs(value - many.log_c(i, j)) <= 1e-12 * (1 + std::fabs(value));
    EXPECT_TRUE(found) << value;
    distinct.insert(value);
  }
  EXPECT_GT(distinct.size(), 100u);  // spread over the pairs, not one pair repeated
}

TEST(SampleLogNormalizedKernels, SkipsPairsWithoutAKernel) {
  const PreparedModel plane(GaussianModel::isotropic(Eigen::Vector2d(0, 0), 1.0), with_rho(1.0));
  const PreparedModel space(GaussianModel::isotropic(Eigen::Vector3d(0, 0, 0), 1.0), with_rho(1.0));
  const PreparedModel other_plane(GaussianModel::isotropic(Eigen::Vector2d(1, 0), 1.0), with_rho(1.0));
  const std::vector<const PreparedModel*> models = {&plane, &space, &other_plane};
  const std::vector<double> values = sample_log_normalized_kernels(models, models, true);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_NEAR(values[0], -1.0 / 4, 1e-14);
}

}  // namespace
}  // namespace ppk
