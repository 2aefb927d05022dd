#pragma once
// One table from every process of the job, the same file, format and
// compression as one process's, made by one process's writer
// (io/table_writer.h).
//
// The chunks a streamed process held whole were encoded beside the solve
// (chunk_encoder.h); where they are encoded as the table stores them, they
// are taken as they are. The processes hold the other chunks' blocks
// scattered over the rank order; round by round they trade them
// (MPI_Alltoallv) so that each holds a run of whole chunks, and each
// encodes its chunks as that writer does (io::encode_chunk: transformed,
// compressed, checksummed) into a file beside the table, with no other
// wait on the others. Then process 0 writes the table with
// io::write_table, which stores the chunks as they are: its own read back,
// the others' sent to it in chunk order. Only the compressed table crosses
// to process 0, and HDF5 runs in process 0 alone, as one process's does.

#include <string>

#include "io/table_writer.h"
#include "mpi/distributed_solver.h"
#include "mpi/mpi_context.h"

namespace nimtb::mpi {

// Bytes of entries a process encodes in a round at most, the pieces of
// chunks it traded: from 1 MiB to 16 MiB, a 64th of a process's share of
// one byte per position (each round's trade waits for every process: few
// rounds, little waiting).
uint64_t write_round_bytes(uint64_t positions, int processes);

// Writes `share` (every process's) to `path`, with `header` in its root.
// Collective. The share's arrays are released as they are encoded (its
// figures stay). A failure while encoding is thrown on every process
// (SharedError); one while process 0 writes stops the job (abort_all).
// Neither leaves anything under `path`.
void write_table_parallel(const Comm& comm, const std::string& path,
                          const io::TableHeader& header, Share& share,
                          const io::WriteOptions& options);

}  // namespace nimtb::mpi
