// The archive kinds added for the multinomial (include/ppk/core/family_fields.hpp): count_or_keyword,
// optional_real, listed_probabilities, trailing_group with its columns, and listed_numbers, on a toy
// struct. The expected rows and JSON objects are written out by hand from the kinds' documentation.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/multinomial.hpp"
#include "positive_family_checks.hpp"

namespace ppk {
namespace {

using detail::ListedLayout;

struct Toy {
  SparseProbabilities p;
  long count = 0;
  std::optional<double> rate;
  std::vector<double> values, counts;
  std::vector<std::pair<long, double>> tags;
  template <class Archive>
  void fields(Archive& archive) {
    const auto dim = archive.dimension("dim", p.dim, 1, 100);
    archive.count_or_keyword("count", count, 50, "many");
    archive.optional_real("rate", rate);
    const ListedLayout layout{"group", "base", "listed"};
    archive.listed_probabilities("p", p, dim, layout, !values.empty());
    const auto group = archive.trailing_group("group", static_cast<long>(values.size()), 4);
    if (group.value == 0) return;
    archive.group_reals("group values", values, group, "value");
    archive.group_whole_numbers("group counts", counts, group, "count");
    archive.listed_numbers("tags", tags, p, dim, layout, "tag");
  }
};

// D = 5, base 0.1, coordinates 1 and 3 listed; a group of K = 2; tags 1 and 0 (stored 2 and 1).
Toy grouped() {
  Toy toy;
  toy.p.dim = 5;
  toy.p.base = 0.1;
  toy.p.index = {1, 3};
  toy.p.value = {0.3, 0.4};
  toy.count = -1;
  toy.rate = 0.5;
  toy.values = {0.25, 0.75};
  toy.counts = {2, 3};
  toy.tags = {{1, 2.0}, {3, 1.0}};
  return toy;
}

// D = 3, dense [0.2, 0.2, 0.6], 7 counts, no rate, no group.
Toy plain() {
  Toy toy;
  toy.p = SparseProbabilities::from_dense({0.2, 0.2, 0.6});
  toy.count = 7;
  return toy;
}

void expect_same(const Toy& a, const Toy& b) {
  EXPECT_EQ(a.p.dim, b.p.dim);
  EXPECT_EQ(a.p.base, b.p.base);
  EXPECT_EQ(a.p.index, b.p.index);
  EXPECT_EQ(a.p.value, b.p.value);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.rate, b.rate);
  EXPECT_EQ(a.values, b.values);
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.tags, b.tags);
}

// The toy's fields from index 3 on (index 2 stands for a family code).
Row row_of(const Toy& toy) {
  RowWriter out;
  out.real(99.0);
  detail::RowWriterArchive archive(out, "toy");
  detail::write_fields(toy, archive);
  return out.take();
}

Toy from_row(const Row& row) {
  RowReader in(row.data() + 2, row.data() + row.size(), "toy");
  detail::RowReaderArchive archive(in);
  Toy toy;
  toy.fields(archive);
  return toy;
}

nlohmann::json json_of(const Toy& toy) {
  nlohmann::json out = nlohmann::json::object();
  detail::JsonWriterArchive archive(out);
  detail::write_fields(toy, archive);
  return out;
}

std::vector<const char*> member_names() {
  detail::FieldNames names;
  Toy().fields(names);
  return names.names;
}

Toy from_json(const nlohmann::json& object) {
  detail::JsonReaderArchive archive(object, "toy", member_names());
  Toy toy;
  toy.fields(archive);
  return toy;
}

using checks::constructor_error;
using checks::mentions;

std::string json_error(const nlohmann::json& object) {
  return constructor_error([&] { from_json(object); });
}

std::string row_error(const Row& row) {
  return constructor_error([&] { from_row(row); });
}

std::vector<std::pair<int, double>> entries(const Row& row) {
  std::vector<std::pair<int, double>> out;
  for (const RowEntry& e : row) out.emplace_back(e.index, e.value);
  return out;
}

TEST(FamilyFieldsListed, RowLayoutIsTheDocumentedOne) {
  // 3: D, 4: count (-1: the keyword), 5: rate, 6: base, 7..11: the listed values at their offsets,
  // 12: K, 13..14: values, 15..16: counts, 17..21: tag + 1 at the listed offsets.
  const std::vector<std::pair<int, double>> expected = {{1, 1},     {2, 99},  {3, 5},    {4, -1}, {5, 0.5},
                                                        {6, 0.1},   {8, 0.3}, {10, 0.4}, {12, 2}, {13, 0.25},
                                                        {14, 0.75}, {15, 2},  {16, 3},   {18, 2}, {20, 1}};
  EXPECT_EQ(entries(row_of(grouped())), expected);
  // No group: K = 0 and the row ends after the listed values; no rate: index 5 absent.
  const std::vector<std::pair<int, double>> plain_row = {{1, 1}, {2, 99}, {3, 3}, {4, 7}, {6, 0.2}, {9, 0.6}};
  EXPECT_EQ(entries(row_of(plain())), plain_row);
}

TEST(FamilyFieldsListed, RowRoundTripIsExact) {
  expect_same(from_row(row_of(grouped())), grouped());
  expect_same(from_row(row_of(plain())), plain());
}

TEST(FamilyFieldsListed, JsonLayoutsAreTheDocumentedOnes) {
  EXPECT_EQ(json_of(grouped()), nlohmann::json::parse(R"({"dim":5,"base":0.1,"count":"many","rate":0.5,
      "listed":{"index":[1,3],"p":[0.3,0.4],"tag":[1,0]},"group":{"value":[0.25,0.75],"count":[2,3]}})"));
  EXPECT_EQ(json_of(grouped()).dump().find("\"count\":[2,3]") != std::string::npos, true);  // integers
  EXPECT_EQ(json_of(plain()), nlohmann::json::parse(R"({"p":[0.2,0.2,0.6],"count":7})"));
  Toy none = plain();
  none.count = 0;
  EXPECT_EQ(json_of(none), nlohmann::json::parse(R"({"p":[0.2,0.2,0.6]})"));
}

TEST(FamilyFieldsListed, JsonRoundTripIsExact) {
  expect_same(from_json(json_of(grouped())), grouped());
  expect_same(from_json(json_of(plain())), plain());
}

TEST(FamilyFieldsListed, FieldNamesCoverBothLayouts) {
  const std::vector<std::string> expected = {"count", "rate", "p", "dim", "base", "listed", "group"};
  const std::vector<const char*> names = member_names();
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.end()), expected);
}

TEST(FamilyFieldsListed, MalformedValuesAreRefusedNamingTheField) {
  const nlohmann::json good = json_of(grouped());
  nlohmann::json bad = good;
  bad["count"] = "few";
  EXPECT_TRUE(mentions(json_error(bad), {"toy field \"count\"", "[1, 50] or \"many\"", "got \"few\""}));
  bad["count"] = 0;
  EXPECT_TRUE(mentions(json_error(bad), {"toy field \"count\"", "got 0"}));
  bad = good;
  bad["rate"] = "x";
  EXPECT_TRUE(mentions(json_error(bad), {"toy field \"rate\"", "finite number"}));
  bad = good;
  bad["group"]["value"] = nlohmann::json::array();
  EXPECT_TRUE(mentions(json_error(bad), {"toy field \"group\"", "non-empty array \"value\""}));
  bad = good;
  bad["group"] = 3;
  EXPECT_TRUE(mentions(json_error(bad), {"toy field \"group\"", "an object with an array \"value\""}));
  bad = good;
  bad["listed"]["tag"] = {1};
  EXPECT_TRUE(mentions(json_error(bad), {"toy field \"listed\"", "\"tag\" as long as \"index\""}));
  bad = good;
  bad["listed"]["index"] = {3, 1};
  EXPECT_TRUE(mentions(json_error(bad), {"toy field \"listed\"", "increasing whole numbers in [0, D)"}));
  bad = good;
  bad["p"] = {0.5, 0.5};
  EXPECT_TRUE(mentions(json_error(bad), {"toy field \"p\"", "with \"group\""}));
  bad = json_of(plain());
  bad["base"] = 0.1;
  EXPECT_TRUE(mentions(json_error(bad), {"toy field \"base\"", "without \"group\""}));

  Row row = row_of(grouped());
  row[3].value = -2;  // index 4: the count
  EXPECT_TRUE(mentions(row_error(row), {"toy field \"count\" (index 4)", "[-1, 50]", "got -2"}));
  row = row_of(grouped());
  row[8].value = 5;  // index 12: K
  EXPECT_TRUE(mentions(row_error(row), {"toy field \"group\" (index 12)", "[0, 4]", "got 5"}));
}

// The multinomial's parameters: the checks its constructor adds to the kinds' (a decay only with all
// trials, exactly the listed words carrying a level, whole level counts), named by field.
TEST(FamilyFieldsListed, MultinomialParametersAreChecked) {
  MultinomialParameters p;
  p.a = SparseProbabilities::from_dense({0.5, 0.5});
  p.trials = 2;
  p.decay = 0.5;
  EXPECT_TRUE(mentions(constructor_error([&] { MultinomialModel model(p); }),
                       {"multinomial field \"decay\"", "only with trials -1", "got 0.5"}));
  p.trials = -2;
  p.decay.reset();
  EXPECT_TRUE(
      mentions(constructor_error([&] { MultinomialModel model(p); }), {"multinomial field \"trials\"", "got -2"}));

  // D = 3, levels (0.2 x 2, 0.6 x 1); word 0 listed at level 1 (stored 2).
  MultinomialParameters leveled;
  leveled.a.dim = 3;
  leveled.a.base = 0.5;
  leveled.a.index = {0};
  leveled.a.value = {0.8};
  leveled.level_values = {0.2, 0.6};
  leveled.level_counts = {2, 1};
  leveled.word_levels = {{0, 2.0}};
  const MultinomialModel model(leveled);
  ASSERT_NE(model.leveled(), nullptr);
  EXPECT_EQ(model.leveled()->level, std::vector<int>{1});
  const MultinomialParameters back = model.parameters();
  EXPECT_EQ(back.word_levels, leveled.word_levels);
  EXPECT_EQ(back.level_counts, leveled.level_counts);
  const auto refused = [](const MultinomialParameters& bad, std::initializer_list<const char*> parts) {
    return mentions(constructor_error([&] { MultinomialModel model(bad); }), parts);
  };
  MultinomialParameters bad = leveled;
  bad.word_levels = {{0, 2.0}, {2, 1.0}};
  EXPECT_TRUE(refused(bad, {"multinomial field \"word levels\"[2]", "no level here"}));
  bad.word_levels = {};
  EXPECT_TRUE(refused(bad, {"multinomial field \"word levels\"[0]", "the level in [1, K] of the listed word"}));
  bad.word_levels = {{0, 3.0}};
  EXPECT_TRUE(refused(bad, {"multinomial field \"word levels\"[0]", "a whole number in [1, K = 2]", "got 3"}));
  bad = leveled;
  bad.level_counts = {1.5, 1};
  EXPECT_TRUE(refused(bad, {"multinomial field \"level counts\"[0]", "a whole number of words", "got 1.5"}));
  // A listed word must stay listed (its level is paired with it): neither the share nor 0.
  bad = leveled;
  bad.a.value = {0.5};
  EXPECT_TRUE(refused(bad, {"multinomial field \"p\"[0]", "other than the share", "got 0.5"}));
  bad.a.value = {0.0};
  EXPECT_TRUE(refused(bad, {"multinomial field \"p\"[0]", "other than the share", "got 0"}));
}

}  // namespace
}  // namespace ppk
