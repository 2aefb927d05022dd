#include "mpi/mpi_context.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <numeric>
#include <thread>

namespace nimtb::mpi {

namespace {

void check(int status, const char* what) {
    if (status != MPI_SUCCESS) abort_all(std::string("MPI failed in ") + what);
}

// Waits for the collective `request` this process started (the starting
// call returned `started`, checked first): looking for 100 µs, then
// asleep between looks (from 20 µs, doubling, to 200 µs) where MPI's own
// wait would spin on: a process waiting on the others leaves its core to
// its own threads (the spill's writes, the encoders' compression) and to
// the other processes. MPI's spin took 14 % of the processor time of nim
// misere K=7 H=63 at -np 2 on two cores; asleep from the first look, K=6's
// short rounds took a quarter longer (solve 4.4 s against 3.4 s), and
// point-to-point streams of small messages (the writer's chunks) three
// times longer, so those wait as MPI does.
void await(int started, MPI_Request& request, const char* what) {
    check(started, what);
    using std::chrono::microseconds;
    const auto spin_until = std::chrono::steady_clock::now() + microseconds(100);
    auto nap = microseconds(20);
    for (;;) {
        int done = 0;
        check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
        if (done) return;
        if (std::chrono::steady_clock::now() < spin_until) continue;
        std::this_thread::sleep_for(nap);
        nap = std::min(2 * nap, microseconds(200));
    }
}

// MPI counts are ints: a message of more elements is refused, not truncated.
std::vector<int> int_counts(const std::vector<uint64_t>& counts, size_t element) {
    std::vector<int> out(counts.size());
    for (size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] * element > uint64_t(std::numeric_limits<int>::max()))
            abort_all("a message between two processes would exceed 2 GiB; run more processes");
        out[i] = static_cast<int>(counts[i] * element);
    }
    return out;
}

std::vector<int> displacements(const std::vector<int>& counts) {
    std::vector<int> d(counts.size(), 0);
    for (size_t i = 1; i < counts.size(); ++i) {
        if (int64_t(d[i - 1]) + counts[i - 1] > std::numeric_limits<int>::max())
            abort_all("an exchange between processes would exceed 2 GiB; run more processes");
        d[i] = d[i - 1] + counts[i - 1];
    }
    return d;
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    // A process that fails says so and aborts the job (abort_all); MPI's
    // own errors do the same through `check`.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiSession::~MpiSession() {
    MPI_Finalize();
}

Comm Comm::world() {
    Comm c;
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);
    return c;
}

void Comm::barrier() const {
    MPI_Request r;
    await(MPI_Ibarrier(MPI_COMM_WORLD, &r), r, "MPI_Ibarrier");
}

namespace {

// One number, reduced over every process by `op`.
template <class T>
T all_reduce(T x, MPI_Datatype type, MPI_Op op) {
    T out{};
    MPI_Request r;
    await(MPI_Iallreduce(&x, &out, 1, type, op, MPI_COMM_WORLD, &r), r, "MPI_Iallreduce");
    return out;
}

}  // namespace

uint64_t Comm::sum(uint64_t x) const {
    return all_reduce(x, MPI_UINT64_T, MPI_SUM);
}

uint64_t Comm::max(uint64_t x) const {
    return all_reduce(x, MPI_UINT64_T, MPI_MAX);
}

uint64_t Comm::min(uint64_t x) const {
    return all_reduce(x, MPI_UINT64_T, MPI_MIN);
}

double Comm::max(double x) const {
    return all_reduce(x, MPI_DOUBLE, MPI_MAX);
}

void Comm::max_each(std::vector<int32_t>& x) const {
    for (size_t at = 0; at < x.size();) {  // counts are ints
        const int n = static_cast<int>(std::min<size_t>(x.size() - at, size_t{1} << 30));
        MPI_Request r;
        await(MPI_Iallreduce(MPI_IN_PLACE, x.data() + at, n, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD,
                             &r),
              r, "MPI_Iallreduce");
        at += size_t(n);
    }
}

std::vector<uint64_t> Comm::all_gather(uint64_t x) const {
    std::vector<uint64_t> out(static_cast<size_t>(size));
    MPI_Request r;
    await(MPI_Iallgather(&x, 1, MPI_UINT64_T, out.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD, &r), r,
          "MPI_Iallgather");
    return out;
}

std::vector<uint8_t> Comm::gather(const std::vector<uint8_t>& bytes) const {
    const std::vector<uint64_t> sizes = all_gather(bytes.size());
    const std::vector<int> counts = int_counts(sizes, 1);
    const std::vector<int> at = displacements(counts);
    std::vector<uint8_t> out(rank == 0 ? std::accumulate(sizes.begin(), sizes.end(), uint64_t{0})
                                       : 0);
    MPI_Request r;
    await(MPI_Igatherv(bytes.data(), counts[size_t(rank)], MPI_BYTE, out.data(), counts.data(),
                       at.data(), MPI_BYTE, 0, MPI_COMM_WORLD, &r),
          r, "MPI_Igatherv");
    return out;
}

void Comm::broadcast(void* bytes, size_t size_bytes) const {
    MPI_Request r;
    await(MPI_Ibcast(bytes, static_cast<int>(size_bytes), MPI_BYTE, 0, MPI_COMM_WORLD, &r), r,
          "MPI_Ibcast");
}

std::vector<uint64_t> Comm::swap_counts(const std::vector<uint64_t>& send_counts) const {
    std::vector<uint64_t> counts(static_cast<size_t>(size), 0);
    MPI_Request r;
    await(MPI_Ialltoall(send_counts.data(), 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T,
                        MPI_COMM_WORLD, &r),
          r, "MPI_Ialltoall");
    return counts;
}

template <class T>
void Comm::exchange_into(const T* send, const std::vector<uint64_t>& send_counts, T* recv,
                         const std::vector<uint64_t>& recv_counts) const {
    const std::vector<int> sc = int_counts(send_counts, sizeof(T));
    const std::vector<int> rc = int_counts(recv_counts, sizeof(T));
    const std::vector<int> sd = displacements(sc), rd = displacements(rc);
    MPI_Request r;
    await(MPI_Ialltoallv(send, sc.data(), sd.data(), MPI_BYTE, recv, rc.data(), rd.data(), MPI_BYTE,
                         MPI_COMM_WORLD, &r),
          r, "MPI_Ialltoallv");
}

template <class T>
void Comm::exchange_known(const std::vector<T>& send, const std::vector<uint64_t>& send_counts,
                          std::vector<T>& recv, const std::vector<uint64_t>& recv_counts) const {
    recv.resize(std::accumulate(recv_counts.begin(), recv_counts.end(), uint64_t{0}));
    exchange_into(send.data(), send_counts, recv.data(), recv_counts);
}

template <class T>
std::vector<T> Comm::exchange(const std::vector<std::vector<T>>& send,
                              std::vector<uint64_t>& counts) const {
    std::vector<uint64_t> send_counts(static_cast<size_t>(size));
    std::vector<T> flat;
    for (size_t p = 0; p < send.size(); ++p) {
        send_counts[p] = send[p].size();
        flat.insert(flat.end(), send[p].begin(), send[p].end());
    }
    counts = swap_counts(send_counts);
    std::vector<T> recv;
    exchange_known(flat, send_counts, recv, counts);
    return recv;
}

template std::vector<uint64_t> Comm::exchange(const std::vector<std::vector<uint64_t>>&,
                                              std::vector<uint64_t>&) const;
template void Comm::exchange_into(const uint64_t*, const std::vector<uint64_t>&, uint64_t*,
                                  const std::vector<uint64_t>&) const;
template void Comm::exchange_known(const std::vector<uint8_t>&, const std::vector<uint64_t>&,
                                   std::vector<uint8_t>&, const std::vector<uint64_t>&) const;

[[noreturn]] void abort_all(const std::string& message, int code) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) {
        std::fprintf(stderr, "nimtb: error: %s (process %d of %d; stopping the others)\n",
                     message.c_str(), rank, size);
    } else {
        std::fprintf(stderr, "nimtb: error: %s\n", message.c_str());
    }
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

}  // namespace nimtb::mpi
