#include "io/dataset_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "engine/base/parallel.h"
#include "io/codec/chunk_codec.h"
#include "io/codec/transforms.h"

namespace nimtb::io {

namespace {
// A transform is undone this many entries at a time past what a look-up
// needs: the next look-ups in the chunk then rarely wait for it.
constexpr uint64_t DECODE_STEP = uint64_t{1} << 14;
}  // namespace

DatasetReader::DatasetReader(Handle handle, std::string what, uint64_t size, uint64_t chunk,
                             unsigned width, Transform transform, Compression compression,
                             bool direct)
    : handle_(std::move(handle)),
      file_space_(checked(H5Dget_space(handle_.get()), H5Sclose, what)),
      what_(std::move(what)),
      size_(size),
      chunk_(chunk),
      width_(width),
      transform_(transform),
      compression_(compression),
      direct_(direct) {}

void DatasetReader::set_cache(uint64_t bytes) {
    const uint64_t chunks = (size_ + chunk_ - 1) / chunk_;
    const uint64_t n = std::clamp<uint64_t>(bytes / (chunk_ * width_), 1, chunks);
    slots_.assign(n, Slot());
    slot_of_.assign(chunks, -1);
}

std::string DatasetReader::damaged(uint64_t index, const std::string& why) const {
    const uint64_t first = index * chunk_;
    const uint64_t last = std::min(size_, first + chunk_) - 1;
    return what_ + ": cannot read positions " + std::to_string(first) + " to " +
           std::to_string(last) + " (the file is damaged: " + why + ")";
}

void DatasetReader::fetch(uint64_t index, Slot& slot) {
    init_hdf5();  // this thread may not be the one that opened the file
    const hsize_t offset = index * chunk_;
    slot.chunk = UINT64_MAX;
    slot.count = std::min<uint64_t>(chunk_, size_ - offset);
    slot.decoded = 0;
    slot.stored.clear();
    slot.error.clear();
    if (direct_) {
        hsize_t bytes = 0;
        uint32_t mask = 0;
        if (H5Dget_chunk_storage_size(handle_.get(), &offset, &bytes) < 0 || bytes == 0) {
            H5Eclear2(H5E_DEFAULT);
            throw TableError(damaged(index, "a chunk is missing"));
        }
        slot.stored.resize(bytes);
        if (H5Dread_chunk(handle_.get(), H5P_DEFAULT, &offset, &mask, slot.stored.data()) < 0)
            throw TableError(damaged(index, hdf5_error_message()));
        // A plug-in filter may have skipped a chunk it could not shrink
        // (mask bit 0: the chunk is stored as it is, checksum after it); any
        // other mask is left to HDF5.
        slot.codec = mask == 0 ? compression_ : Compression::none;
        if (mask == 0 || (mask == 1 && compression_ != Compression::none)) return;
        slot.stored.clear();
    }
    slot.bytes.resize(chunk_ * width_);
    const hsize_t n = slot.count;
    Handle mem = checked(H5Screate_simple(1, &n, nullptr), H5Sclose, what_);
    check(H5Sselect_hyperslab(file_space_.get(), H5S_SELECT_SET, &offset, nullptr, &n, nullptr),
          what_);
    if (H5Dread(handle_.get(), width_ == 1 ? H5T_NATIVE_UINT8 : H5T_NATIVE_UINT16, mem.get(),
                file_space_.get(), H5P_DEFAULT, slot.bytes.data()) < 0)
        throw TableError(damaged(index, hdf5_error_message()));
}

void DatasetReader::decompress(Slot& slot) const {
    if (slot.stored.empty()) return;  // HDF5 decompressed it
    slot.bytes.resize(chunk_ * width_);
    slot.error = decompress_chunk(slot.codec, slot.stored, slot.bytes);
    slot.stored.clear();
}

void DatasetReader::decode_to(Slot& slot, uint64_t offset) const {
    if (offset < slot.decoded) return;
    const uint64_t end = std::min(slot.count, (offset / DECODE_STEP + 1) * DECODE_STEP);
    const uint64_t from = slot.decoded;
    if (width_ == 1) {
        uint8_t* x = slot.bytes.data();
        decode_transform<uint8_t>(transform_, {x + from, end - from}, from ? x[from - 1] : 0);
    } else {
        uint16_t* x = reinterpret_cast<uint16_t*>(slot.bytes.data());
        decode_transform<uint16_t>(transform_, {x + from, end - from}, from ? x[from - 1] : 0);
    }
    slot.decoded = end;
}

uint32_t DatasetReader::entry(const Slot& slot, uint64_t offset) const {
    if (width_ == 1) return slot.bytes[offset];
    uint16_t v;
    std::memcpy(&v, slot.bytes.data() + 2 * offset, 2);
    return v;
}

DatasetReader::Slot& DatasetReader::victim() {
    size_t s = 0;
    for (size_t i = 1; i < slots_.size(); ++i) {
        if (slots_[i].used < slots_[s].used) s = i;
    }
    Slot& v = slots_[s];
    if (v.chunk != UINT64_MAX) slot_of_[v.chunk] = -1;
    v.chunk = UINT64_MAX;
    return v;
}

DatasetReader::Slot& DatasetReader::load(uint64_t index) {
    int32_t s = slot_of_[index];
    if (s < 0) {
        Slot& v = victim();
        fetch(index, v);
        decompress(v);
        if (!v.error.empty()) throw TableError(damaged(index, v.error));
        v.chunk = index;
        s = static_cast<int32_t>(&v - slots_.data());
        slot_of_[index] = s;
    }
    Slot& slot = slots_[static_cast<size_t>(s)];
    slot.used = ++clock_;
    return slot;
}

void DatasetReader::check_rank(uint64_t rank) const {
    if (rank >= size_)
        throw TableError(what_ + ": rank " + std::to_string(rank) + " is outside the table");
}

uint32_t DatasetReader::get(uint64_t rank) {
    check_rank(rank);
    const uint64_t index = rank / chunk_, offset = rank % chunk_;
    Slot& slot = load(index);
    decode_to(slot, offset);
    return entry(slot, offset);
}

void DatasetReader::get_many(std::span<DatasetReader* const> readers,
                             std::span<const uint64_t> ranks,
                             std::span<const std::span<uint32_t>> outs) {
    // 1. For each reader, the look-ups in rank order; those in cached
    // chunks (or decompressed by HDF5, into the cache) answered now, the
    // others grouped by chunk.
    struct Batch {
        DatasetReader* reader;
        std::span<uint32_t> out;
        std::vector<size_t> look_ups;  // into ranks, ascending in rank
        std::vector<uint64_t> offsets;
        std::vector<uint32_t> found;
        Slot slot;  // stored bytes only
    };
    std::vector<Batch> batches;
    std::vector<size_t> order;
    for (size_t d = 0; d < readers.size(); ++d) {
        DatasetReader& r = *readers[d];
        for (uint64_t rank : ranks) r.check_rank(rank);
        order.clear();
        for (size_t i = 0; i < ranks.size(); ++i) {
            if (r.slot_of_[ranks[i] / r.chunk_] >= 0 || !r.direct_ || r.keep_chunks_) {
                outs[d][i] = r.get(ranks[i]);
            } else {
                order.push_back(i);
            }
        }
        std::sort(order.begin(), order.end(),
                  [&](size_t a, size_t b) { return ranks[a] < ranks[b]; });
        for (size_t k = 0; k < order.size(); ++k) {
            const uint64_t c = ranks[order[k]] / r.chunk_;
            if (k == 0 || batches.back().slot.chunk != c) {
                batches.push_back({&r, outs[d], {}, {}, {}, Slot()});
                batches.back().slot.chunk = c;
            }
            batches.back().look_ups.push_back(order[k]);
            batches.back().offsets.push_back(ranks[order[k]] % r.chunk_);
        }
    }
    // 2. The longest decodes first (the bytes up to the last look-up: a
    // plane of low bytes and part of the high plane for 16-bit entries), so
    // that the threads finish together.
    auto cost = [](const Batch& b) {
        const uint64_t last = b.offsets.back() + 1;
        return b.reader->width_ == 1 ? last : b.reader->chunk_ + last;
    };
    std::sort(batches.begin(), batches.end(),
              [&](const Batch& a, const Batch& b) { return cost(a) > cost(b); });
    // 3. Each chunk read as stored on this thread (HDF5 serialises its calls under one lock)
    // and handed to a task that decodes it with its thread's decoder, while
    // the next one is read.
    tbb::task_group decoding;
    auto decode = [&batches](size_t b) {
        Batch& batch = batches[b];
        const DatasetReader& r = *batch.reader;
        try {
            batch.found.resize(batch.offsets.size());
            // Every chunk is stored whole, the last one padded.
            batch.slot.error =
                r.decoders_.local().entries_at(batch.slot.codec, r.transform_, r.width_, r.chunk_,
                                               batch.slot.stored, batch.offsets, batch.found);
        } catch (const std::exception& e) {  // out of memory: nothing escapes a task
            batch.slot.error = e.what();
        }
        batch.slot.stored = {};
    };
    try {
        for (size_t b = 0; b < batches.size(); ++b) {
            const uint64_t c = batches[b].slot.chunk;
            batches[b].reader->fetch(c, batches[b].slot);
            batches[b].slot.chunk = c;
            engine::sync_run(decoding, [&decode, b] { decode(b); });
        }
    } catch (...) {
        engine::sync_wait(decoding);
        throw;
    }
    engine::sync_wait(decoding);
    for (const Batch& batch : batches) {
        if (!batch.slot.error.empty())
            throw TableError(batch.reader->damaged(batch.slot.chunk, batch.slot.error));
        for (size_t k = 0; k < batch.look_ups.size(); ++k)
            batch.out[batch.look_ups[k]] = batch.found[k];
    }
}

void DatasetReader::read_chunk(uint64_t index, std::vector<uint16_t>& out) {
    Slot& slot = load(index);
    decode_to(slot, slot.count - 1);
    out.resize(slot.count);
    for (uint64_t i = 0; i < slot.count; ++i) out[i] = static_cast<uint16_t>(entry(slot, i));
}

void DatasetReader::read_whole(std::span<uint8_t> out) {
    const uint64_t chunks = (size_ + chunk_ - 1) / chunk_;
    const uint64_t chunk_bytes = chunk_ * width_;
    // Decodes a fetched chunk into its place in `out`. Each chunk is stored
    // whole, so the last one, padded, is decompressed beside and copied.
    auto decode = [&](Slot& slot, uint64_t index) {
        try {
            std::span<uint8_t> into = out.subspan(index * chunk_bytes, slot.count * width_);
            if (!slot.stored.empty()) {
                if (slot.count == chunk_) {
                    slot.error = decompress_chunk(slot.codec, slot.stored, into);
                } else {
                    slot.bytes.resize(chunk_bytes);
                    slot.error = decompress_chunk(slot.codec, slot.stored, slot.bytes);
                    std::copy_n(slot.bytes.begin(), into.size(), into.begin());
                }
                slot.stored.clear();
            } else {  // HDF5 decompressed it
                std::copy_n(slot.bytes.begin(), into.size(), into.begin());
            }
            if (!slot.error.empty()) return;
            decode_transform(transform_, width_, into);
        } catch (const std::exception& e) {  // out of memory: nothing escapes a task
            slot.error = e.what();
        }
    };
    // Two batches: one decoding while the other is read.
    constexpr uint64_t BATCH = 8;
    std::vector<Slot> batches[2] = {std::vector<Slot>(BATCH), std::vector<Slot>(BATCH)};
    uint64_t started[2] = {0, 0};
    tbb::task_group decoding;
    auto finish = [&](unsigned b) {
        engine::sync_wait(decoding);
        for (uint64_t i = 0; i < BATCH && started[b] + i < chunks; ++i) {
            if (!batches[b][i].error.empty())
                throw TableError(damaged(started[b] + i, batches[b][i].error));
        }
    };
    try {
        unsigned b = 0;
        for (uint64_t first = 0; first < chunks; first += BATCH, b ^= 1) {
            const uint64_t n = std::min(BATCH, chunks - first);
            for (uint64_t i = 0; i < n; ++i) fetch(first + i, batches[b][i]);
            if (first > 0) finish(b ^ 1);
            started[b] = first;
            for (uint64_t i = 0; i < n; ++i) {
                engine::sync_run(decoding, [&decode, &slot = batches[b][i], index = first + i] {
                    decode(slot, index);
                });
            }
        }
        if (chunks > 0) finish(((chunks - 1) / BATCH) & 1);
    } catch (...) {
        engine::sync_wait(decoding);
        throw;
    }
}

}  // namespace nimtb::io
