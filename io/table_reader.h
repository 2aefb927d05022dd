#pragma once
// Reading a table: opened with every check of format v1, then point look-ups
// that decompress only the chunk they need, and whole-table streaming.

#include <hdf5.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/game/rules.h"
#include "engine/game/universe.h"
#include "engine/solve/solver.h"
#include "io/codec/table_format.h"
#include "io/dataset_reader.h"
#include "io/hdf5_handle.h"

namespace nimtb::io {

// A table opened for reading. Not thread-safe: give each thread its own.
class TableReader {
  public:
    // Opens and checks `path`: format name and version, every attribute, the
    // index, the datasets' lengths and element types. Throws TableError naming
    // the file and what is wrong.
    explicit TableReader(const std::string& path);
    ~TableReader();
    TableReader(TableReader&&) noexcept;
    TableReader& operator=(TableReader&&) noexcept;

    const TableInfo& info() const { return info_; }
    const engine::Rule& rule() const { return rule_; }
    const engine::Universe& universe() const { return *universe_; }
    bool has_remoteness() const { return info_.remoteness_bits != 0; }
    // What the datasets take in the file (compressed chunks and their
    // checksums), asked of HDF5 on each call (it visits every chunk's
    // record): a query has no use for it.
    TableStorage storage() const;

    // Decoded chunks kept in memory, for both datasets together. Point
    // queries need a few chunks; a pass that follows children (verify) wants
    // the whole table, or as much of it as memory allows.
    static constexpr uint64_t DEFAULT_CACHE_BYTES = uint64_t{32} << 20;
    void set_cache_bytes(uint64_t bytes);
    // By default look_up() decodes each chunk it needs only as far as it
    // needs, and keeps nothing: one probe of a large table. A reader that
    // answers many queries (the server) keeps each chunk it decodes instead:
    // the next query of the same chunks decodes nothing.
    void keep_decoded_chunks(bool keep);

    // The value / remoteness at a rank in [0, positions). Reads and caches the
    // one chunk that holds it. Throws TableError on a damaged chunk.
    uint32_t value(uint64_t rank);
    uint32_t remoteness(uint64_t rank);
    // values[i] = value(ranks[i]) and remoteness[i] = remoteness(ranks[i])
    // for every i (`remoteness` empty when it is not wanted or the table has
    // none): each chunk the ranks touch read once, the chunks of both
    // datasets decoded together in parallel, each only as far as it is
    // needed. A position and its children; a plane of the page.
    void look_up(std::span<const uint64_t> ranks, std::span<uint32_t> values,
                 std::span<uint32_t> remoteness);

    // Calls visit(first_rank, values, remoteness) for consecutive slices of the
    // table in rank order, one chunk at a time; `remoteness` is empty when the
    // table has none. Memory stays at a few chunks whatever the table's size.
    void for_each_chunk(const std::function<void(uint64_t, std::span<const uint16_t>,
                                                 std::span<const uint16_t>)>& visit);

    // The whole table in memory, in arrays of the file's widths (remoteness
    // left empty when the table has none), read chunk by chunk.
    void read_all(engine::QuantityArray& values, engine::QuantityArray& remoteness);

  private:
    void require_remoteness() const;

    TableInfo info_;
    engine::Rule rule_ = engine::Rule::nim();
    std::unique_ptr<engine::Universe> universe_;
    Handle file_;
    std::unique_ptr<DatasetReader> value_;
    std::unique_ptr<DatasetReader> remoteness_;
};

}  // namespace nimtb::io
