#include "apps/server/api.h"
#include "service/quotients.h"
#include "service/sequences.h"

namespace nimtb::apps {

using nlohmann::json;

namespace {

// One heap size of a parameter.
uint64_t heap_param(const http::Request& req, const char* name) {
    const engine::Heaps h = engine::parse_heaps(param(req, name));
    if (h.size() != 1) throw HttpError(400, fmt::format("'{}' is one heap size", name));
    return h[0];
}

// `max_heap` of a single-heap computation the page asks for: at least
// `least`, at most MAX_PAGE_QUOTIENT_HEAP (422 past it, naming `command`).
uint32_t page_heap(const http::Request& req, uint64_t least, const char* command) {
    const uint64_t n = heap_param(req, "max_heap");
    if (n < least)
        throw HttpError(400, fmt::format("'max_heap' is one heap size, {} or more", least));
    if (n > MAX_PAGE_QUOTIENT_HEAP) {
        throw HttpError(422, fmt::format("the page computes {}s up to heap {}; run nimtb {} for "
                                         "larger ones",
                                         command, MAX_PAGE_QUOTIENT_HEAP, command));
    }
    return static_cast<uint32_t>(n);
}

// `nimtb COMMAND` in a child for the page, within MAX_PAGE_QUOTIENT_TIME:
// past it a 422 that names the command to run without the page's limit.
json page_work(ServerState& state, const http::Request& req, const char* command,
               const json& request, const engine::Rule& rule, uint32_t max_heap) {
    const std::string late = fmt::format(
        "the page computes {}s that take at most {} s, and this one takes longer: run nimtb {} "
        "--rules {} --max-heap {}",
        command, MAX_PAGE_QUOTIENT_TIME.count(), command, rule.canonical(), max_heap);
    try {
        return state.work.run(req, command, request, MAX_PAGE_QUOTIENT_TIME, late);
    } catch (const HttpError& e) {
        if (e.status == 503) throw HttpError(422, late);  // as the page has always said
        throw;
    }
}

}  // namespace

// Research: single-heap sequences and their periods, as `nimtb sequence
// --json` prints them, short enough for the page; misère quotients as
// `nimtb quotient --json` prints them; Conway's genus as `nimtb genus --json`
// prints it. Each is computed by the command in a child, within the
// server's limits.
void add_research_routes(http::Server& http, ServerState& state) {
    http.route("GET", "/api/sequence", guarded([&state](const http::Request& req) {
                   const engine::Rule rule = engine::Rule::parse(param(req, "rules"));
                   const bool until_proven = req.has_param("until_proven");
                   const char* bound = until_proven ? "limit" : "max_heap";
                   uint64_t n = MAX_PAGE_SEQUENCE;
                   if (!until_proven || req.has_param("limit")) n = heap_param(req, bound);
                   if (n > MAX_PAGE_SEQUENCE) {
                       throw HttpError(422, fmt::format("the page computes sequences up to heap "
                                                        "{}; run nimtb sequence for longer ones",
                                                        MAX_PAGE_SEQUENCE));
                   }
                   if (n == 0) throw HttpError(400, fmt::format("'{}' is 1 or more", bound));
                   service::SequenceRequest request;
                   request.rule = rule;
                   if (until_proven)
                       request.limit = n;
                   else
                       request.max_heap = n;
                   return state.work.run(
                       req, "sequence", service::to_json(request), state.options.job_time,
                       "this sequence takes longer than the server allows; run nimtb "
                       "sequence");
               }),
               state.work.gates.sequence);
    http.route("GET", "/api/quotient", guarded([&state](const http::Request& req) {
                   service::QuotientRequest request;
                   request.rule = engine::Rule::parse(param(req, "rules"));
                   request.max_heap = page_heap(req, 1, "quotient");
                   request.analyze = true;
                   return page_work(state, req, "quotient", service::to_json(request), request.rule,
                                    request.max_heap);
               }),
               state.work.gates.quotient);
    // Conway's genus of each heap, as `nimtb genus --json` prints it.
    http.route("GET", "/api/genus", guarded([&state](const http::Request& req) {
                   service::GenusRequest request;
                   request.rule = engine::Rule::parse(param(req, "rules"));
                   request.max_heap = page_heap(req, 0, "genus");
                   return page_work(state, req, "genus", service::to_json(request), request.rule,
                                    request.max_heap);
               }),
               state.work.gates.quotient);
}

}  // namespace nimtb::apps
