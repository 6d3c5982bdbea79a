#!/usr/bin/env python3
"""Tables in three real photos of ../shared/testdata/real, read by `onnxocr run` as Markdown
and as HTML: each must come out as one table of the expected grid size, with the expected text
in its first cells, and with the paragraphs around it left outside.

    python3 tests/tables/real_tables_test.py [--onnxocr BIN] [--shared-testdata DIR]
                                             [--model NAME] [-v]

Defaults: $ONNXOCR_BINARY or build/release/onnxocr; $OCR_SHARED_TESTDATA or ../shared/testdata
beside the checkout; --model names the model set (default: the default set). Exits 77 (ctest:
skipped) when either is missing.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import unittest
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from adjacency import cells_from_node  # noqa: E402
from teds import Node, parse_tables  # noqa: E402

SKIP = 77
PHOTOS = ("results_table_en.jpg", "lab_results_table.jpg", "report_table_zh.jpg")
FORMATS = ("html", "markdown")
BINARY = os.environ.get("ONNXOCR_BINARY", os.path.join(ROOT, "build", "release", "onnxocr"))
MODEL = ""
TESTDATA = os.environ.get("OCR_SHARED_TESTDATA",
                          os.path.join(ROOT, "..", "shared", "testdata"))


@dataclass
class Grid:
    """A table laid out on its grid: a spanning cell's text fills every slot it covers."""
    cells: list[list[str]]

    @property
    def rows(self) -> int:
        return len(self.cells)

    @property
    def cols(self) -> int:
        return max((len(row) for row in self.cells), default=0)

    def cell(self, row: int, col: int) -> str:
        line = self.cells[row] if row < len(self.cells) else []
        return line[col] if col < len(line) else ""

    def texts(self) -> list[str]:
        return [text for row in self.cells for text in row]


def grid_from_node(table: Node) -> Grid:
    """Rows are the <tr>s of every section, in order; columns honour colspan and rowspan."""
    taken = {(r, c): cell.text for cell in cells_from_node(table)
             for r in range(cell.row, cell.row_end + 1)
             for c in range(cell.col, cell.col_end + 1)}
    rows = max((r + 1 for r, _ in taken), default=0)
    cells = []
    for r in range(rows):
        width = max((c + 1 for (rr, c) in taken if rr == r), default=0)
        cells.append([taken.get((r, c), "") for c in range(width)])
    return Grid(cells)


_DELIMITER_CELL = re.compile(r"^\s*:?-+:?\s*$")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_HTML_TABLE = re.compile(r"<table\b.*?</table\s*>", re.IGNORECASE | re.DOTALL)


def split_row(line: str) -> list[str]:
    """Cells of a GFM pipe-table row: split on unescaped pipes, then undo Markdown escapes."""
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    cells = re.split(r"(?<!\\)\|", line)
    out = []
    for cell in cells:
        cell = re.sub(r"<br\s*/?>", " ", cell, flags=re.IGNORECASE)
        out.append(" ".join(_ESCAPE.sub(r"\1", cell).split()))
    return out


def is_delimiter(line: str) -> bool:
    return "-" in line and "|" in line and all(_DELIMITER_CELL.match(c) for c in
                                               re.split(r"\|", line.strip().strip("|")))


def markdown_grids(document: str) -> list[Grid]:
    """GFM pipe tables and raw HTML <table>s (GFM allows them; spans need them), in order."""
    found: list[tuple[int, Grid]] = []
    for match in _HTML_TABLE.finditer(document):
        for table in parse_tables(match.group(0)):
            found.append((match.start(), grid_from_node(table)))
    outside = _HTML_TABLE.sub(lambda m: "\n" * m.group(0).count("\n"), document)
    lines = outside.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    i = 0
    while i + 1 < len(lines):
        header, delimiter = lines[i], lines[i + 1]
        if "|" in header and is_delimiter(delimiter) and \
                len(split_row(header)) == len(split_row(delimiter)):
            width = len(split_row(header))
            rows = [split_row(header)]
            i += 2
            while i < len(lines) and lines[i].strip() and "|" in lines[i]:
                # GFM pads short body rows and drops cells beyond the header's count.
                cells = split_row(lines[i])
                rows.append((cells + [""] * width)[:width])
                i += 1
            found.append((offsets[i - len(rows) - 1], Grid(rows)))
        else:
            i += 1
    return [grid for _, grid in sorted(found, key=lambda item: item[0])]


def html_grids(document: str) -> list[Grid]:
    return [grid_from_node(table) for table in parse_tables(document)]


def loose(text: str) -> str:
    """Spacing is the OCR's weakest guess: compare without it."""
    return "".join(text.split())


def run(binary: str, photo: str, fmt: str) -> str:
    model = ["--model", MODEL] if MODEL else []
    out = subprocess.run([binary, "run", "--format", fmt, "--threads", "1", *model, photo],
                         check=False, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"onnxocr run --format {fmt} {photo} failed ({out.returncode}): "
                           f"{out.stderr[-1000:]}")
    return out.stdout


class RealTablesTest(unittest.TestCase):
    outputs: dict[tuple[str, str], str] = {}

    @classmethod
    def setUpClass(cls) -> None:
        jobs = [(photo, fmt) for photo in PHOTOS for fmt in FORMATS]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            texts = pool.map(lambda job: run(BINARY, os.path.join(TESTDATA, "real", job[0]),
                                             job[1]), jobs)
            cls.outputs = dict(zip(jobs, texts))

    def tables(self, photo: str, fmt: str) -> list[Grid]:
        document = self.outputs[(photo, fmt)]
        return html_grids(document) if fmt == "html" else markdown_grids(document)

    def only_table(self, photo: str, fmt: str) -> Grid:
        tables = self.tables(photo, fmt)
        self.assertEqual(len(tables), 1, f"{photo} as {fmt}: expected one table, got "
                         f"{len(tables)}:\n{self.outputs[(photo, fmt)][:3000]}")
        return tables[0]

    def test_results_table_en(self):
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                grid = self.only_table("results_table_en.jpg", fmt)
                self.assertEqual((grid.rows, grid.cols), (16, 5), grid.cells)
                self.assertIn("Methods", loose(grid.cell(0, 0)))
                self.assertIn("FPS", loose(grid.cell(0, 4)))
                self.assertIn("SegLink", loose(grid.cell(1, 0)))

    def test_lab_results_table(self):
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                grid = self.only_table("lab_results_table.jpg", fmt)
                self.assertEqual((grid.rows, grid.cols), (14, 5), grid.cells)
                self.assertIn("代号", loose(grid.cell(0, 0)))
                second = loose(" ".join(grid.cells[1]))
                self.assertIn("ALT", second)
                self.assertIn("U/L", second)

    def test_report_table_zh(self):
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                grid = self.only_table("report_table_zh.jpg", fmt)
                # A row for the total, the title row, two header rows and ten holders.
                self.assertEqual((grid.rows, grid.cols), (14, 7), grid.cells)
                header = [r for r in range(grid.rows) if "股东名称" in loose(grid.cell(r, 0))]
                self.assertTrue(header, f"no row starts with 股东名称: {grid.cells}")
                self.assertGreaterEqual(grid.rows - header[0] - 1, 10, grid.cells)
                # The section heading above the table is a paragraph, not a cell.
                self.assertFalse([t for t in grid.texts() if "截至报告期末" in loose(t)])
                document = self.outputs[("report_table_zh.jpg", fmt)]
                self.assertIn("截至报告期末", loose(document))


class ParsingTest(unittest.TestCase):
    """The grid readers themselves, on hand-written documents (no binary needed)."""

    def test_html_spans(self):
        grid = html_grids("<table><thead><tr><th rowspan=2>A</th><th colspan=2>B</th></tr>"
                          "<tr><th>b1</th><th>b2</th></tr></thead>"
                          "<tbody><tr><td>1</td><td>2</td><td>3</td></tr></tbody></table>")[0]
        self.assertEqual((grid.rows, grid.cols), (3, 3))
        self.assertEqual(grid.cells[1], ["A", "b1", "b2"])

    def test_markdown_pipe_table(self):
        doc = ("Heading\n\n| Methods | R | P |\n| --- | :-: | ---: |\n"
               "| SegLink\\[26\\] | 0\\-\\-40 | a \\| b |\n| short |\n\nAfter\n")
        grids = markdown_grids(doc)
        self.assertEqual(len(grids), 1)
        self.assertEqual((grids[0].rows, grids[0].cols), (3, 3))
        self.assertEqual(grids[0].cells[1], ["SegLink[26]", "0--40", "a | b"])
        self.assertEqual(grids[0].cells[2], ["short", "", ""])

    def test_markdown_with_html_table(self):
        doc = ("| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n\n<table><tr><td colspan=\"2\">x</td>"
               "</tr>\n<tr><td>y</td><td>z</td></tr></table>\n")
        grids = markdown_grids(doc)
        self.assertEqual([(g.rows, g.cols) for g in grids], [(2, 2), (2, 2)])
        self.assertEqual(grids[1].cells[0], ["x", "x"])

    def test_markdown_without_table(self):
        self.assertEqual(markdown_grids("a | b\n\nno delimiter line\n"), [])


def main() -> int:
    global BINARY, TESTDATA, MODEL
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--onnxocr", default=BINARY)
    ap.add_argument("--shared-testdata", default=TESTDATA)
    ap.add_argument("--model", default=MODEL)
    args, rest = ap.parse_known_args()
    BINARY, TESTDATA, MODEL = args.onnxocr, args.shared_testdata, args.model
    missing = [p for p in PHOTOS if not os.path.exists(os.path.join(TESTDATA, "real", p))]
    if missing:
        print(f"SKIP: {', '.join(missing)} not found in {TESTDATA}/real (../shared beside the "
              "checkout, or set OCR_SHARED_TESTDATA / --shared-testdata)")
        return SKIP
    if not os.access(BINARY, os.X_OK):
        print(f"SKIP: onnxocr binary {BINARY} not found (build it, or set ONNXOCR_BINARY / "
              "--onnxocr)")
        return SKIP
    result = unittest.main(argv=[sys.argv[0], *rest], exit=False).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
