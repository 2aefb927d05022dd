#include "service/sequence_checkpoint.h"

#include <fmt/core.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "engine/base/errors.h"
#include "io/codec/publish.h"

namespace nimtb::service {

namespace fs = std::filesystem;

namespace {

constexpr const char* FORMAT = "nimtb-sequence-checkpoint";
constexpr int VERSION = 2;     // 1: one file, appended to
constexpr int ZSTD_LEVEL = 1;  // fast: saved while the sequence runs
constexpr const char* MANIFEST = "manifest.json";

// values-FFFFFFFFFFFF.zst: F is the first heap the file holds.
std::optional<uint64_t> first_heap_of(const std::string& name) {
    unsigned long long first = 0;
    int used = 0;
    if (std::sscanf(name.c_str(), "values-%12llu.zst%n", &first, &used) != 1 ||
        static_cast<size_t>(used) != name.size() || name.size() != 23)
        return std::nullopt;
    return first;
}

std::string read_whole(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    if (!in.good() && !in.eof()) throw TableError("cannot read " + path.string());
    return bytes;
}

// The content of the zstd frame `frame`, or nothing when it is damaged.
std::optional<std::string> unpack(const std::string& frame) {
    const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (1ull << 40))
        return std::nullopt;
    std::string content(size, '\0');
    const size_t n = ZSTD_decompress(content.data(), content.size(), frame.data(), frame.size());
    if (ZSTD_isError(n) || n != size) return std::nullopt;
    return content;
}

uint64_t le64(const std::string& s) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(s[i]);
    return v;
}

}  // namespace

SequenceCheckpoint::SequenceCheckpoint(std::string dir, const engine::Rule& rule)
    : dir_(std::move(dir)) {
    const std::string rules = rule.canonical();
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (!fs::is_directory(dir_, ec))
        throw TableError("cannot use " + dir_ + " as the checkpoint folder: it is not a folder");
    const fs::path manifest = fs::path(dir_) / MANIFEST;
    std::vector<std::pair<uint64_t, fs::path>> files;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        if (auto first = first_heap_of(e.path().filename().string()))
            files.emplace_back(*first, e.path());
    }
    if (ec) throw TableError("cannot read the checkpoint folder " + dir_ + ": " + ec.message());
    if (!fs::exists(manifest, ec)) {
        if (!files.empty()) {
            throw TableError(dir_ + " holds a sequence's values but no " + MANIFEST +
                             ": it is damaged; remove it to start again");
        }
        const std::string id =
            nlohmann::json{{"format", FORMAT}, {"version", VERSION}, {"rules", rules}}.dump();
        io::write_file_whole(manifest.string(), id + "\n");
        return;
    }
    const std::string text = read_whole(manifest);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("format") || j["format"] != FORMAT) {
        throw TableError(dir_ + " is not a nimtb sequence checkpoint (give another " +
                         mention(Option::checkpoint) + " folder, or remove it)");
    }
    if (!j.contains("version") || j["version"] != VERSION)
        throw TableError(dir_ + " is not a nimtb sequence checkpoint of this version");
    if (!j.contains("rules") || j["rules"] != rules) {
        const std::string theirs = j.contains("rules") && j["rules"].is_string()
                                       ? j["rules"].get<std::string>().substr(0, 60)
                                       : "?";
        throw TableError(
            fmt::format("the checkpoint {} is of the rule {}, not {} (give another {})", dir_,
                        theirs, rules, mention(Option::checkpoint)));
    }
    std::sort(files.begin(), files.end());
    for (const auto& [first, path] : files) {
        if (first != values_.size()) {  // a gap: what follows is not read, and goes at save()
            stale_.push_back(path.string());
            continue;
        }
        const std::optional<std::string> content = unpack(read_whole(path));
        if (!content || content->size() < 8 || content->size() % 2 != 0 ||
            le64(*content) != first) {
            throw TableError(fmt::format(
                "{} is damaged (its checksum fails); remove it and the files after it, and the "
                "same command goes on from heap {}",
                path.string(), values_.size()));
        }
        const size_t n = (content->size() - 8) / 2;
        values_.resize(first + n);
        for (size_t i = 0; i < n; ++i) {
            values_[first + i] =
                static_cast<uint16_t>(static_cast<uint8_t>((*content)[8 + 2 * i]) |
                                      static_cast<uint8_t>((*content)[9 + 2 * i]) << 8);
        }
    }
    saved_ = values_.size();
}

void SequenceCheckpoint::save(std::span<const uint16_t> values) {
    if (values.size() <= saved_) return;
    std::string content;
    content.reserve(8 + 2 * (values.size() - saved_));
    for (int i = 0; i < 8; ++i) content.push_back(static_cast<char>(saved_ >> (8 * i)));
    for (size_t i = saved_; i < values.size(); ++i) {
        content.push_back(static_cast<char>(values[i]));
        content.push_back(static_cast<char>(values[i] >> 8));
    }
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> z(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!z) throw std::bad_alloc();
    ZSTD_CCtx_setParameter(z.get(), ZSTD_c_compressionLevel, ZSTD_LEVEL);
    ZSTD_CCtx_setParameter(z.get(), ZSTD_c_checksumFlag, 1);
    std::string frame(ZSTD_compressBound(content.size()), '\0');
    const size_t n =
        ZSTD_compress2(z.get(), frame.data(), frame.size(), content.data(), content.size());
    if (ZSTD_isError(n)) throw TableError("cannot compress the checkpoint " + dir_);
    frame.resize(n);
    // Files past a gap would be read after this save's values as if they
    // went on from them: they go first (a crash between leaves a shorter
    // checkpoint, never a wrong one).
    for (const std::string& path : stale_) {
        std::error_code ec;
        fs::remove(path, ec);
        if (ec) throw TableError("cannot remove " + path + ": " + ec.message());
    }
    stale_.clear();
    io::write_file_whole((fs::path(dir_) / fmt::format("values-{:012}.zst", saved_)).string(),
                         frame);
    saved_ = values.size();
}

void SequenceCheckpoint::remove() {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        const std::string name = e.path().filename().string();
        if (name == MANIFEST || io::is_draft_name(name) || first_heap_of(name))
            fs::remove(e.path(), ec);
    }
    fs::remove(dir_, ec);  // only when empty
}

}  // namespace nimtb::service
