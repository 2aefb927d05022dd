#pragma once
// Checkpoints of a solve: each finished level saved in a folder as it
// completes, so that the same command run again after a crash, a kill or a
// power loss resumes at the first unfinished level and writes the identical
// table (`nimtb solve --checkpoint DIR`).
//
// The folder holds manifest.json (what is solved: rule, convention,
// universe, method, remoteness, the number of processes, and the solver's
// plan) and the levels in files levels-FFFFFF-LLLLLL.zst, levels F to L: a
// zstd frame, with its content checksum, of one record per level - a header
// (magic, level, positions, widths, the level brute force took over from)
// and the level's values and remoteness in the solve's block order. Levels
// finished within a second go to one file (a solve has hundreds of levels,
// most of them small, and each file costs a flush to disk); a crash loses at
// most that second. Each file is written under a temporary name, flushed to
// disk and renamed, so a file under its final name is whole; a damaged one
// fails its checksum and is refused, never used.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/solve/level_store.h"

struct ZSTD_CCtx_s;

namespace nimtb::service {

// What a checkpoint belongs to; a folder saved for anything else is refused.
struct CheckpointIdentity {
    std::string rules;       // canonical
    std::string convention;  // normal or misere
    std::string universe;    // Universe::describe()
    std::string method;      // brute
    bool remoteness = true;
    unsigned processes = 1;  // the ranks of a distributed solve
};

class Checkpoint : public engine::LevelStore {
  public:
    // Opens `dir`, creating it when missing. Throws TableError when it holds
    // the checkpoint of another solve or a manifest that cannot be read.
    // Levels are written at most `interval` apart (0: each level at once).
    Checkpoint(std::string dir, CheckpointIdentity identity,
               std::chrono::milliseconds interval = std::chrono::seconds(1));
    // Writes the levels not yet written (a solve stopped by Ctrl-C keeps them).
    ~Checkpoint() override;

    // Called when the solve has restored `levels` saved levels (> 0).
    std::function<void(size_t levels)> on_restored;

    const std::string& dir() const { return dir_; }

    size_t restore(const std::string& plan_key, const engine::SolveOrder& plan,
                   engine::Solution& s) override;
    void save(const engine::SolveOrder& plan, size_t level, const engine::Solution& s) override;

    // Writes the levels saved since the last write.
    void flush();
    // Deletes the files of levels from `level` on: a distributed solve
    // resumes where every process's checkpoint reaches (mpi/), and this
    // process's later files are solved again.
    void forget_from(size_t level);
    // Deletes the checkpoint's files, and the folder when that leaves it
    // empty: the table is written.
    void remove();

  private:
    // Compresses `size` bytes into the frame of pending levels; `end` ends the frame.
    void compress(const void* bytes, size_t size, bool end = false);
    struct Batch {
        std::string path;
        size_t first, last;
    };
    // The files of levels, in order, as long as they follow on from level 0.
    std::vector<Batch> batches() const;
    void write_manifest(const std::string& plan_key) const;

    std::string dir_;
    CheckpointIdentity identity_;
    std::chrono::milliseconds interval_;
    std::string plan_key_;  // from the manifest, when there was one
    // Levels saved but not written yet: their records go into a zstd frame
    // as they come (compressed by zstd's worker thread while the solve goes
    // on); the frame's bytes so far; the first level's number, the count.
    std::unique_ptr<ZSTD_CCtx_s, size_t (*)(ZSTD_CCtx_s*)> cctx_;
    std::unique_ptr<char[]> frame_;
    size_t frame_size_ = 0, frame_capacity_ = 0;
    size_t pending_first_ = 0, pending_count_ = 0;
    std::chrono::steady_clock::time_point last_write_ = std::chrono::steady_clock::now();
};

}  // namespace nimtb::service
