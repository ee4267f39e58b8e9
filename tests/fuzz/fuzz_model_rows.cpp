// libFuzzer harness: a model-row file (the input of `ppk gram`, `ppk decode` and svm-train -t ppk),
// read as the tools read it, every row decoded as the plugin decodes it.
//
// Properties checked beyond "no crash, no leak, no undefined behaviour" (ASan/UBSan):
//   - a row that decodes is written back by encode_row as a row that decodes again, and that row
//     encodes to itself (the writer never writes what its reader refuses; the codec has a fixed point);
//   - the row's text (format_row_line) reads back as the same entries (LIBSVM's strtod gets every bit);
//   - a model that prepares for the kernel has ppk_norm(p, p) = 1 and, when its values are finite
//     (check_finite_kernel_values), a finite ppk(p, p) >= 0 (it may underflow);
//   - between consecutive compatible rows of one rho, ppk_norm in [0, 1] and, when their values are
//     finite, ppk finite and >= 0, the batch kernel's value equal to the single one.
// Rows whose kernel takes seconds by design (cheap_kernel) are only decoded and round-tripped.
#include <cmath>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/markov.hpp"
#include "ppk/families/montecarlo.hpp"
#include "ppk/families/slds.hpp"

namespace {

constexpr int kMaxRows = 8;  // rows decoded per input: the rest only parse

// Whether the row's kernel is cheap enough to evaluate here. The documented limits allow kernels that
// take seconds by design (10^6 Kalman steps per SLDS value, T up to 10^6 or 10^8), more than the
// fuzzer's 20 s timeout under ASan, which is there to catch hangs: such rows are decoded and round-
// tripped but not prepared. Their bounds are tested in the unit tests (Slds.KernelStepsPerEvaluationAreBounded).
// Every sequence model's T is bounded through Model::sequence_steps (its stored length before
// prepare()); the costs a family has beyond T are its own, bounded here by name.
bool cheap_kernel(const ppk::Model& model) {
  constexpr long kMaxSteps = 1000;           // x_0..x_T of a sequence model
  constexpr double kMaxSldsSteps = 20000.0;  // S^2 (T + 1) of an SLDS
  if (model.sequence_steps().value_or(0) > kMaxSteps) return false;
  if (const auto* montecarlo = dynamic_cast<const ppk::MonteCarloModel*>(&model))
    return montecarlo->samples() <= 1000 && cheap_kernel(montecarlo->inner());
  if (const auto* slds = dynamic_cast<const ppk::SldsModel*>(&model)) {
    const auto paths = static_cast<double>(slds->parameters().paths);
    return paths * paths * static_cast<double>(slds->steps() + 1) <= kMaxSldsSteps;
  }
  if (const auto* markov = dynamic_cast<const ppk::MarkovModel*>(&model))  // T steps of A^{k+1}, a table of S
    return markov->steps() <= kMaxSteps && ppk::markov_table_size(markov->parameters()) <= 100000;  // aligned too
  return true;
}

bool same_entries(const ppk::Row& a, const ppk::Row& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].index != b[i].index || a[i].value != b[i].value) return false;
  return true;
}

// The entries LIBSVM reads from the row's text: every value made libsvm_readable.
ppk::Row readable(const ppk::Row& row) {
  ppk::Row out = row;
  for (ppk::RowEntry& entry : out) entry.value = ppk::libsvm_readable(entry.value);
  return out;
}

void check_round_trip(const ppk::LabeledRow& row, const ppk::Model& model) {
  const ppk::Row written = ppk::encode_row(model);
  std::unique_ptr<ppk::Model> again;
  try {
    again = ppk::decode_row(written);
  } catch (const std::exception& e) {
    ppk_fuzz::fail("encode_row wrote a row that decode_row refuses", e.what());
  }
  if (!same_entries(ppk::encode_row(*again), written))
    ppk_fuzz::fail("encode_row(decode_row(encode_row(m))) differs from encode_row(m)", "");
  std::istringstream text(ppk::format_row_line(row.label, written) + "\n");
  const std::vector<ppk::LabeledRow> read = ppk::read_rows(text, "<format_row_line>");
  if (read.size() != 1 || !same_entries(read[0].row, readable(written)))
    ppk_fuzz::fail("format_row_line's text does not read back as the row", "");
}

std::unique_ptr<ppk::PreparedModel> prepare(std::unique_ptr<ppk::Model> model, double rho) {
  try {
    return std::make_unique<ppk::PreparedModel>(std::move(model), ppk::KernelParams{rho, 0});
  } catch (const ppk::KernelDomainError&) {
    return nullptr;  // a self-kernel that is not finite and positive: refused, as the tools refuse it
  }
}

void check_self_kernels(const ppk::PreparedModel& model) {
  const double norm = ppk::evaluate(ppk::KernelKind::ppk_norm, model, model);
  if (!(std::fabs(norm - 1.0) <= 1e-9)) ppk_fuzz::fail("ppk_norm(p, p) is not 1", std::to_string(norm));
  try {
    ppk::check_finite_kernel_values(ppk::KernelKind::ppk, model);
  } catch (const ppk::KernelDomainError&) {
    return;
  }
  // (k(p, p) itself may underflow to 0: its logarithm is what PreparedModel checks.)
  const double self = ppk::evaluate(ppk::KernelKind::ppk, model, model);
  if (!(std::isfinite(self) && self >= 0)) ppk_fuzz::fail("ppk(p, p) is not finite and >= 0", std::to_string(self));
}

// Between two compatible prepared rows: ppk_norm in [0, 1] and, when both rows' values are finite
// (check_finite_kernel_values), a finite ppk >= 0; the same values from the batch kernel.
void check_pair_kernels(const ppk::PreparedModel& a, const ppk::PreparedModel& b) {
  try {
    ppk::check_compatible(a.model(), b.model());
  } catch (const ppk::KernelDomainError&) {
    return;
  }
  const double norm = ppk::evaluate(ppk::KernelKind::ppk_norm, a, b);
  if (!(norm >= 0.0 && norm <= 1.0)) ppk_fuzz::fail("ppk_norm between two rows is not in [0, 1]", std::to_string(norm));
  try {
    ppk::check_finite_kernel_values(ppk::KernelKind::ppk, a);
    ppk::check_finite_kernel_values(ppk::KernelKind::ppk, b);
  } catch (const ppk::KernelDomainError&) {
    return;
  }
  const double value = ppk::evaluate(ppk::KernelKind::ppk, a, b);
  if (!(std::isfinite(value) && value >= 0.0))
    ppk_fuzz::fail("ppk between two rows is not finite and >= 0", std::to_string(value));
  const ppk::PreparedModel* const others[] = {&b};
  double batch = 0.0;
  ppk::evaluate_many(ppk::KernelKind::ppk, a, others, 1, &batch);
  if (!(batch == value)) ppk_fuzz::fail("evaluate_many differs from evaluate", std::to_string(batch));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<ppk::LabeledRow> rows;
  try {
    rows = ppk::read_rows(in, "<fuzz>");
  } catch (const ppk::InputError&) {
    return 0;
  }
  std::unique_ptr<ppk::PreparedModel> previous[2];  // the last prepared row of each rho
  for (std::size_t r = 0; r < rows.size() && r < kMaxRows; ++r) {
    std::unique_ptr<ppk::Model> model;
    try {
      model = ppk::decode_labeled_row(rows[r], "<fuzz>", static_cast<long>(r) + 1);
    } catch (const ppk::InputError&) {
      continue;
    }
    check_round_trip(rows[r], *model);
    if (!cheap_kernel(*model)) continue;
    // rho = 1 (expected likelihood) for even rows, 1/2 (Bhattacharyya) for odd ones.
    std::unique_ptr<ppk::PreparedModel> prepared = prepare(std::move(model), r % 2 == 0 ? 1.0 : 0.5);
    if (!prepared) continue;
    check_self_kernels(*prepared);
    std::unique_ptr<ppk::PreparedModel>& other = previous[r % 2];
    if (other) check_pair_kernels(*other, *prepared);
    other = std::move(prepared);
  }
  return 0;
}
