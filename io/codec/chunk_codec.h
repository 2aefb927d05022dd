#pragma once
// One chunk of a dataset, as format v2 stores it (docs/FORMAT.md): the
// entries in the file's width, a transform that makes them compress well,
// then a compressor, then HDF5's Fletcher-32 checksum. The writer encodes
// chunks in parallel and hands the bytes to H5Dwrite_chunk; the reader reads
// them with H5Dread_chunk and decodes them here, so reading needs no HDF5
// plug-in. Every function is pure: safe to call from any thread.
//
// The codec's parts, one file each: checksum.h, transforms.h,
// compressors.h, chunk_decoder.h.

#include "io/codec/checksum.h"
#include "io/codec/chunk_decoder.h"
#include "io/codec/compressors.h"
#include "io/codec/transforms.h"
