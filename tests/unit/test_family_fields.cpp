// The archives of include/ppk/core/family_fields.hpp on a toy parameter struct that uses the kinds for lists
// of matrices, records (one and two phases), flags, lists of whole numbers, optional whole numbers,
// tables, matrices by columns, optional members and checks: the row and the JSON object it must give
// (written out by hand from the layouts the header documents), both round trips, and errors about a
// record restated at that record's row indices.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/row.hpp"
#include "positive_family_checks.hpp"

namespace ppk::detail {
namespace {

const char* const kToy = "toy";

// A single-phase record: its table's columns are the sizes of the earlier items it links to.
struct ToyItem {
  long size = 0;
  bool flag = false;
  std::vector<long> links;
  std::vector<double> table;  // size x (sum of the linked items' sizes), row by row

  template <class Archive>
  void fields(Archive& archive, const std::vector<ToyItem>& items, long i) {
    archive.whole_number("size", size, 1, 5);
    archive.boolean("flag", flag);
    archive.whole_numbers("links", links, i, 0, static_cast<long>(items.size()) - 1);
    archive.validate([&] {
      for (std::size_t p = 0; p < links.size(); ++p)
        if (links[p] >= i)
          throw FieldError(record_family(kToy, "items", i), "links", static_cast<long>(p), "[" + std::to_string(p) + "]",
                           "an earlier item", std::to_string(links[p]));
    });
    long width = 0;
    for (long u : links) width += items[static_cast<std::size_t>(u)].size;
    const Dimension rows{size, 1, 5, "size"}, columns{width, 0, 100, "links"};
    if (archive.optional("table", !links.empty(), "nothing (an item without links has no table)"))
      archive.table("table", table, rows, columns, "unit of size", "entries (the linked items' sizes)");
  }
};

// A two-phase record: node i's means have as many columns as node i+1 (cyclically) has kind + 2, so
// a body depends on a later header.
struct ToyNode {
  long kind = -1;  // 0..3, or -1: none
  Eigen::MatrixXd means;

  template <class Archive>
  void header(Archive& archive, const std::vector<ToyNode>&, long) {
    archive.optional_whole_number("kind", kind, 0, 3);
  }
  template <class Archive>
  void body(Archive& archive, const std::vector<ToyNode>& nodes, long i) {
    const long next_kind = nodes[static_cast<std::size_t>(i + 1) % nodes.size()].kind;
    archive.columns("means", means, Dimension{2, 2, 2, "two"}, Dimension{next_kind + 2, 1, 5, "kind"});
  }
};

struct ToyParameters {
  std::vector<Eigen::MatrixXd> A, Q;
  std::vector<ToyItem> items;
  std::vector<ToyNode> nodes;

  template <class Archive>
  void fields(Archive& archive) {
    const auto count = archive.dimension("K", static_cast<long>(A.size()), 1, 3);
    const auto dim = archive.dimension("n", A.empty() ? 0 : static_cast<long>(A[0].rows()), 1, 3);
    archive.matrices("A", A, count, dim, dim);
    archive.symmetric_matrices("Q", Q, count, dim);
    const auto item_count = archive.dimension("items", static_cast<long>(items.size()), 1, 4);
    archive.records("items", items, item_count, "item", items);
    const auto node_count = archive.dimension("nodes", static_cast<long>(nodes.size()), 1, 4);
    archive.record_headers("nodes", nodes, node_count, "node", nodes);
    archive.validate([&] {
      if (nodes.back().kind == 3) throw FieldError(record_family(kToy, "nodes", 1), "kind", -1, "", "not 3", "3");
    });
    archive.record_bodies("nodes", nodes, nodes);
  }
};

Eigen::MatrixXd matrix(long rows, long cols, std::vector<double> row_major) {
  Eigen::MatrixXd m(rows, cols);
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < cols; ++j) m(i, j) = row_major[static_cast<std::size_t>(i * cols + j)];
  return m;
}

ToyParameters toy() {
  ToyParameters p;
  p.A = {matrix(2, 2, {1, 2, 3, 4}), matrix(2, 2, {5, 6, 7, 8})};
  p.Q = {matrix(2, 2, {1, 0.5, 0.5, 2}), matrix(2, 2, {3, 0, 0, 4})};
  p.items.resize(2);
  p.items[0] = {1, true, {}, {}};
  p.items[1] = {2, false, {0}, {0.25, 0.75}};
  p.nodes.resize(2);
  p.nodes[0] = {1, matrix(2, 1, {1, 2})};               // 1 column: node 1 has no kind (-1 + 2)
  p.nodes[1] = {-1, matrix(2, 3, {1, 3, 5, 2, 4, 6})};  // 3 columns: node 0's kind 1 + 2
  return p;
}

// The row of toy(), by the layouts of family_fields.hpp (zeros omitted), after the version and a
// family code 99 at indices 1 and 2.
const Row kToyRow = {{1, 1},  {2, 99},                                              // version, family code
                     {3, 2},  {4, 2},                                               // K, n
                     {5, 1},  {6, 2},    {7, 3},     {8, 4},     {9, 5},  {10, 6},  // A_0, A_1 row by row
                     {11, 7}, {12, 8},                                              //
                     {13, 1}, {14, 0.5}, {15, 2},    {16, 3},    {18, 4},  // Q_0, Q_1 lower triangles (index 17: 0)
                     {19, 2},                                              // items
                     {20, 1}, {21, 1},                                     // item 0: size, flag, no links (22), no table
                     {23, 2}, {25, 1},   {27, 0.25}, {28, 0.75},           // item 1: size, flag 0, 1 link: item 0, table
                     {29, 2},                                              // nodes
                     {30, 2},                                              // headers: node 0 kind 1 + 1, node 1 none (31)
                     {32, 1}, {33, 2},                                     // bodies: node 0's one column
                     {34, 1}, {35, 2},   {36, 3},    {37, 4},    {38, 5}, {39, 6}};  // node 1's three columns

const char* const kToyJson =
    R"({"A":[[[1,2],[3,4]],[[5,6],[7,8]]],"Q":[[[1,0.5],[0.5,2]],[[3,0],[0,4]]],)"
    R"("items":[{"size":1,"flag":true,"links":[]},{"size":2,"flag":false,"links":[0],"table":[[0.25],[0.75]]}],)"
    R"("nodes":[{"kind":1,"means":[[1,2]]},{"means":[[1,2],[3,4],[5,6]]}]})";

Row write_row(const ToyParameters& parameters) {
  RowWriter out;
  out.real(99);  // the family code
  RowWriterArchive archive(out, kToy);
  write_fields(parameters, archive);
  return out.take();
}

nlohmann::json write_json(const ToyParameters& parameters) {
  nlohmann::json out = nlohmann::json::object();
  JsonWriterArchive archive(out);
  write_fields(parameters, archive);
  return out;
}

// Reads `row` (from index 3), then runs `after` in the archive's build() (as make_family runs the
// model's constructor); returns the error's message, or "".
std::string row_error(
    const Row& row, const std::function<void()>& after = [] {}) {
  return checks::constructor_error([&] {
    RowReader in(row.data() + 2, row.data() + row.size(), kToy);
    RowReaderArchive archive(in);
    ToyParameters parameters;
    parameters.fields(archive);
    archive.build(after);
  });
}

ToyParameters read_json(const nlohmann::json& object) {
  FieldNames names;
  ToyParameters().fields(names);
  JsonReaderArchive archive(object, kToy, names.names);
  ToyParameters parameters;
  parameters.fields(archive);
  return parameters;
}

std::string json_error(const std::string& text) {
  return checks::constructor_error([&] { read_json(nlohmann::json::parse(text)); });
}

Row with_value(Row row, int index, double value) {
  for (RowEntry& entry : row)
    if (entry.index == index) entry.value = value;
  return row;
}

TEST(FamilyFields, ListsOfMatricesAndRecordsWriteTheDocumentedRowAndJson) {
  EXPECT_EQ(format_entries(write_row(toy())), format_entries(kToyRow));
  EXPECT_EQ(write_json(toy()), nlohmann::json::parse(kToyJson));
  FieldNames names;
  ToyParameters().fields(names);
  EXPECT_EQ(std::vector<std::string>(names.names.begin(), names.names.end()),
            (std::vector<std::string>{"A", "Q", "items", "nodes"}));
}

TEST(FamilyFields, ListsOfMatricesAndRecordsRoundTripThroughRowsAndJson) {
  RowReader in(kToyRow.data() + 2, kToyRow.data() + kToyRow.size(), kToy);
  RowReaderArchive archive(in);
  ToyParameters from_row;
  from_row.fields(archive);
  in.finish();
  EXPECT_EQ(format_entries(write_row(from_row)), format_entries(kToyRow));
  EXPECT_EQ(from_row.nodes[1].means, toy().nodes[1].means);
  EXPECT_EQ(from_row.items[1].links, std::vector<long>{0});
  EXPECT_EQ(from_row.nodes[1].kind, -1);

  const ToyParameters from_json = read_json(nlohmann::json::parse(kToyJson));
  EXPECT_EQ(write_json(from_json), nlohmann::json::parse(kToyJson));
  EXPECT_EQ(format_entries(write_row(from_json)), format_entries(kToyRow));
  EXPECT_EQ(from_json.Q[1], toy().Q[1]);
  EXPECT_FALSE(from_json.items[1].flag);
}

TEST(FamilyFields, AnErrorAboutRecordIIsRestatedAtRecordIsRowIndices) {
  ASSERT_EQ(row_error(kToyRow), "");
  // Element 1 of item 1's table (indices 27..28).
  EXPECT_EQ(row_error(kToyRow, [] { throw FieldError("toy items[1]", "table", 1, "[1][0]", "at most 0.5", "0.75"); }),
            "toy items[1] field \"table\" (index 28): expected at most 0.5, got 0.75");
  // Item 1's links as a whole: their length (index 25) and the link (index 26).
  EXPECT_EQ(row_error(kToyRow, [] { throw FieldError("toy items[1]", "links", -1, "", "no links", "1 link"); }),
            "toy items[1] field \"links\" (indices 25..26): expected no links, got 1 link");
  // Item 0's size, not item 1's.
  EXPECT_EQ(row_error(kToyRow, [] { throw FieldError("toy items[0]", "size", -1, "", "2", "1"); }),
            "toy items[0] field \"size\" (index 20): expected 2, got 1");
  // Two-phase records: node 1's header (index 31) and two elements of its body (indices 36..37).
  EXPECT_EQ(row_error(kToyRow, [] { throw FieldError("toy nodes[1]", "kind", -1, "", "a kind", "none"); }),
            "toy nodes[1] field \"kind\" (index 31): expected a kind, got none");
  EXPECT_EQ(row_error(kToyRow, [] { throw FieldError("toy nodes[1]", "means", 2, "[1]", "a column", "(3, 4)", 2); }),
            "toy nodes[1] field \"means\" (indices 36..37): expected a column, got (3, 4)");
  // A field of the parameters themselves: element 4 of Q (index 17, Q_1's first off-diagonal entry).
  EXPECT_EQ(row_error(kToyRow, [] { throw FieldError("toy", "Q", 4, "[1][1][0]", "a variance", "0"); }),
            "toy field \"Q\" (index 17): expected a variance, got 0");
}

TEST(FamilyFields, ErrorsWhileReadingARecordNameTheRecordAndTheRowIndex) {
  // Read errors name the record.
  EXPECT_EQ(row_error(with_value(kToyRow, 23, 9)),
            "toy items[1] field \"size\" (index 23): expected a whole number in [1, 5], got 9");
  EXPECT_EQ(row_error(with_value(kToyRow, 30, 5)),
            "toy nodes[0] field \"kind\" (index 30): expected a whole number in [0, 4], got 5");
  // A check between fields (validate) is restated at the record's indices before the table is read.
  Row self_link = kToyRow;
  self_link.insert(self_link.begin() + 22, {26, 1});
  EXPECT_EQ(row_error(self_link), "toy items[1] field \"links\" (index 26): expected an earlier item, got 1");
  // A check between the headers and the bodies, about node 1's header.
  Row kind_three = kToyRow;
  kind_three.insert(kind_three.begin() + 26, {31, 4});
  EXPECT_EQ(row_error(kind_three), "toy nodes[1] field \"kind\" (index 31): expected not 3, got 3");
}

TEST(FamilyFields, JsonRecordsRefuseUndeclaredAndUnwantedMembers) {
  ASSERT_EQ(json_error(kToyJson), "");
  const std::string json = kToyJson;
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = json;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  EXPECT_EQ(json_error(replaced(R"({"size":1,)", R"({"size":1,"colour":2,)")),
            "toy items[0] field \"colour\": not a field of this family (expected \"size\", \"flag\", \"links\", "
            "\"table\")");
  EXPECT_EQ(json_error(replaced(R"({"kind":1,)", R"({"kind":1,"colour":2,)")),
            "toy nodes[0] field \"colour\": not a field of this family (expected \"kind\", \"means\")");
  EXPECT_EQ(json_error(replaced(R"("links":[]})", R"("links":[],"table":[[1]]})")),
            "toy items[0] field \"table\": expected nothing (an item without links has no table), got [[1]]");
  EXPECT_EQ(
      json_error(replaced(R"("table":[[0.25],[0.75]])", R"("table":[[0.25,0.5],[0.75,0.5]])")),
      "toy items[1] field \"table\": expected 2 rows (one per unit of size) of 1 entries (the linked items' sizes), got "
      "[[0.25,0.5],[0.75,0.5]]");
  EXPECT_EQ(json_error(replaced(R"("flag":false)", R"("flag":0)")),
            "toy items[1] field \"flag\": expected true or false, got 0");
  const std::string too_many = json_error(replaced(R"("items":[)", R"("items":[{"size":1},{"size":1},{"size":1},)"));
  EXPECT_EQ(too_many.substr(0, too_many.find(" got ")), "toy field \"items\": expected an array of 1 to 4 item objects,");
  // A check of the headers runs before any body is read.
  EXPECT_EQ(json_error(replaced(R"({"means":[[1,2],[3,4],[5,6]]})", R"({"kind":3,"means":[]})")),
            "toy nodes[1] field \"kind\": expected not 3, got 3");
}

}  // namespace
}  // namespace ppk::detail
