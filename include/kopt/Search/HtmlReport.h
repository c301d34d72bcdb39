//===- HtmlReport.h - A search's report.json as one HTML page ---*- C++ -*-===//
//
// The page needs nothing from the network: its CSS and its convergence plot
// (SVG) are inline and it has no scripts, so it can be archived next to the
// report.json it was rendered from and opened anywhere.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_HTMLREPORT_H
#define KOPT_SEARCH_HTMLREPORT_H

#include <nlohmann/json.hpp>

#include <string>

namespace kopt::search {

/// A self-contained HTML page (no network: inline CSS and an inline SVG
/// plot, no scripts from elsewhere) for a search's report.json document.
/// Every field may be missing, null or of the wrong type; such fields are
/// shown as a dash (or left out) and the function never throws on them.
/// Every string taken from \p Report is escaped for HTML.
std::string renderHtmlReport(const nlohmann::json &Report);

} // namespace kopt::search

#endif // KOPT_SEARCH_HTMLREPORT_H
