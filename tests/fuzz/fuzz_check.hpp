// What the libFuzzer harnesses share: a property violated is a crash with its reason, which libFuzzer
// reports with the input that caused it (saved as crash-<sha1> for the regression corpus).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace ppk_fuzz {

[[noreturn]] inline void fail(const char* property, const std::string& detail) {
  std::fprintf(stderr, "fuzz property violated: %s%s%s\n", property, detail.empty() ? "" : ": ", detail.c_str());
  std::abort();
}

}  // namespace ppk_fuzz
