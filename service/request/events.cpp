#include "service/request/events.h"

#include <new>

#include "engine/base/errors.h"
#include "service/request/words.h"

namespace nimtb::service {

namespace {

constexpr std::string_view KIND_NAMES[] = {"usage", "too-large",   "memory", "not-found",
                                           "file",  "interrupted", "failed"};

}  // namespace

ErrorKind error_kind(const std::exception& e) {
    // The most derived classes first: NotInTable is an InputError, NoSuchFile a TableError.
    if (dynamic_cast<const InputError*>(&e)) return ErrorKind::usage;
    if (dynamic_cast<const ResourceError*>(&e)) return ErrorKind::too_large;
    if (dynamic_cast<const std::bad_alloc*>(&e)) return ErrorKind::memory;
    if (dynamic_cast<const NoSuchFile*>(&e)) return ErrorKind::not_found;
    if (dynamic_cast<const TableError*>(&e)) return ErrorKind::file;
    if (dynamic_cast<const Cancelled*>(&e)) return ErrorKind::interrupted;
    return ErrorKind::failed;
}

std::string_view to_string(ErrorKind kind) {
    return KIND_NAMES[static_cast<size_t>(kind)];
}

ErrorKind parse_error_kind(std::string_view text) {
    for (size_t i = 0; i < std::size(KIND_NAMES); ++i)
        if (KIND_NAMES[i] == text) return static_cast<ErrorKind>(i);
    return ErrorKind::failed;
}

int exit_code(ErrorKind kind) {
    return kind == ErrorKind::usage ? EXIT_USAGE : EXIT_FAILED;
}

void EventStream::write(const nlohmann::json& event) {
    // A message that is not UTF-8 (a file name, say) is mended, never an
    // exception on the way out.
    const std::string line =
        event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(line.data(), 1, line.size(), out_);
    std::fflush(out_);
}

void EventStream::progress(uint64_t done, uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (done < total && now - last_progress_ < std::chrono::milliseconds(100)) return;
    if (done == total && done == last_done_) return;  // the end, said once
    last_progress_ = now;
    last_done_ = done;
    write({{"event", "progress"},
           {"done", done},
           {"total", total},
           {"fraction", total ? double(done) / double(total) : 1.0}});
}

void EventStream::note(const std::string& message) {
    write({{"event", "note"}, {"message", message}});
}

void EventStream::data(std::string_view text) {
    write({{"event", "data"}, {"text", text}});
}

void EventStream::result(const nlohmann::json& result) {
    nlohmann::json event = {{"event", "result"}};
    event.update(result);
    event["event"] = "result";
    write(event);
}

void EventStream::error(const std::exception& e) {
    error(error_kind(e), failure_message(e));
}

void EventStream::error(ErrorKind kind, const std::string& message) {
    write({{"event", "error"}, {"kind", to_string(kind)}, {"message", message}});
}

std::optional<nlohmann::json> parse_event(std::string_view line) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("event") || !j["event"].is_string())
        return std::nullopt;
    return j;
}

}  // namespace nimtb::service
