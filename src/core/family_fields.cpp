// The four archives of family_fields.hpp: each kind of field in each direction, once.
#include "ppk/core/family_fields.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ppk/core/matrix_fields.hpp"
#include "ppk/core/json.hpp"

namespace ppk::detail {

Claim claim_of(const Dimension& size, double words) { return {size, static_cast<double>(size.value) * words}; }

Claim claim_of(const Dimension& rows, const Dimension& cols) {
  return {rows.value >= cols.value ? rows : cols, static_cast<double>(rows.value) * static_cast<double>(cols.value)};
}

Claim claim_of(const Dimension& count, const Dimension& rows, const Dimension& cols) {
  const Claim matrix = claim_of(rows, cols);
  return {count.value >= matrix.size.value ? count : matrix.size, static_cast<double>(count.value) * matrix.values};
}

std::string record_family(const std::string& family, const char* field, long i) {
  return family + " " + field + "[" + std::to_string(i) + "]";
}

namespace {

std::vector<double> to_vector(const Eigen::VectorXd& values) { return {values.data(), values.data() + values.size()}; }

Eigen::VectorXd to_eigen(const std::vector<double>& values) {
  return Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

// "\"a\"", "\"a\" or \"b\"", "\"a\", \"b\" or \"c\"".
std::string quoted_alternatives(const std::vector<const char*>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + "\"" + names[i] + "\"";
  return text;
}

}  // namespace

// ---- RowWriterArchive: each field's values in order; RowWriter drops the zeros.

void RowWriterArchive::claim(const char* field, const Claim& claim) {
  const bool declared = claim.size.first_index > 0;
  out_.claim(family_, declared ? claim.size.field : field, declared ? claim.size.first_index : out_.next_index(), field,
             claim.values);
}

Dimension RowWriterArchive::dimension(const char* field, long value, long min, long max) {
  const long first = out_.next_index();
  out_.real(static_cast<double>(value));
  return {value, min, max, field, first};
}

void RowWriterArchive::whole_number(const char*, long& value, long, long) { out_.real(static_cast<double>(value)); }

void RowWriterArchive::real(const char*, double& value) { out_.real(value); }

void RowWriterArchive::reals(const char* field, std::vector<double>& values, const Dimension& dim) {
  claim(field, claim_of(dim));
  out_.reals(values);
}

void RowWriterArchive::reals(const char* field, Eigen::VectorXd& values, const Dimension& dim) {
  claim(field, claim_of(dim));
  out_.reals(values.data(), values.data() + values.size());
}

void RowWriterArchive::symmetric_matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& dim) {
  claim(field, claim_of(dim, dim));
  write_lower_triangle(out_, matrix);
}

void RowWriterArchive::matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols) {
  claim(field, claim_of(rows, cols));
  write_row_major(out_, matrix);
}

// The base, then the D-long block of the listed coordinates.
void RowWriterArchive::probabilities(const char*, SparseProbabilities& p, const Dimension&) {
  out_.real(p.base);
  std::vector<std::pair<long, double>> listed;
  listed.reserve(p.listed());
  for (std::size_t i = 0; i < p.listed(); ++i) listed.emplace_back(p.index[i], p.value[i]);
  out_.sparse(listed, static_cast<std::size_t>(p.dim));
}

// Each nested model as RowWriter::model writes it: its length L, then L indices holding its own row
// from its family code on.
void RowWriterArchive::models(const char* field, std::vector<std::unique_ptr<Model>>& models, const Dimension& count) {
  claim(field, claim_of(count));
  for (const auto& model : models) out_.model(*model);
}

void RowWriterArchive::model(const char*, std::unique_ptr<Model>& model) { out_.model(*model); }

void RowWriterArchive::choice(const char*, long& index, const std::vector<const char*>&) {
  out_.real(static_cast<double>(index));
}

void RowWriterArchive::one_of(const char*, long& index, const std::vector<const char*>&) {
  out_.real(static_cast<double>(index + 1));
}

void RowWriterArchive::at_most(const Dimension&, long, const char*) {}

// ---- RowWriterArchive: kinds added for the multinomial.

void RowWriterArchive::count_or_keyword(const char*, long& value, long, const char*) {
  out_.real(static_cast<double>(value));
}

void RowWriterArchive::optional_real(const char*, std::optional<double>& value) { out_.real(value.value_or(0.0)); }

void RowWriterArchive::listed_probabilities(const char* field, SparseProbabilities& p, const Dimension& dim,
                                            const ListedLayout&, bool) {
  probabilities(field, p, dim);
}

Dimension RowWriterArchive::trailing_group(const char* field, long count, long max) {
  out_.real(static_cast<double>(count));
  return {count, 0, max, field};
}

void RowWriterArchive::group_reals(const char* field, std::vector<double>& values, const Dimension& group, const char*) {
  reals(field, values, group);
}

void RowWriterArchive::group_whole_numbers(const char* field, std::vector<double>& values, const Dimension& group,
                                           const char*) {
  reals(field, values, group);
}

void RowWriterArchive::listed_numbers(const char*, std::vector<std::pair<long, double>>& entries,
                                      const SparseProbabilities&, const Dimension& dim, const ListedLayout&,
                                      const char*) {
  out_.sparse(entries, static_cast<std::size_t>(dim.value));
}

// ---- RowReaderArchive: each field read and its indices recorded.

void RowReaderArchive::claim(const char* field, const Claim& claim) {
  const bool declared = claim.size.first_index > 0;
  in_.claim(family_, declared ? claim.size.field : field, declared ? claim.size.first_index : in_.next_index(), field,
            claim.values);
}

void RowReaderArchive::record(const char* field, long first_index) {
  spans_.push_back({field, first_index, in_.next_index() - first_index});
}

// A whole number in [min, max], its error naming family_ (the row's family or one of its records).
long RowReaderArchive::whole(const char* field, long min, long max) {
  return row_whole_number(in_, family_, field, min, max);
}

Dimension RowReaderArchive::dimension(const char* field, long, long min, long max) {
  const long first = in_.next_index();
  const long value = whole(field, min, max);
  record(field, first);
  return {value, min, max, field, first};
}

void RowReaderArchive::whole_number(const char* field, long& value, long min, long max) {
  const long first = in_.next_index();
  value = whole(field, min, max);
  record(field, first);
}

void RowReaderArchive::real(const char* field, double& value) {
  const long first = in_.next_index();
  value = in_.real(field);
  record(field, first);
}

void RowReaderArchive::reals(const char* field, std::vector<double>& values, const Dimension& dim) {
  claim(field, claim_of(dim));
  const long first = in_.next_index();
  values = in_.reals(field, static_cast<std::size_t>(dim.value));
  record(field, first);
}

void RowReaderArchive::reals(const char* field, Eigen::VectorXd& values, const Dimension& dim) {
  std::vector<double> read;
  reals(field, read, dim);
  values = to_eigen(read);
}

void RowReaderArchive::symmetric_matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& dim) {
  claim(field, claim_of(dim, dim));
  RowMatrix read = read_symmetric(in_, field, dim.value);
  matrix = std::move(read.matrix);
  spans_.push_back(read.span);
}

void RowReaderArchive::matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols) {
  claim(field, claim_of(rows, cols));
  RowMatrix read = read_general(in_, field, rows.value, cols.value);
  matrix = std::move(read.matrix);
  spans_.push_back(read.span);
}

void RowReaderArchive::probabilities(const char* field, SparseProbabilities& p, const Dimension& dim) {
  p = SparseProbabilities{};
  p.dim = dim.value;
  real("base", p.base);
  const long first = in_.next_index();
  for (const auto& [offset, value] : in_.sparse(field, static_cast<std::size_t>(dim.value))) {
    p.index.push_back(offset);
    p.value.push_back(value);
  }
  record(field, first);
}

void RowReaderArchive::models(const char* field, std::vector<std::unique_ptr<Model>>& models, const Dimension& count) {
  claim(field, claim_of(count));
  std::vector<RowFieldSpan> spans;
  models.clear();
  for (long m = 0; m < count.value; ++m) {
    const long first = in_.next_index();
    models.push_back(in_.model(field));
    spans.push_back({field, first, in_.next_index() - first});
  }
  nested_.emplace_back(field, std::move(spans));
}

void RowReaderArchive::model(const char* field, std::unique_ptr<Model>& model) {
  const long first = in_.next_index();
  model = in_.model(field);
  record(field, first);
}

void RowReaderArchive::choice(const char* field, long& index, const std::vector<const char*>& names) {
  whole_number(field, index, 0, static_cast<long>(names.size()) - 1);
}

void RowReaderArchive::one_of(const char* field, long& index, const std::vector<const char*>& members) {
  whole_number(field, index, 1, static_cast<long>(members.size()));
  --index;
}

void RowReaderArchive::at_most(const Dimension& dim, long max, const char* condition) {
  if (dim.value > max)
    throw ModelError(row_field_location(family_, dim.field, dim.first_index, 1) + ": expected at most " +
                     std::to_string(max) + " " + condition + ", got " + std::to_string(dim.value));
}

ModelError RowReaderArchive::at_row(const FieldError& error) const {
  if (const RecordSpans* record = named_record(error, records_)) return at_row(error, record->spans, record->nested);
  return at_row(error, spans_, nested_);
}

const RowReaderArchive::RecordSpans* RowReaderArchive::named_record(const FieldError& error,
                                                                    const std::vector<RecordSpans>& records) {
  for (const RecordSpans& record : records) {
    if (error.family() == record.family) return &record;
    if (const RecordSpans* nested = named_record(error, record.records)) return nested;
  }
  return nullptr;
}

ModelError RowReaderArchive::at_row(const FieldError& error, const std::vector<RowFieldSpan>& spans,
                                    const NestedSpans& nested) {
  for (const auto& [field, models] : nested)
    if (error.field() == field && error.element() >= 0 && static_cast<std::size_t>(error.element()) < models.size()) {
      const RowFieldSpan& span = models[static_cast<std::size_t>(error.element())];
      return ModelError(row_field_location(error.family(), field, span.first_index, span.count) + ": expected " +
                        error.expected() + (error.got().empty() ? "" : ", got " + error.got()));
    }
  return detail::at_row(error, spans);
}

// ---- RowReaderArchive: kinds added for the multinomial.

void RowReaderArchive::count_or_keyword(const char* field, long& value, long max, const char*) {
  whole_number(field, value, -1, max);
}

void RowReaderArchive::optional_real(const char* field, std::optional<double>& value) {
  double read = 0.0;
  real(field, read);
  value = read != 0.0 ? std::optional<double>(read) : std::nullopt;
}

void RowReaderArchive::listed_probabilities(const char* field, SparseProbabilities& p, const Dimension& dim,
                                            const ListedLayout&, bool) {
  probabilities(field, p, dim);
}

Dimension RowReaderArchive::trailing_group(const char* field, long, long max) { return dimension(field, 0, 0, max); }

void RowReaderArchive::group_reals(const char* field, std::vector<double>& values, const Dimension& group, const char*) {
  reals(field, values, group);
}

void RowReaderArchive::group_whole_numbers(const char* field, std::vector<double>& values, const Dimension& group,
                                           const char*) {
  reals(field, values, group);
}

void RowReaderArchive::listed_numbers(const char* field, std::vector<std::pair<long, double>>& entries,
                                      const SparseProbabilities&, const Dimension& dim, const ListedLayout&,
                                      const char*) {
  const long first = in_.next_index();
  entries = in_.sparse(field, static_cast<std::size_t>(dim.value));
  record(field, first);
}

// ---- JsonWriterArchive: each field as its member; a dimension is the arrays' length.

Dimension JsonWriterArchive::dimension(const char* field, long value, long min, long max) {
  return {value, min, max, field};
}

void JsonWriterArchive::whole_number(const char* field, long& value, long, long) { out_[field] = value; }

void JsonWriterArchive::real(const char* field, double& value) { out_[field] = value; }

void JsonWriterArchive::reals(const char* field, std::vector<double>& values, const Dimension&) { out_[field] = values; }

void JsonWriterArchive::reals(const char* field, Eigen::VectorXd& values, const Dimension&) {
  out_[field] = to_vector(values);
}

void JsonWriterArchive::symmetric_matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension&) {
  out_[field] = json_rows(matrix);
}

void JsonWriterArchive::matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension&, const Dimension&) {
  out_[field] = json_rows(matrix);
}

// A dense array of D numbers: a row stores p sparsely, and may declare a D whose dense array is too
// large to build; refused as the row's own dense fields are (RowReader::claim).
void JsonWriterArchive::probabilities(const char* field, SparseProbabilities& p, const Dimension& dim) {
  if (p.dim > kMaxRowDenseValues)
    throw ModelError(out_["family"].get<std::string>() + " field \"" + dim.field + "\": expected at most " +
                     std::to_string(kMaxRowDenseValues) + " values for the JSON form (whose \"" + field +
                     "\" lists all D of them; docs/families.md, \"Limits\"), got " + std::to_string(p.dim));
  out_[field] = p.dense();
}

void JsonWriterArchive::models(const char* field, std::vector<std::unique_ptr<Model>>& models, const Dimension&) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& model : models) array.push_back(model_to_json(*model));
  out_[field] = std::move(array);
}

void JsonWriterArchive::model(const char* field, std::unique_ptr<Model>& model) { out_[field] = model_to_json(*model); }

void JsonWriterArchive::choice(const char* field, long& index, const std::vector<const char*>& names) {
  out_[field] = names.at(static_cast<std::size_t>(index));
}

void JsonWriterArchive::one_of(const char*, long&, const std::vector<const char*>&) {}

void JsonWriterArchive::at_most(const Dimension&, long, const char*) {}

// ---- JsonWriterArchive: kinds added for the multinomial.

void JsonWriterArchive::count_or_keyword(const char* field, long& value, long, const char* keyword) {
  if (value == -1) out_[field] = keyword;
  if (value > 0) out_[field] = value;
}

void JsonWriterArchive::optional_real(const char* field, std::optional<double>& value) {
  if (value) out_[field] = *value;
}

void JsonWriterArchive::listed_probabilities(const char* field, SparseProbabilities& p, const Dimension& dim,
                                             const ListedLayout& layout, bool listed) {
  if (!listed) return probabilities(field, p, dim);
  out_[dim.field] = p.dim;
  out_[layout.base] = p.base;
  out_[layout.object]["index"] = p.index;
  out_[layout.object][field] = p.value;
}

Dimension JsonWriterArchive::trailing_group(const char* field, long count, long max) { return {count, 0, max, field}; }

void JsonWriterArchive::group_reals(const char*, std::vector<double>& values, const Dimension& group,
                                    const char* member) {
  out_[group.field][member] = values;
}

void JsonWriterArchive::group_whole_numbers(const char*, std::vector<double>& values, const Dimension& group,
                                            const char* member) {
  out_[group.field][member] = std::vector<long>(values.begin(), values.end());
}

void JsonWriterArchive::listed_numbers(const char*, std::vector<std::pair<long, double>>& entries,
                                       const SparseProbabilities&, const Dimension&, const ListedLayout& layout,
                                       const char* member) {
  std::vector<long> numbers;
  numbers.reserve(entries.size());
  for (const auto& entry : entries) numbers.push_back(static_cast<long>(entry.second) - 1);
  out_[layout.object][member] = numbers;
}

// ---- JsonReaderArchive

JsonReaderArchive::JsonReaderArchive(const nlohmann::json& object, std::string family,
                                     const std::vector<const char*>& fields)
    : fields_(object, family, fields), family_(std::move(family)) {}

Dimension JsonReaderArchive::dimension(const char* field, long, long min, long max) { return {-1, min, max, field}; }

void JsonReaderArchive::whole_number(const char* field, long& value, long min, long max) {
  value = fields_.whole_number(field, min, max);
}

void JsonReaderArchive::real(const char* field, double& value) { value = fields_.real(field); }

void JsonReaderArchive::reals(const char* field, std::vector<double>& values, const Dimension& dim) {
  values = fields_.reals(field);
  if (static_cast<long>(values.size()) < dim.min)
    throw fields_.invalid(field, "at least " + std::to_string(dim.min) + " numbers (its dimension D is at least " +
                                     std::to_string(dim.min) + ")");
}

void JsonReaderArchive::reals(const char* field, Eigen::VectorXd& values, const Dimension& dim) {
  std::vector<double> read;
  reals(field, read, dim);
  values = to_eigen(read);
}

void JsonReaderArchive::symmetric_matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension&) {
  matrix = json_matrix(fields_, field);
}

void JsonReaderArchive::matrix(const char* field, Eigen::MatrixXd& matrix, const Dimension&, const Dimension&) {
  matrix = json_matrix(fields_, field);
}

void JsonReaderArchive::probabilities(const char* field, SparseProbabilities& p, const Dimension&) {
  p = fields_.probabilities(field);
}

// A non-empty array of model objects; an invalid one is named `family field "field"[m]`.
void JsonReaderArchive::models(const char* field, std::vector<std::unique_ptr<Model>>& models, const Dimension&) {
  const nlohmann::json& array = fields_.required(field);
  if (!array.is_array() || array.empty()) throw fields_.invalid(field, "a non-empty array of model objects");
  models.clear();
  for (std::size_t m = 0; m < array.size(); ++m) {
    try {
      models.push_back(model_from_json(array[m]));
    } catch (const ModelError& error) {
      throw ModelError(family_ + " field \"" + field + "\"[" + std::to_string(m) + "]: " + error.what());
    }
  }
}

void JsonReaderArchive::model(const char* field, std::unique_ptr<Model>& model) {
  try {
    model = model_from_json(fields_.required(field));
  } catch (const ModelError& error) {
    throw ModelError(family_ + " field \"" + field + "\": " + error.what());
  }
}

void JsonReaderArchive::choice(const char* field, long& index, const std::vector<const char*>& names) {
  index = 0;
  if (!fields_.has(field)) return;
  const nlohmann::json& value = fields_.required(field);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (value == names[i]) {
      index = static_cast<long>(i);
      return;
    }
  throw fields_.invalid(field, quoted_alternatives(names));
}

void JsonReaderArchive::one_of(const char*, long& index, const std::vector<const char*>& members) {
  long present = 0;
  for (std::size_t i = 0; i < members.size(); ++i)
    if (fields_.has(members[i])) {
      index = static_cast<long>(i);
      ++present;
    }
  if (present != 1) throw ModelError(family_ + ": expected exactly one of the fields " + quoted_alternatives(members));
}

void JsonReaderArchive::at_most(const Dimension&, long, const char*) {}

// ---- Lists of matrices, in the four archives.

void RowWriterArchive::matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count,
                                const Dimension& rows, const Dimension& cols) {
  claim(field, claim_of(count, rows, cols));
  for (const Eigen::MatrixXd& matrix : list) write_row_major(out_, matrix);
}

void RowWriterArchive::symmetric_matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count,
                                          const Dimension& dim) {
  claim(field, claim_of(count, dim, dim));
  for (const Eigen::MatrixXd& matrix : list) write_lower_triangle(out_, matrix);
}

void RowReaderArchive::matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count,
                                const Dimension& rows, const Dimension& cols) {
  claim(field, claim_of(count, rows, cols));
  RowMatrices read = read_general_list(in_, field, count.value, rows.value, cols.value);
  list = std::move(read.matrices);
  spans_.push_back(read.span);
}

void RowReaderArchive::symmetric_matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count,
                                          const Dimension& dim) {
  claim(field, claim_of(count, dim, dim));
  RowMatrices read = read_symmetric_list(in_, field, count.value, dim.value);
  list = std::move(read.matrices);
  spans_.push_back(read.span);
}

void JsonWriterArchive::matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension&,
                                 const Dimension&, const Dimension&) {
  nlohmann::json array = nlohmann::json::array();
  for (const Eigen::MatrixXd& matrix : list) array.push_back(json_rows(matrix));
  out_[field] = std::move(array);
}

void JsonWriterArchive::symmetric_matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count,
                                           const Dimension& dim) {
  matrices(field, list, count, dim, dim);
}

void JsonReaderArchive::matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension&,
                                 const Dimension&, const Dimension&) {
  list = json_matrices(fields_, field);
}

void JsonReaderArchive::symmetric_matrices(const char* field, std::vector<Eigen::MatrixXd>& list, const Dimension& count,
                                           const Dimension& dim) {
  matrices(field, list, count, dim, dim);
}

// ---- Records (in family_fields.hpp), flags, lists of whole numbers, in the four archives.

void RowWriterArchive::boolean(const char*, bool& value) { out_.real(value ? 1.0 : 0.0); }

void RowWriterArchive::whole_numbers(const char* field, std::vector<long>& values, long, long, long) {
  out_.claim(family_, field, out_.next_index(), field, static_cast<double>(values.size()));
  out_.real(static_cast<double>(values.size()));
  for (long value : values) out_.real(static_cast<double>(value));
}

void RowReaderArchive::boolean(const char* field, bool& value) {
  long read = 0;
  whole_number(field, read, 0, 1);
  value = read == 1;
}

// The length's index and the numbers' are all the field's: an error about element p is at the p-th
// number, one about the whole list at the length and the numbers.
void RowReaderArchive::whole_numbers(const char* field, std::vector<long>& values, long max_count, long min, long max) {
  const long first = in_.next_index();
  const long count = whole(field, 0, max_count);
  in_.claim(family_, field, first, field, static_cast<double>(count));
  values.clear();
  for (long p = 0; p < count; ++p) values.push_back(whole(field, min, max));
  spans_.push_back({field, first, 1 + count, 1});
}

void JsonWriterArchive::boolean(const char* field, bool& value) { out_[field] = value; }

void JsonWriterArchive::whole_numbers(const char* field, std::vector<long>& values, long, long, long) {
  out_[field] = values;
}

const nlohmann::json& JsonReaderArchive::record_array(const char* field, long max, const char* item) const {
  const nlohmann::json& array = fields_.required(field);
  if (!array.is_array() || array.empty() || static_cast<long>(array.size()) > max)
    throw fields_.invalid(field, "an array of 1 to " + std::to_string(max) + " " + item + " objects");
  return array;
}

void JsonReaderArchive::boolean(const char* field, bool& value) {
  value = false;
  if (!fields_.has(field)) return;
  const nlohmann::json& member = fields_.required(field);
  if (!member.is_boolean()) throw fields_.invalid(field, "true or false");
  value = member.get<bool>();
}

void JsonReaderArchive::whole_numbers(const char* field, std::vector<long>& values, long, long min, long max) {
  values.clear();
  if (!fields_.has(field)) return;
  const nlohmann::json& array = fields_.required(field);
  if (!array.is_array()) throw fields_.invalid(field, "an array of whole numbers");
  for (const nlohmann::json& value : array) values.push_back(fields_.whole_number(field, value, min, max));
}

long RowReaderArchive::first_header(const char* field) const {
  for (const auto& [headers_field, first] : headers_)
    if (std::strcmp(headers_field, field) == 0) return static_cast<long>(first);
  return -1;
}

void RowReaderArchive::keep_record(RowReaderArchive&& record, long header) {
  if (header < 0 || static_cast<std::size_t>(header) >= records_.size()) {
    records_.push_back(
        {std::move(record.family_), std::move(record.spans_), std::move(record.nested_), std::move(record.records_)});
    return;
  }
  RecordSpans& kept = records_[static_cast<std::size_t>(header)];
  kept.spans.insert(kept.spans.end(), record.spans_.begin(), record.spans_.end());
  kept.nested.insert(kept.nested.end(), record.nested_.begin(), record.nested_.end());
  kept.records.insert(kept.records.end(), std::make_move_iterator(record.records_.begin()),
                      std::make_move_iterator(record.records_.end()));
}

JsonReaderArchive JsonReaderArchive::record_archive(const nlohmann::json& array, const char* field, long i,
                                                    const std::vector<const char*>& names) const {
  return JsonReaderArchive(array[static_cast<std::size_t>(i)], record_family(family_, field, i), names);
}

bool JsonReaderArchive::optional(const char* field, bool needed, const char* unwanted) {
  if (needed) return true;
  if (!fields_.has(field)) return false;
  if (unwanted != nullptr) throw fields_.invalid(field, unwanted);
  return true;
}

void RowWriterArchive::optional_whole_number(const char*, long& value, long min, long) {
  out_.real(static_cast<double>(value - min + 1));
}

void RowReaderArchive::optional_whole_number(const char* field, long& value, long min, long max) {
  whole_number(field, value, 0, max - min + 1);
  value += min - 1;
}

void JsonWriterArchive::optional_whole_number(const char* field, long& value, long min, long) {
  if (value >= min) out_[field] = value;
}

void JsonReaderArchive::optional_whole_number(const char* field, long& value, long min, long max) {
  value = fields_.has(field) ? fields_.whole_number(field, min, max) : min - 1;
}

void RowWriterArchive::table(const char* field, std::vector<double>& values, const Dimension& rows, const Dimension& cols,
                             const char*, const char*) {
  claim(field, claim_of(rows, cols));
  out_.reals(values);
}

void RowReaderArchive::table(const char* field, std::vector<double>& values, const Dimension& rows, const Dimension& cols,
                             const char*, const char*) {
  claim(field, claim_of(rows, cols));
  const long first = in_.next_index();
  values = in_.reals(field, static_cast<std::size_t>(rows.value * cols.value));
  record(field, first);
}

void JsonWriterArchive::table(const char* field, std::vector<double>& values, const Dimension&, const Dimension& cols,
                              const char*, const char*) {
  nlohmann::json rows = nlohmann::json::array();
  const auto width = static_cast<std::size_t>(cols.value);
  for (std::size_t first = 0; first < values.size(); first += width)
    rows.push_back(std::vector<double>(values.begin() + static_cast<long>(first),
                                       values.begin() + static_cast<long>(first + width)));
  out_[field] = std::move(rows);
}

void JsonReaderArchive::table(const char* field, std::vector<double>& values, const Dimension& rows,
                              const Dimension& cols, const char* row, const char* column) {
  const std::vector<std::vector<double>> read = fields_.matrix(field);
  const auto wrong_shape = [&] {
    return fields_.invalid(field, std::to_string(rows.value) + " rows (one per " + row + ") of " +
                                      std::to_string(cols.value) + " " + column);
  };
  if (rows.value >= 0 && static_cast<long>(read.size()) != rows.value) throw wrong_shape();
  values.clear();
  for (const std::vector<double>& values_of_row : read) {
    if (cols.value >= 0 && static_cast<long>(values_of_row.size()) != cols.value) throw wrong_shape();
    values.insert(values.end(), values_of_row.begin(), values_of_row.end());
  }
}

void RowWriterArchive::columns(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols) {
  claim(field, claim_of(rows, cols));
  out_.reals(matrix.data(), matrix.data() + matrix.size());  // Eigen's column-major storage
}

void RowReaderArchive::columns(const char* field, Eigen::MatrixXd& matrix, const Dimension& rows, const Dimension& cols) {
  claim(field, claim_of(rows, cols));
  const long first = in_.next_index();
  const std::vector<double> values = in_.reals(field, static_cast<std::size_t>(rows.value * cols.value));
  matrix = Eigen::Map<const Eigen::MatrixXd>(values.data(), rows.value, cols.value);
  record(field, first);
}

void JsonWriterArchive::columns(const char* field, Eigen::MatrixXd& matrix, const Dimension&, const Dimension&) {
  out_[field] = json_rows(matrix.transpose());
}

void JsonReaderArchive::columns(const char* field, Eigen::MatrixXd& matrix, const Dimension&, const Dimension&) {
  matrix = json_matrix(fields_, field).transpose();
}

// ---- JsonReaderArchive: kinds added for the multinomial.

void JsonReaderArchive::count_or_keyword(const char* field, long& value, long max, const char* keyword) {
  value = 0;
  if (!fields_.has(field)) return;
  const nlohmann::json& read = fields_.required(field);
  if (read == keyword) {
    value = -1;
    return;
  }
  if (!read.is_number() || read.get<double>() != std::floor(read.get<double>()) || read.get<double>() < 1.0 ||
      read.get<double>() > static_cast<double>(max))
    throw fields_.invalid(field, detail::whole_numbers(1, max) + " or \"" + keyword + "\"");
  value = static_cast<long>(read.get<double>());
}

void JsonReaderArchive::optional_real(const char* field, std::optional<double>& value) {
  value = fields_.has(field) ? std::optional<double>(fields_.real(field)) : std::nullopt;
}

std::vector<double> JsonReaderArchive::member_numbers(const char* object, const char* member) const {
  const nlohmann::json& parent = fields_.required(object);
  if (!parent.is_object() || !parent.contains(member) || !parent[member].is_array())
    throw fields_.invalid(object, std::string("an object with an array \"") + member + "\"");
  std::vector<double> numbers;
  numbers.reserve(parent[member].size());
  for (const nlohmann::json& value : parent[member]) {
    if (!value.is_number()) throw fields_.invalid(object, std::string("numbers in \"") + member + "\"");
    numbers.push_back(value.get<double>());
  }
  return numbers;
}

void JsonReaderArchive::listed_probabilities(const char* field, SparseProbabilities& p, const Dimension& dim,
                                             const ListedLayout& layout, bool) {
  if (!fields_.has(layout.marker)) {
    for (const char* member : {dim.field, layout.base, layout.object})
      if (fields_.has(member))
        throw fields_.invalid(member, std::string("no such member without \"") + layout.marker + "\"");
    return probabilities(field, p, dim);
  }
  if (fields_.has(field))
    throw fields_.invalid(
        field, std::string("no such member with \"") + layout.marker + "\" (\"" + layout.object + "\" lists the values)");
  p = SparseProbabilities{};
  p.dim = fields_.whole_number(dim.field, dim.min, dim.max);
  p.base = fields_.real(layout.base);
  const std::vector<double> index = member_numbers(layout.object, "index");
  p.value = member_numbers(layout.object, field);
  if (index.size() != p.value.size())
    throw fields_.invalid(layout.object, std::string("\"index\" and \"") + field + "\" of one length");
  p.index.reserve(index.size());
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (index[i] != std::floor(index[i]) || index[i] < 0 || index[i] >= static_cast<double>(p.dim) ||
        (i > 0 && index[i] <= index[i - 1]))
      throw fields_.invalid(layout.object, "\"index\": increasing whole numbers in [0, D)");
    p.index.push_back(static_cast<long>(index[i]));
  }
}

Dimension JsonReaderArchive::trailing_group(const char* field, long, long max) {
  return {fields_.has(field) ? -1 : 0, 0, max, field};
}

// A present group has K >= 1 values per column, as a row's (where K = 0 means no group).
void JsonReaderArchive::group_reals(const char*, std::vector<double>& values, const Dimension& group,
                                    const char* member) {
  values = member_numbers(group.field, member);
  if (values.empty()) throw fields_.invalid(group.field, std::string("a non-empty array \"") + member + "\"");
}

void JsonReaderArchive::group_whole_numbers(const char* field, std::vector<double>& values, const Dimension& group,
                                            const char* member) {
  group_reals(field, values, group, member);
}

void JsonReaderArchive::listed_numbers(const char*, std::vector<std::pair<long, double>>& entries,
                                       const SparseProbabilities& p, const Dimension&, const ListedLayout& layout,
                                       const char* member) {
  const std::vector<double> numbers = member_numbers(layout.object, member);
  if (numbers.size() != p.index.size())
    throw fields_.invalid(layout.object, std::string("\"") + member + "\" as long as \"index\"");
  entries.clear();
  entries.reserve(numbers.size());
  for (std::size_t i = 0; i < numbers.size(); ++i) entries.emplace_back(p.index[i], numbers[i] + 1.0);
}

// ---- Kinds added for the markov family: an optional dense vector, a sparse block.

void RowWriterArchive::optional_reals(const char* field, std::vector<double>& values, const Dimension& dim) {
  out_.real(values.empty() ? 0.0 : 1.0);
  if (!values.empty()) reals(field, values, dim);
}

void RowWriterArchive::sparse_reals(const char*, std::vector<std::pair<long, double>>& entries, const Dimension& dim,
                                    const char*) {
  out_.sparse(entries, static_cast<std::size_t>(dim.value));
}

// The flag's index and the values' are all the field's.
void RowReaderArchive::optional_reals(const char* field, std::vector<double>& values, const Dimension& dim) {
  const long first = in_.next_index();
  const long present = whole(field, 0, 1);
  values.clear();
  if (present == 1) {
    claim(field, claim_of(dim));
    values = in_.reals(field, static_cast<std::size_t>(dim.value));
  }
  spans_.push_back({field, first, in_.next_index() - first, 1});
}

void RowReaderArchive::sparse_reals(const char* field, std::vector<std::pair<long, double>>& entries,
                                    const Dimension& dim, const char*) {
  const long first = in_.next_index();
  entries = in_.sparse(field, static_cast<std::size_t>(dim.value));
  record(field, first);
}

void JsonWriterArchive::optional_reals(const char* field, std::vector<double>& values, const Dimension&) {
  if (!values.empty()) out_[field] = values;
}

void JsonWriterArchive::sparse_reals(const char* field, std::vector<std::pair<long, double>>& entries, const Dimension&,
                                     const char* member) {
  if (entries.empty()) return;
  std::vector<long> index;
  std::vector<double> values;
  index.reserve(entries.size());
  values.reserve(entries.size());
  for (const auto& [offset, value] : entries) {
    index.push_back(offset);
    values.push_back(value);
  }
  out_[field]["index"] = index;
  out_[field][member] = values;
}

void JsonReaderArchive::optional_reals(const char* field, std::vector<double>& values, const Dimension&) {
  values.clear();
  if (fields_.has(field)) values = fields_.reals(field);
}

// The offsets must be whole numbers >= 0 here (to be held as longs); the constructor checks their range
// and order, naming the element.
void JsonReaderArchive::sparse_reals(const char* field, std::vector<std::pair<long, double>>& entries, const Dimension&,
                                     const char* member) {
  entries.clear();
  if (!fields_.has(field)) return;
  const std::vector<double> index = member_numbers(field, "index");
  const std::vector<double> values = member_numbers(field, member);
  if (index.size() != values.size())
    throw fields_.invalid(field, std::string("\"index\" and \"") + member + "\" of one length");
  entries.reserve(index.size());
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (!(index[i] >= 0.0 && index[i] <= static_cast<double>(kMaxDimension)) || index[i] != std::floor(index[i]))
      throw fields_.invalid(field, "\"index\": whole numbers in [0, " + std::to_string(kMaxDimension) + "]");
    entries.emplace_back(static_cast<long>(index[i]), values[i]);
  }
}

}  // namespace ppk::detail
