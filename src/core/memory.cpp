// The memory limit of fits' working sets (memory.hpp): POSIX sysconf and getrlimit.
#include "ppk/core/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string>

namespace ppk {

double memory_limit_bytes() {
  double limit = std::numeric_limits<double>::infinity();
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) limit = static_cast<double>(pages) * static_cast<double>(page);
  rlimit address_space{};
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY)
    limit = std::min(limit, static_cast<double>(address_space.rlim_cur));
  return limit;
}

std::string byte_count(double bytes) {
  if (bytes < 1000.0) return std::to_string(static_cast<long>(bytes)) + " bytes";
  const char* units[] = {"kB", "MB", "GB", "TB", "PB"};
  std::size_t unit = 0;
  for (bytes /= 1000.0; bytes >= 1000.0 && unit + 1 < std::size(units); ++unit) bytes /= 1000.0;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, bytes < 10.0 ? "%.1f %s" : "%.0f %s", bytes, units[unit]);
  return buffer;
}

}  // namespace ppk
