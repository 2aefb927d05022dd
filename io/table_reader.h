#pragma once
// Reading a table, the whole API (HDF5 and the chunk decoder stay inside
// table_reader.cpp): a table is opened with every check of its format
// (versions 1 and 2, docs/FORMAT.md) — its name and version, every
// attribute, the index, the datasets' lengths, element types and chunking
// — then answers point look-ups that decode only the chunks they need, and
// streams the whole table chunk by chunk. Every failure is a TableError that
// names the file and, where there is one, the dataset.
//
// Thread safety: a TableReader is not thread-safe (its decoded chunks are a
// cache); give each thread its own, or hold a lock per reader, as the server
// does. Readers of different threads may run at once: the HDF5 calls inside
// take HDF5's one global lock (a thread-safe build), briefly, to read a
// chunk as stored; decoding runs outside it.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/base/quantity_array.h"
#include "engine/game/rules.h"
#include "engine/game/universe.h"
#include "io/codec/table_format.h"

namespace nimtb::io {

// A table opened for reading.
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

    // Entries [first, first + count) into `values` and `remoteness`
    // (remoteness left empty when the table has none), the chunks they touch
    // decoded whole, the last of each dataset kept for the next call: a
    // pass in rank order over a table larger than memory (verify).
    void read_range(uint64_t first, uint64_t count, std::vector<uint32_t>& values,
                    std::vector<uint32_t>& remoteness);
    // The whole table in memory, in arrays of the file's widths (remoteness
    // left empty when the table has none), its chunks decoded in parallel.
    void read_all(engine::QuantityArray& values, engine::QuantityArray& remoteness);

  private:
    void require_remoteness() const;

    TableInfo info_;
    engine::Rule rule_ = engine::Rule::nim();
    std::unique_ptr<engine::Universe> universe_;
    struct Datasets;  // the HDF5 file and its datasets' readers
    std::unique_ptr<Datasets> data_;
};

}  // namespace nimtb::io
