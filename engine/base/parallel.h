#pragma once
// oneTBB's parallel loops as nimtb uses them, visible to ThreadSanitizer.
//
// Debian's libtbb is not built with ThreadSanitizer, so the ordering oneTBB
// creates inside its library — a loop's tasks start after the caller's
// writes, and the caller continues after the tasks' writes — is invisible
// to it, and the solver's level-by-level reads of the previous level look
// like races. Under ThreadSanitizer these wrappers state that ordering with
// its annotations (release before the loop and at the end of each task,
// acquire at the start of each task and after the loop); in every other
// build they are exactly the oneTBB calls.

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_group.h>

#include <utility>

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace nimtb::engine {

// Two tokens for the annotations, at fixed addresses so that a task can
// acquire before it reads anything of the caller's: the caller releases
// `into_loop` before a loop and each task acquires it; each task releases
// `out_of_loop` and the caller acquires it after the loop. Tasks never
// acquire each other's releases, so a race between two tasks of one loop
// is still reported.
inline char into_loop;
inline char out_of_loop;

#if defined(__SANITIZE_THREAD__)
inline void sync_release(char* token) {
    __tsan_release(token);
}
inline void sync_acquire(char* token) {
    __tsan_acquire(token);
}
#else
inline void sync_release(char*) {}
inline void sync_acquire(char*) {}
#endif

// tbb::parallel_for over a range, with the given partitioner.
template <class Range, class Body, class Partitioner>
void sync_parallel_for_with(const Range& range, const Body& body, Partitioner&& partitioner) {
    // The task is built before the release: workers read it.
    const auto task = [&](const Range& r) {
        sync_acquire(&into_loop);
        body(r);
        sync_release(&out_of_loop);
    };
    sync_release(&into_loop);
    tbb::parallel_for(range, task, std::forward<Partitioner>(partitioner));
    sync_acquire(&out_of_loop);
}

// tbb::parallel_for over a range, with the default partitioner.
template <class Range, class Body>
void sync_parallel_for(const Range& range, const Body& body) {
    sync_parallel_for_with(range, body, tbb::auto_partitioner());
}

// tbb::parallel_for over the integers [first, last).
template <class Index, class Body>
void sync_parallel_for(Index first, Index last, const Body& body) {
    const auto task = [&](Index i) {
        sync_acquire(&into_loop);
        body(i);
        sync_release(&out_of_loop);
    };
    sync_release(&into_loop);
    tbb::parallel_for(first, last, task);
    sync_acquire(&out_of_loop);
}

// tbb::task_group::run: the task sees what the caller wrote before it was
// run, and sync_wait's caller what every task wrote.
template <class F>
void sync_run(tbb::task_group& group, F&& f) {
    sync_release(&into_loop);
    group.run([f = std::forward<F>(f)] {
        sync_acquire(&into_loop);
        f();
        sync_release(&out_of_loop);
    });
}

inline void sync_wait(tbb::task_group& group) {
    group.wait();
    sync_acquire(&out_of_loop);
}

}  // namespace nimtb::engine
