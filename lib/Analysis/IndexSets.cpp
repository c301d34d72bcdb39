//===- IndexSets.cpp - Integer-set questions about affine forms -----------===//
//
// Each query instantiates the forms it is about as rows over the variables
// of one integer set: a variable per symbol (per thread copy for symbols
// that vary between threads), a local variable per division, and the
// question's own constraints. C's `/` and `%` round toward zero; a truncating
// division is modelled as floor division only after the set of its
// assumptions alone proves its operand non-negative, else the query gives up.
//
//===----------------------------------------------------------------------===//

#include "kopt/Analysis/IndexSets.h"

#include "mlir/Analysis/Presburger/IntegerRelation.h"

#include <map>
#include <vector>

using namespace mlir::presburger;

namespace kopt {

namespace {

/// A linear row: Coefficients over the set's variables and a constant.
struct Row {
  std::map<unsigned, int64_t> Coefficients;
  int64_t Constant = 0;

  Row &add(unsigned Var, int64_t C) {
    if (C && (Coefficients[Var] += C) == 0)
      Coefficients.erase(Var);
    return *this;
  }
  static Row var(unsigned V, int64_t C = 1) {
    Row R;
    R.add(V, C);
    return R;
  }
  Row plus(const Row &O, int64_t Scale = 1) const {
    Row R = *this;
    R.Constant += O.Constant * Scale;
    for (const auto &[V, C] : O.Coefficients)
      R.add(V, C * Scale);
    return R;
  }
  Row minus(const Row &O) const { return plus(O, -1); }
  Row offset(int64_t C) const {
    Row R = *this;
    R.Constant += C;
    return R;
  }
};

/// Which constraints a check may use.
enum class Role { Assumption, Definition, Goal };

class SetBuilder {
public:
  explicit SetBuilder(AffineContext &A) : A(A) {}

  unsigned newVar() { return NumVars++; }

  void addGE(Row R, Role Why = Role::Assumption) {
    Constraints.push_back({std::move(R), false, Why});
  }
  void addEQ(Row R, Role Why = Role::Assumption) {
    Constraints.push_back({std::move(R), true, Why});
  }

  /// The variable of symbol S in thread copy Copy (symbols the same in all
  /// threads share one variable).
  std::optional<unsigned> varOf(unsigned S, unsigned Copy) {
    const AffineSymbol &Sym = A.symbol(S);
    unsigned Key = Sym.Uniform ? 0 : Copy;
    auto It = Vars.find({S, Key});
    if (It != Vars.end())
      return It->second;
    if (!Sym.Uniform && Sym.K == AffineSymbol::Opaque)
      return std::nullopt; // e.g. threadIdx.x * n: no linear meaning
    unsigned V = newVar();
    Vars[{S, Key}] = V;
    if (Sym.Min)
      addGE(Row::var(V).offset(-*Sym.Min));
    if (Sym.K == AffineSymbol::FloorDiv || Sym.K == AffineSymbol::Mod) {
      std::optional<Row> E = row(Sym.Operand, Copy);
      if (!E)
        return std::nullopt;
      unsigned Q = Sym.K == AffineSymbol::FloorDiv ? V : newVar();
      int64_t D = Sym.Divisor;
      if (Sym.K == AffineSymbol::Mod) // V = E - D * Q
        addEQ(Row::var(V).minus(*E).plus(Row::var(Q, D)), Role::Definition);
      // D * Q <= E <= D * Q + D - 1
      addGE(E->minus(Row::var(Q, D)), Role::Definition);
      addGE(Row::var(Q, D).minus(*E).offset(D - 1), Role::Definition);
      if (Sym.Truncates)
        NonNegative.push_back(*E);
    }
    return V;
  }

  /// F as a row over the set's variables, thread-varying symbols taken
  /// from copy Copy.
  std::optional<Row> row(const AffineForm &F, unsigned Copy) {
    Row R;
    R.Constant = F.Constant;
    for (const auto &[S, C] : F.Terms) {
      std::optional<unsigned> V = varOf(S, Copy);
      if (!V)
        return std::nullopt;
      R.add(*V, C);
    }
    return R;
  }

  /// True if the set of all constraints is empty, given that every
  /// truncating division's operand is non-negative under the assumptions.
  bool empty() {
    // A floor-division definition holds for some quotient whatever its
    // operand, so it never narrows what the assumptions allow; the
    // question's goal is left out.
    for (const Row &E : NonNegative) {
      std::vector<const Constraint *> Use;
      for (const Constraint &C : Constraints)
        if (C.Why != Role::Goal)
          Use.push_back(&C);
      Constraint Negative{Row().plus(E, -1).offset(-1), false,
                          Role::Goal}; // -E - 1 >= 0
      Use.push_back(&Negative);
      if (!isEmpty(Use))
        return false;
    }
    std::vector<const Constraint *> All;
    for (const Constraint &C : Constraints)
      All.push_back(&C);
    return isEmpty(All);
  }

  /// A point of the set, or none.
  std::optional<std::vector<int64_t>> sample() {
    IntegerPolyhedron P = polyhedron(allConstraints());
    std::optional<llvm::SmallVector<llvm::DynamicAPInt, 8>> S =
        P.findIntegerSample();
    if (!S)
      return std::nullopt;
    std::vector<int64_t> Out;
    for (const llvm::DynamicAPInt &V : *S)
      Out.push_back(int64_t(V));
    return Out;
  }

private:
  struct Constraint {
    Row R;
    bool Equality;
    Role Why;
  };

  std::vector<const Constraint *> allConstraints() const {
    std::vector<const Constraint *> All;
    for (const Constraint &C : Constraints)
      All.push_back(&C);
    return All;
  }

  IntegerPolyhedron polyhedron(const std::vector<const Constraint *> &Use) {
    IntegerPolyhedron P(PresburgerSpace::getSetSpace(NumVars));
    for (const Constraint *C : Use) {
      llvm::SmallVector<int64_t, 16> Coefficients(NumVars + 1, 0);
      for (const auto &[V, X] : C->R.Coefficients)
        Coefficients[V] = X;
      Coefficients[NumVars] = C->R.Constant;
      if (C->Equality)
        P.addEquality(Coefficients);
      else
        P.addInequality(Coefficients);
    }
    return P;
  }

  bool isEmpty(const std::vector<const Constraint *> &Use) {
    // isEmpty() is approximate; integer emptiness is what a proof needs.
    return polyhedron(Use).isIntegerEmpty();
  }

  AffineContext &A;
  unsigned NumVars = 0;
  std::map<std::pair<unsigned, unsigned>, unsigned> Vars;
  std::vector<Constraint> Constraints;
  /// Operands of truncating divisions: floor division models them only
  /// where they are non-negative.
  std::vector<Row> NonNegative;
};

/// The thread-varying symbols of F must be threadIdx.x or divisions of
/// forms in it; anything else (threadIdx.y, a loaded value) has no
/// thread-to-thread model here.
bool varyOnlyInThreadIdxX(AffineContext &A, const AffineForm &F) {
  unsigned Tid = A.builtin(BuiltinVar::ThreadIdx, 0);
  for (unsigned S : A.symbolsOf(F)) {
    const AffineSymbol &Sym = A.symbol(S);
    if (Sym.Uniform || S == Tid)
      continue;
    if (Sym.K != AffineSymbol::FloorDiv && Sym.K != AffineSymbol::Mod)
      return false;
  }
  return true;
}

/// Adds the two thread copies 1 and 2: threadIdx.x values T1, T2 below
/// blockDim.x.
std::pair<unsigned, unsigned> twoThreads(SetBuilder &B, AffineContext &A) {
  unsigned Tid = A.builtin(BuiltinVar::ThreadIdx, 0);
  unsigned Dim = A.builtin(BuiltinVar::BlockDim, 0);
  unsigned T1 = *B.varOf(Tid, 1), T2 = *B.varOf(Tid, 2);
  unsigned BD = *B.varOf(Dim, 0);
  B.addGE(Row::var(BD).minus(Row::var(T1)).offset(-1));
  B.addGE(Row::var(BD).minus(Row::var(T2)).offset(-1));
  return {T1, T2};
}

} // namespace

std::optional<int64_t> strideAcrossWarp(AffineContext &A, const AffineForm &F) {
  if (!varyOnlyInThreadIdxX(A, F))
    return std::nullopt;
  SetBuilder B(A);
  auto [T1, T2] = twoThreads(B, A);
  // T1 = 32 * W + L with L <= 30, T2 = T1 + 1: neighbours in one warp.
  unsigned W = B.newVar(), L = B.newVar();
  B.addGE(Row::var(W));
  B.addGE(Row::var(L));
  B.addGE(Row::var(L, -1).offset(30));
  B.addEQ(Row::var(T1).minus(Row::var(W, 32)).minus(Row::var(L)));
  B.addEQ(Row::var(T2).minus(Row::var(T1)).offset(-1));
  std::optional<Row> F1 = B.row(F, 1), F2 = B.row(F, 2);
  if (!F1 || !F2)
    return std::nullopt;
  unsigned D = B.newVar();
  B.addEQ(Row::var(D).minus(F2->minus(*F1)), Role::Definition);
  std::optional<std::vector<int64_t>> Point = B.sample();
  if (!Point)
    return std::nullopt;
  int64_t Stride = (*Point)[D];
  // No pair of neighbours moves by more or by less.
  SetBuilder More = B, Less = B;
  More.addGE(Row::var(D).offset(-Stride - 1), Role::Goal);
  Less.addGE(Row::var(D, -1).offset(Stride - 1), Role::Goal);
  if (!More.empty() || !Less.empty())
    return std::nullopt;
  return Stride;
}

bool disjointAcrossThreads(AffineContext &A, const AffineForm &F,
                           int64_t Width) {
  if (Width < 1 || !varyOnlyInThreadIdxX(A, F))
    return false;
  SetBuilder B(A);
  auto [T1, T2] = twoThreads(B, A);
  B.addGE(Row::var(T2).minus(Row::var(T1)).offset(-1)); // T1 < T2
  std::optional<Row> F1 = B.row(F, 1), F2 = B.row(F, 2);
  if (!F1 || !F2)
    return false;
  // Elements F1 + K1 == F2 + K2 with 0 <= K < Width.
  unsigned K1 = B.newVar(), K2 = B.newVar();
  for (unsigned K : {K1, K2}) {
    B.addGE(Row::var(K));
    B.addGE(Row::var(K, -1).offset(Width - 1));
  }
  B.addEQ(F1->plus(Row::var(K1)).minus(F2->plus(Row::var(K2))), Role::Goal);
  return B.empty();
}

bool coversCount(AffineContext &A, const AffineForm &Grid,
                 const AffineForm &Block, const AffineForm &Count) {
  SetBuilder B(A);
  std::optional<Row> N = B.row(Count, 0);
  if (!N)
    return false;
  B.addGE(N->offset(-1)); // Count >= 1: nothing to cover otherwise
  std::optional<Row> Threads;
  if (Block.isConstant()) {
    if (Block.Constant < 1)
      return false;
    std::optional<Row> G = B.row(Grid, 0);
    if (G)
      Threads = Row().plus(*G, Block.Constant);
  } else if (Grid.Constant == 0 && Grid.Terms.size() == 1 &&
             Grid.Terms.begin()->second == 1 && Block.Constant == 0 &&
             Block.Terms.size() == 1 && Block.Terms.begin()->second == 1) {
    // Grid = E / b blocks of b threads: b * (E / b) = E - R, 0 <= R < b,
    // for E >= 0.
    const AffineSymbol &Q = A.symbol(Grid.Terms.begin()->first);
    if (Q.K != AffineSymbol::Quotient ||
        Q.DivisorSymbol != Block.Terms.begin()->first)
      return false;
    std::optional<Row> E = B.row(Q.Operand, 0);
    std::optional<unsigned> BV = B.varOf(Q.DivisorSymbol, 0);
    if (!E || !BV)
      return false;
    B.addGE(Row::var(*BV).offset(-1)); // a block has a thread
    // The truncation is floor division only for E >= 0: E >= 0 must follow
    // from the assumptions so far.
    SetBuilder Negative = B;
    Negative.addGE(Row().plus(*E, -1).offset(-1), Role::Goal);
    if (!Negative.empty())
      return false;
    unsigned R = B.newVar();
    B.addGE(Row::var(R), Role::Definition);
    B.addGE(Row::var(*BV).minus(Row::var(R)).offset(-1), Role::Definition);
    Threads = E->minus(Row::var(R));
  }
  if (!Threads)
    return false;
  B.addGE(N->minus(*Threads).offset(-1), Role::Goal); // Threads < Count
  return B.empty();
}

bool staysBelow(AffineContext &A, const AffineForm &Index, int64_t Width,
                const AffineForm &Bound, const AffineForm &Guard) {
  SetBuilder B(A);
  std::optional<Row> I = B.row(Index, 1), N = B.row(Bound, 1),
                     G = B.row(Guard, 1);
  if (!I || !N || !G)
    return false;
  B.addGE(*G);
  B.addGE(I->offset(Width).minus(*N).offset(-1), Role::Goal); // I + W > N
  return B.empty();
}

} // namespace kopt
