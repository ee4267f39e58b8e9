// The memory a computation may still take: for checking, before anything is allocated, a working
// set that options make large (an HMM's states, its restarts) where no size in the input bounds it.
#pragma once

#include <string>

namespace ppk {

// The most memory this process could allocate: the machine's physical memory (a working set beyond
// it would only page) or, if smaller, the limit on its address space (ulimit -v, RLIMIT_AS).
// Infinity where neither is known. What the process has allocated already is not subtracted (memory
// its allocator keeps for reuse would count as used): a working set below the limit can still fail
// to be allocated, as std::bad_alloc.
double memory_limit_bytes();

// A byte count for messages: "800 bytes", "3.2 MB", "291 MB" (powers of 1000; one decimal below 10).
std::string byte_count(double bytes);

}  // namespace ppk
