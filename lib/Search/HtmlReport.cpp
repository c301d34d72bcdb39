//===- HtmlReport.cpp - A search's report.json as one HTML page -----------===//
//
// The report is read only through accessors that return nothing for a
// missing, null or mistyped field, so a partial or hand-edited report.json
// still renders; what is absent is shown as a dash. Every string from the
// document passes through escape() before it reaches the page.
//
//===----------------------------------------------------------------------===//
#include "kopt/Search/HtmlReport.h"
#include "kopt/Search/Recipe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace kopt::search {

using nlohmann::json;

namespace {
const char *const Dash = "&mdash;";

/// The value of \p Key in \p J, or null when \p J is not an object, has no
/// such key, or holds null there.
const json *field(const json &J, const char *Key) {
  if (!J.is_object())
    return nullptr;
  auto It = J.find(Key);
  if (It == J.end() || It->is_null())
    return nullptr;
  return &*It;
}

const json &object(const json &J, const char *Key) {
  static const json Empty = json::object();
  const json *V = field(J, Key);
  return V && V->is_object() ? *V : Empty;
}

const json &array(const json &J, const char *Key) {
  static const json Empty = json::array();
  const json *V = field(J, Key);
  return V && V->is_array() ? *V : Empty;
}

std::optional<double> number(const json *V) {
  if (V && V->is_number() && std::isfinite(V->get<double>()))
    return V->get<double>();
  return std::nullopt;
}

std::optional<double> number(const json &J, const char *Key) {
  return number(field(J, Key));
}

std::optional<std::string> string(const json &J, const char *Key) {
  const json *V = field(J, Key);
  return V && V->is_string() ? std::optional(V->get<std::string>())
                             : std::nullopt;
}

std::string escape(const std::string &S) {
  static const char *const Specials = "&<>\"'";
  static const char *const Entities[] = {"&amp;", "&lt;", "&gt;", "&quot;",
                                         "&#39;"};
  std::string Out;
  Out.reserve(S.size());
  for (char C : S) {
    const char *Special = C ? std::strchr(Specials, C) : nullptr;
    if (Special)
      Out += Entities[Special - Specials];
    else
      Out += C;
  }
  return Out;
}

template <typename... Ts> std::string format(const char *Fmt, Ts... Args) {
  char Buffer[256];
  std::snprintf(Buffer, sizeof(Buffer), Fmt, Args...);
  return Buffer;
}

/// Escaped text of a string field, or a dash.
std::string text(const json &J, const char *Key) {
  auto S = string(J, Key);
  return S && !S->empty() ? escape(*S) : Dash;
}

std::string numberText(const json &J, const char *Key, const char *Fmt,
                       const char *Unit = "") {
  auto D = number(J, Key);
  return D ? format(Fmt, *D) + Unit : Dash;
}

/// Ids, counts and seeds: "%.15g" prints every integer a double holds exactly.
std::string integer(const json &J, const char *Key) {
  return numberText(J, Key, "%.15g");
}

/// "making 3.1 s, compiling 12.0 s, ..." from report.json's time_s.
std::string phaseTimes(const json &Times) {
  std::string Out;
  for (const auto &[Phase, Seconds] : Times.items())
    if (Seconds.is_number())
      Out += (Out.empty() ? "" : ", ") + escape(Phase) + " " +
             format("%.1f", Seconds.get<double>()) + " s";
  return Out.empty() ? Dash : Out;
}

std::string speedup(const json &J) {
  return numberText(J, "speedup", "%.3f", "&times;");
}

/// "[lo, hi]" from a two-number speedup_ci array, or a dash.
std::string interval(const json &J) {
  const json &CI = array(J, "speedup_ci");
  if (CI.size() != 2 || !number(&CI[0]) || !number(&CI[1]))
    return Dash;
  return "[" + format("%.3f", *number(&CI[0])) + ", " +
         format("%.3f", *number(&CI[1])) + "]";
}

/// An empty recipe changes nothing: the candidate is the original source.
std::string recipe(const json &J) {
  auto R = string(J, "recipe");
  if (!R)
    return Dash;
  return R->empty() ? "(original source)" : escape(*R);
}

const char *statusClass(const std::string &Status) {
  if (Status == "ok")
    return "st-ok";
  if (Status.empty() || Status == "rejected" || Status == "timeout")
    return "st-skip";
  return "st-bad";
}

const char *const Style = R"(<style>
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:72em}
h2{margin-top:1.5em}dt{font-weight:600}dd{margin:0}
dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}
code,pre{font-family:ui-monospace,monospace;background:#f4f4f4}
pre{padding:.5em;white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse;font-size:.9em}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left}
td.num{text-align:right}svg text{font-size:11px;fill:#444}
.st-ok .status{color:#17803d}.st-bad .status{color:#b91c1c}
.st-skip .status{color:#777}
.card{border:1px solid #ccc;border-radius:6px;padding:.2em 1em;background:#fafafa}
.card .big{font-size:1.6em;font-weight:600;margin:.3em 0}
pre.diff{max-height:24em;overflow:auto;white-space:pre;word-break:normal}
pre.diff .add{color:#17803d}pre.diff .del{color:#b91c1c}
pre.diff .hunk{color:#6b21a8}
</style>
)";

void line(std::ostream &OS, double X1, double Y1, double X2, double Y2,
          const char *Stroke = "stroke=\"#444\"") {
  OS << format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n",
               X1, Y1, X2, Y2, Stroke);
}

void label(std::ostream &OS, double X, double Y, const char *Anchor,
           const std::string &Text) {
  OS << format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", X, Y, Anchor)
     << Text << "</text>\n";
}

/// Best speedup against evaluation number; the ticks label the extremes.
void renderPlot(const json &Report, std::ostream &OS) {
  std::vector<std::pair<double, double>> Points;
  for (const json &P : array(Report, "convergence")) {
    auto X = number(P, "evaluation"), Y = number(P, "best_speedup");
    if (X && Y)
      Points.emplace_back(*X, *Y);
  }
  if (Points.empty()) {
    OS << "<p>No convergence data.</p>\n";
    return;
  }
  std::stable_sort(
      Points.begin(), Points.end(),
      [](const auto &A, const auto &B) { return A.first < B.first; });
  double XMin = Points.front().first, XMax = Points.back().first;
  auto [Lowest, Highest] = std::minmax_element(
      Points.begin(), Points.end(),
      [](const auto &A, const auto &B) { return A.second < B.second; });
  double YMin = Lowest->second, YMax = Highest->second;
  // A single point, or a flat line, still needs a range to map onto.
  double XLo = XMin, XHi = XMax, YLo = YMin, YHi = YMax;
  if (XHi == XLo)
    XLo -= 1, XHi += 1;
  if (YHi == YLo) {
    double Pad = std::max(std::fabs(YLo) * 0.05, 0.05);
    YLo -= Pad, YHi += Pad;
  }
  const double W = 560, H = 260, L = 60, R = 20, T = 32, B = 44;
  const double Bottom = H - B;
  auto SX = [&](double X) { return L + (X - XLo) / (XHi - XLo) * (W - L - R); };
  auto SY = [&](double Y) {
    return Bottom - (Y - YLo) / (YHi - YLo) * (Bottom - T);
  };

  OS << format("<svg width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
               "role=\"img\" aria-label=\"best speedup by evaluation\">\n",
               W, H, W, H);
  line(OS, L, T, L, Bottom);
  line(OS, L, Bottom, W - R, Bottom);
  for (double X : {XMin, XMax}) {
    line(OS, SX(X), Bottom, SX(X), Bottom + 4);
    label(OS, SX(X), Bottom + 16, "middle", format("%g", X));
    if (XMax == XMin)
      break;
  }
  for (double Y : {YMin, YMax}) {
    line(OS, L - 4, SY(Y), L, SY(Y));
    label(OS, L - 6, SY(Y) + 4, "end", format("%.3f", Y));
    if (YMax == YMin)
      break;
  }
  label(OS, (L + W - R) / 2, H - 8, "middle", "evaluation");
  label(OS, 4, T - 16, "start", "best speedup");
  OS << "<polyline fill=\"none\" stroke=\"#2563eb\" stroke-width=\"2\" "
        "points=\"";
  for (const auto &P : Points)
    OS << format("%.1f,%.1f ", SX(P.first), SY(P.second));
  OS << "\"/>\n";
  for (const auto &P : Points)
    OS << format(
        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#2563eb\"/>\n",
        SX(P.first), SY(P.second));
  OS << "</svg>\n";
}

void renderBandwidth(const json &Report, std::ostream &OS) {
  const json &Best = object(Report, "best");
  auto Achieved = number(Best, "achieved_gbps");
  auto Fraction = number(Best, "fraction_of_copy_bandwidth");
  auto Copy = number(object(Report, "device"), "copy_bandwidth_gbps");
  if (!Fraction && Achieved && Copy && *Copy > 0)
    Fraction = *Achieved / *Copy;
  if (!Achieved && !Fraction) {
    OS << "<p>Memory-bound problem: bandwidth not measured.</p>\n";
    return;
  }
  OS << "<p>Memory-bound problem: ";
  if (Achieved)
    OS << "achieved " << format("%.1f", *Achieved) << " GB/s";
  if (Achieved && Fraction)
    OS << ", ";
  if (Fraction)
    OS << format("%.1f", *Fraction * 100) << "% of the device&#39;s copy "
       << "bandwidth" << (Copy ? " (" + format("%.1f", *Copy) + " GB/s)" : "");
  OS << ".</p>\n";
}

/// The top of the page: the best speedup and where the time went.
void renderCard(const json &Report, std::ostream &OS) {
  const json &Best = object(Report, "best");
  OS << "<div class=\"card\">\n";
  if (Best.empty()) {
    OS << "<p class=\"big\">No candidate evaluated ok</p>\n";
  } else {
    OS << "<p class=\"big\">" << speedup(Best) << " " << interval(Best)
       << "</p>\n<p>Best of " << integer(Report, "evaluations")
       << " evaluations: candidate " << integer(Best, "id")
       << ", 95% confidence interval in brackets";
    const json *MemoryBound = field(object(Report, "problem"), "memory_bound");
    auto F = number(Best, "fraction_of_copy_bandwidth");
    if (F && MemoryBound && *MemoryBound == true)
      OS << "; " << format("%.1f", *F * 100)
         << "% of the device&#39;s copy bandwidth";
    OS << ".</p>\n";
  }
  OS << "<p>Time: " << phaseTimes(object(Report, "time_s")) << " of "
     << numberText(Report, "elapsed_s", "%.1f", " s") << "; GPU busy "
     << numberText(Report, "gpu_busy", "%.2f") << ".</p>\n</div>\n";
}

/// best_diff, each line coloured by what it does.
void renderDiff(const json &Report, std::ostream &OS) {
  auto Diff = string(Report, "best_diff");
  if (!Diff)
    return;
  OS << "<h3>Diff against the original</h3>\n";
  if (Diff->empty()) {
    OS << "<p>The best candidate is the original source.</p>\n";
    return;
  }
  OS << "<pre class=\"diff\">";
  std::istringstream In(*Diff);
  int Number = 0;
  for (std::string Line; std::getline(In, Line);) {
    // The two file names come first; a removed "--i;" is "---i;".
    bool Header = ++Number <= 2 &&
                  (Line.rfind("+++ ", 0) == 0 || Line.rfind("--- ", 0) == 0);
    const char *Class = Line.rfind("@@", 0) == 0  ? "hunk"
                        : Header                  ? nullptr
                        : Line.rfind('+', 0) == 0 ? "add"
                        : Line.rfind('-', 0) == 0 ? "del"
                                                  : nullptr;
    if (Class)
      OS << "<span class=\"" << Class << "\">" << escape(Line) << "</span>\n";
    else
      OS << escape(Line) << "\n";
  }
  OS << "</pre>\n";
}

/// What a candidate changed in its parent (\p Parent null for a root).
std::string stepText(const json &C, const json *Parent) {
  auto R = string(C, "recipe");
  if (!R)
    return Dash;
  if (string(C, "proposer").value_or("") == "O")
    return "-O";
  return escape(describeStep(
      Parent ? string(*Parent, "recipe").value_or("") : std::string(), *R));
}

void renderLineage(const json &Report, std::ostream &OS) {
  OS << "<h2>Lineage of the best candidate</h2>\n";
  const json &Lineage = array(Report, "lineage");
  if (Lineage.empty()) {
    OS << "<p>No lineage recorded.</p>\n";
    return;
  }
  OS << "<ol>\n";
  for (std::size_t I = 0; I < Lineage.size(); ++I)
    OS << "<li>Candidate " << integer(Lineage[I], "id") << " ("
       << speedup(Lineage[I]) << "): <code title=\"" << recipe(Lineage[I])
       << "\">" << stepText(Lineage[I], I ? &Lineage[I - 1] : nullptr)
       << "</code></li>\n";
  OS << "</ol>\n";
}

/// Statuses a candidate has before its evaluation (Candidate.h).
bool evaluated(const json &C) {
  static const std::set<std::string> Before = {
      "pending", "invalid", "llm-error", "made", "duplicate", "validated"};
  auto S = string(C, "status");
  return S && !Before.count(*S);
}

const char *const FilterScript = R"(<script>
(function () {
  var status = document.getElementById('f-status');
  var proposer = document.getElementById('f-proposer');
  function apply() {
    var shown = 0;
    document.querySelectorAll('#candidates tbody tr').forEach(function (r) {
      var on = (!status.value || r.dataset.status === status.value) &&
               (!proposer.value || r.dataset.proposer === proposer.value);
      r.style.display = on ? '' : 'none';
      shown += on ? 1 : 0;
    });
    document.getElementById('f-shown').textContent = shown + ' shown';
  }
  status.onchange = proposer.onchange = apply;
  apply();
})();
</script>
)";

void select(std::ostream &OS, const char *Id, const char *Label,
            const std::set<std::string> &Values) {
  OS << "<label>" << Label << " <select id=\"" << Id
     << "\"><option value=\"\">all</option>";
  for (const std::string &V : Values)
    OS << "<option>" << escape(V) << "</option>";
  OS << "</select></label> ";
}

/// A link to the exchange an LLM's candidate starts from.
std::string exchangeLink(const json &C) {
  auto Seq = splitRecipeStart(string(C, "recipe").value_or("")).LLMSeq;
  return Seq ? " <a href=\"#llm-" + std::to_string(Seq) + "\">exchange</a>"
             : std::string();
}

/// Each LLM exchange: what was asked and what came back, folded.
void renderExchanges(const json &Report, std::ostream &OS) {
  const json &All = array(Report, "llm_exchanges");
  if (All.empty())
    return;
  OS << "<h2>LLM exchanges (" << All.size() << ")</h2>\n";
  for (const json &E : All) {
    auto Error = string(E, "error").value_or("");
    OS << "<details id=\"llm-" << integer(E, "seq") << "\"><summary>llm#"
       << integer(E, "seq") << " (" << text(E, "kind") << ", "
       << text(E, "model") << ", HTTP " << integer(E, "http_status") << ", "
       << integer(E, "attempts") << " attempts): "
       << (Error.empty() ? "gave a candidate source" : escape(Error))
       << "</summary>\n<h4>Asked</h4>\n<pre>" << text(E, "prompt")
       << "</pre>\n<h4>Answered</h4>\n<pre>" << text(E, "reply")
       << "</pre>\n</details>\n";
  }
}

/// Evaluated candidates first; duplicates folded into a count on their
/// parent's row; each row says what it changed and why it failed.
void renderCandidates(const json &Report, std::ostream &OS) {
  const json &Candidates = array(Report, "candidates");
  std::map<double, const json *> ById;
  std::map<double, long> Duplicates;
  long Folded = 0;
  std::vector<const json *> Rows;
  std::set<std::string> Statuses, Proposers;
  for (const json &C : Candidates) {
    if (auto Id = number(C, "id"))
      ById[*Id] = &C;
    if (string(C, "status").value_or("") == "duplicate") {
      ++Folded;
      ++Duplicates[number(C, "parent").value_or(0)];
      continue;
    }
    Rows.push_back(&C);
    Statuses.insert(string(C, "status").value_or(""));
    Proposers.insert(string(C, "proposer").value_or(""));
  }
  std::stable_partition(Rows.begin(), Rows.end(),
                        [](const json *C) { return evaluated(*C); });
  OS << "<h2>Candidates (" << Candidates.size() << ")</h2>\n<p>" << Rows.size()
     << " listed, evaluated first; " << Folded
     << " duplicates (the same source as an earlier candidate) are counted "
        "on their parent&#39;s row.</p>\n<p>";
  select(OS, "f-status", "Status", Statuses);
  select(OS, "f-proposer", "Proposer", Proposers);
  OS << "<span id=\"f-shown\"></span></p>\n"
     << "<table id=\"candidates\">\n<thead><tr><th>id</th><th>parent</th>"
     << "<th>proposer</th><th>change</th><th>status</th><th>reason</th>"
     << "<th>speedup</th><th>CI</th><th>median ms</th><th>duplicates</th>"
     << "</tr></thead>\n<tbody>\n";
  const std::string Num = "<td class=\"num\">", End = "</td>";
  for (const json *C : Rows) {
    std::string Status = string(*C, "status").value_or("");
    auto Parent = ById.find(number(*C, "parent").value_or(-1));
    auto Dups = Duplicates.find(number(*C, "id").value_or(-1));
    OS << "<tr class=\"" << statusClass(Status) << "\" data-status=\""
       << escape(Status) << "\" data-proposer=\""
       << escape(string(*C, "proposer").value_or("")) << "\">" << Num
       << integer(*C, "id") << End << Num << integer(*C, "parent") << End
       << "<td>" << text(*C, "proposer") << End << "<td><code title=\""
       << recipe(*C) << "\">"
       << stepText(*C, Parent == ById.end() ? nullptr : Parent->second)
       << "</code>" << exchangeLink(*C) << End << "<td class=\"status\">"
       << text(*C, "status") << End << "<td>" << text(*C, "reason") << End
       << Num << speedup(*C) << End << Num << interval(*C) << End << Num
       << numberText(*C, "median_ms", "%.4g") << End << Num
       << (Dups == Duplicates.end() ? "" : std::to_string(Dups->second))
       << "</td></tr>\n";
  }
  OS << "</tbody>\n</table>\n" << FilterScript;
}
} // namespace

std::string renderHtmlReport(const json &Report) {
  std::ostringstream OS;
  const json &Problem = object(Report, "problem");
  const json &Best = object(Report, "best");
  auto Name = string(Problem, "name");
  std::string Title =
      "kopt-search: " +
      (Name && !Name->empty() ? escape(*Name) : "(unnamed problem)");

  OS << "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">"
     << "<title>" << Title << "</title>\n"
     << Style << "</head>\n<body>\n"
     << "<h1>" << Title << "</h1>\n";
  renderCard(Report, OS);

  const json &Budgets = object(Report, "budgets");
  std::string Baselines;
  for (const auto &[Key, Baseline] : object(Report, "baselines").items())
    Baselines +=
        (Baselines.empty() ? "" : ", ") + escape(Key) + " " + speedup(Baseline);
  const std::pair<const char *, std::string> Summary[] = {
      {"Problem path", text(Problem, "path")},
      {"Device", text(object(Report, "device"), "name")},
      {"Strategy", text(Report, "strategy")},
      {"Seed", integer(Report, "seed")},
      {"Evaluations", integer(Report, "evaluations")},
      {"Elapsed", numberText(Report, "elapsed_s", "%.1f", " s")},
      {"GPU seconds", numberText(Report, "gpu_seconds", "%.1f", " s")},
      {"GPU busy", numberText(Report, "gpu_busy", "%.2f", "")},
      {"Time by phase", phaseTimes(object(Report, "time_s"))},
      {"Stopped by", text(Report, "stopped_by")},
      {"Budgets", "candidates " + integer(Budgets, "candidates") + ", GPU " +
                      numberText(Budgets, "gpu_s", "%g", " s") + ", wall " +
                      numberText(Budgets, "wall_s", "%g", " s")},
      {"Baselines", Baselines.empty() ? Dash : Baselines},
      {"Command", "<code>" + text(Report, "command") + "</code>"}};
  OS << "<h2>Summary</h2>\n<dl>\n";
  for (const auto &[Key, Value] : Summary)
    OS << "<dt>" << Key << "</dt><dd>" << Value << "</dd>\n";
  OS << "</dl>\n";

  OS << "<h2>Best candidate</h2>\n";
  if (Best.empty()) {
    OS << "<p>No best candidate.</p>\n";
  } else {
    OS << "<p>Candidate " << integer(Best, "id") << ": speedup "
       << speedup(Best) << ", 95% CI " << interval(Best) << ", median "
       << numberText(Best, "median_ms", "%.4g", " ms") << ".</p>\n"
       << "<pre><code>" << recipe(Best) << "</code></pre>\n";
    renderDiff(Report, OS);
  }
  if (field(Problem, "memory_bound") && *field(Problem, "memory_bound") == true)
    renderBandwidth(Report, OS);

  OS << "<h2>Convergence</h2>\n";
  renderPlot(Report, OS);

  renderLineage(Report, OS);
  renderCandidates(Report, OS);
  renderExchanges(Report, OS);

  OS << "<footer><p>" << text(Report, "tool") << ' ' << text(Report, "version")
     << "</p></footer>\n</body>\n</html>\n";
  return OS.str();
}

} // namespace kopt::search
