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

}  // namespace

// Research: single-heap sequences and their periods, as `nimtb sequence
// --json` prints them, short enough for the page; misère quotients as
// `nimtb quotient --json` prints them. Each is computed by the command in a
// child, within the server's limits.
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
    http.route(
        "GET", "/api/quotient", guarded([&state](const http::Request& req) {
            const engine::Rule rule = engine::Rule::parse(param(req, "rules"));
            const uint64_t n = heap_param(req, "max_heap");
            if (n == 0) throw HttpError(400, "'max_heap' is one heap size, 1 or more");
            if (n > MAX_PAGE_QUOTIENT_HEAP) {
                throw HttpError(422, fmt::format("the page computes quotients up to heap {}; "
                                                 "run nimtb quotient for larger ones",
                                                 MAX_PAGE_QUOTIENT_HEAP));
            }
            const std::string late = fmt::format(
                "the page computes quotients that take at most {} s, and this one takes longer: "
                "run nimtb quotient --rules {} --max-heap {}",
                MAX_PAGE_QUOTIENT_TIME.count(), rule.canonical(), n);
            service::QuotientRequest request;
            request.rule = rule;
            request.max_heap = static_cast<uint32_t>(n);
            request.analyze = true;
            try {
                return state.work.run(req, "quotient", service::to_json(request),
                                      MAX_PAGE_QUOTIENT_TIME, late);
            } catch (const HttpError& e) {
                if (e.status == 503) throw HttpError(422, late);  // as the page has always said
                throw;
            }
        }),
        state.work.gates.quotient);
}

}  // namespace nimtb::apps
