// The memory limit that fits check their working sets against (memory.hpp), and byte counts in messages.
#include "ppk/core/memory.hpp"

#include <gtest/gtest.h>

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

// No more than the machine's memory as the kernel reports it (/proc/meminfo's MemTotal, in kB);
// read here independently of sysconf.
TEST(Memory, TheLimitIsAtMostThePhysicalMemory) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kilobytes = 0.0;
  while (meminfo >> key && key != "MemTotal:") meminfo.ignore(1 << 10, '\n');
  if (!(meminfo >> kilobytes)) GTEST_SKIP() << "no /proc/meminfo";
  EXPECT_GT(memory_limit_bytes(), 0.5 * kilobytes * 1024.0);
  EXPECT_LE(memory_limit_bytes(), kilobytes * 1024.0 * 1.01);
}

}  // namespace
}  // namespace ppk
