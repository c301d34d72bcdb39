//===- Lessons.h - What worked, kept for similar kernels --------*- C++ -*-===//
//
// The search's memory (docs/llm.md): when a search's best beats the
// original, the store keeps a lesson — the problem, what its kernels look
// like (features from kopt-opt --analyze), the recipe and how it was made,
// the gain. The LLM's prompt for another problem carries the few lessons
// whose kernels look most alike. No service: the store is the memory.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_LESSONS_H
#define KOPT_SEARCH_LESSONS_H

#include "kopt/Search/Store.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt::search {

/// Sorted, space-separated features of the kernels in kopt-opt --analyze's
/// JSON: "loop:grid-stride load:contiguous type:float barriers shared ...".
std::string kernelFeatures(const std::string &AnalysisJson);

/// Jaccard similarity of two feature strings, in [0, 1].
double featureSimilarity(const std::string &A, const std::string &B);

/// At most \p Max of \p All, most similar to \p Features first, leaving
/// out \p Problem's own.
std::vector<Lesson> similarLessons(std::vector<Lesson> All,
                                   const std::string &Features,
                                   const std::string &Problem, std::size_t Max);

/// The lesson of a finished search: its best, when that is not the
/// original and its whole interval is above 1.
std::optional<Lesson> lessonOf(const std::string &Problem,
                               const std::vector<Candidate> &Candidates,
                               const std::string &Features);

} // namespace kopt::search

#endif // KOPT_SEARCH_LESSONS_H
