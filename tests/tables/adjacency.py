#!/usr/bin/env python3
"""The ICDAR 2013 Table Competition's structure measure: adjacency relations.

Göbel, Hassan, Oro and Orsi, "A methodology for evaluating algorithms for table understanding in
PDF documents" (DocEng 2012): every non-empty cell is paired with its nearest non-empty
neighbour to the right (in each row it covers) and below (in each column it covers); a relation
is (direction, text of the first cell, text of the second). The predicted relations are compared
with the true ones as multisets; precision, recall and F1 follow. Empty cells are skipped, so a
spurious empty column or row costs nothing, while a merged or split cell breaks the relations
around it.

Texts are compared after NFKC, case folding and removing whitespace. Two texts also match when
their normalized Levenshtein distance is at most FUZZ (0.2), so that a letter misread by OCR in a
long cell does not count as a structure error; exact matches are paired first. Written from the
paper's definition.

    python3 adjacency.py PRED.html GT.html

prints precision, recall and F1 of the first table of each file.
"""
from __future__ import annotations

import argparse
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Optional

from teds import Node, normalized_levenshtein, parse_table

FUZZ = 0.2


@dataclass(frozen=True)
class Cell:
    """A cell on its table's grid: rows row..row_end and columns col..col_end, inclusive."""
    row: int
    col: int
    row_end: int
    col_end: int
    text: str


def normalize(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def cells_from_node(table: Optional[Node]) -> list[Cell]:
    """The cells of an HTML table tree (teds.parse_table), placed on the grid as a browser
    places them: rowspan and colspan push later cells right."""
    if table is None:
        return []
    rows = [tr for section in table.children for tr in section.children if tr.tag == "tr"]
    taken: set[tuple[int, int]] = set()
    cells = []
    for r, tr in enumerate(rows):
        c = 0
        for td in tr.children:
            while (r, c) in taken:
                c += 1
            for dr in range(td.rowspan):
                for dc in range(td.colspan):
                    taken.add((r + dr, c + dc))
            cells.append(Cell(r, c, r + td.rowspan - 1, c + td.colspan - 1, td.text))
            c += td.colspan
    return cells


def relations(cells: Iterable[Cell]) -> list[tuple[str, str, str]]:
    """(direction, first text, second text) for each pair of nearest non-empty neighbours."""
    at: dict[tuple[int, int], int] = {}
    texts = []
    for i, cell in enumerate(c for c in cells if normalize(c.text)):
        texts.append((cell, normalize(cell.text)))
        for r in range(cell.row, cell.row_end + 1):
            for c in range(cell.col, cell.col_end + 1):
                at.setdefault((r, c), i)
    if not at:
        return []
    last_row = max(r for r, _ in at)
    last_col = max(c for _, c in at)
    pairs: set[tuple[str, int, int]] = set()

    def nearest(i: int, positions: Iterable[tuple[int, int]]) -> Optional[int]:
        """The first other cell at one of `positions`, in order."""
        return next((j for j in map(at.get, positions) if j is not None and j != i), None)

    for i, (cell, _) in enumerate(texts):
        for direction, lanes, along in (
                ("right", range(cell.row, cell.row_end + 1),
                 lambda r: ((r, c) for c in range(cell.col_end + 1, last_col + 1))),
                ("below", range(cell.col, cell.col_end + 1),
                 lambda c: ((r, c) for r in range(cell.row_end + 1, last_row + 1)))):
            for lane in lanes:
                j = nearest(i, along(lane))
                if j is not None:
                    pairs.add((direction, i, j))
    return sorted((d, texts[i][1], texts[j][1]) for d, i, j in pairs)


def close(a: str, b: str) -> bool:
    return a == b or normalized_levenshtein(a, b) <= FUZZ


def matched_relations(pred: list[tuple[str, str, str]], gt: list[tuple[str, str, str]]) -> int:
    """How many relations pair up one to one: exact ones first, then greedily the close ones."""
    exact = Counter(pred) & Counter(gt)
    count = sum(exact.values())
    rest_pred = list((Counter(pred) - exact).elements())
    rest_gt = list((Counter(gt) - exact).elements())
    used = [False] * len(rest_pred)
    for d, a, b in rest_gt:
        for k, (pd, pa, pb) in enumerate(rest_pred):
            if not used[k] and pd == d and close(pa, a) and close(pb, b):
                used[k] = True
                count += 1
                break
    return count


@dataclass
class Score:
    matched: int = 0
    predicted: int = 0
    true: int = 0

    def add(self, other: Score) -> None:
        self.matched += other.matched
        self.predicted += other.predicted
        self.true += other.true

    @property
    def precision(self) -> Optional[float]:
        return self.matched / self.predicted if self.predicted else None

    @property
    def recall(self) -> Optional[float]:
        return self.matched / self.true if self.true else None

    @property
    def f1(self) -> Optional[float]:
        total = self.predicted + self.true
        return 2 * self.matched / total if total else None


def score(pred: list[Cell], gt: list[Cell]) -> Score:
    p, g = relations(pred), relations(gt)
    return Score(matched_relations(p, g), len(p), len(g))


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pred")
    parser.add_argument("gt")
    args = parser.parse_args(argv)
    with open(args.pred, encoding="utf-8") as f:
        pred = cells_from_node(parse_table(f.read()))
    with open(args.gt, encoding="utf-8") as f:
        gt = cells_from_node(parse_table(f.read()))
    s = score(pred, gt)
    print(f"precision {s.precision or 0:.4f} recall {s.recall or 0:.4f} F1 {s.f1 or 0:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
