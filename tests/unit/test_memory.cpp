// The memory limit that fits check their working sets against (memory.hpp), and byte counts in messages.
#include "ppk/core/memory.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace ppk {
namespace {

TEST(Memory, ByteCountsForMessages) {
  EXPECT_EQ(byte_count(0), "0 bytes");
  EXPECT_EQ(byte_count(800), "800 bytes");
  EXPECT_EQ(byte_count(1500), "1.5 kB");
  EXPECT_EQ(byte_count(3.2e6), "3.2 MB");
  EXPECT_EQ(byte_count(291e6), "291 MB");
  EXPECT_EQ(byte_count(2.68e12), "2.7 TB");
  EXPECT_EQ(byte_count(5e18), "5000 PB");
}

// No more than the machine's memory as the kernel reports it (/proc/meminfo's MemTotal, in kB; read
// here independently of sysconf), nor than the address-space limit; the whole memory (to within what
// the two counts differ by) when there is no such limit, that limit when it is smaller.
TEST(Memory, TheLimitIsAtMostThePhysicalMemory) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kilobytes = 0.0;
  while (meminfo >> key && key != "MemTotal:") meminfo.ignore(1 << 10, '\n');
  if (!(meminfo >> kilobytes)) GTEST_SKIP() << "no /proc/meminfo";
  const double physical = kilobytes * 1024.0;
  EXPECT_LE(memory_limit_bytes(), physical * 1.01);
  rlimit address_space{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &address_space), 0);
  if (address_space.rlim_cur == RLIM_INFINITY || static_cast<double>(address_space.rlim_cur) > physical * 1.01) {
    EXPECT_GT(memory_limit_bytes(), 0.5 * physical);
  } else {
    const double limit = static_cast<double>(address_space.rlim_cur);
    EXPECT_LE(memory_limit_bytes(), limit);
    EXPECT_GE(memory_limit_bytes(), std::min(limit, 0.5 * physical));
  }
}

}  // namespace
}  // namespace ppk
