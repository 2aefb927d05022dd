#pragma once
// The one way nimtb publishes a file, whatever the file (a table, a sequence
// file, a quotient file, the files of a solve's or a sequence's checkpoint,
// a learner's bags, a solve's --stats): the bytes are written under a draft name in the same folder,
// flushed to disk (fsync), renamed over the final name, and the folder is
// flushed — as SQLite and git publish theirs. A file under its final name is
// therefore whole whatever happens (a crash, kill -9, a full disk, a power
// loss after the rename): the old file or the new one, never part of one.
// It lives below every floor that writes (io/, the service floor, play/,
// and the MPI writer, which links this library without nimtb::io).

#include <cstdint>
#include <string>
#include <string_view>

namespace nimtb::io {

// A file being written: a draft, published by publish() or removed.
class FileDraft {
  public:
    // The draft of `path`: ".NAME.tmp-PID-N" in the same folder, not yet
    // created (the writer creates it, by its own means: HDF5 by name).
    explicit FileDraft(std::string path);
    // Removes the draft unless it was published.
    ~FileDraft();
    FileDraft(const FileDraft&) = delete;
    FileDraft& operator=(const FileDraft&) = delete;

    const std::string& path() const { return path_; }    // the final name
    const std::string& draft() const { return draft_; }  // where to write

    // Flushes the draft to disk, renames it over path() (refusing when
    // path() has become something other than a file: check_output_kind),
    // and flushes the folder. Throws TableError naming the file.
    void publish();
    // Gives the draft's space back after a failed write (a full disk: HDF5
    // cannot close a file whose cached data it cannot flush).
    void release_space();

  private:
    std::string path_, draft_;
    bool published_ = false;
};

// `bytes` published as `path` through a FileDraft. Throws TableError naming
// the file (a full disk, a missing or read-only folder).
void write_file_whole(const std::string& path, std::string_view bytes);

// Moves the whole file `from` (published in another folder of the same
// disk) to `to`, only when no file has that name (renameat2 with
// RENAME_NOREPLACE: never over a file of someone else's), and flushes the
// folder. False when a file holds the name; throws TableError naming `to`
// for any other failure.
bool move_without_replacing(const std::string& from, const std::string& to);

// A file with no name in the folder of `path` (a table's: the file's space
// is then counted where the table will be), open for reading and writing:
// O_TMPFILE, or where the file system has none a named file unlinked at
// once, so a crash, a kill or Ctrl-C leaves nothing behind. Returns its
// descriptor; throws TableError that begins with `what`.
int create_nameless_file(const std::string& path, const std::string& what);

// All `bytes` written at (read from) `offset` of `fd`, short transfers
// retried: false on an error, errno saying which.
bool pwrite_all(int fd, const void* data, uint64_t bytes, uint64_t offset);
bool pread_all(int fd, void* data, uint64_t bytes, uint64_t offset);

// Whether `file_name` (no folder) is the name of a draft: a file left by a
// writer that was killed, which whoever cleans a folder may remove.
bool is_draft_name(std::string_view file_name);

// `message` with each draft's name given as its final name: no message
// tells which process wrote a file.
std::string without_draft_names(std::string message);

}  // namespace nimtb::io
