#pragma once
// The tables a server answers from: the regular files of its folders whose
// names are table names (is_table_name), each read once per version of the
// file (its size and time) — first in a child process (vet), since a
// damaged file of HDF5's older format can crash or hang HDF5, then opened
// here for what it holds. A few are kept open for queries, the least
// recently used closed beyond that; each open table has a lock of its own,
// so that a query of one table never waits on another. Thread-safe.

#include <filesystem>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

    // What a table holds, read once per version of its file.
    struct Table {
        std::string name, path;
        std::string rules;  // canonical
        engine::Convention convention = engine::Convention::normal;
        std::shared_ptr<const engine::Universe> universe;
        uint64_t positions = 0;
        uint64_t file_bytes = 0;
        nlohmann::json info;  // info --json, its path the name alone
    };

    // Every table of the folders, by name; files that are not tables nimtb
    // can read are left out.
    std::vector<std::shared_ptr<const Table>> tables();
    // The table `name`: throws HttpError 400 for a name that is not a table
    // name, 404 when no folder holds such a file, TableError when the file
    // is not a table nimtb can read.
    std::shared_ptr<const Table> table(const std::string& name);
    // f(io::Prober&) with the table open, holding that table's lock only.
    template <class F>
    auto with_prober(const std::string& name, F&& f) {
        const auto t = table(name);
        const std::shared_ptr<Open> open = opened(*t);
        std::lock_guard lock(open->mutex);
        if (!open->prober || open->version != t) {
            open->prober = std::make_unique<io::Prober>(t->path);
            open->prober->table().set_cache_bytes(options_.cache_bytes);
            open->prober->table().keep_decoded_chunks(true);  // many queries of one table
            open->version = t;
        }
        return f(*open->prober);
    }
    // The smallest table of a rule and convention whose universe `fits`, or nullptr.
    std::shared_ptr<const Table> smallest(const std::string& rules, engine::Convention c,
                                          const std::function<bool(const engine::Universe&)>& fits);

  private:
    struct Open {
        std::mutex mutex;
        std::unique_ptr<io::Prober> prober;
        std::shared_ptr<const Table> version;  // the description the prober was opened for
    };
    struct Known {
        std::filesystem::file_time_type written;
        uintmax_t bytes = 0;
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
    std::map<std::string, std::shared_ptr<Open>> open_;
    std::list<std::string> recent_;  // open tables, most recently used first
};

// True for a table's file name as the server accepts it: letters, digits,
// '.', '_' and '-', ending in .h5, no leading dot, at most 200 characters:
// a name in the folder, never a path.
bool is_table_name(const std::string& name);

}  // namespace nimtb::apps
