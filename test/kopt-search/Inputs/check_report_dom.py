#!/usr/bin/env python3
"""Checks the DOM Chromium dumped for report.html against report.json.

usage: check_report_dom.py DOM.html REPORT.json
"""
import html.parser
import json
import sys


class Dom(html.parser.HTMLParser):
    """The elements a test asks about, with their text."""

    def __init__(self):
        super().__init__()
        self.stack, self.rows, self.spans, self.items = [], [], [], []
        self.shown, self.card, self.diff = "", "", ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append((tag, a))
        if tag == "tr" and "data-status" in a:
            self.rows.append({"status": a["data-status"], "cells": []})
        if tag == "td" and self.rows and self.inside("tr"):
            self.rows[-1]["cells"].append("")

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def inside(self, tag, **attrs):
        return any(t == tag and all(a.get(k) == v for k, v in attrs.items())
                   for t, a in self.stack)

    def handle_data(self, data):
        if self.inside("span", id="f-shown"):
            self.shown += data
        if self.inside("div", **{"class": "card"}):
            self.card += data
        if self.inside("pre", **{"class": "diff"}):
            self.diff += data
        if self.inside("ol") and self.inside("li"):
            self.items.append(data)
        if self.rows and self.inside("td") and self.inside("tr"):
            self.rows[-1]["cells"][-1] += data


def main():
    dom = Dom()
    dom.feed(open(sys.argv[1]).read())
    report = json.load(open(sys.argv[2]))
    best = report["best"]
    failures = []
    if not dom.shown.endswith(" shown"):
        failures.append("the filter script did not run: %r" % dom.shown)
    if "%.3f" % best["speedup"] not in dom.card:
        failures.append("the card lacks the best speedup: %r" % dom.card)
    if report.get("best_diff"):
        if "+++ b/best.cu" not in dom.diff or "\n+" not in dom.diff:
            failures.append("no diff of best.cu: %r" % dom.diff[:200])
    elif best["recipe"]:
        failures.append("report.json has no best_diff")
    if len(report["lineage"]) > 1 and not any("+ " in i or "-O" in i
                                              for i in dom.items):
        failures.append("the lineage is not written as steps: %r" % dom.items)
    # Columns: id, parent, proposer, change, status, reason, ...
    bad = [r for r in dom.rows if r["status"] not in ("ok", "made",
                                                      "validated")]
    if not any(len(r["cells"]) > 5 and r["cells"][4] == r["status"] and
               r["cells"][5].strip() not in ("", "\u2014") for r in bad):
        failures.append("no candidate that is not ok shows its reason: %r"
                        % bad[:2])
    if failures:
        sys.exit("check_report_dom.py: " + "; ".join(failures))
    print("check_report_dom.py: ok (%d rows, %s)" % (len(dom.rows), dom.shown))


if __name__ == "__main__":
    main()
