#include "apps/server/api.h"
#include "service/quotients.h"
#include "service/sequences.h"
#include "service/views.h"

namespace nimtb::apps {

using nlohmann::json;
using namespace service;

// Research: single-heap sequences and their periods, as `nimtb sequence
// --json` prints them, short enough for the page; misère quotients as
// `nimtb quotient --json` prints them.
void add_research_routes(httplib::Server& http, ServerState&) {
    http.Get("/api/sequence", guarded([](const httplib::Request& req) {
                 SequenceRequest r;
                 r.rule = engine::Rule::parse(param(req, "rules"));
                 const bool until_proven = req.has_param("until_proven");
                 const std::string bound = until_proven ? "limit" : "max_heap";
                 uint64_t n = MAX_PAGE_SEQUENCE;
                 if (!until_proven || req.has_param("limit")) {
                     const engine::Heaps h = engine::parse_heaps(param(req, bound.c_str()));
                     if (h.size() != 1) throw HttpError(400, "'" + bound + "' is one heap size");
                     n = h[0];
                 }
                 if (n > MAX_PAGE_SEQUENCE) {
                     throw HttpError(422, fmt::format("the page computes sequences up to heap {}; "
                                                      "run nimtb sequence for longer ones",
                                                      MAX_PAGE_SEQUENCE));
                 }
                 if (until_proven) {
                     r.limit = n;
                 } else {
                     r.max_heap = n;
                 }
                 return sequence_json(r.rule, compute_sequence(r, {}));
             }));
    http.Get("/api/quotient", guarded([](const httplib::Request& req) {
                 QuotientRequest r;
                 r.rule = engine::Rule::parse(param(req, "rules"));
                 const engine::Heaps h = engine::parse_heaps(param(req, "max_heap"));
                 if (h.size() != 1 || h[0] == 0)
                     throw HttpError(400, "'max_heap' is one heap size, 1 or more");
                 if (h[0] > MAX_PAGE_QUOTIENT_HEAP) {
                     throw HttpError(422, fmt::format("the page computes quotients up to heap {}; "
                                                      "run nimtb quotient for larger ones",
                                                      MAX_PAGE_QUOTIENT_HEAP));
                 }
                 r.max_heap = h[0];
                 const Deadline deadline(MAX_PAGE_QUOTIENT_TIME);
                 Hooks hooks;
                 hooks.cancel = deadline.flag();
                 try {
                     return quotient_json(r.rule, compute_quotient(r, hooks));
                 } catch (const Cancelled&) {
                     throw HttpError(
                         422, fmt::format("the page computes quotients that take at most {} s, and "
                                          "this one takes longer: run nimtb quotient --rules {} "
                                          "--max-heap {}",
                                          MAX_PAGE_QUOTIENT_TIME.count(), r.rule.canonical(),
                                          r.max_heap));
                 }
             }));
}

}  // namespace nimtb::apps
