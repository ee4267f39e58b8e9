// Library messages name the options they are about by the fields of the library's options structs
// (MultinomialFitOptions::alpha is "alpha", LdsFitOptions::prior.strength is "prior.strength"),
// never by a program's spelling of them: the command-line tool writes "--alpha", another caller
// something else. A message that names fields is a template in which each field is written
// {field}; `{{` and `}}` are literal braces. what() shows every field by its name, and a program
// renders the template with its own names (message(name_of)).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ppk {

// The part of an error that names option fields (a mixin of OptionError and InputOptionError).
class NamesOptionFields {
 public:
  explicit NamesOptionFields(std::string message_template) : template_(std::move(message_template)) {}
  virtual ~NamesOptionFields() = default;
  // The fields the message names, in order, each once.
  std::vector<std::string> fields() const;
  // The message with every {field} replaced by name_of(field).
  std::string message(const std::function<std::string(const std::string& field)>& name_of) const;

 private:
  std::string template_;
};

// The template's message with each field shown by its own name ("{alpha}" as "alpha").
std::string with_field_names(const std::string& message_template);
// `text` as literal template text: its braces doubled.
std::string escape_braces(std::string_view text);

}  // namespace ppk
