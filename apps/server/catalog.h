#pragma once
// The tables a server answers from: the regular files of its folders whose
// names are table names (is_table_name), each read once per version of the
// file (its inode, size and times, looked at on every request) — first in a
// child process (vet), since a damaged file of HDF5's older format can crash
// or hang HDF5, then opened here for what it holds. A few are kept open for
// queries, the least recently used closed beyond that; each open table has a
// lock of its own, so that a query of one table never waits on another.
//
// A file replaced while served (by rename, or overwritten in place) is read
// anew at the next request. Its open handle is closed first: HDF5 shares
// one open file, and its cached metadata, among every handle of the same
// inode, so a handle left open would lend the new file the old one's
// metadata. While a file is changing (it cannot be read, and was written in
// the last CHANGING seconds) its requests are answered 503, not as damage.
// Thread-safe.

#include <chrono>
#include <filesystem>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apps/server/http.h"
#include "engine/game/universe.h"
#include "io/probe.h"

namespace nimtb::apps {

class Catalog {
  public:
    struct Options {
        std::vector<std::string> dirs;  // searched in order; a name is found in the first
        bool follow_links = false;      // serve links that lead out of their folder
        size_t open_tables = 8;         // kept open for queries
        uint64_t cache_bytes = uint64_t{32} << 20;  // decoded chunks kept, per open table
    };
    // Throws to refuse a file (TableError with the reason).
    using Vet = std::function<void(const std::string& path)>;

    Catalog(Options options, Vet vet);

    // What tells one version of a file from the next.
    struct Version {
        uint64_t inode = 0, bytes = 0;
        int64_t written_ns = 0, changed_ns = 0;  // mtime and ctime
        bool operator==(const Version&) const = default;
    };

    // What a table holds, read once per version of its file.
    struct Table {
        std::string name, path;
        std::string rules;  // canonical
        engine::Convention convention = engine::Convention::normal;
        std::shared_ptr<const engine::Universe> universe;
        uint64_t positions = 0;
        uint64_t file_bytes = 0;
        nlohmann::json info;  // info --json, its path the name alone
        Version version;      // of the file read
    };

    // Every table of the folders, by name; files that are not tables nimtb
    // can read are left out.
    std::vector<std::shared_ptr<const Table>> tables();
    // The table `name`: throws HttpError 400 for a name that is not a table
    // name, 404 when no folder holds such a file, TableError when the file
    // is not a table nimtb can read.
    std::shared_ptr<const Table> table(const std::string& name);
    // f(io::Prober&) with the table open, holding that table's lock only
    // (f must not call back into the catalog). A read that fails because
    // the file changed under it is HttpError 503.
    template <class F>
    auto with_prober(const std::string& name, F&& f) {
        const auto t = table(name);
        const std::shared_ptr<Open> open = opened(*t);
        std::lock_guard lock(open->mutex);
        if (!open->prober || open->version != t) {
            open->prober.reset();  // closed before the file is opened again
            open->prober = std::make_unique<io::Prober>(t->path);
            open->prober->table().set_cache_bytes(options_.cache_bytes);
            open->prober->table().keep_decoded_chunks(true);  // many queries of one table
            open->version = t;
        }
        try {
            return f(*open->prober);
        } catch (const http::Error&) {
            throw;  // the request's fault (a move that is none, say), not the file's
        } catch (const std::exception&) {
            open->prober.reset();  // the next request opens it afresh
            if (changed(*t)) throw_changing(name);
            throw;
        }
    }
    // The smallest table of a rule and convention whose universe `fits`, or nullptr.
    std::shared_ptr<const Table> smallest(const std::string& rules, engine::Convention c,
                                          const std::function<bool(const engine::Universe&)>& fits);

    // f(io::Prober&) with a prober of its own, opened for this call: for a
    // read that takes long (a query's line, a picture), so that it holds no
    // lock a plain query of the same table waits on.
    template <class F>
    auto with_own_prober(const std::string& name, F&& f) {
        const auto t = table(name);
        const Borrowed borrowed(*this, name);
        try {
            io::Prober prober(t->path);
            prober.table().set_cache_bytes(options_.cache_bytes);
            prober.table().keep_decoded_chunks(true);
            return f(prober);
        } catch (const std::exception&) {
            if (changed(*t)) throw_changing(name);
            throw;
        }
    }

    // A file written this recently that cannot be read is taken as being written.
    static constexpr std::chrono::seconds CHANGING{2};

  private:
    static std::optional<Version> version_of(const std::string& path);
    bool changed(const Table& t);
    [[noreturn]] static void throw_changing(const std::string& name);
    // Closes the open handle of `name`, waiting for the query that holds it.
    void close(const std::string& name);

    // An own prober in use: HDF5 lends its open file's metadata to whoever
    // opens the same inode meanwhile, so a new version read then may fail
    // for no fault of its own; it is not remembered as damaged.
    struct Borrowed {
        Borrowed(Catalog& c, std::string n) : catalog(c), name(std::move(n)) {
            std::lock_guard lock(catalog.mutex_);
            ++catalog.borrowed_[name];
        }
        ~Borrowed() {
            std::lock_guard lock(catalog.mutex_);
            if (--catalog.borrowed_[name] == 0) catalog.borrowed_.erase(name);
        }
        Catalog& catalog;
        const std::string name;
    };

    struct Open {
        std::mutex mutex;
        std::unique_ptr<io::Prober> prober;
        std::shared_ptr<const Table> version;  // the description the prober was opened for
    };
    struct Known {
        Version version;
        std::shared_ptr<const Table> table;  // null: not a table, for `error`
        std::string error;
    };

    // The path of `name` in the first folder that holds it as a regular
    // file (or an allowed link to one), or "".
    std::string locate(const std::string& name) const;
    std::shared_ptr<Open> opened(const Table& t);

    Options options_;
    Vet vet_;
    std::mutex mutex_;  // guards known_, open_, recent_; held briefly, never over a file's work
    std::map<std::string, Known> known_;
    std::map<std::string, int> borrowed_;  // own probers in use, by table
    std::map<std::string, std::shared_ptr<Open>> open_;
    std::list<std::string> recent_;  // open tables, most recently used first
};

// True for a table's file name as the server accepts it: letters, digits,
// '.', '_' and '-', ending in .h5, no leading dot, at most 200 characters:
// a name in the folder, never a path.
bool is_table_name(const std::string& name);

}  // namespace nimtb::apps
