#include "io/codec/table_format.h"

#include <string>

#include "engine/base/names.h"

namespace nimtb::io {

namespace {
// What a table can be written with; `other` (a filter nimtb does not write)
// is only ever read.
constexpr Named<Compression> COMPRESSIONS[] = {{Compression::deflate, "deflate"},
                                               {Compression::zstd, "zstd"},
                                               {Compression::lz4, "lz4"},
                                               {Compression::none, "none"},
                                               {Compression::deflate, "gzip"}};
constexpr Named<Transform> TRANSFORMS[] = {{Transform::none, "none"},
                                           {Transform::xor_previous, "xor-previous"},
                                           {Transform::delta_zigzag, "delta-zigzag"}};
}  // namespace

Transform parse_transform(std::string_view text) {
    return parse_name(TRANSFORMS, text, "transform");
}

const char* to_string(Transform t) {
    return name_of(TRANSFORMS, t);
}

int default_level(Compression c) {
    return c == Compression::zstd ? 4 : 6;
}

Compression parse_compression(std::string_view text) {
    return parse_name(COMPRESSIONS, text, "compression");
}

const char* to_string(Compression c) {
    return c == Compression::other ? "other" : name_of(COMPRESSIONS, c);
}

}  // namespace nimtb::io
