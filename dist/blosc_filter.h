#pragma once
// HDF5's Blosc filter (id 32001) with the zstd codec, registered in this
// process: the parallel writer's pipeline compresses zstd chunks with it.

namespace nimtb::dist {

// Registers the filter once. Throws TableError when HDF5 refuses it.
void register_blosc_filter();

}  // namespace nimtb::dist
