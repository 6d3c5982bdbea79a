#!/usr/bin/env python3
"""Tables of real government PDFs: the ICDAR 2013 Table Competition's development half
(../shared/testdata/icdar2013-dev, read its SOURCE.md), read by `onnxocr run --format html`.

Each annotated table on a page is a true table (a table continued on the next page is one on each
page; the regions of one page, blocks set side by side, are placed together by their column and
row increments), scored as the grid the annotators drew, empty grid positions as empty cells (no
cell is annotated as a header). Two inputs are read:

* text: the PDF as it is, its tables built from the text layer;
* ocr: the same pages rendered at --dpi (150) and read by OCR (`--force-ocr`).

The tables `run` writes on a page are matched one to one with that page's true regions, greedily
by adjacency F1. Reported per input, for all tables and for the EU and US documents apart:

* adjacency relations (adjacency.py, the competition's measure): precision, recall and F1 over
  all relations of all true tables (a missed table loses all of its relations);
* mean TEDS and structure-only TEDS (teds.py; a missed table scores 0);
* exact grids: tables whose structure TEDS is 1;
* tables found: true tables matched to a table holding at least half of their words;
* failure kinds, a table counted under each that applies: missed (not found), cut short (found,
  under 90% of its words), rows merged or split, columns merged or split (fewer or more rows or
  columns holding text than the truth).

Floors (thresholds.json, "icdar"): "full" applies to a run over every document, and is checked
unless --docs chooses a subset; --floors NAME checks another entry, which may name its own
documents ("quick": the few that ctest reads by OCR).

    python3 tests/tables/icdar_check.py [--inputs text,ocr] [--docs eu-001,us-003] [--out DIR]
        [--convert DIR] [--json FILE] [--floors NAME] [--onnxocr BIN] [--testdata DIR] [-v]
        [-- run args]

--convert DIR writes each true table as DIR/NAME.html (the table truth format of make_table_set)
and exits. Exit 0 when the floors hold, 1 listing those that fail, 77 (ctest: skipped) when the
set or the binary is missing.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import html
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from adjacency import Cell, Score, cells_from_node, normalize, score  # noqa: E402
from teds import Node, parse_table, parse_tables, teds_trees  # noqa: E402

SKIP = 77
INPUTS = ("text", "ocr")
GROUPS = ("all", "eu", "us")
KINDS = ("missed", "cut short", "rows merged", "rows split", "columns merged", "columns split")
PAGE_DIV = re.compile(r"<div class='page' data-page-id='(\d+)'>")


@dataclass
class TrueTable:
    name: str  # e.g. us-017 t1 p3: file, table, page (1-based, as the XML counts)
    doc: str  # the annotation file's stem without -str, e.g. us-011b
    pdf: str
    page: int  # 0-based
    cells: list[Cell]
    tree: Node = field(default_factory=lambda: Node("table"))

    @property
    def group(self) -> str:
        return self.doc[:2]


def pdf_for(doc: str, folder: str) -> str:
    """eu-009b annotates eu-009a.pdf, as SOURCE.md says: a letter-suffixed file without its own
    PDF shares the "a" one."""
    path = os.path.join(folder, doc + ".pdf")
    if not os.path.exists(path) and doc[-1].isalpha():
        path = os.path.join(folder, doc[:-1] + "a.pdf")
    return path


def load_truth(folder: str) -> list[TrueTable]:
    tables = []
    for entry in sorted(os.listdir(folder)):
        if not entry.endswith("-str.xml"):
            continue
        doc = entry[:-len("-str.xml")]
        root = ET.parse(os.path.join(folder, entry)).getroot()
        for table in root.findall("table"):
            # The regions of a table on one page are one grid: a table set in blocks side by
            # side (us-035a) has a region per block, placed by its col-increment.
            by_page: dict[int, list[Cell]] = {}
            for region in table.findall("region"):
                rows = int(region.get("row-increment", 0))
                cols = int(region.get("col-increment", 0))
                cells = by_page.setdefault(int(region.get("page")), [])
                for cell in region.findall("cell"):
                    row = int(cell.get("start-row")) + rows
                    col = int(cell.get("start-col")) + cols
                    text = " ".join((cell.findtext("content") or "").split())
                    cells.append(Cell(row, col, int(cell.get("end-row", row - rows)) + rows,
                                      int(cell.get("end-col", col - cols)) + cols, text))
            for page, cells in sorted(by_page.items()):
                # Some files count rows and columns from 1: no empty row or column before the
                # first cell.
                top = min(c.row for c in cells)
                left = min(c.col for c in cells)
                cells = [Cell(c.row - top, c.col - left, c.row_end - top, c.col_end - left,
                              c.text) for c in cells]
                name = f"{doc} t{table.get('id')} p{page}"
                truth = TrueTable(name, doc, pdf_for(doc, folder), page - 1, cells)
                truth.tree = parse_table(grid_html(cells))
                tables.append(truth)
    return tables


def grid_html(cells: list[Cell]) -> str:
    """The region as an HTML table: its cells with their spans, and an empty cell at each grid
    position no cell covers."""
    rows = max((c.row_end for c in cells), default=-1) + 1
    cols = max((c.col_end for c in cells), default=-1) + 1
    starts = {(c.row, c.col): c for c in cells}
    covered = {(r, k) for c in cells for r in range(c.row, c.row_end + 1)
               for k in range(c.col, c.col_end + 1)}
    out = ["<table>"]
    for r in range(rows):
        out.append("<tr>")
        for k in range(cols):
            cell = starts.get((r, k))
            if cell is not None:
                spans = ""
                if cell.row_end > cell.row:
                    spans += f' rowspan="{cell.row_end - cell.row + 1}"'
                if cell.col_end > cell.col:
                    spans += f' colspan="{cell.col_end - cell.col + 1}"'
                out.append(f"<td{spans}>{html.escape(cell.text)}</td>")
            elif (r, k) not in covered:
                out.append("<td></td>")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def tables_by_page(document: str) -> dict[int, list[Node]]:
    """The tables of a paginated HTML document, keyed by page (0-based)."""
    pages: dict[int, list[Node]] = {}
    marks = list(PAGE_DIV.finditer(document))
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(document)
        pages[int(mark.group(1))] = parse_tables(document[mark.end():end])
    return pages


@dataclass
class Reading:
    pdf: str
    pages: list[int]
    source: str
    html: str = ""
    error: str = ""
    seconds: float = 0.0


def read(binary: str, reading: Reading, dpi: int, extra: list[str]) -> Reading:
    args = [binary, "run", "--format", "html", "--paginate", "--threads", "1", "--pages",
            ",".join(str(p) for p in reading.pages)]
    if reading.source == "ocr":
        args += ["--force-ocr", "--pdf-dpi", str(dpi)]
    start = time.monotonic()
    out = subprocess.run(args + extra + [reading.pdf], capture_output=True, text=True,
                         check=False)
    reading.seconds = time.monotonic() - start
    reading.html = out.stdout
    if out.returncode != 0:
        reading.error = f"exit {out.returncode}: {out.stderr.strip()[-300:]}"
    return reading


@dataclass
class TableResult:
    truth: TrueTable
    source: str
    adjacency: Score
    teds: float = 0.0
    structure: float = 0.0
    found: bool = False
    word_share: float = 0.0
    pred_rows: int = 0
    pred_cols: int = 0
    html: str = ""

    def kinds(self) -> list[str]:
        if not self.found:
            return ["missed"]
        rows, cols = text_lines(self.truth.cells)
        out = []
        if self.word_share < 0.9:
            out.append("cut short")
        if self.pred_rows != rows:
            out.append("rows merged" if self.pred_rows < rows else "rows split")
        if self.pred_cols != cols:
            out.append("columns merged" if self.pred_cols < cols else "columns split")
        return out


def text_lines(cells: list[Cell]) -> tuple[int, int]:
    """How many rows and columns hold a cell with text."""
    full = [c for c in cells if normalize(c.text)]
    return len({c.row for c in full}), len({c.col for c in full})


def words(cells: list[Cell]) -> list[str]:
    return [w for c in cells for w in (normalize(t) for t in c.text.split()) if w]


def word_share(pred: list[Cell], truth: list[Cell]) -> float:
    """The share of the true table's words that the predicted table holds (as a multiset)."""
    want = words(truth)
    have: dict[str, int] = {}
    for w in words(pred):
        have[w] = have.get(w, 0) + 1
    hit = 0
    for w in want:
        if have.get(w, 0):
            have[w] -= 1
            hit += 1
    return hit / len(want) if want else 1.0


def score_page(truths: list[TrueTable], preds: list[Node], source: str) -> list[TableResult]:
    pred_cells = [cells_from_node(p) for p in preds]
    pairs = []
    for i, cells in enumerate(pred_cells):
        for j, truth in enumerate(truths):
            s = score(cells, truth.cells)
            pairs.append((-(s.f1 or 0.0), -word_share(cells, truth.cells), i, j, s))
    pairs.sort(key=lambda p: p[:4])
    results: dict[int, TableResult] = {}
    used: set[int] = set()
    for neg_f1, neg_share, i, j, s in pairs:
        if i in used or j in results or (neg_f1 == 0 and neg_share == 0):
            continue
        used.add(i)
        rows, cols = text_lines(pred_cells[i])
        results[j] = TableResult(truths[j], source, s, teds_trees(preds[i], truths[j].tree),
                                 teds_trees(preds[i], truths[j].tree, structure_only=True),
                                 -neg_share >= 0.5, -neg_share, rows, cols)
    out = []
    for j, truth in enumerate(truths):
        if j not in results:
            results[j] = TableResult(truth, source, score([], truth.cells))
        out.append(results[j])
    return out


def summarize(results: list[TableResult]) -> dict:
    total = Score()
    for r in results:
        total.add(r.adjacency)
    n = len(results)
    kinds = {k: sum(k in r.kinds() for r in results) for k in KINDS}
    return {"tables": n, "precision": total.precision, "recall": total.recall,
            "adjacency_f1": total.f1,
            "teds": sum(r.teds for r in results) / n if n else None,
            "structure_teds": sum(r.structure for r in results) / n if n else None,
            "exact_grids": sum(r.structure == 1.0 for r in results) / n if n else None,
            "found": sum(r.found for r in results) / n if n else None, "kinds": kinds}


def fmt(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def print_summary(source: str, results: list[TableResult], verbose: bool) -> dict:
    summary = {}
    print(f"\n== {source} ({len(results)} tables) ==")
    print(f"{'group':6} {'tables':>6} {'adjF1':>6} {'P':>6} {'R':>6} {'TEDS':>6} {'struct':>6} "
          f"{'exact':>6} {'found':>6}")
    for group in GROUPS:
        chosen = [r for r in results if group == "all" or r.truth.group == group]
        s = summarize(chosen)
        summary[group] = s
        print(f"{group:6} {s['tables']:>6} {fmt(s['adjacency_f1']):>6} {fmt(s['precision']):>6} "
              f"{fmt(s['recall']):>6} {fmt(s['teds']):>6} {fmt(s['structure_teds']):>6} "
              f"{fmt(s['exact_grids']):>6} {fmt(s['found']):>6}")
    print("failure kinds (tables): " + ", ".join(
        f"{k} {summary['all']['kinds'][k]}" for k in KINDS))
    if verbose:
        for r in results:
            rows, cols = text_lines(r.truth.cells)
            a = r.adjacency
            print(f"  {r.truth.name:18} adjF1 {fmt(a.f1)} ({a.matched}/{a.predicted}/{a.true}) "
                  f"struct {r.structure:.3f} "
                  f"rows {r.pred_rows}/{rows} cols {r.pred_cols}/{cols} "
                  f"words {r.word_share:.2f} {' '.join(k.replace(' ', '_') for k in r.kinds())}")
    return summary


def check_floors(summaries: dict, floors: dict) -> list[str]:
    failures = []
    for source, metrics in floors.items():
        if source == "docs":
            continue
        got = summaries.get(source, {}).get("all")
        if got is None:
            continue
        for metric, floor in metrics.items():
            value = got.get(metric)
            if value is None or value < floor:
                failures.append(f"{source} {metric} {fmt(value)} < {floor}")
    return failures


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--onnxocr", default=os.environ.get(
        "ONNXOCR_BINARY", os.path.join(ROOT, "build", "release", "onnxocr")))
    parser.add_argument("--testdata", default=os.environ.get(
        "OCR_SHARED_TESTDATA", os.path.join(ROOT, "..", "shared", "testdata")))
    parser.add_argument("--inputs", default="text,ocr")
    parser.add_argument("--docs", default="", help="comma-separated annotation names")
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--floors", help="the floors to check: a name under thresholds.json's "
                        "\"icdar\" (default: full, for a run over every document; none with --docs)")
    parser.add_argument("--out", help="write each page's HTML here")
    parser.add_argument("--json", help="write the summary here")
    parser.add_argument("--convert", help="write each true table as HTML here and exit")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)

    folder = os.path.join(args.testdata, "icdar2013-dev")
    if not os.path.isdir(folder):
        print(f"SKIP: {folder} is absent (../shared/testdata/icdar2013-dev)")
        return SKIP
    truths = load_truth(folder)
    if args.convert:
        os.makedirs(args.convert, exist_ok=True)
        for t in truths:
            name = t.name.replace(" ", "_")
            with open(os.path.join(args.convert, name + ".html"), "w", encoding="utf-8") as f:
                f.write(grid_html(t.cells) + "\n")
        print(f"wrote {len(truths)} tables to {args.convert}")
        return 0
    if not os.access(args.onnxocr, os.X_OK):
        print(f"SKIP: {args.onnxocr} is not built")
        return SKIP
    floors_name = args.floors or ("" if args.docs else "full")
    floors: dict = {}
    if floors_name:
        with open(os.path.join(HERE, "thresholds.json"), encoding="utf-8") as f:
            floors = json.load(f)["icdar"][floors_name]
    docs = args.docs or ",".join(floors.get("docs", []))
    if docs:
        chosen = set(docs.split(","))
        truths = [t for t in truths if t.doc in chosen]
    inputs = [s for s in args.inputs.split(",") if s]

    pages: dict[str, set[int]] = {}
    for t in truths:
        pages.setdefault(t.pdf, set()).add(t.page)
    readings = [Reading(pdf, sorted(p), source) for source in inputs
                for pdf, p in sorted(pages.items())]
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        readings = list(pool.map(lambda r: read(args.onnxocr, r, args.dpi, extra), readings))
    errors = [f"{r.source} {os.path.basename(r.pdf)}: {r.error}" for r in readings if r.error]
    print(f"read {len(readings)} documents in {time.monotonic() - start:.1f} s "
          f"({sum(r.seconds for r in readings):.1f} s of runs)")

    summaries = {}
    for source in inputs:
        results = []
        for reading in (r for r in readings if r.source == source):
            by_page = tables_by_page(reading.html)
            if args.out:
                os.makedirs(args.out, exist_ok=True)
                stem = os.path.basename(reading.pdf)[:-4]
                with open(os.path.join(args.out, f"{stem}.{source}.html"), "w",
                          encoding="utf-8") as f:
                    f.write(reading.html)
            # Each annotation file is scored on its own, as the competition scores one result
            # file against each: eu-009a and eu-009b annotate the same table differently.
            for doc, page in sorted({(t.doc, t.page) for t in truths if t.pdf == reading.pdf}):
                chosen = [t for t in truths if t.doc == doc and t.page == page]
                results += score_page(chosen, by_page.get(page, []), source)
        results.sort(key=lambda r: r.truth.name)
        summaries[source] = print_summary(source, results, args.verbose)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(summaries, f, indent=1)

    failures = errors + check_floors(summaries, floors)
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
