//===- KernelInfoJSON.cpp - KernelInfo as JSON ----------------------------===//
//
// The schema `kopt-opt --analyze` prints (documented in docs/analysis.md).
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/KernelInfo.h"

using namespace llvm;

namespace kopt {

namespace {

json::Value loc(const LineCol &L) {
  return json::Object{{"line", L.Line}, {"col", L.Col}};
}

json::Value optInt(const std::optional<int64_t> &V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}

json::Value dim(const LaunchDim &D) {
  if (D.Text.empty())
    return nullptr;
  json::Object O{{"expr", D.Text}, {"dim3", D.IsDim3}};
  if (D.IsDim3) {
    O["x"] = optInt(D.Value.X);
    O["y"] = optInt(D.Value.Y);
    O["z"] = optInt(D.Value.Z);
  }
  O["value"] = optInt(D.IsDim3 ? D.Value.total() : D.Value.X);
  if (!D.WhyUnknown.empty())
    O["why_unknown"] = D.WhyUnknown;
  return O;
}

json::Value kernel(const KernelInfo &K) {
  json::Array Params;
  for (const ParamInfo &P : K.Params) {
    json::Object O{
        {"name", P.Name}, {"type", P.Type}, {"pointer", P.IsPointer}};
    if (P.IsPointer) {
      O["pointee"] = P.PointeeType;
      O["const"] = P.PointeeConst;
      O["restrict"] = P.Restrict;
    }
    Params.push_back(std::move(O));
  }
  json::Array Loops;
  for (const LoopInfo &L : K.Loops) {
    json::Object O{{"kind", LoopInfo::kindName(L.K)},
                   {"loc", loc(L.Loc)},
                   {"phase", L.Phase}};
    if (!L.Var.empty()) {
      O["var"] = L.Var;
      O["bound"] = L.Bound;
    }
    O["trip_count"] = optInt(L.TripCount);
    Loops.push_back(std::move(O));
  }
  json::Array Accesses;
  for (const AccessInfo &A : K.Accesses) {
    json::Object O{{"kind", AccessInfo::kindName(A.K)},
                   {"base", A.Base},
                   {"element_type", A.ElementType},
                   {"index", A.Index},
                   {"class", A.Class.kindName()},
                   {"phase", A.Phase},
                   {"loc", loc(A.Loc)}};
    O["stride"] = optInt(A.Class.Stride);
    Accesses.push_back(std::move(O));
  }
  json::Array Barriers;
  for (const BarrierInfo &B : K.Barriers)
    Barriers.push_back(json::Object{{"callee", B.Callee},
                                    {"loc", loc(B.Loc)},
                                    {"ends_phase", B.PhaseBefore}});
  json::Array Shared;
  for (const SharedArrayInfo &S : K.SharedArrays)
    Shared.push_back(json::Object{{"name", S.Name},
                                  {"type", S.Type},
                                  {"dynamic", S.Dynamic},
                                  {"elements", optInt(S.Elements)},
                                  {"loc", loc(S.Loc)}});
  json::Array ReReads;
  for (const ReReadInfo &R : K.ReReads)
    ReReads.push_back(json::Object{{"base", R.Base},
                                   {"index", R.Index},
                                   {"first", loc(R.First)},
                                   {"first_phase", R.FirstPhase},
                                   {"again", loc(R.Again)},
                                   {"again_phase", R.AgainPhase},
                                   {"base_written", R.BaseWritten}});
  json::Array Attrs;
  for (const std::string &A : K.Attributes)
    Attrs.push_back(A);
  json::Object LB;
  if (K.LaunchBoundsMaxThreads || K.LaunchBoundsMinBlocks)
    LB = json::Object{{"max_threads", optInt(K.LaunchBoundsMaxThreads)},
                      {"min_blocks", optInt(K.LaunchBoundsMinBlocks)}};
  json::Object O{
      {"name", K.Name},
      {"loc", loc(K.Loc)},
      {"template", K.IsTemplate},
      {"params", std::move(Params)},
      {"attributes", std::move(Attrs)},
      {"launch_bounds",
       LB.empty() ? json::Value(nullptr) : json::Value(std::move(LB))},
      {"loops", std::move(Loops)},
      {"accesses", std::move(Accesses)},
      {"barriers", std::move(Barriers)},
      {"phases", K.NumPhases},
      {"shared_arrays", std::move(Shared)},
      {"rereads", std::move(ReReads)},
  };
  if (!K.TemplateArgs.empty())
    O["template_args"] = K.TemplateArgs;
  if (K.IsTemplate) {
    json::Array Instances;
    for (const KernelInfo &I : K.Instances)
      Instances.push_back(kernel(I));
    O["instances"] = std::move(Instances);
  }
  return O;
}

} // namespace

json::Value toJSON(const ProgramInfo &Info) {
  json::Array Kernels;
  for (const KernelInfo &K : Info.Kernels)
    Kernels.push_back(kernel(K));
  json::Array Launches;
  for (const LaunchSite &L : Info.LaunchSites)
    Launches.push_back(json::Object{
        {"kernel", L.Kernel},
        {"template_args", L.TemplateArgs},
        {"caller", L.Caller},
        {"loc", loc(L.Loc)},
        {"grid", dim(L.Grid)},
        {"block", dim(L.Block)},
        {"shared_bytes", dim(L.SharedBytes)},
        {"stream", L.Stream.Text.empty() ? json::Value(nullptr)
                                         : json::Value(L.Stream.Text)}});
  json::Array Unknown;
  for (const std::string &K : Info.KernelsWithUnknownLaunches)
    Unknown.push_back(K);
  return json::Object{{"file", Info.File},
                      {"gpu_arch", Info.GpuArch},
                      {"kernels", std::move(Kernels)},
                      {"launch_sites", std::move(Launches)},
                      {"kernels_with_unknown_launches", std::move(Unknown)}};
}

} // namespace kopt
