#include "mpi/spill.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "engine/base/errors.h"
#include "io/codec/publish.h"

namespace nimtb::mpi {

namespace {

// O_DIRECT's unit: offsets, lengths and addresses in whole blocks (4 KiB
// covers every common device's logical block).
constexpr uint64_t BLOCK = 4096;
// The bytes written at once.
constexpr uint64_t STAGE = uint64_t{1} << 20;
// The largest level gathered into a batch (Spill::batches_), and a batch's size.
constexpr uint64_t BATCH = uint64_t{1} << 18;

// A second descriptor of the file open at `fd`, writing around the page
// cache; -1 where the file system refuses (tmpfs).
int open_direct(int fd) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    return ::open(self.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
}

}  // namespace

Spill::Spill(const std::string& table_path, unsigned bits, std::string what)
    : what_(std::move(what)), bits_(bits) {
    assert(bits == 8 || bits == 16);
    fd_ = io::create_nameless_file(table_path, what_);
    direct_ = open_direct(fd_);
}

Spill::Spill(const std::string& path, unsigned bits, std::string what, uint64_t keep)
    : what_(std::move(what)), bits_(bits), named_(true), size_(keep), on_disk_(keep * (bits / 8)) {
    assert(bits == 8 || bits == 16);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    const auto fail = [&](const std::string& why) {
        if (fd_ >= 0) ::close(fd_);
        throw TableError(why);
    };
    struct stat st {};
    if (fd_ < 0 || ::fstat(fd_, &st) != 0)
        fail(what_ + ": cannot open the spill " + path + ": " + std::strerror(errno));
    const uint64_t bytes = keep * (bits / 8);
    if (static_cast<uint64_t>(st.st_size) < bytes)
        fail(path +
             " is damaged (shorter than the checkpoint says); remove its folder to start "
             "the solve again");
    if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0)
        fail(what_ + ": cannot cut the spill " + path + ": " + std::strerror(errno));
    direct_ = open_direct(fd_);
}

Spill::~Spill() {
    if (writer_.joinable()) {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;  // what is left unwritten is not wanted
        }
        changed_.notify_all();
        writer_.join();
    }
    if (direct_ >= 0) ::close(direct_);
    if (fd_ >= 0) ::close(fd_);
}

void Spill::start() {
    const auto buffer = [](uint64_t bytes) {
        Buffer b{static_cast<uint8_t*>(std::aligned_alloc(BLOCK, bytes)), std::free};
        if (!b) throw std::bad_alloc();
        return b;
    };
    stage_ = buffer(STAGE);
    batches_[0] = buffer(BATCH);
    batches_[1] = buffer(BATCH);
    // A resumed spill's partial block, which the next write rewrites.
    const uint64_t end = size_ * (bits_ / 8);
    if (end % BLOCK != 0 && !io::pread_all(fd_, stage_.get(), end % BLOCK, end / BLOCK * BLOCK))
        throw TableError(what_ + ": cannot read the spill back: " + std::strerror(errno));
    writer_ = std::thread([this] { write_jobs(); });
}

void Spill::write(const uint8_t* from, uint64_t bytes, uint64_t at) {
    const auto failed = [&] {
        throw TableError(what_ +
                         ": cannot spill the solved positions to disk: " + std::strerror(errno));
    };
    uint64_t staged = at % BLOCK;  // the partial block's bytes, already in the stage
    at -= staged;
    uint8_t* stage = stage_.get();
    while (bytes > 0) {
        const uint64_t take = std::min(bytes, STAGE - staged);
        std::memcpy(stage + staged, from, take);
        from += take;
        bytes -= take;
        staged += take;
        const uint64_t padded = (staged + BLOCK - 1) / BLOCK * BLOCK;
        std::memset(stage + staged, 0, padded - staged);
        bool written = false;
        if (direct_ >= 0) {
            written = io::pwrite_all(direct_, stage, padded, at);
            if (!written && errno != EINVAL) failed();
            if (!written) {
                ::close(direct_);  // the file system took the descriptor, not the writes
                direct_ = -1;
            }
        }
        if (!written && !io::pwrite_all(fd_, stage, staged, at)) failed();
        // A checkpoint's spill goes to disk as it grows, not all at its
        // next flush (sync).
        if (named_ && direct_ < 0)
            ::sync_file_range(fd_, static_cast<off_t>(at), static_cast<off_t>(staged),
                              SYNC_FILE_RANGE_WRITE);
        // The partial block begins the stage again.
        const uint64_t whole = staged / BLOCK * BLOCK;
        std::memmove(stage, stage + whole, staged - whole);
        at += whole;
        staged -= whole;
    }
}

void Spill::write_jobs() {
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [&] { return !jobs_.empty() || stopping_; });
        if (jobs_.empty()) return;
        const Job job = jobs_.front();
        const bool skip = failed_ || stopping_;  // nothing after a failure
        lock.unlock();
        std::exception_ptr failure;
        try {
            if (!skip) write(job.data, job.bytes, job.at);
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        if (failure) failed_ = failure;
        if (!skip && !failure) on_disk_ = std::max(on_disk_, job.at + job.bytes);
        jobs_.pop_front();
        changed_.notify_all();
    }
}

void Spill::wait_free(unsigned buffer) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] {
        return std::none_of(jobs_.begin(), jobs_.end(),
                            [&](const Job& job) { return job.buffer == buffer; });
    });
    if (failed_) std::rethrow_exception(failed_);
}

bool Spill::wait_on_disk(uint64_t count) {
    const uint64_t bytes = count * (bits_ / 8);
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return on_disk_ >= bytes || failed_ || stopping_ || no_waits_; });
    return on_disk_ >= bytes;
}

void Spill::stop_waiting() {
    {
        std::lock_guard lock(mutex_);
        no_waits_ = true;
    }
    changed_.notify_all();
}

void Spill::give(Job job) {
    {
        std::lock_guard lock(mutex_);
        jobs_.push_back(job);
    }
    changed_.notify_all();
}

void Spill::give_batch() {
    if (batch_bytes_ == 0) return;
    // The batch holds the last entries appended.
    give({batches_[filling_].get(), batch_bytes_, size_ * (bits_ / 8) - batch_bytes_, filling_});
    batch_bytes_ = 0;
    filling_ = 1 - filling_;
}

void Spill::flush(bool last) {
    if (!writer_.joinable()) return;
    give_batch();
    wait_free(0);
    wait_free(1);
    wait_free(WINDOW);
    if (last) written_ = {};
}

void Spill::append(engine::QuantityArray& window, uint64_t count) {
    assert(window.bits() == bits_ && count <= window.size());
    if (count == 0) return;
    if (!writer_.joinable()) start();
    const uint64_t bytes = count * (bits_ / 8);
    if (bytes <= BATCH) {
        if (batch_bytes_ + bytes > BATCH) give_batch();
        if (batch_bytes_ == 0) wait_free(filling_);
        std::memcpy(batches_[filling_].get() + batch_bytes_, window.raw(), bytes);
        batch_bytes_ += bytes;
    } else {
        give_batch();
        wait_free(WINDOW);
        if (written_.size() != window.size())
            written_ = engine::QuantityArray(window.size(), bits_);
        std::swap(window, written_);
        give({static_cast<const uint8_t*>(written_.raw()), bytes, size_ * (bits_ / 8), WINDOW});
    }
    size_ += count;
}

void Spill::read(uint64_t first, uint64_t count, uint8_t* out) const {
    assert(first + count <= size_);
    const uint64_t width = bits_ / 8;
    if (!io::pread_all(fd_, out, count * width, first * width))
        throw TableError(what_ +
                         ": cannot read the spilled positions back: " + std::strerror(errno));
}

void Spill::prefetch(uint64_t first, uint64_t count) const {
    const uint64_t width = bits_ / 8;
    ::posix_fadvise(fd_, static_cast<off_t>(first * width), static_cast<off_t>(count * width),
                    POSIX_FADV_WILLNEED);
}

void Spill::sync() {
    flush();
    if (::fdatasync(fd_) != 0)
        throw TableError(what_ +
                         ": cannot flush the spilled positions to disk: " + std::strerror(errno));
}

}  // namespace nimtb::mpi
