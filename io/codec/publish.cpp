#include "io/codec/publish.h"

#include <fcntl.h>
#include <stdio.h>  // renameat2 (glibc 2.28)
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>

#include "engine/base/errors.h"

namespace nimtb::io {

namespace {

namespace fs = std::filesystem;

// ".NAME.tmp-PID-N": hidden, so that listings (the server's catalog) pass
// it by, and unique within the machine's processes and within one.
const std::regex DRAFT(R"(\.([^/\s]+)\.tmp-[0-9]+-[0-9]+)");

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw TableError(path + ": " + what + ": " + std::strerror(errno));
}

// fsync of a file or folder by name.
bool sync(const std::string& path, bool folder) {
    const int fd = ::open(path.c_str(), (folder ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

}  // namespace

FileDraft::FileDraft(std::string path) : path_(std::move(path)) {
    static std::atomic<unsigned> drafts{0};
    const fs::path p(path_);
    std::string name = ".";
    name += p.filename().string();
    name += ".tmp-";
    name += std::to_string(::getpid());
    name += '-';
    name += std::to_string(drafts++);
    draft_ = (p.parent_path() / name).string();
}

FileDraft::~FileDraft() {
    if (!published_) ::unlink(draft_.c_str());
}

void FileDraft::release_space() {
    if (::truncate(draft_.c_str(), 0) != 0) {
        // Nothing more to do: the error being reported is the real one.
    }
}

void FileDraft::publish() {
    if (!sync(draft_, false)) fail(path_, "cannot finish writing it to disk");
    std::error_code ec;
    const fs::file_status s = fs::status(path_, ec);
    if (fs::exists(s) && !fs::is_regular_file(s))
        throw TableError(path_ + " exists and is not a file: choose another name");
    if (::rename(draft_.c_str(), path_.c_str()) != 0)
        fail(path_, "cannot put the finished file in place");
    published_ = true;
    const fs::path parent = fs::path(path_).parent_path();
    sync(parent.empty() ? "." : parent.string(),
         true);  // a folder that cannot be synced: as written
}

int create_nameless_file(const std::string& path, const std::string& what) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string dir = parent.empty() ? std::string(".") : parent.string();
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        std::string name = dir + "/.nimtb-run-XXXXXX";
        fd = ::mkostemp(name.data(), O_CLOEXEC);
        if (fd >= 0) ::unlink(name.c_str());
    }
    if (fd < 0)
        throw TableError(what + ": cannot create a run file in " + dir + ": " + std::strerror(errno));
    return fd;
}

bool pwrite_all(int fd, const void* data, uint64_t bytes, uint64_t offset) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (uint64_t done = 0; done < bytes;) {
        const ssize_t n = ::pwrite(fd, p + done, bytes - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = ENOSPC;
            return false;
        }
        done += static_cast<uint64_t>(n);
    }
    return true;
}

bool pread_all(int fd, void* data, uint64_t bytes, uint64_t offset) {
    auto* p = static_cast<uint8_t*>(data);
    for (uint64_t done = 0; done < bytes;) {
        const ssize_t n = ::pread(fd, p + done, bytes - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;  // the file is shorter than what was written to it
            return false;
        }
        done += static_cast<uint64_t>(n);
    }
    return true;
}

void write_file_whole(const std::string& path, std::string_view bytes) {
    FileDraft draft(path);
    const int fd = ::open(draft.draft().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail(path, "cannot write");
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int error = n < 0 ? errno : ENOSPC;
            ::close(fd);
            errno = error;
            fail(path, "cannot write");
        }
        bytes.remove_prefix(static_cast<size_t>(n));
    }
    if (::close(fd) != 0) fail(path, "cannot write");
    draft.publish();
}

bool move_without_replacing(const std::string& from, const std::string& to) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0) {
        if (errno == EEXIST) return false;
        fail(to, "cannot put the finished file in place");
    }
    const fs::path parent = fs::path(to).parent_path();
    sync(parent.empty() ? "." : parent.string(), true);
    return true;
}

bool is_draft_name(std::string_view file_name) {
    return std::regex_match(file_name.begin(), file_name.end(), DRAFT);
}

std::string without_draft_names(std::string message) {
    return std::regex_replace(message, DRAFT, "$1");
}

}  // namespace nimtb::io
