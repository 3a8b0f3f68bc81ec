#!/usr/bin/env python3
"""Checks a report page as a browser rendered it (the DOM Chromium dumped after its scripts ran).

Usage: report_dom.py DOM.html [--summary RUN.jsonl] [--replay REPLAY.jsonl] [--cases N] [--js on|off]
                      [--text TEXT]... [--saved KIND=N]... [--shown N] [--sorted TABLE.COLUMN.asc|desc]
Every plot (svg.plot) must have a bar, a point, a line of data or a mark where the paths agree.
  --summary  the campaign's JSON Lines: the page's table must hold its summary's counts, row for row,
             and each relation's histogram the number of its checks that were bitwise equal
  --replay   the replay's JSON Lines: the page's replay table must hold its summary's counts, and a
             row per case with that case's class
  --cases    the number of saved cases the page must show
  --js       whether the page's script ran (it marks <html> with class "js"), or not
  --text     a string that must appear in the page's text as it is (a hostile one, escaped as text)
  --saved    the number of results of a kind (sweep, bisect, explain) saved beside the corpus that the
             page must show, each with a drawing that has data (a plot's, or a tree's lines)
  --shown    the number of saved cases a filter (#filter=...) must leave shown
  --sorted   a table's body rows must be in that order of the column (numbers, 0-based column)
Prints one line per problem and exits 1 if there is any; every check can fail.
"""
import argparse
import json
import re
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.text = [], []
        self.scripts = 0
        self.html_classes = ""
        self.external = []  # attributes that would fetch something
        self.rows = []  # the summary table's rows: [(cell text, data-verdict)]
        self.in_summary = False
        self.plots = []  # per svg.plot: its bars or points
        self.findings = 0
        self.table = None  # the id of the table being read
        self.replay_counts = {}  # class -> count, from #replay-summary
        self.replay_rows = []  # [file text, class] per row of #replay-cases
        self.tables = {}  # id -> the text of each body row's cells
        self.in_body = False
        self.saved = []  # per section.saved: [kind, marks drawn in it]
        self.shown = 0  # saved cases not hidden
        self.in_tree = False  # inside a summation tree's svg

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append(tag)
        if tag == "html":
            self.html_classes = a.get("class") or ""
        if tag == "script":
            self.scripts += 1
        for name in ("src", "href", "srcset", "action", "data"):
            if name in a and not (name == "href" and (a[name] or "").startswith("#")):  # the page's own anchors
                self.external.append(f"<{tag} {name}={a[name]!r}>")
        if tag == "link":
            self.external.append("<link>")
        if tag == "table" and a.get("id") == "summary-table":
            self.in_summary = True
        if tag == "table":
            self.table = a.get("id")
            self.tables.setdefault(self.table, [])
        if tag == "tbody":
            self.in_body = True
        if self.in_body and tag == "tr":
            self.tables[self.table].append([])
        if self.in_body and tag == "td" and self.tables[self.table]:
            self.tables[self.table][-1].append("")
        if tag == "section" and a.get("class") == "saved":
            self.saved.append([a.get("data-kind"), 0])
        if tag == "svg":
            self.in_tree = "sumtree" in (a.get("class") or "")
        if self.saved and (tag == "line" and (self.in_tree or a.get("class") == "agree")
                           or (tag, a.get("class")) == ("polyline", "series")):
            self.saved[-1][1] += 1
        if self.table == "replay-summary" and tag == "td":
            self.replay_counts[a.get("data-class")] = ""
            self.current = ("count", a.get("data-class"))
        if self.table == "replay-cases" and tag == "tr":
            self.replay_rows.append(["", None])
        if self.table == "replay-cases" and tag == "td" and a.get("data-class"):
            self.replay_rows[-1][1] = a.get("data-class")
        if self.in_summary and tag == "tr":
            self.rows.append([])
        if self.in_summary and tag == "td":
            self.rows[-1].append(["", a.get("data-verdict")])
        if tag == "svg" and "plot" in (a.get("class") or ""):
            self.plots.append(0)
        if (tag, a.get("class")) in (("rect", "bar"), ("circle", "point"), ("line", "agree")):
            self.plots[-1] += 1
        if (tag, a.get("class")) == ("polyline", "series"):
            self.plots[-1] += len((a.get("points") or "").split())
        if tag == "section" and a.get("class") == "finding":
            self.findings += 1
            self.shown += "hidden" not in a

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_summary = False
            self.table = None
        if tag == "tbody":
            self.in_body = False
        if tag == "svg":
            self.in_tree = False
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        if self.stack and self.stack[-1] in ("script", "style"):
            return
        self.text.append(data)
        if self.in_body and self.tables.get(self.table) and self.tables[self.table][-1] \
                and "td" in self.stack:
            self.tables[self.table][-1][-1] += data
        if self.table == "replay-summary" and self.stack and self.stack[-1] == "td":
            self.replay_counts[self.current[1]] += data
        if self.table == "replay-cases" and self.replay_rows and self.stack and self.stack[-1] in ("td", "a") \
                and self.replay_rows[-1][1] is None:
            self.replay_rows[-1][0] += data  # the case's cell comes first
        if self.in_summary and self.rows and self.rows[-1] and self.stack and self.stack[-1] == "td":
            self.rows[-1][-1][0] += data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dom")
    ap.add_argument("--summary")
    ap.add_argument("--replay")
    ap.add_argument("--cases", type=int)
    ap.add_argument("--js", choices=("on", "off"))
    ap.add_argument("--text", action="append", default=[])
    ap.add_argument("--saved", action="append", default=[])
    ap.add_argument("--shown", type=int)
    ap.add_argument("--sorted")
    args = ap.parse_args()
    page = Page()
    page.feed(open(args.dom, encoding="utf-8").read())
    problems = []
    if page.scripts != 1:
        problems.append(f"{page.scripts} script elements, want 1 (the page's own)")
    if page.external:
        problems.append("fetches from elsewhere: " + ", ".join(page.external))
    if not page.plots:
        problems.append("no plot")
    for i, bars in enumerate(page.plots):
        if not bars:
            problems.append(f"plot {i + 1} has no bars or points")
    if args.js:
        ran = "js" in page.html_classes.split()
        if ran != (args.js == "on"):
            problems.append(f"the script {'did not run' if args.js == 'on' else 'ran'} (html class {page.html_classes!r})")
    if args.cases is not None and page.findings != args.cases:
        problems.append(f"{page.findings} saved cases shown, want {args.cases}")
    if args.summary:
        summary = [json.loads(l) for l in open(args.summary) if '"type":"summary"' in l.replace(" ", "")][-1]
        want = {(r["relation"], r["backends"]): r for r in summary["rows"]}
        got = {}
        for cells in page.rows:
            if not cells:
                continue  # the header row
            got[(cells[0][0], cells[1][0])] = {v: int(text) for text, v in cells if v}, int(cells[2][0])
        if set(got) != set(want):
            problems.append(f"table rows {sorted(got)} != summary rows {sorted(want)}")
        for key, row in want.items():
            if key in got and (got[key][0] != row["verdicts"] or got[key][1] != row["checks"]):
                problems.append(f"row {key}: page {got[key]}, summary {row['verdicts']}, {row['checks']} checks")
        same = {}
        for (relation, _), row in want.items():
            same[relation] = same.get(relation, 0) + row["verdicts"]["same"]
        dom = open(args.dom, encoding="utf-8").read()
        histograms = re.findall(r'class="plot histogram"[^>]*aria-label="([^":]+):.*?(\d+) bitwise equal', dom, re.S)
        if not histograms and '"plot histogram"' in dom:
            problems.append("histograms without the count of bitwise equal checks")
        for relation, equal in histograms:
            if int(equal) != same.get(relation):
                problems.append(f"histogram {relation}: {equal} bitwise equal, the summary {same.get(relation)}")
    if args.replay:
        lines = [json.loads(l) for l in open(args.replay) if l.strip()]
        summary = [l for l in lines if l["type"] == "summary"][-1]
        got = {c: int(n) for c, n in page.replay_counts.items()}
        want = {c: summary[c] for c in got}
        if got != want or not got:
            problems.append(f"replay counts {got} != the summary's {want}")
        rows = [r for r in page.replay_rows if r[0]]
        cases = {l["file"]: l["class"] for l in lines if l["type"] == "replay"}
        if {f: c for f, c in rows} != cases:
            problems.append(f"replay rows {rows} != the replay's cases {cases}")
    for want in args.saved:
        kind, n = want.split("=")
        sections = [marks for k, marks in page.saved if k == kind]
        if len(sections) != int(n):
            problems.append(f"{len(sections)} saved {kind} results shown, want {n}")
        for i, marks in enumerate(sections):
            if not marks:
                problems.append(f"saved {kind} result {i + 1}: nothing drawn")
    if args.shown is not None and page.shown != args.shown:
        problems.append(f"{page.shown} saved cases shown, want {args.shown} (the filter)")
    if args.sorted:
        table, column, order = args.sorted.split(".")
        values = [float(row[int(column)]) for row in page.tables.get(table, []) if len(row) > int(column)]
        if len(values) < 2:
            problems.append(f"table {table}: {len(values)} rows to be sorted")
        if values != sorted(values, reverse=order == "desc"):
            problems.append(f"table {table} column {column} not in {order}ending order: {values}")
    text = "".join(page.text)
    for t in args.text:
        if t not in text:
            problems.append(f"text {t!r} is not in the page's text")
    for p in problems:
        print("report_dom:", p)
    sys.exit(1 if problems else 0)


main()
