// The worked example of docs/adding-a-family.md: the family of examples/geometric_family.cpp, one
// file, compiled into this binary and added by its one registration line; its row and JSON forms,
// its error messages and its kernel against a brute-force sum.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppk/core/family.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/row.hpp"

namespace ppk {

const FamilyInfo& geometric_family();  // examples/geometric_family.cpp

namespace {

class GeometricFamily : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { register_family(geometric_family()); }
};

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ModelError& error) {
    return error.what();
  }
  return "";
}

TEST_F(GeometricFamily, RowLayoutAndRoundTrips) {
  const nlohmann::json object = nlohmann::json::parse(R"({"family":"geometric","q":[0.5,0,0.25]})");
  const std::unique_ptr<Model> model = model_from_json(object);
  // The layout the example's comment states: version, code 17, D, then q with its zero omitted.
  const Row expected = {{1, 1}, {2, 17}, {3, 3}, {4, 0.5}, {6, 0.25}};
  const Row row = encode_row(*model);
  EXPECT_EQ(format_entries(row), format_entries(expected));
  const std::unique_ptr<Model> decoded = decode_row(row);
  EXPECT_EQ(format_entries(encode_row(*decoded)), format_entries(expected));
  EXPECT_EQ(model_to_json(*decoded), object);
}

TEST_F(GeometricFamily, ErrorsNameTheFieldAndTheRowIndex) {
  EXPECT_EQ(error_of([] {
              decode_row(Row{{1, 1}, {2, 17}, {3, 2}, {4, 0.5}, {5, 1}});
            }),
            "geometric field \"q\" (index 5): expected a probability in [0, 1), got 1");
  EXPECT_EQ(error_of([] {
              decode_row(Row{{1, 1}, {2, 17}});
            }),
            "geometric field \"dim\" (index 3): expected a whole number in [1, 100000000], got 0");
  EXPECT_EQ(error_of([] { model_from_json(nlohmann::json::parse(R"({"family":"geometric","q":[0.5,-0.1]})")); }),
            "geometric field \"q\"[1]: expected a probability in [0, 1), got -0.1");
  EXPECT_EQ(error_of([] { model_from_json(nlohmann::json::parse(R"({"family":"geometric","p":[0.5]})")); }),
            "geometric field \"p\": not a field of this family (expected \"q\")");
}

TEST_F(GeometricFamily, KernelIsTheBruteForceSum) {
  const std::vector<double> q = {0.3, 0.8, 0.0}, r = {0.6, 0.1, 0.45};
  const auto as_model = [](const std::vector<double>& p) {
    return model_from_json(nlohmann::json{{"family", "geometric"}, {"q", p}});
  };
  for (const double rho : {0.5, 1.0, 1.7}) {
    // prod_d sum_{x < 5000} (pmf(x; q_d) pmf(x; r_d))^rho: the omitted tail is below 0.8^5000.
    double brute_force = 1.0;
    for (std::size_t d = 0; d < q.size(); ++d) {
      double sum = 0.0;
      for (int x = 0; x < 5000; ++x)
        sum += std::pow((1 - q[d]) * std::pow(q[d], x) * (1 - r[d]) * std::pow(r[d], x), rho);
      brute_force *= sum;
    }
    const std::unique_ptr<Model> a = as_model(q), b = as_model(r);
    a->prepare({rho, 0});
    b->prepare({rho, 0});
    EXPECT_NEAR(std::exp(a->log_kernel(*b)), brute_force, 1e-13 * brute_force) << "rho " << rho;
  }
}

TEST_F(GeometricFamily, ATakenNameOrCodeIsRefused) {
  EXPECT_THROW(register_family(geometric_family()), std::invalid_argument);
  FamilyInfo clash = geometric_family();
  clash.name = "another";
  clash.code = 4;  // poisson's
  EXPECT_THROW(register_family(clash), std::invalid_argument);
}

// docs/adding-a-family.md quotes examples/geometric_family.cpp verbatim: the page's ```cpp block after
// the line naming the file is the file.
TEST(AddingAFamilyPage, QuotesTheExampleVerbatim) {
  const auto read = [](const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in) << path;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string page = read(PPK_SOURCE_DIR "/docs/adding-a-family.md");
  const std::string file = read(PPK_SOURCE_DIR "/examples/geometric_family.cpp");
  const std::string opening = "```cpp\n// A worked example family";
  const std::size_t begin = page.find(opening);
  ASSERT_NE(begin, std::string::npos);
  const std::size_t end = page.find("\n```\n", begin);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(page.substr(begin + 7, end + 1 - (begin + 7)), file);
}

}  // namespace
}  // namespace ppk
