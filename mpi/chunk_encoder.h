#pragma once
// The table's chunks a streamed process holds whole, encoded beside the
// solve (docs/CLUSTER.md, "Streamed processes"), as one process's run files
// encode them (io/run_file.h): the table's compression runs while the
// processes solve, on the time a process would spend waiting for the
// others, rather than after the solve.
//
// A chunk is whole once the last of its blocks is solved: its blocks lie in
// several levels (a chunk is a run of ranks, a level a sum of top heaps),
// so it is read back from the process's spill, once there, then encoded as
// the table will store it as far as that can be known before the solve
// ends: at the spill's width, through the transform that suits the first
// chunk this process encodes. The table's writer (parallel_writer.cpp)
// stores the chunks as they are where its layout and transform turn out the
// same, and encodes them anew where they do not.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "io/table_writer.h"
#include "mpi/deal.h"
#include "mpi/spill.h"

namespace nimtb::mpi {

// One dataset's chunks as this process encoded them, by chunk index, in a
// nameless file beside the table (its space counted where the table will
// be). A chunk appended again replaces the one before.
class EncodedPart {
  public:
    // Throws TableError.
    EncodedPart(const std::string& table, std::string what);
    ~EncodedPart();
    EncodedPart(const EncodedPart&) = delete;
    EncodedPart& operator=(const EncodedPart&) = delete;

    // Throws TableError (a full disk).
    void append(uint64_t chunk, const io::ByteBuffer& packet);
    // Throws TableError.
    void read(uint64_t chunk, io::ByteBuffer& out) const;

  private:
    std::string what_;
    int fd_;
    uint64_t end_ = 0;
    // Per chunk held (this process's few of the table's many): its bytes' offset and count.
    std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> at_;
};

// The chunks (ranks [c * chunk, (c + 1) * chunk) of a universe of
// `positions`) that this process holds every position of, per level of its
// local plan: those whose last block it solves in that level. Levels below
// `from` (a resumed solve's, solved before) have none.
std::vector<std::vector<uint64_t>> whole_chunks_by_level(const Layout& l, uint64_t positions,
                                                         uint64_t chunk, size_t from);

class ChunkEncoder {
  public:
    // Encodes, on a thread of its own, chunks of `spill` as `guess` says
    // (its transform chosen on the first chunk when `choose`), into `part`;
    // both must outlive the encoder.
    ChunkEncoder(Spill& spill, EncodedPart& part, io::EncodedChunks guess, bool choose);
    // Stops the thread, whatever is left unencoded.
    ~ChunkEncoder();
    ChunkEncoder(const ChunkEncoder&) = delete;
    ChunkEncoder& operator=(const ChunkEncoder&) = delete;

    // Encodes chunk `c` of the layout's ranks, all of them this process's,
    // once the spill holds them (Spill::wait_on_disk). Called by one thread.
    void add(const Layout& l, uint64_t positions, uint64_t c);
    // Waits for every chunk added: how they are encoded, or nothing when
    // encoding one failed (a full disk: the table's writer meets it again).
    std::optional<io::EncodedChunks> finish();
    // Bytes an encoder of `bits`-bit entries in chunks of `chunk` holds:
    // a chunk raw and encoded, and the compressor's state.
    static uint64_t memory(unsigned bits, uint64_t chunk, io::Compression c, int level);
    // The chunks encoded, once finished.
    const std::vector<uint64_t>& chunks() const { return done_; }

  private:
    // Entries [spilled, spilled + count) of the spill are the chunk's from `at` on.
    struct Piece {
        uint64_t spilled, count, at;
    };
    struct Job {
        uint64_t chunk, entries;  // its index, its entries (the last one's fewer)
        std::vector<Piece> pieces;
    };
    void encode_jobs();  // the thread's loop
    // False: the spill stopped or failed, or the compressor did. Throws TableError.
    bool encode(const Job& job, io::ByteBuffer& raw, io::ByteBuffer& packet);

    Spill& spill_;
    EncodedPart& part_;
    io::EncodedChunks encoding_;
    bool choose_;  // the transform is chosen on the first chunk
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Job> jobs_;        // under mutex_: the first one being encoded
    std::vector<uint64_t> done_;  // under mutex_
    bool finishing_ = false, stopping_ = false, failed_ = false;
    std::thread thread_;
};

}  // namespace nimtb::mpi
