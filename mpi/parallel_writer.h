#pragma once
// One table written by every process of the job at once, with HDF5's MPI
// flavour: the same file, format and compression as one process's
// (io/table_writer.h), readable anywhere with h5py.
//
// The processes hold their blocks scattered over the rank order; first
// they trade them (MPI_Alltoallv) so that each holds a run of whole chunks,
// then each transforms its chunks, and one collective H5Dwrite per dataset
// writes them all through the filter pipeline, each process compressing its
// own chunks. The zstd and lz4 chunks are made by nimtb's own filters
// (io/hdf5_filters.h; the Debian plug-ins are built for serial HDF5), byte
// for byte what one process's writer makes.

#include <string>

#include "io/table_writer.h"
#include "mpi/distributed_solver.h"
#include "mpi/mpi_context.h"

namespace nimtb::mpi {

// Bytes of entries a process writes in a round at most: the pieces of
// chunks it traded and transformed, which HDF5's filters compress; from
// 1 MiB to 16 MiB, a 64th of a process's share of one byte per position
// (each round waits for every process: few rounds, little waiting; nim
// misere K=8 H=63 at -np 2: some 15,000 rounds of 1 MiB wrote in 124 s,
// some 1,000 of 16 MiB in 113 s).
uint64_t write_round_bytes(uint64_t positions, int processes);

// Writes `share` (every process's) to `path`, with `header` in its root: under a temporary name, closed
// by all, then synced and renamed by process 0. Collective. The share's
// arrays are released as they are written (its figures stay). Any failure
// stops the job (abort_all) and leaves nothing under `path`.
void write_table_parallel(const Comm& comm, const std::string& path,
                          const io::TableHeader& header, Share& share,
                          const io::WriteOptions& options);

}  // namespace nimtb::mpi
