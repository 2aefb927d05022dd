#pragma once
// The solve driver of one process: a request checked, the table's path
// checked before any work, the plan run (resumed from its checkpoint when
// there is one), the table written under a temporary name and renamed, the
// checkpoint removed, the figures written. What `nimtb solve`, `import
// nimtb`, and the solves on the spot of `play` and `serve` all run; under
// mpirun the command hands the same request to nimtb-mpi (mpi/), which runs
// the same plan across processes.

#include "service/request/hooks.h"
#include "service/request/solve_report.h"
#include "service/request/solve_request.h"

namespace nimtb::service {

// Throws InputError (a request no solve can run), TableError (the path
// taken, its folder missing, a checkpoint of another solve), ResourceError
// (beyond the machine's memory or the format's 16 bits), Cancelled (hooks'
// cancel set: no table and no partial file is left).
SolveReport solve_table(const SolveRequest& request, const Hooks& hooks);

// Refuses early what would fail late: a request no solve can run
// (SolveRequest::check), then check_destination. solve_table calls it first.
void check_solve(const SolveRequest& request);

// Refuses a table already at the path (without overwrite), a missing
// folder, statistics written over the table.
void check_destination(const SolveRequest& request);

}  // namespace nimtb::service
