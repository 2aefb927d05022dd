#include "io/table_format.h"

#include <string>

#include "engine/names.h"

namespace nimtb::io {

namespace {
// What a table can be written with; `other` (a filter nimtb does not write)
// is only ever read.
constexpr Named<Compression> COMPRESSIONS[] = {{Compression::deflate, "deflate"},
                                               {Compression::zstd, "zstd"},
                                               {Compression::lz4, "lz4"},
                                               {Compression::none, "none"},
                                               {Compression::deflate, "gzip"}};
}  // namespace

Compression parse_compression(std::string_view text) {
    return parse_name(COMPRESSIONS, text, "compression");
}

const char* to_string(Compression c) {
    return c == Compression::other ? "other" : name_of(COMPRESSIONS, c);
}

}  // namespace nimtb::io
