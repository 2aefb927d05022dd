#include "apps/server/catalog.h"

#include <sys/stat.h>

#include <algorithm>

#include "apps/server/http.h"
#include "engine/base/errors.h"
#include "service/views.h"

namespace nimtb::apps {

namespace fs = std::filesystem;

bool is_table_name(const std::string& name) {
    const auto plain = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    };
    return name.size() > 3 && name.size() <= 200 && name.front() != '.' && name.ends_with(".h5") &&
           std::all_of(name.begin(), name.end(), plain);
}

Catalog::Catalog(Options options, Vet vet) : options_(std::move(options)), vet_(std::move(vet)) {}

std::string Catalog::locate(const std::string& name) const {
    for (const std::string& dir : options_.dirs) {
        const fs::path path = fs::path(dir) / name;
        std::error_code ec;
        const fs::file_status own = fs::symlink_status(path, ec);
        if (ec || !fs::exists(own)) continue;
        if (fs::is_symlink(own)) {
            // A link is served when it stays in its folder, or when links are allowed.
            std::error_code to, from;
            const fs::path target = fs::canonical(path, to);
            const fs::path home = fs::canonical(dir, from);
            if (to || from || !fs::is_regular_file(target, ec)) continue;
            const auto [end, _] =
                std::mismatch(home.begin(), home.end(), target.begin(), target.end());
            if (!options_.follow_links && end != home.end()) continue;
            return path.string();
        }
        // A FIFO, a device or a folder named like a table is no table.
        if (fs::is_regular_file(own)) return path.string();
    }
    return "";
}

std::optional<Catalog::Version> Catalog::version_of(const std::string& path) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) return std::nullopt;
    const auto ns = [](const timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; };
    return Version{static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size),
                   ns(st.st_mtim), ns(st.st_ctim)};
}

bool Catalog::changed(const Table& t) {
    const auto now = version_of(locate(t.name));
    return !now || !(*now == t.version);
}

void Catalog::throw_changing(const std::string& name) {
    throw http::Error(
        503, "the table '" + name + "' is being replaced or written; ask again in a few seconds");
}

void Catalog::close(const std::string& name) {
    std::shared_ptr<Open> open;
    {
        std::lock_guard lock(mutex_);
        const auto it = open_.find(name);
        if (it == open_.end()) return;
        open = it->second;
        open_.erase(it);
        recent_.remove(name);
    }
    std::lock_guard lock(open->mutex);
    open->prober.reset();
}

std::shared_ptr<const Catalog::Table> Catalog::table(const std::string& name) {
    if (!is_table_name(name)) {
        throw http::Error(400, "'" + name +
                                   "' is not a table name: give a file name of the "
                                   "tables folder, like nim-normal-k3-h15.h5");
    }
    const std::string path = locate(name);
    const std::optional<Version> version = version_of(path);
    if (!version) {
        std::lock_guard lock(mutex_);
        known_.erase(name);
        throw http::Error(404, "no table '" + name + "'");
    }
    // A file that cannot be read, written a moment ago: most likely being
    // written still (a copy under way), so not yet called damaged.
    const auto refuse = [&](const std::string& error) {
        const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
        if (now_ns - version->written_ns <
            std::chrono::duration_cast<std::chrono::nanoseconds>(CHANGING).count())
            throw_changing(name);
        throw TableError(error);
    };
    {
        std::lock_guard lock(mutex_);
        const auto it = known_.find(name);
        if (it != known_.end() && it->second.version == *version) {
            if (!it->second.table) refuse(it->second.error);
            return it->second.table;
        }
    }
    // A new file, or one that changed: read it, with no lock held but the
    // old version's handle, closed first.
    close(name);
    Known k{*version, nullptr, ""};
    try {
        if (vet_) vet_(path);
        const io::TableReader reader(path);
        auto t = std::make_shared<Table>();
        t->name = name;
        t->path = path;
        t->rules = reader.info().rules;
        t->convention = reader.info().convention;
        t->universe = std::make_shared<const engine::Universe>(reader.universe());
        t->positions = reader.info().positions;
        t->file_bytes = version->bytes;
        t->version = *version;
        t->info = service::info_json(reader);
        t->info["path"] = name;  // the folder stays the server's business
        k.table = std::move(t);
    } catch (const http::Error&) {
        throw;  // not the file's fault (the server busy): not remembered
    } catch (const std::exception& e) {
        k.error = e.what();
    }
    // The file read may be newer than the version looked at: it is then
    // read again at the next request.
    {
        std::lock_guard lock(mutex_);
        if (!k.table && borrowed_.count(name)) {
            known_.erase(name);  // an old handle may have lent its metadata: not the file's fault
            throw_changing(name);
        }
        known_[name] = k;
    }
    if (!k.table) refuse(k.error);
    return k.table;
}

std::vector<std::shared_ptr<const Catalog::Table>> Catalog::tables() {
    std::vector<std::string> names;
    for (const std::string& dir : options_.dirs) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            const std::string n = e.path().filename().string();
            if (is_table_name(n)) names.push_back(n);
        }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::vector<std::shared_ptr<const Table>> out;
    for (const std::string& n : names) {
        try {
            out.push_back(table(n));
        } catch (const std::exception&) {
            // Not a table nimtb can read, or gone meanwhile: not listed.
        }
    }
    return out;
}

std::shared_ptr<const Catalog::Table> Catalog::smallest(
    const std::string& rules, engine::Convention c,
    const std::function<bool(const engine::Universe&)>& fits) {
    std::shared_ptr<const Table> best;
    for (const auto& t : tables()) {
        if (t->rules == rules && t->convention == c && (!best || t->positions < best->positions) &&
            fits(*t->universe))
            best = t;
    }
    return best;
}

std::shared_ptr<Catalog::Open> Catalog::opened(const Table& t) {
    std::lock_guard lock(mutex_);
    auto& slot = open_[t.name];
    if (!slot) slot = std::make_shared<Open>();
    recent_.remove(t.name);
    recent_.push_front(t.name);
    while (recent_.size() > options_.open_tables) {
        open_.erase(recent_.back());  // closed when its last user lets go
        recent_.pop_back();
    }
    return slot;
}

}  // namespace nimtb::apps
