#pragma once
// nimtb's own classes for the two plug-in filters its tables use: Blosc
// (32001, zstd inside) and LZ4 (32004), over the codecs of chunk_codec.h.
// Registered in the process's HDF5, they stand in for Debian's plug-ins
// (which h5py uses to read the same tables), so nimtb never loads a
// plug-in: a plug-in links the shared libhdf5, and nimtb may have HDF5
// linked in statically, where a second HDF5 in the process breaks.

namespace nimtb::io {

// Registers both filters once; init_hdf5() calls it. Returns false if HDF5
// refused one.
bool register_filters();

}  // namespace nimtb::io
