// The row codec (see row.hpp): models as LIBSVM sparse rows.
#include "ppk/core/row.hpp"

#include <charconv>
#include <climits>
#include <cmath>
#include <limits>

#include "ppk/core/model_fields.hpp"
#include "ppk/core/family.hpp"

namespace ppk {

using detail::format_number;
using detail::row_field_location;

namespace {

ModelError field_complaint(const std::string& family, const char* field, long first_index, long count,
                           const std::string& expected, double got) {
  return ModelError(row_field_location(family, field, first_index, count) + ": expected " + expected + ", got " +
                    format_number(got));
}

// Adds `values` to the row's count `total`; past kMaxRowDenseValues, the error names the field that
// declared the size (see RowReader::claim).
void add_claim(double& total, const std::string& owner, const char* size_field, long size_index, const char* field,
               double values) {
  total += values;
  if (total <= static_cast<double>(kMaxRowDenseValues)) return;
  std::string got, so_far;
  append_number(got, values);  // (whole numbers in full: "100000000", not "1e+08")
  append_number(so_far, total);
  throw ModelError(row_field_location(owner, size_field, size_index, 1) + ": expected sizes whose fields hold at most " +
                   std::to_string(kMaxRowDenseValues) + " dense values in one row (docs/families.md, \"Limits\"), got " +
                   got + " values for \"" + field + "\"" +
                   (total == values ? "" : ", " + so_far + " with the fields before it"));
}

// LIBSVM rows list indices in increasing order; so must ours (a row is a sparse vector).
void check_indices(const RowEntry* begin, const RowEntry* end, const std::string& what) {
  int previous = 0;
  for (const RowEntry* entry = begin; entry != end; ++entry) {
    if (entry->index < 1) throw ModelError(what + ": indices start at 1, got index " + std::to_string(entry->index));
    if (entry->index <= previous)
      throw ModelError(what + ": indices must be strictly increasing, got index " + std::to_string(entry->index) +
                       " after index " + std::to_string(previous));
    previous = entry->index;
  }
}

// The value at `index` (0 when the row omits it), advancing `cur` past it.
double take_value(const RowEntry*& cur, const RowEntry* end, int index, const std::string& family) {
  if (cur != end && cur->index < index)
    throw ModelError(family + " row: index " + std::to_string(cur->index) + " is not a field of the row");
  if (cur != end && cur->index == index) return (cur++)->value;
  return 0.0;
}

}  // namespace

RowReader::RowReader(const RowEntry* begin, const RowEntry* end, const std::string& family_name, int first_field_index)
    : cur_(begin), end_(end), next_index_(first_field_index), family_(family_name) {
  check_indices(begin, end, family_ + " row");
}

double RowReader::real(const char* field) {
  const int index = next_index_;
  const double value = take_value(cur_, end_, index, family_);
  last_field_ = field;
  last_first_ = index;
  last_count_ = 1;
  ++next_index_;
  if (!std::isfinite(value)) throw invalid(field, "a finite number", value);
  return value;
}

long RowReader::integer(const char* field, long min, long max) {
  const double value = real(field);
  if (value != std::floor(value) || value < static_cast<double>(min) || value > static_cast<double>(max))
    throw invalid(field, "a whole number in [" + std::to_string(min) + ", " + std::to_string(max) + "]", value);
  return static_cast<long>(value);
}

std::vector<double> RowReader::reals(const char* field, std::size_t count) {
  std::vector<double> values(count, 0.0);
  for (const auto& [offset, value] : sparse(field, count)) values[offset] = value;
  return values;
}

std::vector<std::pair<long, double>> RowReader::sparse(const char* field, std::size_t count) {
  const int first = next_index_;
  if (count > static_cast<std::size_t>(INT_MAX - first))
    throw ModelError(row_field_location(family_, field, first, 1) + ": " + std::to_string(count) +
                     " values do not fit in a row's indices");
  const int last = first + static_cast<int>(count) - 1;
  if (cur_ != end_ && cur_->index < first)
    throw ModelError(family_ + " row: index " + std::to_string(cur_->index) + " is not a field of the row");
  // Only the listed entries are visited: a block costs O(listed), not O(count).
  std::vector<std::pair<long, double>> entries;
  for (; cur_ != end_ && cur_->index <= last; ++cur_) {
    if (!std::isfinite(cur_->value))
      throw field_complaint(family_, field, cur_->index, 1, "a finite number", cur_->value);
    // An explicit 0 means the same as an omitted entry: a row means the same with every zero dropped.
    if (cur_->value != 0.0) entries.emplace_back(cur_->index - first, cur_->value);
  }
  last_field_ = field;
  last_first_ = first;
  last_count_ = static_cast<int>(count);
  next_index_ = last + 1;
  return entries;
}

std::unique_ptr<Model> RowReader::model(const char* field) {
  const int first = next_index_ + 1;  // after the length
  const long length = integer(field, 1, INT_MAX - first);
  const int last = first + static_cast<int>(length) - 1;
  const RowEntry* block_end = cur_;
  while (block_end != end_ && block_end->index <= last) ++block_end;
  std::unique_ptr<Model> nested;
  try {
    nested = decode_at(cur_, block_end, first, claimed_);
  } catch (const ModelError& error) {
    throw ModelError(row_field_location(family_, field, first - 1, static_cast<long>(length) + 1) + ": " + error.what());
  }
  cur_ = block_end;
  last_field_ = field;
  last_first_ = first - 1;
  last_count_ = static_cast<int>(length) + 1;
  next_index_ = last + 1;
  return nested;
}

void RowReader::claim(const std::string& owner, const char* size_field, long size_index, const char* field,
                      double values) {
  add_claim(*claimed_, owner, size_field, size_index, field, values);
}

void RowReader::finish() {
  if (cur_ == end_) return;
  std::string after = last_field_.empty()
                          ? std::string("the row header")
                          : "the last field (" + row_field_location(family_, last_field_, last_first_, last_count_) + ")";
  throw ModelError(family_ + " row: index " + std::to_string(cur_->index) + " lies beyond " + after);
}

ModelError RowReader::invalid(const char* field, const std::string& expected, double got) const {
  return field_complaint(family_, field, last_first_, last_count_, expected, got);
}

ModelError RowReader::invalid(const char* field, const std::string& expected) const {
  return ModelError(row_field_location(family_, field, last_first_, last_count_) + ": expected " + expected);
}

RowWriter::RowWriter() : row_{{kVersionIndex, static_cast<double>(kRowFormatVersion)}}, next_(kVersionIndex + 1) {}

void RowWriter::real(double v) {
  if (v != 0.0) row_.push_back({next_, v});
  ++next_;
}

void RowWriter::reals(const std::vector<double>& v) { reals(v.begin(), v.end()); }

void RowWriter::sparse(const std::vector<std::pair<long, double>>& entries, std::size_t count) {
  for (const auto& [offset, value] : entries)
    if (value != 0.0) row_.push_back({next_ + static_cast<int>(offset), value});
  next_ += static_cast<int>(count);
}

void RowWriter::claim(const std::string& owner, const char* size_field, long size_index, const char* field,
                      double values) {
  add_claim(*claimed_, owner, size_field, size_index, field, values);
}

void RowWriter::model(const Model& nested) {
  const Row row = encode(nested, claimed_);  // index 1: version, 2: family code (never 0), 3...: fields
  const int length = row.back().index - kFamilyIndex + 1;
  real(length);
  for (const RowEntry& entry : row)
    if (entry.index >= kFamilyIndex) row_.push_back({next_ + entry.index - kFamilyIndex, entry.value});
  next_ += length;
}

Row RowWriter::encode(const Model& model, double* claimed) {
  RowWriter out;
  out.claimed_ = claimed;
  out.real(model.family().code);  // index kFamilyIndex
  model.family().encode(model, out);
  return out.take();
}

Row encode_row(const Model& model) {
  double claimed = 0.0;
  return RowWriter::encode(model, &claimed);
}

std::unique_ptr<Model> decode_row(const RowEntry* begin, const RowEntry* end) {
  check_indices(begin, end, "row");
  const RowEntry* cur = begin;
  const double version = take_value(cur, end, kVersionIndex, "row");
  if (version != kRowFormatVersion)
    throw field_complaint(
        "row", "version", kVersionIndex, 1,
        std::to_string(kRowFormatVersion) + " (the ppk row format version; ppk encode writes model rows)", version);
  return decode_model_at(cur, end, kFamilyIndex);
}

std::unique_ptr<Model> decode_model_at(const RowEntry* begin, const RowEntry* end, int family_index) {
  double claimed = 0.0;
  return RowReader::decode_at(begin, end, family_index, &claimed);
}

std::unique_ptr<Model> RowReader::decode_at(const RowEntry* begin, const RowEntry* end, int family_index,
                                            double* claimed) {
  const RowEntry* cur = begin;
  const double code = take_value(cur, end, family_index, "row");
  const FamilyInfo* family =
      code == std::floor(code) && std::fabs(code) < INT_MAX ? find_family(static_cast<int>(code)) : nullptr;
  if (family == nullptr) {
    std::string codes;
    for (const FamilyInfo* known : all_families())
      codes += (codes.empty() ? "" : ", ") + std::to_string(known->code) + " " + known->name;
    throw field_complaint("row", "family", family_index, 1, "a family code (" + codes + ")", code);
  }
  RowReader fields(cur, end, family->name, family_index + 1);
  fields.claimed_ = claimed;
  std::unique_ptr<Model> model = family->decode(fields);
  fields.finish();
  return model;
}

double libsvm_readable(double x) {
  const double smallest = std::numeric_limits<double>::min();
  return x != 0 && std::fabs(x) < smallest ? std::copysign(smallest, x) : x;
}

void append_number(std::string& text, double x) {
  char buffer[32];
  const bool whole = std::fabs(x) < 1e15 && x == std::trunc(x);
  text.append(buffer, (whole ? std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::fixed)
                             : std::to_chars(buffer, buffer + sizeof buffer, x))
                          .ptr);
}

std::string format_entries(const Row& row) {
  std::string text;
  text.reserve(row.size() * 24);
  char index[16];
  for (const RowEntry& entry : row) {
    if (!text.empty()) text += ' ';
    text.append(index, std::to_chars(index, index + sizeof index, entry.index).ptr);
    text += ':';
    append_number(text, libsvm_readable(entry.value));
  }
  return text;
}

std::string format_label(double label) {
  std::string text;
  append_number(text, label);
  return text;
}

}  // namespace ppk
