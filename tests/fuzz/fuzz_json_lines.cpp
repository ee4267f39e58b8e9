// libFuzzer harness: a JSON-lines file (the input of `ppk encode`, what `ppk decode` writes), read as
// `ppk encode` reads it.
//
// Properties checked beyond "no crash, no leak, no undefined behaviour" (ASan/UBSan): a model that
// reads is written by labeled_model_json_line as a line that reads back as a model whose line is the
// same text (JSON round trip), and whose row (encode_row) decodes (every model read can be encoded).
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_check.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/row.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<ppk::LabeledModel> models;
  try {
    models = ppk::read_json_lines(in, "<fuzz>");
  } catch (const ppk::InputError&) {
    return 0;
  }
  for (const ppk::LabeledModel& labeled : models) {
    const std::string line = ppk::labeled_model_json_line(labeled.label, *labeled.model);
    std::istringstream again_in(line + "\n");
    std::vector<ppk::LabeledModel> again;
    try {
      again = ppk::read_json_lines(again_in, "<labeled_model_json_line>");
    } catch (const ppk::InputError& e) {
      ppk_fuzz::fail("labeled_model_json_line wrote a line that read_json_lines refuses", e.what());
    }
    if (again.size() != 1 || ppk::labeled_model_json_line(again[0].label, *again[0].model) != line)
      ppk_fuzz::fail("a model's JSON line does not read back as the same line", line);
    try {
      ppk::decode_row(ppk::encode_row(*labeled.model));
    } catch (const std::exception& e) {
      ppk_fuzz::fail("a model read from JSON encodes to a row that decode_row refuses", e.what());
    }
  }
  return 0;
}
