//===- BlockParams.h - Parameters that carry the block size -----*- C++ -*-===//
//
// llm.c passes its block size to the kernel it launches (`k<<<g, bs>>>(...,
// bs)`) and sizes loops and trees by the parameter. Where every launch in
// the file passes the value of its 1-D block, the parameter is blockDim.x.
// (Defined in LaunchSites.cpp, with the other facts about launches.)
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_BLOCKPARAMS_H
#define KOPT_ANALYSIS_BLOCKPARAMS_H

#include "kopt/Analysis/KernelInfo.h"

#include <string>

namespace kopt {

/// Why K's parameter Index is not known to equal blockDim.x in every launch
/// of K (of its instantiation); "" where every launch in Info passes the
/// value of its 1-D block there (the block's own variable or the same
/// constant, in a launch whose arguments change nothing) and no launch is
/// hidden.
std::string whyParamIsNotBlockX(const ProgramInfo &Info, const KernelInfo &K,
                                unsigned Index);

} // namespace kopt

#endif // KOPT_ANALYSIS_BLOCKPARAMS_H
