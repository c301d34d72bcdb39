//===- NcuProfile.h - Nsight Compute metrics of a candidate -----*- C++ -*-===//
//
// `kopt-bench run --profile`: after a candidate evaluated ok, one more child
// runs its entry once on the benchmark shape under `ncu`, between
// cudaProfilerStart/Stop (a warm-up call first), and the record gets a
// small fixed set of metrics per kernel launch under "profile". The LLM
// proposer puts them in its prompt. Where ncu is missing or refuses (no
// access to the performance counters), "profile" holds the reason instead.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_NCUPROFILE_H
#define KOPT_EVAL_NCUPROFILE_H

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kopt::eval {

/// The metrics collected, in the order reported.
const std::vector<std::string> &profileMetrics();

/// $KOPT_NCU, then ncu beside nvcc, then on PATH; empty when none.
std::string findNcu(const std::string &Nvcc);

/// The ncu command line that profiles \p Worker's `__evaluate JOB`, writing
/// its CSV (--page raw) to \p CsvPath.
std::vector<std::string> ncuCommand(const std::string &Ncu,
                                    const std::string &Worker,
                                    const std::string &JobPath,
                                    const std::string &CsvPath);

/// Reads ncu's raw CSV: {"kernels": [{"name", "block", "grid", "metrics":
/// {metric: number}}]}; {"error": ...} when it holds no kernel row.
nlohmann::json parseNcuCsv(const std::string &Csv);

} // namespace kopt::eval

#endif // KOPT_EVAL_NCUPROFILE_H
