//===- Batch.h - Many pipelines in one kopt-opt process -------*- C++ -*-===//
//
// `kopt-opt --batch FILE` runs one job a line of FILE, each a JSON object
//   {"input": PATH, "output": PATH, "passes": PIPELINE, "remarks": PATH?}
// in order, in this process: jobs on the same input reparse it with their
// code (the CUDA headers, precompiled on the first parse, are kept), so a
// search that makes many candidates from one source parses the headers
// once, not once a candidate. Each job writes what `kopt-opt INPUT
// -passes=PIPELINE -o OUTPUT --remarks=REMARKS` would, byte for byte, and
// prints one JSON line on stdout: {"job": N, "ok": true} or {"job": N,
// "ok": false, "error": TEXT}. A job may add
//   "resume": {"steps": N, "code": PATH, "remarks": PATH}
// where PATH holds the output of the pipeline's first N steps on INPUT and
// their remarks document: the job then runs only the later steps, on that
// code parsed as INPUT's text (the state the whole pipeline reaches after
// N steps, since it reparses between steps), and writes the same output and
// remarks. kopt-search resumes a child from its parent's output.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_TOOLS_KOPTOPT_BATCH_H
#define KOPT_TOOLS_KOPTOPT_BATCH_H

#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Pipeline/PassManager.h"

#include "llvm/ADT/StringRef.h"

namespace kopt {

/// Runs the jobs of \p File; the exit code: 0 when every job ran (each
/// says whether it succeeded), 1 when \p File cannot be read or a line is
/// not a job (nothing is run then).
int runBatch(llvm::StringRef File, const CudaFrontend &Frontend,
             PassManagerOptions Options);

} // namespace kopt

#endif // KOPT_TOOLS_KOPTOPT_BATCH_H
