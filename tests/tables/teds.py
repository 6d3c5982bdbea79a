#!/usr/bin/env python3
"""TEDS (Tree-Edit-Distance-based Similarity) for HTML tables, as PubTabNet defines it.

Zhong, ShafieiBavani and Jimeno Yepes, "Image-based table recognition: data, model, and
evaluation" (ECCV 2020): a table is the tree table -> thead/tbody -> tr -> td, and

    TEDS(pred, gt) = 1 - TED(pred, gt) / max(|pred|, |gt|)

where TED is the ordered tree edit distance (insert and delete cost 1; renaming costs 1 between
different tags or between cells whose colspan or rowspan differ, else the normalized Levenshtein
distance of the two cells' texts, or 0 when only the structure is scored). Written from that
definition; the tree edit distance is Zhang and Shasha's algorithm (SIAM J. Comput. 1989).

Where this differs from the scorer PubTabNet released, on purpose: `th` is scored as `td` (the
difference is a header guess, not a structure error), and a `tr` directly under `table` gets an
implicit `tbody`, as an HTML5 browser builds it, so `<table><tr>` equals `<table><tbody><tr>`.

    python3 teds.py PRED.html GT.html [--structure-only]

prints the TEDS of the first table of each file (0 when PRED has none).
"""
from __future__ import annotations

import argparse
import functools
import html.parser
import sys
from dataclasses import dataclass, field
from typing import Callable, Optional

CELL = "td"
SECTIONS = ("thead", "tbody", "tfoot")
# Tags whose boundaries separate words inside a cell ("a<p>b</p>" reads "a b"); inline tags
# such as <b> or <span> keep their text glued to the neighbours.
BLOCK_TAGS = frozenset(("p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6",
                        "tr", "td", "th", "table", "thead", "tbody", "tfoot", "br", "hr"))


@dataclass(eq=False)
class Node:
    """One tree node; for HTML tables a `td` carries its spans and text, others only a tag."""
    tag: str
    children: list[Node] = field(default_factory=list)
    colspan: int = 1
    rowspan: int = 1
    text: str = ""

    def size(self) -> int:
        return 1 + sum(child.size() for child in self.children)


# ---------------------------------------------------------------------------------------------
# Tree edit distance (Zhang-Shasha): exact for ordered trees, unit insert/delete.


def _postorder(root: Node) -> tuple[list[Node], list[int], list[int]]:
    """Nodes in postorder, each one's leftmost leaf (as a postorder index), and the keyroots.

    Iterative, so deep generic trees do not hit Python's recursion limit.
    """
    nodes: list[Node] = []
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, child = stack.pop()
        if child < len(node.children):
            stack.append((node, child + 1))
            stack.append((node.children[child], 0))
        else:
            nodes.append(node)
    position = {id(node): i for i, node in enumerate(nodes)}
    # A node's leftmost leaf is its first child's; the first child comes earlier in postorder.
    leftmost = list(range(len(nodes)))
    for i, node in enumerate(nodes):
        if node.children:
            leftmost[i] = leftmost[position[id(node.children[0])]]
    # A keyroot is the highest node of each leftmost-leaf path: the root and every node with a
    # left sibling, i.e. the last node (in postorder) with each leftmost leaf.
    last_with = {lml: i for i, lml in enumerate(leftmost)}
    return nodes, leftmost, sorted(last_with.values())


def label_rename_cost(a: Node, b: Node) -> float:
    """Unit-cost renaming by tag: what the classic tree edit distance examples use."""
    return 0.0 if a.tag == b.tag else 1.0


def tree_edit_distance(t1: Optional[Node], t2: Optional[Node],
                       rename_cost: Callable[[Node, Node], float] = label_rename_cost) -> float:
    """Ordered tree edit distance; insert and delete cost 1, renaming `rename_cost(a, b)`.

    REQUIRES: rename_cost >= 0 (a renaming is not priced when it cannot beat the alternatives).
    """
    if t1 is None or t2 is None:
        return float((t1.size() if t1 else 0) + (t2.size() if t2 else 0))
    nodes1, l1, keyroots1 = _postorder(t1)
    nodes2, l2, keyroots2 = _postorder(t2)
    n2 = len(nodes2)
    # treedist[i][j]: distance between the subtrees rooted at i and j (postorder indices). Each
    # pair is computed exactly once, for the keyroots whose leftmost paths hold i and j.
    treedist = [[0.0] * n2 for _ in nodes1]
    # Per keyroot of t2: (y, j, offset of j's leftmost leaf in the subtree) for its nodes.
    columns2 = {k2: [(y, l2[k2] + y - 1, l2[l2[k2] + y - 1] - l2[k2])
                     for y in range(1, k2 - l2[k2] + 2)] for k2 in keyroots2}

    for k1 in keyroots1:
        base1 = l1[k1]
        m = k1 - base1 + 2
        for k2 in keyroots2:
            base2 = l2[k2]
            if m == 2 and base2 == k2:
                # Two leaves (most keyroot pairs of a table: the cells): renaming is all there
                # is, and it never costs more than the delete + insert alternative.
                treedist[k1][k2] = min(rename_cost(nodes1[k1], nodes2[k2]), 2.0)
                continue
            n = k2 - base2 + 2
            columns = columns2[k2]
            # forest[x][y]: distance between the first x nodes of subtree k1 (postorder) and
            # the first y nodes of subtree k2.
            forest = [[float(y) for y in range(n)]]
            for x in range(1, m):
                i = base1 + x - 1
                i_is_tree = l1[i] == base1  # the first x nodes form the whole subtree of i
                back = forest[l1[i] - base1]
                prev = forest[x - 1]
                cur = [float(x)] * n
                forest.append(cur)
                td_i = treedist[i]
                node_i = nodes1[i]
                for y, j, offset in columns:
                    best = prev[y] + 1.0  # delete i
                    other = cur[y - 1] + 1.0  # insert j
                    if other < best:
                        best = other
                    if offset == 0 and i_is_tree:
                        # Both prefixes are whole trees: match i with j by renaming. The cost
                        # is only computed when it can still win (it is >= 0).
                        diag = prev[y - 1]
                        if diag < best:
                            other = diag + rename_cost(node_i, nodes2[j])
                            if other < best:
                                best = other
                        td_i[j] = best
                    else:
                        # Match subtree i with subtree j, as computed for an earlier keyroot.
                        other = back[offset] + td_i[j]
                        if other < best:
                            best = other
                    cur[y] = best
    return treedist[len(nodes1) - 1][n2 - 1]


# ---------------------------------------------------------------------------------------------
# Cell text distance.


def levenshtein(a: str, b: str) -> int:
    """Edit distance on code points: Myers' bit-parallel algorithm (Hyyro's formulation).

    A handful of integer operations per character of the longer string instead of a row of the
    textbook table: several times faster in Python, and every pair of cells gets compared.
    """
    if a == b:
        return 0
    if len(a) > len(b):
        a, b = b, a
    m = len(a)
    if m == 0:
        return len(b)
    peq: dict[str, int] = {}
    for i, ch in enumerate(a):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    full = (1 << m) - 1
    top = 1 << (m - 1)
    pv, mv, score = full, 0, m
    for ch in b:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & full)
        mh = pv & xh
        if ph & top:
            score += 1
        elif mh & top:
            score -= 1
        ph = ((ph << 1) | 1) & full
        mh = (mh << 1) & full
        pv = mh | (~(xv | ph) & full)
        mv = ph & xv
    return score


@functools.lru_cache(maxsize=1 << 16)
def _normalized(a: str, b: str) -> float:
    return levenshtein(a, b) / max(len(a), len(b))


def normalized_levenshtein(a: str, b: str) -> float:
    """distance / max(len): 0 for equal texts (both empty included), 1 for nothing in common."""
    if a == b:
        return 0.0
    if not a or not b:
        return 1.0
    return _normalized(a, b) if a < b else _normalized(b, a)


def table_rename_cost(structure_only: bool) -> Callable[[Node, Node], float]:
    def cost(a: Node, b: Node) -> float:
        if a.tag != b.tag:
            return 1.0
        if a.tag != CELL:
            return 0.0
        if a.colspan != b.colspan or a.rowspan != b.rowspan:
            return 1.0
        return 0.0 if structure_only else normalized_levenshtein(a.text, b.text)
    return cost


# ---------------------------------------------------------------------------------------------
# HTML -> table trees.


def _span(value: Optional[str]) -> int:
    try:
        return max(1, int((value or "1").strip()))
    except ValueError:
        return 1


class _TableParser(html.parser.HTMLParser):
    """Collects the outermost <table>s as trees; tolerant of omitted </td>, </tr>, </tbody>.

    A table nested in a cell is not a separate table: its text becomes the cell's text.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Node] = []
        self.stack: list[Node] = []  # open table, section, row, cell (in that order)
        self.cell_text: Optional[list[str]] = None
        self.nested = 0  # depth of tables open inside the current cell

    def _in_cell(self) -> bool:
        return self.cell_text is not None

    def _close_cell(self) -> None:
        if self.cell_text is not None:
            cell = self.stack.pop()
            cell.text = " ".join("".join(self.cell_text).split())
            self.cell_text = None

    def _close_to(self, tags: tuple[str, ...]) -> None:
        """Pops open elements until the top is one of `tags` (the table always stays)."""
        self._close_cell()
        while len(self.stack) > 1 and self.stack[-1].tag not in tags:
            self.stack.pop()

    def _open(self, node: Node) -> None:
        self.stack[-1].children.append(node)
        self.stack.append(node)

    def _open_row(self) -> None:
        self._close_to(SECTIONS)
        if self.stack[-1].tag == "table":
            self._open(Node("tbody"))  # implicit, as HTML5 parsing inserts it
        self._open(Node("tr"))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        if not self.stack:
            if tag == "table":
                self.stack = [Node("table")]
            return
        if self._in_cell():
            if tag == "table":
                self.nested += 1
            if self.nested or tag not in ("td", "th", "tr") + SECTIONS:
                if tag in BLOCK_TAGS:
                    self.cell_text.append(" ")
                return
        if tag in SECTIONS:
            self._close_to(("table",))
            self._open(Node(tag))
        elif tag == "tr":
            self._open_row()
        elif tag in ("td", "th"):
            self._close_cell()
            if self.stack[-1].tag != "tr":
                self._open_row()
            values = dict(attrs)
            self._open(Node(CELL, colspan=_span(values.get("colspan")),
                            rowspan=_span(values.get("rowspan"))))
            self.cell_text = []

    def handle_endtag(self, tag: str) -> None:
        if not self.stack:
            return
        if self.nested:
            if tag == "table":
                self.nested -= 1
            if tag in BLOCK_TAGS:
                self.cell_text.append(" ")
            return
        if tag == "table":
            self._close_cell()
            self.tables.append(self.stack[0])
            self.stack = []
        elif tag in ("td", "th"):
            self._close_cell()
        elif tag == "tr":
            self._close_to(SECTIONS)
        elif tag in SECTIONS:
            self._close_to(("table",))
        elif self._in_cell() and tag in BLOCK_TAGS:
            self.cell_text.append(" ")

    def handle_data(self, data: str) -> None:
        if self._in_cell():
            self.cell_text.append(data)

    def close(self) -> None:
        super().close()
        if self.stack:  # unterminated table: keep what was read
            self._close_cell()
            self.tables.append(self.stack[0])
            self.stack = []


def parse_tables(document: Optional[str]) -> list[Node]:
    """Every outermost <table> of an HTML document or fragment, in document order."""
    parser = _TableParser()
    parser.feed(document or "")
    parser.close()
    return parser.tables


def parse_table(document: Optional[str]) -> Optional[Node]:
    """The first table of `document`, or None when it has none."""
    tables = parse_tables(document)
    return tables[0] if tables else None


# ---------------------------------------------------------------------------------------------
# TEDS.


def teds_trees(pred: Optional[Node], gt: Optional[Node], structure_only: bool = False) -> float:
    """TEDS of two parsed tables; a missing prediction (or ground truth) scores 0."""
    if pred is None or gt is None:
        return 0.0
    distance = tree_edit_distance(pred, gt, table_rename_cost(structure_only))
    return min(1.0, max(0.0, 1.0 - distance / max(pred.size(), gt.size())))


def teds(pred_html: Optional[str], gt_html: Optional[str], structure_only: bool = False) -> float:
    """TEDS of the first table of each document; 0 when either has no table."""
    return teds_trees(parse_table(pred_html), parse_table(gt_html), structure_only)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pred", help="predicted table HTML (its first <table> is scored)")
    ap.add_argument("gt", help="ground-truth table HTML")
    ap.add_argument("--structure-only", action="store_true", help="ignore cell text")
    args = ap.parse_args(argv)
    with open(args.pred, encoding="utf-8") as f:
        pred = f.read()
    with open(args.gt, encoding="utf-8") as f:
        gt = f.read()
    print(f"{teds(pred, gt, args.structure_only):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
