#pragma once
// The few MPI calls the distributed solve makes, as typed helpers over
// MPI_COMM_WORLD. For mpi/ only: the engine and io never see MPI.

#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace nimtb::mpi {

// MPI_Init_thread on construction (the main thread alone calls MPI; oneTBB's
// workers never do), MPI_Finalize on destruction.
class MpiSession {
  public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
};

struct Comm {
    int rank = 0;
    int size = 1;
    static Comm world();

    void barrier() const;
    uint64_t sum(uint64_t x) const;
    uint64_t max(uint64_t x) const;
    uint64_t min(uint64_t x) const;
    bool any(bool x) const { return max(uint64_t{x ? 1u : 0u}) != 0; }
    double max(double x) const;
    // Each element the largest of every process's, on every process.
    void max_each(std::vector<int32_t>& x) const;
    // Every process gets every process's x, in rank order.
    std::vector<uint64_t> all_gather(uint64_t x) const;
    // Every process's bytes, concatenated in rank order, on process 0 (empty elsewhere).
    std::vector<uint8_t> gather(const std::vector<uint8_t>& bytes) const;
    // Rank 0's bytes, on every process.
    void broadcast(void* bytes, size_t size) const;

    // Each process sends send[p] to process p and returns what every process
    // sent it, concatenated in rank order; counts[p] is then the number of
    // elements from p. One MPI_Alltoall of the counts, one MPI_Alltoallv.
    template <class T>
    std::vector<T> exchange(const std::vector<std::vector<T>>& send,
                            std::vector<uint64_t>& counts) const;
    // What each process tells this one in send_counts[this one]: one MPI_Alltoall.
    std::vector<uint64_t> swap_counts(const std::vector<uint64_t>& send_counts) const;
    // As exchange_known, between the caller's buffers: send_counts[p]
    // elements from `send` (process by process) to p, recv_counts[p] from p
    // into `recv`, which holds their sum.
    template <class T>
    void exchange_into(const T* send, const std::vector<uint64_t>& send_counts, T* recv,
                       const std::vector<uint64_t>& recv_counts) const;
    // As exchange, when each side knows the counts already: recv_counts[p]
    // elements arrive from p into `recv` (resized to their sum).
    template <class T>
    void exchange_known(const std::vector<T>& send, const std::vector<uint64_t>& send_counts,
                        std::vector<T>& recv, const std::vector<uint64_t>& recv_counts) const;
};

// An error every process of the job throws together (they agreed on it
// through a collective call): process 0 reports it and all exit with
// `code`. An empty message: the processes concerned have said why already.
class SharedError : public std::runtime_error {
  public:
    explicit SharedError(const std::string& what, int code = 1)
        : std::runtime_error(what), code_(code) {}
    int code() const { return code_; }

  private:
    int code_;
};

// Stops every process: prints `message` on this one, then MPI_Abort. The
// way out of an error that the other processes cannot know of.
[[noreturn]] void abort_all(const std::string& message, int code = 1);

}  // namespace nimtb::mpi
