// The message of the exception a call throws, and the check that it names every expected part: what
// the unit tests compare error messages with.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

namespace ppk::checks {

// The message of the Error that calling `action` throws ("" if it throws none).
template <class Error, class Action>
std::string error_message(Action&& action) {
  try {
    std::forward<Action>(action)();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// Every part occurs in the message.
inline ::testing::AssertionResult mentions(const std::string& message, std::initializer_list<const char*> parts) {
  if (message.empty()) return ::testing::AssertionFailure() << "no error was thrown";
  for (const char* part : parts)
    if (message.find(part) == std::string::npos)
      return ::testing::AssertionFailure() << "\"" << message << "\" does not mention \"" << part << "\"";
  return ::testing::AssertionSuccess();
}

}  // namespace ppk::checks
