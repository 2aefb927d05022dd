#include "mpi/chain_checkpoint.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "engine/base/errors.h"
#include "io/codec/publish.h"

namespace nimtb::mpi {

namespace {

namespace fs = std::filesystem;

constexpr char MAGIC[8] = {'N', 'I', 'M', 'T', 'B', 'C', 'S', '1'};
constexpr int ZSTD_LEVEL = 1;  // fast: written during the solve
constexpr uint64_t PAGE = 4096;
constexpr uint64_t END = UINT64_MAX;  // the offset that ends a buffer's runs

struct Header {
    char magic[8];
    ChainStateHead head;
    uint64_t words;  // AggregateShape::w
    uint64_t rem_bytes;
    uint64_t lines;
    uint64_t later;  // levels with arrivals
};

// A run of pages that are not zero: where in its buffer, how many bytes.
struct Run {
    uint64_t offset, bytes;
};

bool zero(const unsigned char* p, uint64_t bytes) {
    uint64_t any = 0;
    for (uint64_t i = 0; i + 8 <= bytes; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        any |= w;
    }
    for (uint64_t i = bytes & ~uint64_t{7}; i < bytes; ++i) any |= p[i];
    return any == 0;
}

// One zstd frame, with its checksum, written to a file as it is made.
class FrameOut {
  public:
    FrameOut(int fd, std::string path)
        : fd_(fd),
          path_(std::move(path)),
          cctx_(ZSTD_createCCtx(), ZSTD_freeCCtx),
          out_(ZSTD_CStreamOutSize()) {
        if (!cctx_) throw TableError("cannot start zstd for the checkpoint: out of memory");
        ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_compressionLevel, ZSTD_LEVEL);
        ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_checksumFlag, 1);
    }
    void put(const void* bytes, uint64_t size) {
        ZSTD_inBuffer in{bytes, size, 0};
        while (in.pos < in.size) step(in, ZSTD_e_continue);
    }
    template <class T>
    void put(const T& x) {
        put(&x, sizeof x);
    }
    // The pages of `buffer` that are not zero, as runs, then END.
    void pages(const void* buffer, uint64_t bytes) {
        const auto* p = static_cast<const unsigned char*>(buffer);
        const auto page_zero = [&](uint64_t at) {
            return zero(p + at, std::min(PAGE, bytes - at));
        };
        for (uint64_t at = 0; at < bytes;) {
            if (page_zero(at)) {
                at += PAGE;
                continue;
            }
            uint64_t end = at + PAGE;
            while (end < bytes && !page_zero(end)) end += PAGE;
            end = std::min(end, bytes);
            put(Run{at, end - at});
            put(p + at, end - at);
            at = end;
        }
        put(Run{END, 0});
    }
    void end() {
        ZSTD_inBuffer in{nullptr, 0, 0};
        while (step(in, ZSTD_e_end) != 0) {
        }
    }

  private:
    size_t step(ZSTD_inBuffer& in, ZSTD_EndDirective mode) {
        ZSTD_outBuffer out{out_.data(), out_.size(), 0};
        const size_t left = ZSTD_compressStream2(cctx_.get(), &out, &in, mode);
        if (ZSTD_isError(left))
            throw TableError(std::string("cannot compress the checkpoint: ") +
                             ZSTD_getErrorName(left));
        if (!io::pwrite_all(fd_, out_.data(), out.pos, written_))
            throw TableError(path_ + ": cannot write the checkpoint: " + std::strerror(errno));
        written_ += out.pos;
        return left;
    }
    int fd_;
    std::string path_;
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx_;
    std::vector<char> out_;
    uint64_t written_ = 0;
};

// The frame a FrameOut wrote, read back into place; every fault, a
// mismatched checksum among them, is "damaged".
class FrameIn {
  public:
    FrameIn(std::string path, std::string dir)
        : path_(std::move(path)),
          dir_(std::move(dir)),
          dctx_(ZSTD_createDCtx(), ZSTD_freeDCtx),
          buffer_(ZSTD_DStreamInSize()) {
        fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0)
            throw TableError(
                fmt::format("cannot read the checkpoint file {}: {}", path_, std::strerror(errno)));
        if (!dctx_) throw TableError("cannot start zstd for the checkpoint: out of memory");
    }
    ~FrameIn() { ::close(fd_); }
    FrameIn(const FrameIn&) = delete;
    FrameIn& operator=(const FrameIn&) = delete;

    [[noreturn]] void damaged(const std::string& why) const {
        throw TableError(fmt::format("{} is damaged ({}); remove {} to start the solve again",
                                     path_, why, dir_));
    }
    void get(void* bytes, uint64_t size) {
        ZSTD_outBuffer out{bytes, size, 0};
        while (out.pos < out.size) {
            if (done_) damaged("short");
            step(out);
        }
    }
    template <class T>
    T get() {
        T x;
        get(&x, sizeof x);
        return x;
    }
    // Runs of pages into `buffer`, up to END.
    void pages(void* buffer, uint64_t bytes) {
        uint64_t after = 0;
        for (;;) {
            const Run r = get<Run>();
            if (r.offset == END && r.bytes == 0) return;
            if (r.offset < after || r.offset % PAGE != 0 || r.bytes == 0 || r.offset > bytes ||
                r.bytes > bytes - r.offset)
                damaged("a run of pages outside its buffer");
            get(static_cast<unsigned char*>(buffer) + r.offset, r.bytes);
            after = r.offset + r.bytes;
        }
    }
    // The frame ends here, checksum and all, and the file with it.
    void end() {
        unsigned char extra;
        while (!done_) {
            ZSTD_outBuffer out{&extra, 1, 0};
            step(out);
            if (out.pos) damaged("more than its state");
        }
        if (in_.pos != in_.size || fill() != 0) damaged("bytes after its frame");
    }

  private:
    size_t fill() {
        ssize_t got;
        do got = ::read(fd_, buffer_.data(), buffer_.size());
        while (got < 0 && errno == EINTR);
        if (got < 0)
            throw TableError(
                fmt::format("cannot read the checkpoint file {}: {}", path_, std::strerror(errno)));
        in_ = {buffer_.data(), static_cast<size_t>(got), 0};
        return static_cast<size_t>(got);
    }
    void step(ZSTD_outBuffer& out) {
        // With no input left, what zstd holds may still fill `out`.
        const bool more = in_.pos < in_.size || fill() > 0;
        const size_t before = out.pos;
        const size_t left = ZSTD_decompressStream(dctx_.get(), &out, &in_);
        if (ZSTD_isError(left)) damaged(ZSTD_getErrorName(left));
        done_ = left == 0;
        if (!more && !done_ && out.pos == before) damaged("short");
    }
    std::string path_, dir_;
    int fd_ = -1;
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx_;
    std::vector<char> buffer_;
    ZSTD_inBuffer in_{nullptr, 0, 0};
    bool done_ = false;
};

}  // namespace

std::string ChainCheckpoint::spill_path(unsigned which) const {
    return (fs::path(dir_) / (which == 0 ? "value.spill" : "remoteness.spill")).string();
}

std::string ChainCheckpoint::state_path(uint64_t level) const {
    return (fs::path(dir_) / fmt::format("chain-{:06}.state", level)).string();
}

std::vector<uint64_t> ChainCheckpoint::levels() const {
    std::vector<uint64_t> all;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        const std::string name = e.path().filename().string();
        unsigned long long level = 0;
        int used = 0;
        if (std::sscanf(name.c_str(), "chain-%llu.state%n", &level, &used) == 1 &&
            static_cast<size_t>(used) == name.size())
            all.push_back(level);
    }
    std::sort(all.begin(), all.end());
    return all;
}

void ChainCheckpoint::save(const ChainStateHead& head, const LineChain& c) const {
    io::FileDraft draft(state_path(head.level));
    const int fd = ::open(draft.draft().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw TableError(
            fmt::format("{}: cannot write the checkpoint: {}", draft.path(), std::strerror(errno)));
    try {
        FrameOut out(fd, draft.path());
        Header h{};
        std::memcpy(h.magic, MAGIC, sizeof MAGIC);
        h.head = head;
        h.words = c.shape.w;
        h.rem_bytes = c.shape.rem_bytes;
        h.lines = c.lines;
        h.later = c.later.size();
        out.put(h);
        out.pages(c.seen.data(), c.seen.bytes());
        out.pages(c.remoteness.data(), c.remoteness.bytes());
        for (const auto& [level, x] : c.later) {
            out.put(uint64_t{level});
            out.put(uint64_t{x.filled.size()});
            out.put(x.filled.data(), x.filled.size() * sizeof(uint64_t));
            out.put(uint64_t{x.bytes});
            out.pages(x.area.data(), x.bytes);
        }
        out.end();
    } catch (...) {
        ::close(fd);
        throw;
    }
    if (::close(fd) != 0)
        throw TableError(
            fmt::format("{}: cannot write the checkpoint: {}", draft.path(), std::strerror(errno)));
    draft.publish();
}

ChainStateHead ChainCheckpoint::restore(uint64_t level, LineChain& c,
                                        const std::function<Arrivals(size_t)>& arrivals_for) const {
    if (!c.later.empty() || !c.idle_areas.empty())
        throw std::logic_error("chain checkpoint: a state restored into a chain in use");
    FrameIn in(state_path(level), dir_);
    const Header h = in.get<Header>();
    if (std::memcmp(h.magic, MAGIC, sizeof MAGIC) != 0 || h.head.level != level)
        in.damaged("not the chain's state it is named");
    if (h.words != c.shape.w || h.rem_bytes != c.shape.rem_bytes || h.lines != c.lines)
        in.damaged("the state of other lines than this solve's");
    in.pages(c.seen.data(), c.seen.bytes());
    in.pages(c.remoteness.data(), c.remoteness.bytes());
    uint64_t after = 0;
    for (uint64_t i = 0; i < h.later; ++i) {
        const auto to = in.get<uint64_t>();
        if ((i == 0 ? to < level : to <= after) || to >= c.done_after.size())
            in.damaged("arrivals for no later level");
        after = to;
        Arrivals x = arrivals_for(static_cast<size_t>(to));
        if (in.get<uint64_t>() != x.filled.size()) in.damaged("arrivals for other blocks");
        in.get(x.filled.data(), x.filled.size() * sizeof(uint64_t));
        if (in.get<uint64_t>() != x.bytes) in.damaged("arrivals for other blocks");
        in.pages(x.area.data(), x.bytes);
        c.later.emplace(static_cast<size_t>(to), std::move(x));
    }
    in.end();
    return h.head;
}

void ChainCheckpoint::keep_only(uint64_t level) const {
    std::error_code ec;
    for (const uint64_t l : levels())
        if (l != level) fs::remove(state_path(l), ec);
}

void ChainCheckpoint::remove() const {
    keep_only(UINT64_MAX);
    std::error_code ec;
    fs::remove(spill_path(0), ec);
    fs::remove(spill_path(1), ec);
}

}  // namespace nimtb::mpi
