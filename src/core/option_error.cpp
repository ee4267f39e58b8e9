#include "ppk/core/option_error.hpp"

#include <algorithm>

namespace ppk {
namespace {

// Calls on_text for each literal run and on_field for each {field} of the template, in order.
template <class OnText, class OnField>
void parse_template(const std::string& message_template, OnText on_text, OnField on_field) {
  std::string text;
  for (std::size_t i = 0; i < message_template.size(); ++i) {
    const char c = message_template[i];
    const bool doubled = i + 1 < message_template.size() && message_template[i + 1] == c;
    if ((c == '{' || c == '}') && doubled) {
      text += c;
      ++i;
    } else if (c == '{' && message_template.find('}', i) != std::string::npos) {
      const std::size_t end = message_template.find('}', i);
      on_text(text);
      text.clear();
      on_field(message_template.substr(i + 1, end - i - 1));
      i = end;
    } else {
      text += c;
    }
  }
  on_text(text);
}

}  // namespace

std::vector<std::string> NamesOptionFields::fields() const {
  std::vector<std::string> fields;
  parse_template(
      template_, [](const std::string&) {},
      [&fields](const std::string& field) {
        if (std::find(fields.begin(), fields.end(), field) == fields.end()) fields.push_back(field);
      });
  return fields;
}

std::string NamesOptionFields::message(const std::function<std::string(const std::string& field)>& name_of) const {
  std::string out;
  parse_template(
      template_, [&out](const std::string& text) { out += text; },
      [&out, &name_of](const std::string& field) { out += name_of(field); });
  return out;
}

std::string with_field_names(const std::string& message_template) {
  return NamesOptionFields(message_template).message([](const std::string& field) { return field; });
}

std::string escape_braces(std::string_view text) {
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == '{' || c == '}') out += c;
  }
  return out;
}

}  // namespace ppk
