#include "service/request/checkpoint.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/base/errors.h"
#include "io/codec/publish.h"

namespace nimtb::service {

namespace fs = std::filesystem;

namespace {

constexpr const char* FORMAT = "nimtb-checkpoint";
constexpr int VERSION = 1;
constexpr char MAGIC[8] = {'N', 'I', 'M', 'T', 'B', 'L', 'V', '1'};
constexpr int ZSTD_LEVEL = 1;  // fast: a checkpoint is written during the solve
// Compressed levels held before a write whatever the time.
constexpr size_t MAX_PENDING = size_t{64} << 20;

// The header of a level's data, before its values and remoteness.
struct LevelHeader {
    char magic[8];
    uint64_t level;
    uint64_t positions;
    uint32_t value_bits;
    uint32_t remoteness_bits;
    uint64_t brute_from_level;
    uint64_t reserved;
};
static_assert(sizeof(LevelHeader) == 48);

[[noreturn]] void fail(const std::string& what) {
    throw TableError(what);
}

std::string system_error(const std::string& what, const std::string& path) {
    return fmt::format("{} {}: {}", what, path, std::strerror(errno));
}

std::vector<char> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(system_error("cannot read the checkpoint file", path));
    return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

nlohmann::json identity_json(const CheckpointIdentity& id) {
    return {{"rules", id.rules},   {"convention", id.convention}, {"universe", id.universe},
            {"method", id.method}, {"remoteness", id.remoteness}, {"processes", id.processes}};
}

// A field of a manifest as a message shows it, whatever its type (the
// manifest may be another program's or damaged): "?" when missing, cut
// when long.
std::string field(const nlohmann::json& m, const char* key) {
    const auto it = m.find(key);
    if (it == m.end()) return "?";
    std::string text = it->is_string() ? it->get<std::string>() : it->dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
}

std::string describe(const nlohmann::json& id) {
    const auto remoteness = id.find("remoteness");
    const std::string processes = field(id, "processes");
    return fmt::format("{} {}, {}, {}{}, {} process{}", field(id, "rules"), field(id, "convention"),
                       field(id, "universe"), field(id, "method"),
                       remoteness != id.end() && *remoteness == false ? ", no remoteness" : "",
                       processes, processes == "1" ? "" : "es");
}

// Copies a level's elements of `bits` bits, in block order, into `array`
// (widened first when the level's are wider).
void fill(engine::QuantityArray& array, const engine::SolveOrder& plan, size_t level,
          const unsigned char* data, unsigned bits) {
    if (bits > array.bits()) array.widen();
    const size_t in = bits / 8, out = array.bits() / 8;
    for (size_t b = plan.level_start[level]; b < plan.level_start[level + 1]; ++b) {
        const engine::Block& block = plan.blocks[b];
        if (in == out) {
            std::memcpy(array.data<unsigned char>() + block.first * out, data, block.count * in);
        } else {  // 8-bit elements into a 16-bit array
            uint16_t* to = array.data<uint16_t>() + block.first;
            for (uint64_t i = 0; i < block.count; ++i) to[i] = data[i];
        }
        data += block.count * in;
    }
}

}  // namespace

Checkpoint::Checkpoint(std::string dir, CheckpointIdentity identity,
                       std::chrono::milliseconds interval)
    : dir_(std::move(dir)),
      identity_(std::move(identity)),
      interval_(interval),
      cctx_(ZSTD_createCCtx(), ZSTD_freeCCtx) {
    if (!cctx_) fail("cannot start zstd for the checkpoint: out of memory");
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (!fs::is_directory(dir_, ec))
        fail("cannot use " + dir_ + " as the checkpoint folder: it is not a folder");
    // A distributed solve keeps one folder per process inside (mpi/).
    if (identity_.processes == 1 && fs::exists(fs::path(dir_) / "process-0", ec)) {
        fail(dir_ +
             " holds the checkpoint of a solve by several processes (under mpirun); run it as "
             "before, or remove the folder to start again");
    }
    const std::string manifest = (fs::path(dir_) / "manifest.json").string();
    if (fs::exists(manifest, ec)) {
        nlohmann::json m;
        int version = 0;
        try {
            const std::vector<char> text = read_file(manifest);
            m = nlohmann::json::parse(text.begin(), text.end());
            if (!m.is_object() || m.value("format", "") != FORMAT) {
                fail(manifest + " is not a nimtb checkpoint; give another " +
                     mention(Option::checkpoint) + " folder");
            }
            version = m.value("version", 0);
        } catch (const nlohmann::json::exception&) {
            fail(manifest + " is damaged (not the JSON of a checkpoint); remove " + dir_ +
                 " to start the solve again");
        }
        if (version != VERSION) {
            fail(fmt::format("{} is a checkpoint of version {}, this nimtb reads version {}",
                             manifest, version, VERSION));
        }
        const nlohmann::json mine = identity_json(identity_);
        for (const auto& [key, value] : mine.items()) {
            if (!m.contains(key) || m[key] != value) {
                fail(fmt::format(
                    "{} holds the checkpoint of another solve ({}); this one is {}: give another "
                    "{} folder, or remove it to start again",
                    dir_, describe(m), describe(mine), mention(Option::checkpoint)));
            }
        }
        plan_key_ = m.contains("plan") && m["plan"].is_string() ? m["plan"].get<std::string>() : "";
    } else if (!batches().empty()) {
        fail(dir_ +
             " holds checkpoint levels but no manifest.json: it is damaged; remove it to "
             "start the solve again");
    }
}

Checkpoint::~Checkpoint() {
    try {
        flush();  // nothing after remove()
    } catch (const std::exception&) {
        // Unwinding already: the levels written before stay usable.
    }
}

std::vector<Checkpoint::Batch> Checkpoint::batches() const {
    std::vector<Batch> all;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        const std::string name = e.path().filename().string();
        size_t first = 0, last = 0;
        int used = 0;
        if (std::sscanf(name.c_str(), "levels-%zu-%zu.zst%n", &first, &last, &used) == 2 &&
            static_cast<size_t>(used) == name.size() && first <= last) {
            all.push_back({e.path().string(), first, last});
        }
    }
    std::sort(all.begin(), all.end(),
              [](const Batch& a, const Batch& b) { return a.first < b.first; });
    std::vector<Batch> run;
    for (const Batch& b : all) {
        if (b.first != (run.empty() ? 0 : run.back().last + 1)) break;
        run.push_back(b);
    }
    return run;
}

void Checkpoint::write_manifest(const std::string& plan_key) const {
    nlohmann::json m = identity_json(identity_);
    m["format"] = FORMAT;
    m["version"] = VERSION;
    m["plan"] = plan_key;
    const std::string text = m.dump(2) + "\n";
    io::write_file_whole((fs::path(dir_) / "manifest.json").string(), text);
}

size_t Checkpoint::restore(const std::string& plan_key, const engine::SolveOrder& plan,
                           engine::Solution& s) {
    if (plan_key_.empty()) {
        write_manifest(plan_key);
        plan_key_ = plan_key;
        return 0;
    }
    if (plan_key_ != plan_key) {
        fail(
            fmt::format("{} was saved under another plan of the solver ({}); this solve's is "
                        "({}): remove it to start again",
                        dir_, plan_key_, plan_key));
    }
    size_t level = 0;
    for (const Batch& batch : batches()) {
        const std::string& path = batch.path;
        const auto damaged = [&](const std::string& why) {
            fail(fmt::format("{} is damaged ({}); remove {} to start the solve again", path, why,
                             dir_));
        };
        if (batch.last >= plan.levels()) damaged("levels beyond this solve's");
        const std::vector<char> frame = read_file(path);
        uint64_t most = 0;
        for (size_t l = batch.first; l <= batch.last; ++l)
            most += sizeof(LevelHeader) + plan.positions_in(l) * 4;
        // Streamed: the frame's content size is not in its header.
        std::vector<unsigned char> data;
        {
            const std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(),
                                                                          ZSTD_freeDCtx);
            ZSTD_inBuffer in{frame.data(), frame.size(), 0};
            size_t left = 1;
            while (left != 0) {
                const size_t start = data.size();
                if (start >= most) damaged("more than its levels");
                data.resize(std::min<uint64_t>(most, std::max<size_t>(2 * start, 1 << 20)));
                ZSTD_outBuffer out{data.data() + start, data.size() - start, 0};
                left = ZSTD_decompressStream(dctx.get(), &out, &in);
                if (ZSTD_isError(left)) damaged(ZSTD_getErrorName(left));
                data.resize(start + out.pos);
                if (left != 0 && in.pos == in.size && out.pos == 0) damaged("short");
            }
            if (in.pos != in.size) damaged("bytes after its frame");
        }
        const unsigned char* p = data.data();
        const unsigned char* end = data.data() + data.size();
        for (; level <= batch.last; ++level) {
            LevelHeader h;
            if (end - p < static_cast<ptrdiff_t>(sizeof h)) damaged("short");
            std::memcpy(&h, p, sizeof h);
            const uint64_t positions = plan.positions_in(level);
            const bool widths_ok =
                (h.value_bits == 8 || h.value_bits == 16) &&
                (s.remoteness.empty() ? h.remoteness_bits == 0
                                      : h.remoteness_bits == 8 || h.remoteness_bits == 16);
            const uint64_t bytes = positions * ((h.value_bits + h.remoteness_bits) / 8);
            if (std::memcmp(h.magic, MAGIC, sizeof MAGIC) != 0 || h.level != level ||
                h.positions != positions || !widths_ok ||
                static_cast<uint64_t>(end - p) < sizeof h + bytes) {
                damaged("a level's header does not match this solve");
            }
            const unsigned char* values = p + sizeof h;
            fill(s.value, plan, level, values, h.value_bits);
            if (h.remoteness_bits) {
                fill(s.remoteness, plan, level, values + positions * (h.value_bits / 8),
                     h.remoteness_bits);
            }
            s.brute_from_level = h.brute_from_level;
            p += sizeof h + bytes;
        }
        if (p != end) damaged("more than its levels");
    }
    pending_first_ = level;
    last_write_ = std::chrono::steady_clock::now();
    if (level > 0 && on_restored) on_restored(level);
    return level;
}

void Checkpoint::save(const engine::SolveOrder& plan, size_t level, const engine::Solution& s) {
    const uint64_t positions = plan.positions_in(level);
    LevelHeader h{};
    std::memcpy(h.magic, MAGIC, sizeof MAGIC);
    h.level = level;
    h.positions = positions;
    h.value_bits = s.value.bits();
    h.remoteness_bits = s.remoteness.empty() ? 0 : s.remoteness.bits();
    h.brute_from_level = s.brute_from_level;
    if (pending_count_ == 0) {
        pending_first_ = level;
        ZSTD_CCtx_reset(cctx_.get(), ZSTD_reset_session_and_parameters);
        ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_compressionLevel, ZSTD_LEVEL);
        ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_checksumFlag, 1);
        ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_nbWorkers,
                               1);  // compressed while the solve goes on
    }
    compress(&h, sizeof h);
    for (const engine::QuantityArray* a : {&s.value, &s.remoteness}) {
        if (a->empty()) continue;
        const size_t bytes = a->bits() / 8;
        const auto* base = static_cast<const unsigned char*>(a->raw());
        for (size_t b = plan.level_start[level]; b < plan.level_start[level + 1]; ++b) {
            const engine::Block& block = plan.blocks[b];
            compress(base + block.first * bytes, block.count * bytes);
        }
    }
    ++pending_count_;
    if (std::chrono::steady_clock::now() - last_write_ >= interval_ || frame_size_ >= MAX_PENDING)
        flush();
}

void Checkpoint::compress(const void* bytes, size_t size, bool end) {
    ZSTD_inBuffer in{bytes, size, 0};
    for (size_t left = 1; end ? left != 0 : in.pos < in.size;) {
        if (frame_capacity_ - frame_size_ < ZSTD_CStreamOutSize()) {
            // Grown by hand: a vector would zero the room it adds, at every call.
            const size_t capacity = std::max(2 * frame_capacity_, size_t{4} << 20);
            std::unique_ptr<char[]> grown(new char[capacity]);
            if (frame_size_) std::memcpy(grown.get(), frame_.get(), frame_size_);
            frame_ = std::move(grown);
            frame_capacity_ = capacity;
        }
        ZSTD_outBuffer out{frame_.get() + frame_size_, frame_capacity_ - frame_size_, 0};
        left = ZSTD_compressStream2(cctx_.get(), &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        frame_size_ += out.pos;
        if (ZSTD_isError(left))
            fail(std::string("cannot compress checkpoint levels: ") + ZSTD_getErrorName(left));
    }
}

void Checkpoint::flush() {
    if (pending_count_ == 0) return;
    compress(nullptr, 0, true);
    const size_t last = pending_first_ + pending_count_ - 1;
    io::write_file_whole(
        (fs::path(dir_) / fmt::format("levels-{:06}-{:06}.zst", pending_first_, last)).string(),
        std::string_view(frame_.get(), frame_size_));
    frame_size_ = 0;
    pending_first_ = last + 1;
    pending_count_ = 0;
    last_write_ = std::chrono::steady_clock::now();
}

void Checkpoint::forget_from(size_t level) {
    std::error_code ec;
    for (const Batch& b : batches())
        if (b.first >= level) fs::remove(b.path, ec);
}

void Checkpoint::remove() {
    frame_size_ = 0;
    pending_count_ = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        const std::string name = e.path().filename().string();
        if (name == "manifest.json" || io::is_draft_name(name) ||
            (name.starts_with("levels-") && name.ends_with(".zst"))) {
            fs::remove(e.path(), ec);
        }
    }
    fs::remove(dir_, ec);  // only when empty
}

}  // namespace nimtb::service
