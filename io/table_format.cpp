#include "io/table_format.h"

#include <string>

namespace nimtb::io {

Compression parse_compression(std::string_view text) {
    if (text == "deflate" || text == "gzip") return Compression::deflate;
    if (text == "zstd") return Compression::zstd;
    if (text == "lz4") return Compression::lz4;
    if (text == "none") return Compression::none;
    throw nimtb::InputError("unknown compression '" + std::string(text) +
                            "': expected deflate, zstd, lz4 or none");
}

const char* to_string(Compression c) {
    switch (c) {
        case Compression::deflate:
            return "deflate";
        case Compression::zstd:
            return "zstd";
        case Compression::lz4:
            return "lz4";
        case Compression::none:
            return "none";
        case Compression::other:
            return "other";
    }
    return "other";
}

}  // namespace nimtb::io
