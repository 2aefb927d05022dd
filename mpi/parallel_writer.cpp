#include "mpi/parallel_writer.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <numeric>
#include <optional>

#include "io/codec/chunk_codec.h"
#include "io/codec/publish.h"
#include "io/hdf5_handle.h"
#include "io/table_layout.h"

namespace nimtb::mpi {

namespace {

namespace fs = std::filesystem;

using Range = std::pair<uint64_t, uint64_t>;  // ranks [first, second)

// This process's entries of one dataset, in its own order at their width:
// its array, or what it spilled (a streamed process).
struct Local {
    unsigned bits;
    std::function<void(uint64_t first, uint64_t count, uint8_t* out)> read;
};

Local local_entries(const engine::QuantityArray& a) {
    return {a.bits(), [&a](uint64_t first, uint64_t count, uint8_t* out) {
                const unsigned width = a.bits() / 8;
                std::memcpy(out, static_cast<const uint8_t*>(a.raw()) + first * width,
                            count * width);
            }};
}

Local local_entries(const Spill& spill) {
    return {spill.bits(), [&spill](uint64_t first, uint64_t count, uint8_t* out) {
                spill.read(first, count, out);
            }};
}

// The pieces of the table each process writes, round by round: runs of
// whole chunks of at most `step` ranks, [first, end). A chunk goes to the
// process that solved its first position, so that little is traded where
// processes solved long runs of ranks (the line chain's pieces: a chunk
// lies in one process's but where two meet); where that would take more
// than a quarter more rounds than even slices of the chunks (blocks dealt
// level by level, whose chunks' owners alternate), the processes take even
// slices instead.
std::vector<std::vector<Range>> pieces_to_write(const Layout& l, int processes, uint64_t n,
                                                uint64_t chunk, uint64_t step) {
    const uint64_t chunks = (n + chunk - 1) / chunk;
    const auto pieces_of = [&](auto&& writer) {
        std::vector<std::vector<Range>> pieces(static_cast<size_t>(processes));
        for (uint64_t c = 0; c < chunks; ++c) {
            std::vector<Range>& mine = pieces[static_cast<size_t>(writer(c))];
            const Range r{c * chunk, std::min(n, (c + 1) * chunk)};
            if (!mine.empty() && mine.back().second == r.first &&
                mine.back().second - mine.back().first + (r.second - r.first) <= step)
                mine.back().second = r.second;
            else
                mine.push_back(r);
        }
        return pieces;
    };
    const auto rounds = [](const std::vector<std::vector<Range>>& pieces) {
        size_t most = 0;
        for (const auto& p : pieces) most = std::max(most, p.size());
        return most;
    };
    auto owned = pieces_of([&](uint64_t c) { return l.owner[l.find(c * chunk)]; });
    auto even = pieces_of([&](uint64_t c) { return c * uint64_t(processes) / chunks; });
    return rounds(owned) <= rounds(even) * 5 / 4 + 1 ? owned : even;
}

// A dataset's trade buffers, kept from round to round: allocated anew each
// round (a round's pieces, above the heap's mapping threshold, so in fresh
// pages), they cost a tenth of the write in page faults and zeroing (perf,
// nim misere K=6 H=63 at -np 2, rounds of 1 MiB).
struct TradeBuffers {
    std::vector<uint8_t> send, recv, out;
};

// 1. Each process receives the ranks wanted[p] of `a` from the processes
// holding their blocks; returns this process's (in buffers.out), in rank order,
// in the array's width. Collective: one MPI_Alltoallv.
std::vector<uint8_t>& trade(const Comm& comm, const Share& share, const Local& a,
                            const std::vector<Range>& wanted, TradeBuffers& buffers) {
    const Layout& l = share.layout;
    const unsigned width = a.bits / 8;
    const size_t processes = size_t(comm.size);
    // Calls f(start, end, block) for the blocks' parts within `r`.
    const auto parts = [&](Range r, auto&& f) {
        if (r.first >= r.second) return;
        for (size_t b = l.find(r.first); b < l.first.size() && l.first[b] < r.second; ++b) {
            const uint64_t start = std::max(r.first, l.first[b]),
                           end = std::min(r.second, l.first[b] + l.count[b]);
            if (start < end) f(start, end, b);
        }
    };
    std::vector<uint64_t> send_counts(processes, 0), recv_counts(processes, 0);
    for (size_t p = 0; p < processes; ++p) {
        parts(wanted[p], [&](uint64_t start, uint64_t end, size_t b) {
            if (l.owner[b] == comm.rank) send_counts[p] += (end - start) * width;
            if (p == size_t(comm.rank)) recv_counts[size_t(l.owner[b])] += (end - start) * width;
        });
    }
    std::vector<uint8_t>& send = buffers.send;
    send.resize(std::accumulate(send_counts.begin(), send_counts.end(), uint64_t{0}));
    uint64_t filled = 0;
    for (size_t p = 0; p < processes; ++p) {
        parts(wanted[p], [&](uint64_t start, uint64_t end, size_t b) {
            if (l.owner[b] != comm.rank) return;
            a.read(l.offset[b] + (start - l.first[b]), end - start, send.data() + filled);
            filled += (end - start) * width;
        });
    }
    std::vector<uint8_t>& recv = buffers.recv;
    comm.exchange_known(send, send_counts, recv, recv_counts);
    // Parts arrive grouped by sender; put them in rank order.
    const Range mine = wanted[size_t(comm.rank)];
    std::vector<uint8_t>& out = buffers.out;
    out.resize(mine.second > mine.first ? (mine.second - mine.first) * width : 0);
    std::vector<uint64_t> from(processes, 0);
    for (size_t p = 1; p < processes; ++p) from[p] = from[p - 1] + recv_counts[p - 1];
    parts(mine, [&](uint64_t start, uint64_t end, size_t b) {
        const uint64_t size = (end - start) * width;
        std::memcpy(out.data() + (start - mine.first) * width,
                    recv.data() + from[size_t(l.owner[b])], size);
        from[size_t(l.owner[b])] += size;
    });
    return out;
}

// Entries in the file's width, in place (narrowing a 16-bit array whose
// entries fit 8 bits).
std::vector<uint8_t>& in_file_width(std::vector<uint8_t>& entries, unsigned array_bits,
                                    unsigned file_bits) {
    if (array_bits == file_bits) return entries;
    const size_t n = entries.size() / 2;
    for (size_t i = 0; i < n; ++i) entries[i] = entries[2 * i];  // little-endian low bytes
    entries.resize(n);
    return entries;
}

// 2. The transform of the dataset, chosen by process 0 on the chunks one
// process's writer chooses it on (io/table_layout.h).
io::Transform pick_transform(const Comm& comm, const Share& share, const Local& a, uint64_t chunk,
                             unsigned file_bits) {
    const uint64_t n = share.solution.positions;
    std::vector<uint8_t> sample;
    TradeBuffers buffers;
    for (uint64_t first : io::transform_sample(n, chunk)) {
        std::vector<Range> wanted(size_t(comm.size), Range{0, 0});
        wanted[0] = {first, first + std::min(chunk, n - first)};
        const std::vector<uint8_t>& part =
            in_file_width(trade(comm, share, a, wanted, buffers), a.bits, file_bits);
        sample.insert(sample.end(), part.begin(), part.end());
    }
    int32_t chosen = 0;
    if (comm.rank == 0) {
        chosen = static_cast<int32_t>(
            file_bits == 8
                ? io::choose_transform<uint8_t>(std::span<const uint8_t>(sample), chunk)
                : io::choose_transform<uint16_t>(
                      {reinterpret_cast<const uint16_t*>(sample.data()), sample.size() / 2},
                      chunk));
    }
    comm.broadcast(&chosen, sizeof chosen);
    return static_cast<io::Transform>(chosen);
}

// Stops the job, after removing the temporary file when this is process 0.
[[noreturn]] void fail(const Comm& comm, const std::string& tmp, const std::string& what) {
    if (comm.rank == 0) std::remove(tmp.c_str());
    abort_all(what);
}

void check_or_fail(const Comm& comm, const std::string& tmp, bool ok, const std::string& what) {
    if (!ok) fail(comm, tmp, what + ": " + io::hdf5_error_message());
}

void write_dataset(const Comm& comm, hid_t file, const std::string& tmp, const char* name,
                   const Share& share, const Local& a, uint32_t max, const io::WriteOptions& o) {
    const std::string what = tmp + ": dataset /" + name;
    const uint64_t n = share.solution.positions;
    const io::DatasetLayout layout = io::dataset_layout(n, max, o);
    const unsigned file_bits = layout.file_bits;
    const hsize_t chunk = layout.chunk;
    const io::Transform transform =
        layout.transformed ? pick_transform(comm, share, a, chunk, file_bits) : io::Transform::none;
    io::Handle dataset;
    try {
        dataset = io::create_dataset(file, name, n, layout, o.compression, transform, what);
    } catch (const TableError& e) {
        fail(comm, tmp, e.what());
    }

    // 3. Each process's chunks, a few at a time (a piece of at most
    // write_round_bytes each round), so that a process holds its arrays and
    // a few such pieces.
    const uint64_t step =
        std::max<uint64_t>(1, write_round_bytes(n, comm.size) / (chunk * (a.bits / 8))) * chunk;
    const std::vector<std::vector<Range>> pieces =
        pieces_to_write(share.layout, comm.size, n, chunk, step);
    size_t rounds = 0;
    for (const auto& p : pieces) rounds = std::max(rounds, p.size());
    const io::Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE);
    TradeBuffers buffers;
    for (size_t round = 0; round < rounds; ++round) {
        std::vector<Range> wanted(size_t(comm.size), Range{0, 0});
        for (size_t p = 0; p < pieces.size(); ++p)
            if (round < pieces[p].size()) wanted[p] = pieces[p][round];
        const auto [first, last] = wanted[size_t(comm.rank)];
        std::vector<uint8_t>& piece =
            in_file_width(trade(comm, share, a, wanted, buffers), a.bits, file_bits);
        // Each chunk transformed alone (its first entry starts from 0), as
        // io/codec/chunk_codec.h defines; pieces hold whole chunks.
        for (uint64_t begin = 0; begin < last - first; begin += chunk) {
            const uint64_t count = std::min<uint64_t>(chunk, last - first - begin);
            if (file_bits == 8) {
                io::encode_transform<uint8_t>(transform, {piece.data() + begin, count});
            } else {
                io::encode_transform<uint16_t>(
                    transform, {reinterpret_cast<uint16_t*>(piece.data()) + begin, count});
            }
        }
        const hsize_t offset = first, count = last - first;
        const io::Handle file_space(H5Dget_space(dataset.get()), H5Sclose);
        const io::Handle memory(H5Screate_simple(1, &count, nullptr), H5Sclose);
        if (count > 0) {
            H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &offset, nullptr, &count,
                                nullptr);
        } else {
            H5Sselect_none(file_space.get());
            H5Sselect_none(memory.get());
        }
        // The pipeline compresses each chunk on the process that writes it.
        check_or_fail(comm, tmp,
                      H5Dwrite(dataset.get(), file_bits == 8 ? H5T_NATIVE_UINT8 : H5T_NATIVE_UINT16,
                               memory.get(), file_space.get(), transfer.get(), piece.data()) >= 0,
                      what + ": cannot write");
    }
    check_or_fail(comm, tmp, dataset.close(), what + ": cannot write");
}

// The file under its draft's name. An error in here leaves the processes
// in different places of HDF5's collective calls, and closing the file while
// unwinding would hang them: the function is noexcept, so an exception ends
// in std::terminate, whose handler (mpi/main.cpp) stops the job.
void write_file(const Comm& comm, const std::string& tmp, const io::TableHeader& header,
                Share& share, const io::WriteOptions& o) noexcept {
    const io::Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    H5Pset_fapl_mpio(fapl.get(), MPI_COMM_WORLD, MPI_INFO_NULL);
    // Metadata written by all processes together: with process 0 alone
    // writing it, HDF5 1.10 crashed in its metadata cache's flush of the
    // chunk index (a paged fixed array) once a dataset had some 10^5 chunks
    // (nim misere K=8 H=63 at -np 4; K=6 in chunks of 1024 entries).
    H5Pset_coll_metadata_write(fapl.get(), true);
    io::set_file_format(fapl.get(), tmp + ": cannot create");  // as one process writes
    io::Handle file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
    check_or_fail(comm, tmp, file.get() >= 0, tmp + ": cannot create");
    io::write_root_attributes(file.get(), header, o.format_version);

    // 2. The datasets, each in the narrowest width that holds it.
    // Each array is let go once written: the next dataset's trade has its room.
    engine::Solution& s = share.solution;
    const auto entries = [&](const engine::QuantityArray& a, size_t spilled) {
        return share.spilled[spilled] ? local_entries(*share.spilled[spilled]) : local_entries(a);
    };
    write_dataset(comm, file.get(), tmp, io::VALUE_DATASET, share, entries(s.value, 0),
                  s.max_value, o);
    s.value = engine::QuantityArray();
    share.spilled[0].reset();
    if (share.remoteness)
        write_dataset(comm, file.get(), tmp, io::REMOTENESS_DATASET, share,
                      entries(s.remoteness, 1), s.max_remoteness, o);
    s.remoteness = engine::QuantityArray();
    share.spilled[1].reset();

    // 3. Closed by all, then published by process 0.
    check_or_fail(comm, tmp, file.close(), tmp + ": cannot write");
}

}  // namespace

uint64_t write_round_bytes(uint64_t positions, int processes) {
    return std::clamp<uint64_t>(positions / uint64_t(processes) / 64, uint64_t{1} << 20,
                                uint64_t{16} << 20);
}

void write_table_parallel(const Comm& comm, const std::string& path, const io::TableHeader& header,
                          Share& share, const io::WriteOptions& o) {
    try {
        io::init_hdf5();
    } catch (const std::exception& e) {
        abort_all(e.what());
    }
    // 1. Process 0's draft of the file (io/codec/publish.h, the one way
    // nimtb publishes a file), its name the same on every process.
    std::optional<io::FileDraft> draft;
    std::string tmp;
    if (comm.rank == 0) tmp = draft.emplace(path).draft();
    uint64_t length = tmp.size();
    comm.broadcast(&length, sizeof length);
    tmp.resize(length);
    comm.broadcast(tmp.data(), length);
    write_file(comm, tmp, header, share, o);
    uint8_t ok = 1;
    if (comm.rank == 0) {
        try {
            draft->publish();
        } catch (const std::exception&) {
            ok = 0;  // the draft is removed with it
        }
    }
    comm.broadcast(&ok, 1);
    if (!ok)
        throw SharedError(
            path + ": cannot write: the finished table could not be synced and renamed into place");
}

}  // namespace nimtb::mpi
