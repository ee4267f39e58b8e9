// Running one independent task per example on several threads, with progress on a terminal.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "cli.hpp"

namespace ppk::cli {

// The default number of worker threads: OMP_NUM_THREADS if set to a whole number >= 1
// (the variable that already sets LIBSVM's threads), else the number of hardware threads.
unsigned default_threads();

// The option "--threads N" (`what` says what runs N at a time), and its value: N in [1, 1024]
// (else a UsageError), or default_threads() when it is absent.
void add_threads_option(po::options_description& options, const std::string& what);
unsigned threads_option(const po::variables_map& values);

// Calls task(i) once for every i in [0, count), on up to `threads` threads. Indices are handed
// out in increasing order, so every index below a failing one has run when the workers stop:
// after a task throws, no new index is started, and the exception of the smallest failing
// index is rethrown. The outcome therefore never depends on the number of threads, as long as
// task(i) depends on i alone.
// While it runs, and only when standard error is a terminal, a progress line
// "<what>: done/count" is redrawn there (at most ten times a second) and erased at the end.
void for_each_index(std::size_t count, unsigned threads, const std::string& what,
                    const std::function<void(std::size_t)>& task);

}  // namespace ppk::cli
