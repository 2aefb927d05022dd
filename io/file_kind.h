#pragma once
// What kind of nimtb file a path claims to be, before any reader checks it:
// `nimtb info` picks its reader by it. The claim is the HDF5 root's
// `format` attribute (a table or a sequence file), or a JSON object (a
// quotient file, docs/FORMAT.md); the reader then believes nothing unchecked.

#include <string>

namespace nimtb::io {

enum class FileKind {
    table,     // HDF5, format 'nimtb-table'
    sequence,  // HDF5, format 'nimtb-sequence'
    quotient,  // not HDF5, its first character other than white space '{'
    other,     // anything else: the table reader says what is wrong with it
};

// Throws TableError for a folder, and for a `format` attribute HDF5 cannot
// read (its reader would refuse the file with the same words).
FileKind file_kind(const std::string& path);

}  // namespace nimtb::io
