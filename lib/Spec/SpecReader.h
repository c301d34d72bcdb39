//===- SpecReader.h - problem.json's reader (private) ----------*- C++ -*-===//
//
// The reader ProblemParser.cpp runs over a parsed problem.json: one method
// a part of the spec, each reporting against the field path it is given.
// Its argument readers are in SpecArgs.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SPEC_SPECREADER_H
#define KOPT_SPEC_SPECREADER_H

#include "kopt/Spec/Problem.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kopt::spec::detail {

using nlohmann::json;

/// Largest buffer a problem may ask for, in bytes.
constexpr std::int64_t MaxBufferBytes = std::int64_t(1) << 40;

inline std::string jsonTypeName(const json &J) { return J.type_name(); }

/// The value of an integer JSON number that fits int64, else nullopt (an
/// unsigned above INT64_MAX, a float, or not a number).
std::optional<std::int64_t> int64Value(const json &J);

/// Whether scalar value \p V can be passed as dtype \p T unchanged
/// (integers) or finite (floats); else a description of the range.
std::string scalarRangeError(DType T, double V);

/// Collects errors for one problem.json; every method reports against the
/// field path it was given.
class SpecReader {
public:
  std::vector<std::string> Errors;

  void error(const std::string &Where, const std::string &Message) {
    Errors.push_back(Where.empty() ? Message : Where + ": " + Message);
  }

  bool isIdentifier(const std::string &Name) {
    if (Name.empty() || std::isdigit((unsigned char)Name[0]))
      return false;
    for (char C : Name)
      if (!std::isalnum((unsigned char)C) && C != '_')
        return false;
    return true;
  }

  /// Object's Field, or null (an error where Required) when it is absent.
  const json *field(const json &Object, const char *Field,
                    const std::string &Where, bool Required) {
    auto It = Object.find(Field);
    if (It != Object.end())
      return &*It;
    if (Required)
      error(Where, std::string("missing field '") + Field + "'");
    return nullptr;
  }

  std::optional<std::string> string(const json &Object, const char *Field,
                                    const std::string &Where, bool Required) {
    const json *V = field(Object, Field, Where, Required);
    if (V && V->is_string() && !V->get<std::string>().empty())
      return V->get<std::string>();
    if (V)
      error(join(Where, Field),
            "must be a non-empty string, not " +
                (V->is_string() ? std::string("\"\"") : jsonTypeName(*V)));
    return std::nullopt;
  }

  std::optional<double> number(const json &Object, const char *Field,
                               const std::string &Where, bool Required) {
    const json *V = field(Object, Field, Where, Required);
    if (V && V->is_number())
      return V->get<double>();
    if (V)
      error(join(Where, Field), "must be a number, not " + jsonTypeName(*V));
    return std::nullopt;
  }

  static std::string join(const std::string &Where, const std::string &Field) {
    return Where.empty() ? Field : Where + "." + Field;
  }

  void readShapes(const json &Root, Problem &P);
  /// Checks that every shape defines \p Name.
  bool sizeDefined(const Problem &P, const std::string &Name,
                   const std::string &Where);
  std::optional<Tolerance> readTolerance(const json &J,
                                         const std::string &Where);
  void readInit(const json &J, Arg &A, const std::string &Where);
  /// The dtype named by J[Field] ("buffer" or "scalar") into A.Type.
  void readDType(const json &J, const char *Field, const std::string &Where,
                 Arg &A);
  void readBuffer(const json &J, Arg &A, const Problem &P,
                  const std::string &Where);
  void readScalar(const json &J, Arg &A, const Problem &P,
                  const std::string &Where);
  void readArgs(const json &Root, Problem &P);
  /// Every buffer's byte size at every shape must be computable without
  /// overflow and at most MaxBufferBytes; every size a scalar takes must
  /// fit the scalar's dtype.
  void checkSizes(const Problem &P);
  /// \p Where: the object holding \p Field, for the error ("" at the top).
  void readStringList(const json &Root, const char *Field,
                      std::vector<std::string> &Out,
                      const std::string &Where = "");
  void readFileChecks(const json &Root, Problem &P);
  void readExpression(const json &Root, const char *Field, std::string &Out,
                      const Problem &P);
  std::optional<Problem> read(const json &Root,
                              const std::filesystem::path &SpecPath);
};

} // namespace kopt::spec::detail

#endif // KOPT_SPEC_SPECREADER_H
