// Splitting one loop over [0, n) across threads that sleep while idle.
//
// For the LIBSVM plugin's kernel columns: many short loops, one after the other, on machines that
// other processes share. OpenMP's runtime (libgomp) keeps its threads spinning between parallel
// regions and ends every region with a barrier that waits for every thread of the team; with a
// competing process on one of two cores that made 2 threads 4-40 times slower than 1. Here the
// idle threads sleep on a condition variable, a thread that wakes after the loop is done is not
// waited for, and the calling thread takes ranges until none are left, so a descheduled helper
// delays the loop by at most the one range it holds.
#pragma once

#include <cstddef>
#include <functional>

namespace ppk {

// Calls work(begin, end) on disjoint ranges [begin, end) that cover [0, n), on the calling thread
// and up to threads - 1 helpers from a process-wide pool. Ranges are handed out in increasing
// order, each a 1/(2 threads) share of what is left but at least min_range long (as OpenMP's
// guided schedule), so that the threads finish together.
// The first min_range indices run on the calling thread and are timed: the rest runs in parallel
// only if, at that pace, it would take longer than parallel_seconds (waking a sleeping thread
// costs some microseconds); otherwise in one call on the calling thread. So does everything when
// threads <= 1, when another thread is using the pool, and when called from one of the pool's
// threads. The caller's work must give the same results however [0, n) is split.
// An exception from work stops the handing out of ranges and is rethrown (the first one caught).
// Safe in a child of fork(): the child starts a pool of its own.
void for_each_range(std::size_t n, unsigned threads, std::size_t min_range, double parallel_seconds,
                    const std::function<void(std::size_t, std::size_t)>& work);

}  // namespace ppk
