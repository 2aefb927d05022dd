#include "mpi/parallel_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "io/codec/chunk_codec.h"
#include "io/codec/publish.h"
#include "io/hdf5_handle.h"
#include "io/table_layout.h"
#include "io/table_writer.h"

namespace nimtb::mpi {

namespace {

namespace fs = std::filesystem;

using Range = std::pair<uint64_t, uint64_t>;  // ranks [first, second)

// This process's entries of one dataset, in its own order at their width:
// its array, or what it spilled (a streamed process).
struct Local {
    unsigned bits;
    std::function<void(uint64_t first, uint64_t count, uint8_t* out)> read;
    // Entries read soon (Spill::prefetch); nothing for an array.
    std::function<void(uint64_t first, uint64_t count)> prefetch = [](uint64_t, uint64_t) {};
};

Local local_entries(const engine::QuantityArray& a) {
    return {a.bits(), [&a](uint64_t first, uint64_t count, uint8_t* out) {
                const unsigned width = a.bits() / 8;
                std::memcpy(out, static_cast<const uint8_t*>(a.raw()) + first * width,
                            count * width);
            }};
}

Local local_entries(const Spill& spill) {
    return {
        spill.bits(),
        [&spill](uint64_t first, uint64_t count, uint8_t* out) { spill.read(first, count, out); },
        [&spill](uint64_t first, uint64_t count) { spill.prefetch(first, count); }};
}

// This process's entries that a trade of `wanted` will read, read ahead.
void prefetch(const Comm& comm, const Layout& l, const Local& a, const std::vector<Range>& wanted) {
    for (const Range& r : wanted)
        for_each_overlap(l, r.first, r.second, [&](uint64_t start, uint64_t end, size_t b) {
            if (l.owner[b] == comm.rank)
                a.prefetch(l.offset[b] + (start - l.first[b]), end - start);
        });
}

// The pieces of the table each process writes, round by round: runs of
// whole chunks of at most `step` ranks, [first, end), but for those
// encoded already (encoded[c], the process holding them; else -1). A chunk goes to the
// process that solved its first position, so that little is traded where
// processes solved long runs of ranks (the line chain's pieces: a chunk
// lies in one process's but where two meet); where that would take more
// than a quarter more rounds than even slices of the chunks (blocks dealt
// level by level, whose chunks' owners alternate), the processes take even
// slices instead.
std::vector<std::vector<Range>> pieces_to_write(const Layout& l, int processes, uint64_t n,
                                                uint64_t chunk, uint64_t step,
                                                const std::vector<int32_t>& encoded) {
    const uint64_t chunks = (n + chunk - 1) / chunk;
    const auto pieces_of = [&](auto&& writer) {
        std::vector<std::vector<Range>> pieces(static_cast<size_t>(processes));
        for (uint64_t c = 0; c < chunks; ++c) {
            if (encoded[c] >= 0) continue;
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
    std::vector<uint64_t> send_counts(processes, 0), recv_counts(processes, 0);
    for (size_t p = 0; p < processes; ++p) {
        for_each_overlap(l, wanted[p].first, wanted[p].second,
                         [&](uint64_t start, uint64_t end, size_t b) {
                             if (l.owner[b] == comm.rank) send_counts[p] += (end - start) * width;
                             if (p == size_t(comm.rank))
                                 recv_counts[size_t(l.owner[b])] += (end - start) * width;
                         });
    }
    std::vector<uint8_t>& send = buffers.send;
    send.resize(std::accumulate(send_counts.begin(), send_counts.end(), uint64_t{0}));
    uint64_t filled = 0;
    for (size_t p = 0; p < processes; ++p) {
        for_each_overlap(
            l, wanted[p].first, wanted[p].second, [&](uint64_t start, uint64_t end, size_t b) {
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
    for_each_overlap(l, mine.first, mine.second, [&](uint64_t start, uint64_t end, size_t b) {
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

// A dataset as the processes encoded it: its encoding, who encoded each
// chunk, and this process's chunks.
struct EncodedDataset {
    io::EncodedChunks encoding;
    uint64_t entries = 0;
    unsigned bits = 8;        // the width the solve held them at
    std::vector<int> writer;  // per chunk: the process holding it encoded
    std::unique_ptr<EncodedPart> part;
};

// 2. Dataset `array` of the share (0 value, 1 remoteness): its chunks
// encoded beside the solve, where encoded as the table stores them, and
// each process's pieces of the others, round by round: the pieces traded
// (whole chunks), each chunk transformed, compressed and checksummed as one
// process's writer does it (io::encode_chunk). Nothing waits on the others
// but the trade. Collective; a failure on any process stops all together
// (SharedError, said once by process 0).
EncodedDataset encode_dataset(const Comm& comm, const std::string& path, const char* name,
                              Share& share, unsigned array, const Local& a, uint32_t max,
                              const io::WriteOptions& o) {
    const std::string what = path + ": dataset /" + name;
    const uint64_t n = share.solution.positions;
    const io::DatasetLayout layout = io::dataset_layout(n, max, o);
    const uint64_t chunk = layout.chunk;
    EncodedDataset d;
    d.entries = n;
    d.bits = a.bits;
    d.encoding = {.file_bits = layout.file_bits,
                  .chunk = chunk,
                  .compression = o.compression,
                  .level = layout.level,
                  .transform = layout.transformed
                                   ? pick_transform(comm, share, a, chunk, layout.file_bits)
                                   : io::Transform::none,
                  .transform_chosen = true,
                  .read = {}};
    const unsigned width = layout.file_bits / 8;
    // The chunks encoded beside the solve, where encoded as the table
    // stores them (chunk_encoder.h): by whom.
    std::vector<int32_t> encoded((n + chunk - 1) / chunk, -1);
    if (ChunkEncoder* encoder = share.encoders[array].get()) {
        const std::optional<io::EncodedChunks> e = encoder->finish();
        if (io::encoded_as(e ? &*e : nullptr, layout, d.encoding.transform, o))
            for (const uint64_t c : encoder->chunks()) encoded[c] = comm.rank;
        share.encoders[array].reset();
    }
    comm.max_each(encoded);
    const uint64_t step =
        std::max<uint64_t>(1, write_round_bytes(n, comm.size) / (chunk * (a.bits / 8))) * chunk;
    const std::vector<std::vector<Range>> pieces =
        pieces_to_write(share.layout, comm.size, n, chunk, step, encoded);
    d.writer.assign(encoded.begin(), encoded.end());
    size_t rounds = 0;
    for (size_t p = 0; p < pieces.size(); ++p) {
        rounds = std::max(rounds, pieces[p].size());
        for (const Range& r : pieces[p])
            std::fill(d.writer.begin() + ptrdiff_t(r.first / chunk),
                      d.writer.begin() + ptrdiff_t((r.second + chunk - 1) / chunk), int(p));
    }
    std::string failed;
    if (share.encoded[array]) {
        d.part = std::move(share.encoded[array]);
    } else {
        try {
            d.part = std::make_unique<EncodedPart>(path, what);
        } catch (const TableError& e) {
            failed = e.what();
        }
    }
    TradeBuffers buffers;
    io::ByteBuffer raw, packet;
    const auto wanted_in = [&](size_t round) {
        std::vector<Range> wanted(size_t(comm.size), Range{0, 0});
        for (size_t p = 0; p < pieces.size(); ++p)
            if (round < pieces[p].size()) wanted[p] = pieces[p][round];
        return wanted;
    };
    if (rounds > 0) prefetch(comm, share.layout, a, wanted_in(0));
    for (size_t round = 0; round < rounds; ++round) {
        const std::vector<Range> wanted = wanted_in(round);
        const auto [first, last] = wanted[size_t(comm.rank)];
        // A spill that cannot be read back throws out of here, and the job
        // stops (main.cpp: abort_all).
        const std::vector<uint8_t>& piece =
            in_file_width(trade(comm, share, a, wanted, buffers), a.bits, layout.file_bits);
        // The next round's entries come from disk while these are encoded.
        if (round + 1 < rounds) prefetch(comm, share.layout, a, wanted_in(round + 1));
        try {
            for (uint64_t begin = 0; begin < last - first && failed.empty(); begin += chunk) {
                const uint64_t count = std::min<uint64_t>(chunk, last - first - begin);
                raw.resize(chunk * width);
                std::memcpy(raw.data(), piece.data() + begin * width, count * width);
                std::fill(raw.begin() + ptrdiff_t(count * width), raw.end(), uint8_t{0});
                if (!io::encode_chunk(d.encoding, count, raw, packet))
                    throw TableError(what + ": cannot write: " + to_string(o.compression) +
                                     " compression failed");
                d.part->append((first + begin) / chunk, packet);
            }
        } catch (const TableError& e) {
            if (failed.empty()) failed = e.what();  // the rounds go on: trade is collective
        }
    }
    if (comm.any(!failed.empty())) {
        // The first failing process's reason, said by process 0.
        std::vector<uint8_t> reason(failed.begin(), failed.end());
        if (!failed.empty()) reason.push_back(0);
        const std::vector<uint8_t> said = comm.gather(reason);
        throw SharedError(comm.rank == 0 ? std::string(reinterpret_cast<const char*>(said.data()))
                                         : std::string());
    }
    return d;
}

constexpr int CHUNK_TAG = 1, FAILED_TAG = 2;

// 3a. Process 0 writes the table as one process does (io::write_table),
// taking each chunk as encoded: its own from its part, the others' from
// their writers, in chunk order. Any failure stops the job (abort_all),
// once write_table has removed its temporary file.
void write_encoded(const std::string& path, const io::TableHeader& header,
                   std::vector<EncodedDataset>& datasets, uint32_t max_value,
                   uint32_t max_remoteness, const io::WriteOptions& o) {
    std::vector<std::shared_ptr<const io::EncodedChunks>> encoded;
    for (EncodedDataset& d : datasets) {
        auto e = std::make_shared<io::EncodedChunks>(d.encoding);
        e->read = [&d](uint64_t index, io::ByteBuffer& out) {
            const int from = d.writer[index];
            if (from == 0) return d.part->read(index, out);
            MPI_Status status;
            MPI_Probe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
            int bytes = 0;
            MPI_Get_count(&status, MPI_BYTE, &bytes);
            out.resize(size_t(bytes));
            MPI_Recv(out.data(), bytes, MPI_BYTE, from, status.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (status.MPI_TAG == FAILED_TAG) throw TableError(std::string(out.begin(), out.end()));
        };
        encoded.push_back(std::move(e));
    }
    const auto entries = [&](size_t i) {
        const EncodedDataset& d = datasets[i];
        return io::Entries{d.entries, d.bits,
                           [](uint64_t, uint64_t, unsigned, uint8_t*) {
                               throw std::logic_error("the MPI writer's chunks are all encoded");
                           },
                           encoded[i]};
    };
    io::TableContents contents{.header = header,
                               .value = entries(0),
                               .remoteness = datasets.size() > 1 ? entries(1) : io::Entries{},
                               .max_value = max_value,
                               .max_remoteness = max_remoteness};
    try {
        io::write_table(path, contents, o);
    } catch (const std::exception& e) {
        abort_all(e.what());
    }
}

// 3b. Any other process sends process 0 its chunks, in the order it asks.
void send_encoded(const Comm& comm, const std::vector<EncodedDataset>& datasets) {
    io::ByteBuffer packet;
    for (const EncodedDataset& d : datasets) {
        for (uint64_t index = 0; index < d.writer.size(); ++index) {
            if (d.writer[index] != comm.rank) continue;
            int tag = CHUNK_TAG;
            try {
                d.part->read(index, packet);
            } catch (const std::exception& e) {
                const std::string why = e.what();
                packet.assign(why.begin(), why.end());
                tag = FAILED_TAG;  // process 0 stops the job
            }
            MPI_Send(packet.data(), int(packet.size()), MPI_BYTE, 0, tag, MPI_COMM_WORLD);
            if (tag == FAILED_TAG) MPI_Barrier(MPI_COMM_WORLD);  // never met: stopped
        }
    }
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
    // 1. and 2. Each array encoded, then let go: the next one's trade has its room.
    engine::Solution& s = share.solution;
    const auto entries = [&](const engine::QuantityArray& a, size_t spilled) {
        return share.spilled[spilled] ? local_entries(*share.spilled[spilled]) : local_entries(a);
    };
    std::vector<EncodedDataset> datasets;
    datasets.push_back(encode_dataset(comm, path, io::VALUE_DATASET, share, 0, entries(s.value, 0),
                                      s.max_value, o));
    s.value = engine::QuantityArray();
    share.spilled[0].reset();
    if (share.remoteness)
        datasets.push_back(encode_dataset(comm, path, io::REMOTENESS_DATASET, share, 1,
                                          entries(s.remoteness, 1), s.max_remoteness, o));
    s.remoteness = engine::QuantityArray();
    share.spilled[1].reset();
    // 3. The one file, written by process 0.
    if (comm.rank == 0)
        write_encoded(path, header, datasets, s.max_value, s.max_remoteness, o);
    else
        send_encoded(comm, datasets);
    comm.barrier();
}

}  // namespace nimtb::mpi
