// The row codec and the JSON form of models: layouts, round trips, zeros, and every rejection.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "error_message.hpp"
#include "ppk/families/bernoulli.hpp"
#include "ppk/core/family.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/families/multinomial.hpp"
#include "ppk/core/row.hpp"

namespace ppk {
namespace {

using nlohmann::json;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::unique_ptr<Model> model_from_json(const std::string& text) {
  const json object = json::parse(text);
  const FamilyInfo* family = find_family(object.at("family").get<std::string>());
  if (family == nullptr) throw std::runtime_error("no family " + text);
  return family->from_json(object);
}

json as_json(const Model& model) {
  json out;
  model.family().to_json(model, out);
  return out;
}

bool same_rows(const Row& a, const Row& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].index != b[i].index || a[i].value != b[i].value) return false;
  return true;
}

// The message of the ModelError that decoding `row` throws ("" if it decodes).
std::string decode_error(const Row& row) {
  return checks::error_message<ModelError>([&] { decode_row(row); });
}

std::string json_error(const std::string& text) {
  return checks::error_message<ModelError>([&] { model_from_json(text); });
}

using checks::mentions;

const char* const kModels[] = {
    R"({"family":"gaussian","mean":[0.5,0.0,-2.25],"var":2.0})",
    R"({"family":"gaussian","mean":[1.0,0.0],"diag":[0.5,3.0]})",
    R"({"family":"gaussian","mean":[1.0,2.0,0.0],"cov":[[2.0,0.5,0.0],[0.5,1.0,0.25],[0.0,0.25,3.0]]})",
    R"({"family":"bernoulli","p":[0.1,0.1,0.5,0.1,0.0,1.0]})",
    R"({"family":"bernoulli","p":[0.25,0.75]})",
    R"({"family":"multinomial","p":[0.1,0.2,0.3,0.4]})",
    R"({"family":"multinomial","p":[0.05,0.05,0.8,0.05,0.05],"trials":12})",
    R"({"family":"multinomial","p":[0.5,0.5,0.0,0.0],"trials":"all","decay":0.5})",
    R"({"family":"multinomial","p":[0.5,0.5],"trials":"all"})",
};

TEST(RowCodec, LayoutsAreTheDocumentedOnes) {
  // Hand-written from the field layouts in the family headers (zeros omitted).
  const std::pair<const char*, Row> cases[] = {
      {R"({"family":"gaussian","mean":[0.5,0.0],"var":2.0})", {{1, 1}, {2, 1}, {3, 2}, {4, 1}, {5, 0.5}, {7, 2}}},
      {R"({"family":"gaussian","mean":[1.0,2.0],"diag":[0.5,3.0]})",
       {{1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 1}, {6, 2}, {7, 0.5}, {8, 3}}},
      {R"({"family":"gaussian","mean":[1.0,2.0],"cov":[[2.0,0.5],[0.5,1.0]]})",
       {{1, 1}, {2, 1}, {3, 2}, {4, 3}, {5, 1}, {6, 2}, {7, 2}, {8, 0.5}, {9, 1}}},
      {R"({"family":"bernoulli","p":[0.1,0.1,0.5,0.1]})", {{1, 1}, {2, 2}, {3, 4}, {4, 0.1}, {7, 0.5}}},
      {R"({"family":"bernoulli","p":[0.0,0.1,0.1]})", {{1, 1}, {2, 2}, {3, 3}, {6, 0.1}, {7, 0.1}}},
      {R"({"family":"multinomial","p":[0.25,0.25,0.5]})", {{1, 1}, {2, 3}, {3, 3}, {6, 0.25}, {9, 0.5}}},
      {R"({"family":"multinomial","p":[0.25,0.25,0.5],"trials":7})",
       {{1, 1}, {2, 3}, {3, 3}, {4, 7}, {6, 0.25}, {9, 0.5}}},
      {R"({"family":"multinomial","p":[0.5,0.5,0.0,0.0],"trials":"all","decay":0.5})",
       {{1, 1}, {2, 3}, {3, 4}, {4, -1}, {5, 0.5}, {7, 0.5}, {8, 0.5}}},
  };
  for (const auto& [text, expected] : cases) {
    const Row row = encode_row(*model_from_json(text));
    EXPECT_TRUE(same_rows(row, expected)) << text << " encodes as " << format_entries(row);
  }
}

TEST(RowCodec, RowsAndJsonRoundTrip) {
  for (const char* text : kModels) {
    const auto model = model_from_json(text);
    const Row row = encode_row(*model);
    const auto decoded = decode_row(row);
    EXPECT_TRUE(same_rows(encode_row(*decoded), row)) << text;
    EXPECT_EQ(as_json(*decoded), as_json(*model)) << text;
    EXPECT_EQ(as_json(*model), json::parse(text)) << text;
    const auto reparsed = decoded->family().from_json(as_json(*decoded));
    EXPECT_TRUE(same_rows(encode_row(*reparsed), row)) << text;
  }
}

TEST(RowCodec, FullPrecisionSurvivesTheTextForm) {
  const auto model = model_from_json(R"({"family":"gaussian","mean":[0.1,0.30000000000000004],"var":0.7})");
  const Row row = encode_row(*model);
  const std::string text = format_entries(row);
  EXPECT_EQ(text, "1:1 2:1 3:2 4:1 5:0.1 6:0.30000000000000004 7:0.7");
  Row parsed;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t stop = text.find(' ', start);
    if (stop == std::string::npos) stop = text.size();
    const std::string item = text.substr(start, stop - start);
    const std::size_t colon = item.find(':');
    parsed.push_back({std::stoi(item.substr(0, colon)), std::strtod(item.c_str() + colon + 1, nullptr)});
    start = stop + 1;
  }
  EXPECT_TRUE(same_rows(parsed, row));
}

TEST(RowCodec, LabelsLookLikeLibsvmLabels) {
  EXPECT_EQ(format_label(1.0), "1");
  EXPECT_EQ(format_label(-1.0), "-1");
  EXPECT_EQ(format_label(2.5), "2.5");
  EXPECT_EQ(format_label(0.1), "0.1");
  EXPECT_EQ(format_entries(Row{}), "");
}

TEST(RowCodec, ExplicitZerosMeanTheSameAsOmittedOnes) {
  for (const char* text : kModels) {
    const Row row = encode_row(*model_from_json(text));
    // Insert an explicit 0 at every index the row omits, up to its last index.
    Row with_zeros;
    int next = 1;
    for (const RowEntry& entry : row) {
      for (; next < entry.index; ++next) with_zeros.push_back({next, 0.0});
      with_zeros.push_back(entry);
      next = entry.index + 1;
    }
    EXPECT_GT(with_zeros.size(), row.size()) << text;
    EXPECT_EQ(as_json(*decode_row(with_zeros)), as_json(*decode_row(row))) << text;
  }
}

TEST(RowCodec, AZeroInABasedProbabilityFieldMeansTheBase) {
  // Bernoulli D = 3, base 0.2, p_2 = 0.6 listed, p_1 given as an explicit 0: it is at the base.
  const Row row = {{1, 1}, {2, 2}, {3, 3}, {4, 0.2}, {5, 0.0}, {6, 0.6}};
  EXPECT_EQ(as_json(*decode_row(row))["p"], json::parse("[0.2, 0.6, 0.2]"));
}

TEST(RowCodec, SmoothedJsonBecomesASparseRow) {
  std::vector<double> p(1000, 0.0005);
  p[10] = 0.2;
  p[500] = 0.301;
  json object = {{"family", "multinomial"}, {"p", p}};
  const Row row = encode_row(*multinomial_family().from_json(object));
  // Header (2 entries), D, base, and the two listed words.
  EXPECT_TRUE(same_rows(row, {{1, 1}, {2, 3}, {3, 1000}, {6, 0.0005}, {17, 0.2}, {507, 0.301}})) << format_entries(row);
}

TEST(RowCodec, FamiliesAreRegistered) {
  ASSERT_NE(find_family(1), nullptr);
  EXPECT_EQ(find_family(1)->name, "gaussian");
  EXPECT_EQ(find_family("bernoulli")->code, 2);
  EXPECT_EQ(find_family("multinomial")->code, 3);
  EXPECT_EQ(find_family(99), nullptr);
  EXPECT_EQ(find_family("nonesuch"), nullptr);
}

// A valid isotropic Gaussian row over R^2 (mean at 5..6, variance at 7) with one entry changed.
Row gaussian_row_with(int index, double value) {
  Row row = {{1, 1}, {2, 1}, {3, 2}, {4, 1}, {5, 0.5}, {6, -1.5}, {7, 2}};
  for (RowEntry& entry : row)
    if (entry.index == index) entry.value = value;
  return row;
}

TEST(RowErrors, HeaderAndIndices) {
  EXPECT_TRUE(mentions(decode_error({}), {"\"version\" (index 1)", "expected 1", "got 0"}));
  EXPECT_TRUE(mentions(decode_error(gaussian_row_with(1, 2)), {"\"version\" (index 1)", "got 2"}));
  EXPECT_TRUE(
      mentions(decode_error(gaussian_row_with(2, 99)), {"\"family\" (index 2)", "1 gaussian", "9 hmm", "got 99"}));
  EXPECT_TRUE(mentions(decode_error(gaussian_row_with(2, 1.5)), {"\"family\" (index 2)", "got 1.5"}));
  EXPECT_TRUE(mentions(decode_error({{1, 1}, {2, 1}, {4, 1}, {3, 2}}), {"strictly increasing", "index 3 after index 4"}));
  EXPECT_TRUE(mentions(decode_error({{0, 1}, {1, 1}, {2, 1}}), {"indices start at 1", "index 0"}));
  EXPECT_TRUE(mentions(decode_error({{-3, 1}, {1, 1}}), {"indices start at 1", "index -3"}));
  EXPECT_TRUE(mentions(decode_error({{1, 1}, {2, 1}, {3, 2}, {3, 2}}), {"strictly increasing"}));
  Row beyond = gaussian_row_with(0, 0);
  beyond.push_back({9, 1.0});
  EXPECT_TRUE(mentions(decode_error(beyond), {"gaussian", "index 9 lies beyond the last field", "\"var\" (index 7)"}));
}

TEST(RowErrors, GaussianFields) {
  EXPECT_TRUE(
      mentions(decode_error(gaussian_row_with(6, kNaN)), {"gaussian field \"mean\" (index 6)", "finite", "got nan"}));
  EXPECT_TRUE(mentions(decode_error(gaussian_row_with(7, kInf)), {"gaussian field \"var\" (index 7)", "got inf"}));
  EXPECT_TRUE(
      mentions(decode_error(gaussian_row_with(3, 2.5)), {"gaussian field \"dim\" (index 3)", "whole number", "got 2.5"}));
  EXPECT_TRUE(mentions(decode_error(gaussian_row_with(3, 0)), {"\"dim\" (index 3)", "got 0"}));
  EXPECT_TRUE(mentions(decode_error(gaussian_row_with(3, 1e9)), {"\"dim\" (index 3)", "[1, 100000000]", "got 1e+09"}));
  EXPECT_TRUE(mentions(decode_error(gaussian_row_with(4, 4)), {"gaussian field \"form\" (index 4)", "[1, 3]", "got 4"}));
  EXPECT_TRUE(mentions(decode_error(gaussian_row_with(7, -1)),
                       {"gaussian field \"var\" (index 7): expected a positive finite number, got -1"}));
  EXPECT_TRUE(mentions(decode_error(gaussian_row_with(7, 0)), {"\"var\" (index 7)", "positive", "got 0"}));
  // Diagonal over R^2: mean 5..6, variances 7..8.
  EXPECT_TRUE(mentions(decode_error({{1, 1}, {2, 1}, {3, 2}, {4, 2}, {7, 1}, {8, -2}}),
                       {"gaussian field \"diag\" (index 8)", "positive", "got -2"}));
  // Full over R^2: mean 5..6, lower triangle S11 S21 S22 at 7..9; [[1, 2], [2, 1]] is indefinite.
  EXPECT_TRUE(mentions(decode_error({{1, 1}, {2, 1}, {3, 2}, {4, 3}, {7, 1}, {8, 2}, {9, 1}}),
                       {"gaussian field \"cov\" (indices 7..9)", "positive definite"}));
  EXPECT_TRUE(mentions(decode_error({{1, 1}, {2, 1}, {3, 20000}, {4, 3}}), {"\"dim\" (index 3)", "full covariance"}));
}

TEST(RowErrors, BernoulliFields) {
  // D = 3: base at 4, p at 5..7.
  EXPECT_TRUE(mentions(decode_error({{1, 1}, {2, 2}, {3, 3}, {4, 0.1}, {6, 1.5}}),
                       {"bernoulli field \"p\" (index 6)", "[0, 1]", "got 1.5"}));
  EXPECT_TRUE(
      mentions(decode_error({{1, 1}, {2, 2}, {3, 3}, {4, -0.1}}), {"bernoulli field \"base\" (index 4)", "got -0.1"}));
  EXPECT_TRUE(
      mentions(decode_error({{1, 1}, {2, 2}, {3, 3}, {5, kNaN}}), {"bernoulli field \"p\" (index 5)", "got nan"}));
  EXPECT_TRUE(
      mentions(decode_error({{1, 1}, {2, 2}, {3, 3}, {8, 0.5}}), {"index 8 lies beyond", "\"p\" (indices 5..7)"}));
  EXPECT_TRUE(mentions(decode_error({{1, 1}, {2, 2}, {3, -1}}), {"bernoulli field \"dim\" (index 3)", "got -1"}));
}

// The message of the ModelError that `claim` throws ("" if it returns).
template <class Claim>
std::string claim_error(Claim claim) {
  return checks::error_message<ModelError>(claim);
}

// kMaxRowDenseValues (2^25) is the most a row's fields may claim, in one field or in several, nested
// models' included, for the reader and the writer alike; more is refused before the field is
// allocated, naming the size that declared it.
TEST(RowErrors, DenseFieldsBounded) {
  ASSERT_EQ(kMaxRowDenseValues, 33554432);
  const Row empty;
  for (const bool write : {false, true}) {
    RowReader in(empty.data(), empty.data(), "toy");
    RowWriter out;
    const auto claim = [&](double values) {
      return claim_error(
          [&] { write ? out.claim("toy", "dim", 3, "mean", values) : in.claim("toy", "dim", 3, "mean", values); });
    };
    EXPECT_EQ(claim(kMaxRowDenseValues - 1), "");
    EXPECT_EQ(claim(1), "");  // 2^25 in all: accepted
    EXPECT_TRUE(mentions(claim(1), {"toy field \"dim\" (index 3)", "at most 33554432 dense values in one row",
                                    "got 1 values for \"mean\", 33554433 with the fields before it"}));
  }
  RowReader in(empty.data(), empty.data(), "toy");
  EXPECT_TRUE(mentions(claim_error([&] { in.claim("toy", "states", 3, "trans", 33554433.0); }),
                       {"toy field \"states\" (index 3)", "got 33554433 values for \"trans\""}));
  // Products of sizes that overflow a long are counted in double and refused, not wrapped.
  EXPECT_TRUE(mentions(decode_error({{1, 1}, {2, 9}, {3, 10000}}),
                       {"hmm field \"states\" (index 3)", "got 100000000 values for \"trans\""}));
  EXPECT_TRUE(mentions(decode_error({{1, 1}, {2, 1}, {3, 33554433}, {4, 1}}),
                       {"gaussian field \"dim\" (index 3)", "33554433 values for \"mean\""}));
  // A mixture's count claims its weights; its components share the row's count.
  EXPECT_TRUE(mentions(decode_error({{1, 1}, {2, 8}, {3, 2147483000}}),
                       {"mixture field \"M\" (index 3)", "2147483000 values for \"weights\""}));
  // Two isotropic components of dimension D: each a length L = D + 4 (code, dim, form, D means, var);
  // 4 + D + D values, one more than 2^25, refused at the second's mean.
  constexpr int kDim = 16777215, kLength = kDim + 4, kSecond = 7 + kLength;
  const Row two_components = {
      {1, 1},    {2, 8}, {3, 2},           {4, 0.5},           {5, 0.5},         {6, kLength},        {7, 1},
      {8, kDim}, {9, 1}, {6 + kLength, 1}, {kSecond, kLength}, {kSecond + 1, 1}, {kSecond + 2, kDim}, {kSecond + 3, 1}};
  EXPECT_TRUE(
      mentions(decode_error(two_components),
               {"mixture field \"components\" (indices 16777226..33554445)", "gaussian field \"dim\" (index 16777228)",
                "got 16777215 values for \"mean\", 33554434 with the fields before it"}));
}

// A multinomial row over 3 categories: trials at 4, decay at 5, base at 6, p at 7..9.
Row multinomial_row(double trials, double decay, double p1, double p2, double p3) {
  Row row = {{1, 1}, {2, 3}, {3, 3}};
  int index = 4;
  for (double value : {trials, decay, 0.0, p1, p2, p3}) {
    if (value != 0.0) row.push_back({index, value});
    ++index;
  }
  return row;
}

TEST(RowErrors, MultinomialFields) {
  EXPECT_EQ(decode_error(multinomial_row(0, 0, 0.2, 0.3, 0.5)), "");
  EXPECT_EQ(decode_error(multinomial_row(0, 0, 0.2, 0.3, 0.5 + 5e-7)), "");  // renormalised
  EXPECT_TRUE(mentions(decode_error(multinomial_row(0, 0, 0.2, 0.3, 0.4)),
                       {"multinomial field \"p\" (indices 7..9)", "summing to 1", "got a sum of 0.9"}));
  EXPECT_TRUE(
      mentions(decode_error(multinomial_row(0, 0, 0.2, -0.3, 1.1)), {"multinomial field \"p\" (index 8)", "got -0.3"}));
  EXPECT_TRUE(mentions(decode_error(multinomial_row(2.5, 0, 0.2, 0.3, 0.5)),
                       {"multinomial field \"trials\" (index 4)", "whole number", "got 2.5"}));
  EXPECT_TRUE(mentions(decode_error(multinomial_row(-2, 0, 0.2, 0.3, 0.5)), {"\"trials\" (index 4)", "got -2"}));
  EXPECT_TRUE(mentions(decode_error(multinomial_row(-1, 1.5, 0.2, 0.3, 0.5)),
                       {"multinomial field \"decay\" (index 5)", "(0, 1]", "got 1.5"}));
  EXPECT_TRUE(mentions(decode_error(multinomial_row(-1, -0.5, 0.2, 0.3, 0.5)), {"\"decay\" (index 5)", "got -0.5"}));
  EXPECT_TRUE(mentions(decode_error(multinomial_row(4, 0.5, 0.2, 0.3, 0.5)),
                       {"multinomial field \"decay\" (index 5)", "only with trials -1", "got 0.5"}));
  EXPECT_EQ(decode_error(multinomial_row(-1, 0.5, 0.2, 0.3, 0.5)), "");
}

TEST(JsonErrors, Gaussian) {
  EXPECT_TRUE(mentions(json_error(R"({"family":"gaussian","var":1})"), {"gaussian field \"mean\": missing"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"gaussian","mean":3,"var":1})"), {"\"mean\"", "array", "got 3"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"gaussian","mean":[1,"x"],"var":1})"),
                       {"gaussian field \"mean\"[1]", "finite number", "got \"x\""}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"gaussian","mean":[1,2],"var":-1})"),
                       {"gaussian field \"var\": expected a positive finite number, got -1"}));
  EXPECT_TRUE(
      mentions(json_error(R"({"family":"gaussian","mean":[1,2],"var":1,"diag":[1,1]})"), {"exactly one", "\"var\""}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"gaussian","mean":[1,2]})"), {"exactly one"}));
  EXPECT_TRUE(
      mentions(json_error(R"({"family":"gaussian","mean":[1,2],"diag":[1]})"), {"\"diag\"", "2 variances", "got 1"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"gaussian","mean":[1,2],"diag":[1,0]})"),
                       {"gaussian field \"diag\"[1]", "got 0"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"gaussian","mean":[1,2],"cov":[[1,0.5],[0.4,1]]})"),
                       {"gaussian field \"cov\"[0][1]", "symmetric", "got 0.5"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"gaussian","mean":[1,2],"cov":[[1,0],[0]]})"),
                       {"\"cov\"[1]", "2 numbers", "got 1"}));
  EXPECT_TRUE(
      mentions(json_error(R"({"family":"gaussian","mean":[1,2],"cov":[[1,0]]})"), {"\"cov\"", "2 x 2", "got 1 x 2"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"gaussian","mean":[1,2],"cov":[[1,2],[2,1]]})"),
                       {"gaussian field \"cov\"", "positive definite"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"gaussian","mean":[1,2],"covariance":[[1,0],[0,1]]})"),
                       {"gaussian field \"covariance\"", "not a field"}));
}

TEST(JsonErrors, BernoulliAndMultinomial) {
  EXPECT_TRUE(mentions(json_error(R"({"family":"bernoulli","p":[0.1,0.2,1.2]})"),
                       {"bernoulli field \"p\"[2]", "[0, 1]", "got 1.2"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"bernoulli","p":[]})"), {"bernoulli field \"p\"", "non-empty"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"multinomial","p":[0.5,0.4]})"),
                       {"multinomial field \"p\"", "summing to 1", "0.9"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"multinomial","p":[0.5,0.5],"trials":"some"})"),
                       {"multinomial field \"trials\"", "\"all\"", "got \"some\""}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"multinomial","p":[0.5,0.5],"trials":0})"), {"\"trials\"", "got 0"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"multinomial","p":[0.5,0.5],"trials":2.5})"), {"\"trials\"", "got 2.5"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"multinomial","p":[0.5,0.5],"trials":3,"decay":0.5})"),
                       {"multinomial field \"decay\"", "\"all\""}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"multinomial","p":[0.5,0.5],"trials":"all","decay":2})"),
                       {"multinomial field \"decay\": expected a number in (0, 1], got 2"}));
  EXPECT_TRUE(mentions(json_error(R"({"family":"multinomial","p":[0.5,0.5],"trial":3})"), {"\"trial\"", "not a field"}));
}

TEST(ModelConstructorErrors, NameTheField) {
  SparseProbabilities unsorted;
  unsorted.dim = 3;
  unsorted.index = {2, 1};
  unsorted.value = {0.5, 0.5};
  EXPECT_THROW(MultinomialModel(unsorted, Trials{}), ModelError);
  Trials zero_trials;
  zero_trials.kind = Trials::fixed;
  zero_trials.count = 0;
  try {
    MultinomialModel(SparseProbabilities::from_dense({0.5, 0.5}), zero_trials);
    ADD_FAILURE() << "no error";
  } catch (const ModelError& error) {
    EXPECT_TRUE(mentions(error.what(), {"multinomial field \"trials\"", "got 0"}));
  }
  try {
    GaussianModel::isotropic(Eigen::VectorXd::Constant(2, kNaN), 1.0);
    ADD_FAILURE() << "no error";
  } catch (const ModelError& error) {
    EXPECT_TRUE(mentions(error.what(), {"gaussian field \"mean\"[0]", "got nan"}));
  }
}

}  // namespace
}  // namespace ppk
