//===- HtmlReportTest.cpp - The search report as one HTML page ------------===//
#include "kopt/Search/HtmlReport.h"

#include <gtest/gtest.h>

#include <string>

using namespace kopt::search;
using nlohmann::json;

namespace {
size_t count(const std::string &Haystack, const std::string &Needle) {
  size_t N = 0;
  for (size_t At = Haystack.find(Needle); At != std::string::npos;
       At = Haystack.find(Needle, At + Needle.size()))
    ++N;
  return N;
}

json fullReport() {
  return json::parse(R"({
    "tool": "kopt-search", "version": "0.1.0",
    "command": "kopt-search kernels/axpby --out o",
    "problem": {"name": "axpby", "path": "kernels/axpby", "memory_bound": true},
    "device": {"name": "NVIDIA H100 80GB HBM3", "copy_bandwidth_gbps": 3000.0},
    "strategy": "beam", "seed": 1, "stopped_by": "budget-candidates",
    "budgets": {"candidates": 50, "gpu_s": null, "wall_s": null},
    "elapsed_s": 12.5, "gpu_seconds": 10.1, "evaluations": 3,
    "best": {"id": 7, "recipe": "vectorize-loads{width=4},launch-bounds",
             "speedup": 1.52, "speedup_ci": [1.50, 1.55], "median_ms": 0.123,
             "achieved_gbps": 2400.0, "fraction_of_copy_bandwidth": 0.8},
    "baselines": {"original": {"id": 1, "speedup": 1.0},
                  "O": {"id": 2, "recipe": "restrict-const", "speedup": 1.3}},
    "lineage": [{"id": 1, "recipe": "", "speedup": 1.0},
                {"id": 7, "recipe": "vectorize-loads{width=4},launch-bounds",
                 "speedup": 1.52}],
    "convergence": [{"evaluation": 1, "best_speedup": 1.0},
                    {"evaluation": 2, "best_speedup": 1.3},
                    {"evaluation": 3, "best_speedup": 1.52}],
    "candidates": [
      {"id": 1, "parent": null, "depth": 0, "proposer": "root", "recipe": "",
       "status": "ok", "reason": "", "speedup": 1.0,
       "speedup_ci": [0.99, 1.01], "median_ms": 0.2, "source_sha256": "ab12"},
      {"id": 2, "parent": 1, "depth": 1, "proposer": "pipeline",
       "recipe": "restrict-const", "status": "ok", "reason": "",
       "speedup": 1.3, "speedup_ci": [1.28, 1.32], "median_ms": 0.154},
      {"id": 3, "parent": 2, "depth": 2, "proposer": "mutate",
       "recipe": "unroll{factor=8}", "status": "wrong-result",
       "reason": "output y differs at index 3", "speedup": null},
      {"id": 7, "parent": 2, "depth": 2, "proposer": "mutate",
       "recipe": "vectorize-loads{width=4},launch-bounds", "status": "ok",
       "reason": "", "speedup": 1.52, "speedup_ci": [1.50, 1.55],
       "median_ms": 0.123}
    ]
  })");
}

TEST(HtmlReportTest, FullDocumentRendersEverySection) {
  std::string Html = renderHtmlReport(fullReport());
  EXPECT_EQ(Html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(Html.find("<title>kopt-search: axpby</title>"), std::string::npos);
  EXPECT_NE(Html.find("vectorize-loads{width=4},launch-bounds"),
            std::string::npos);
  EXPECT_NE(Html.find("1.520"), std::string::npos);
  EXPECT_NE(Html.find("[1.500, 1.550]"), std::string::npos);
  EXPECT_NE(Html.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(Html.find("budget-candidates"), std::string::npos);
  EXPECT_NE(Html.find("(original source)"), std::string::npos);
  EXPECT_EQ(count(Html, "<svg"), 1u);
  EXPECT_NE(Html.find("<polyline"), std::string::npos);
  EXPECT_EQ(count(Html, "<tr class=\"st-"), 4u);
  EXPECT_EQ(count(Html, "<tr class=\"st-ok\""), 3u);
  EXPECT_EQ(count(Html, "<tr class=\"st-bad\""), 1u);
  EXPECT_EQ(count(Html, "<li>Candidate "), 2u);
  EXPECT_EQ(Html.find("http://"), std::string::npos);
  EXPECT_EQ(Html.find("https://"), std::string::npos);
  // One script of its own (the filters), nothing loaded from elsewhere.
  EXPECT_EQ(count(Html, "<script"), 1u);
  EXPECT_EQ(Html.find("src="), std::string::npos);
}

TEST(HtmlReportTest, HostileStringsAreEscaped) {
  json Report = fullReport();
  Report["best"]["recipe"] = "<script>alert(1)</script>";
  Report["candidates"][0]["reason"] = "\"quoted\" & 'single'";
  Report["problem"]["name"] = "<b>axpby</b>";
  Report["candidates"][1]["proposer"] = "\"><script>x</script>";
  Report["best_diff"] = "+<script>alert(2)</script>\n";
  std::string Html = renderHtmlReport(Report);
  EXPECT_EQ(count(Html, "<script"), 1u); // the page's own
  EXPECT_EQ(Html.find("<b>"), std::string::npos);
  EXPECT_NE(Html.find("data-proposer=\"&quot;&gt;&lt;script&gt;"),
            std::string::npos);
  EXPECT_NE(Html.find("&lt;script&gt;alert(1)&lt;/script&gt;"),
            std::string::npos);
  EXPECT_NE(Html.find("&quot;quoted&quot; &amp; &#39;single&#39;"),
            std::string::npos);
  EXPECT_NE(Html.find("&lt;b&gt;axpby&lt;/b&gt;"), std::string::npos);
}

TEST(HtmlReportTest, EmptyDocumentRenders) {
  std::string Html;
  EXPECT_NO_THROW(Html = renderHtmlReport(json::object()));
  EXPECT_NE(Html.find("</html>"), std::string::npos);
  EXPECT_NE(Html.find("No convergence data."), std::string::npos);
  EXPECT_EQ(count(Html, "<tr class=\"st-"), 0u);
  EXPECT_NO_THROW(renderHtmlReport(json()));
  EXPECT_NO_THROW(renderHtmlReport(json::array({1, 2})));
  EXPECT_NO_THROW(renderHtmlReport(json("a string")));
}

TEST(HtmlReportTest, MistypedFieldsRender) {
  json Report = json::parse(R"({
    "problem": {"name": 42, "memory_bound": "yes"},
    "device": "H100",
    "seed": "one", "evaluations": [1], "elapsed_s": "long",
    "budgets": [], "stopped_by": {"x": 1},
    "best": {"id": "seven", "recipe": 5, "speedup": "fast",
             "speedup_ci": [1.0], "median_ms": true},
    "baselines": {"original": 1, "O": null},
    "lineage": null,
    "convergence": [null, 3, {"evaluation": "1", "best_speedup": 1.0},
                    {"evaluation": 4, "best_speedup": 1.2}],
    "candidates": [null, 7, {"id": [], "parent": {}, "status": 3,
                             "speedup_ci": null, "recipe": null}]
  })");
  std::string Html;
  ASSERT_NO_THROW(Html = renderHtmlReport(Report));
  // One valid convergence point still makes a plot; every array element of
  // "candidates" gets a row, whatever it holds.
  EXPECT_NE(Html.find("<svg"), std::string::npos);
  EXPECT_EQ(count(Html, "<tr class=\"st-"), 3u);
  EXPECT_EQ(Html.find("bandwidth"), std::string::npos);
  EXPECT_NO_THROW(renderHtmlReport(json::parse(R"({"candidates": null,
      "convergence": null, "best": null, "problem": null})")));
}

TEST(HtmlReportTest, MemoryBoundShowsFractionOfCopyBandwidth) {
  std::string Html = renderHtmlReport(fullReport());
  EXPECT_NE(Html.find("2400.0 GB/s"), std::string::npos);
  EXPECT_NE(Html.find("80.0%"), std::string::npos);
  EXPECT_NE(Html.find("copy bandwidth"), std::string::npos);

  json Unmeasured = fullReport();
  Unmeasured["best"].erase("achieved_gbps");
  Unmeasured["best"].erase("fraction_of_copy_bandwidth");
  EXPECT_NE(renderHtmlReport(Unmeasured).find("bandwidth not measured"),
            std::string::npos);
}

TEST(HtmlReportTest, ComputeBoundDoesNotMentionCopyBandwidth) {
  json Report = fullReport();
  Report["problem"]["memory_bound"] = false;
  std::string Html = renderHtmlReport(Report);
  EXPECT_EQ(Html.find("copy bandwidth"), std::string::npos);
  EXPECT_EQ(Html.find("copy_bandwidth"), std::string::npos);
  EXPECT_EQ(Html.find("not measured"), std::string::npos);
}

TEST(HtmlReportTest, PlotHandlesOnePointAndNone) {
  json Report = fullReport();
  Report["convergence"] =
      json::array({{{"evaluation", 1}, {"best_speedup", 1.0}}});
  std::string One = renderHtmlReport(Report);
  EXPECT_EQ(count(One, "<svg"), 1u);
  EXPECT_EQ(count(One, "<circle"), 1u);
  std::string Svg = One.substr(One.find("<svg"));
  Svg = Svg.substr(0, Svg.find("</svg>"));
  EXPECT_EQ(Svg.find("nan"), std::string::npos);
  EXPECT_EQ(Svg.find("inf"), std::string::npos);

  Report["convergence"] = json::array();
  std::string None = renderHtmlReport(Report);
  EXPECT_EQ(None.find("<svg"), std::string::npos);
  EXPECT_NE(None.find("No convergence data."), std::string::npos);
}
} // namespace

TEST(HtmlReportTest, CardDiffStepsAndFoldedDuplicates) {
  json Report = fullReport();
  Report["time_s"] = {{"making", 2.0}, {"evaluating", 9.5}};
  Report["gpu_busy"] = 0.76;
  Report["best_diff"] = "--- a/kernel.cu\n+++ b/best.cu\n@@ -1,2 +1,2 @@\n"
                        " int a;\n-float *x;\n+const float *x;\n---i;\n";
  // Two duplicates of candidate 2's children and one not yet evaluated.
  json &C = Report["candidates"];
  C.push_back({{"id", 8},
               {"parent", 2},
               {"proposer", "mutate"},
               {"recipe", "restrict-const,unroll"},
               {"status", "duplicate"}});
  C.push_back({{"id", 9},
               {"parent", 2},
               {"proposer", "mutate"},
               {"recipe", "restrict-const,unroll{factor=2}"},
               {"status", "duplicate"}});
  C.insert(C.begin(), json{{"id", 10},
                           {"parent", 7},
                           {"proposer", "mutate"},
                           {"recipe", "vectorize-loads{width=8},launch-bounds"},
                           {"status", "made"}});
  std::string Html = renderHtmlReport(Report);
  // The card: best speedup, interval, bandwidth, where the time went.
  std::size_t Card = Html.find("<div class=\"card\">");
  ASSERT_NE(Card, std::string::npos);
  EXPECT_LT(Card, Html.find("<h2>Summary"));
  EXPECT_NE(Html.find("<p class=\"big\">1.520&times; [1.500, 1.550]"),
            std::string::npos);
  EXPECT_NE(Html.find("evaluating 9.5 s, making 2.0 s of 12.5 s; GPU busy "
                      "0.76"),
            std::string::npos);
  // The diff, line by line.
  EXPECT_NE(Html.find("<span class=\"del\">-float *x;</span>"),
            std::string::npos);
  EXPECT_NE(Html.find("<span class=\"add\">+const float *x;</span>"),
            std::string::npos);
  EXPECT_NE(Html.find("<span class=\"hunk\">@@ -1,2 +1,2 @@</span>"),
            std::string::npos);
  EXPECT_NE(Html.find("\n+++ b/best.cu\n"), std::string::npos);
  EXPECT_NE(Html.find("<span class=\"del\">---i;</span>"), std::string::npos);
  // Steps, not whole recipes: candidate 7 replaced restrict-const.
  EXPECT_NE(Html.find(">+ restrict-const</code>"), std::string::npos);
  EXPECT_NE(Html.find(">vectorize-loads: width 4 -&gt; 8</code>"),
            std::string::npos);
  // Duplicates folded into candidate 2's row; evaluated rows first.
  EXPECT_EQ(count(Html, "<tr class=\"st-"), 5u);
  EXPECT_NE(Html.find("2 duplicates (the same source"), std::string::npos);
  EXPECT_NE(Html.find("<td class=\"num\">2</td></tr>"), std::string::npos);
  EXPECT_GT(Html.find("data-status=\"made\""),
            Html.find("data-status=\"wrong-result\""));
  // The filters offer each status and proposer once.
  EXPECT_EQ(count(Html, "<option>mutate</option>"), 1u);
  EXPECT_EQ(count(Html, "<option>made</option>"), 1u);
  EXPECT_EQ(Html.find("<option>duplicate</option>"), std::string::npos);
}

TEST(HtmlReportTest, LLMExchangesShowWhatWasAskedAndAnswered) {
  json Report = fullReport();
  Report["candidates"].push_back({{"id", 11},
                                  {"parent", 1},
                                  {"proposer", "llm"},
                                  {"recipe", "llm#2 | launch-bounds"},
                                  {"status", "wrong-result"},
                                  {"reason", "out differs"}});
  Report["llm_exchanges"] =
      json::array({{{"seq", 1},
                    {"kind", "propose"},
                    {"model", "m"},
                    {"http_status", 500},
                    {"attempts", 2},
                    {"prompt", "[user]\nmake it fast"},
                    {"reply", ""},
                    {"error", "the LLM request failed: HTTP 500"}},
                   {{"seq", 2},
                    {"kind", "propose"},
                    {"model", "m"},
                    {"http_status", 200},
                    {"attempts", 1},
                    {"prompt", "[user]\n<kernel>"},
                    {"reply", "Use float4.\n```cuda\n...\n```"},
                    {"error", ""}}});
  std::string Html = renderHtmlReport(Report);
  EXPECT_NE(Html.find("<details id=\"llm-2\"><summary>llm#2 (propose, m, "
                      "HTTP 200, 1 attempts): gave a candidate source"),
            std::string::npos);
  EXPECT_NE(Html.find("the LLM request failed: HTTP 500</summary>"),
            std::string::npos);
  EXPECT_NE(Html.find("<pre>[user]\n&lt;kernel&gt;</pre>"), std::string::npos);
  EXPECT_NE(Html.find("Use float4."), std::string::npos);
  EXPECT_NE(Html.find("<a href=\"#llm-2\">exchange</a>"), std::string::npos);
}
