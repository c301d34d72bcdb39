//===- BuiltinPasses.cpp - The registry of kopt's passes ------------------===//

#include "kopt/Passes/BuiltinPasses.h"
#include "kopt/Pass/Pass.h"

namespace kopt {

#define KOPT_PASS(NAME, ID, SUMMARY) std::unique_ptr<Pass> create##ID##Pass();
#include "Passes.def"

namespace {

PassRegistry buildRegistry() {
  PassRegistry R;
  PassSpec *Current = nullptr;
  std::vector<PassSpec> Specs;
#define KOPT_PASS(NAME, ID, SUMMARY)                                           \
  Specs.push_back({NAME, SUMMARY, {}, &create##ID##Pass});                     \
  Current = &Specs.back();
#define KOPT_PASS_PARAM(ID, FIELD, KEY, TYPE, DEFAULT, EFFECT, SEARCH, HELP)   \
  Current->Params.push_back(                                                   \
      {KEY, ParamType::TYPE, DEFAULT, ParamEffect::EFFECT, SEARCH, HELP});
#include "Passes.def"
  for (PassSpec &S : Specs)
    R.addPass(std::move(S));
#define KOPT_PIPELINE(NAME, PIPELINE, SUMMARY)                                 \
  R.addAlias({NAME, PIPELINE, SUMMARY});
#include "Passes.def"
  return R;
}

} // namespace

const PassRegistry &builtinPasses() {
  static const PassRegistry Registry = buildRegistry();
  return Registry;
}

} // namespace kopt
