#!/usr/bin/env python3
"""Unit tests of adjacency.py (the ICDAR 2013 adjacency relations, hand-counted on small grids)
and of icdar_check.py's conversion of the competition's XML into a grid.

    python3 tests/tables/adjacency_test.py [-v]
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from adjacency import Cell, cells_from_node, relations, score  # noqa: E402
from icdar_check import grid_html, load_truth, tables_by_page, word_share  # noqa: E402
from teds import parse_table  # noqa: E402


def grid(rows):
    """Cells of a grid without spans, from rows of texts ("" for an empty cell)."""
    return [Cell(r, c, r, c, text) for r, row in enumerate(rows) for c, text in enumerate(row)]


class RelationsTest(unittest.TestCase):
    def test_a_full_grid_pairs_each_cell_with_its_right_and_lower_neighbour(self):
        self.assertEqual(relations(grid([["a", "b"], ["c", "d"]])),
                         [("below", "a", "c"), ("below", "b", "d"), ("right", "a", "b"),
                          ("right", "c", "d")])

    def test_empty_cells_are_skipped_to_the_nearest_filled_one(self):
        self.assertEqual(relations(grid([["a", "", "b"], ["", "", ""], ["c", "", "d"]])),
                         [("below", "a", "c"), ("below", "b", "d"), ("right", "a", "b"),
                          ("right", "c", "d")])

    def test_a_spanning_cell_relates_to_each_neighbour_along_its_side(self):
        cells = [Cell(0, 0, 0, 1, "head"), Cell(1, 0, 1, 0, "x"), Cell(1, 1, 1, 1, "y")]
        self.assertEqual(relations(cells), [("below", "head", "x"), ("below", "head", "y"),
                                            ("right", "x", "y")])

    def test_texts_are_compared_without_case_or_spaces(self):
        self.assertEqual(relations(grid([["Total  Sum", "1 000"]])),
                         [("right", "totalsum", "1000")])


class ScoreTest(unittest.TestCase):
    def test_the_truth_scores_one(self):
        truth = grid([["Name", "Value"], ["a", "1"], ["b", "2"]])
        s = score(truth, truth)
        self.assertEqual((s.matched, s.predicted, s.true), (7, 7, 7))
        self.assertEqual(s.f1, 1.0)

    def test_merged_rows_break_the_relations_around_them(self):
        truth = grid([["Name", "Value"], ["a", "1"], ["b", "2"]])
        merged = grid([["Name", "Value"], ["a b", "1 2"]])
        s = score(merged, truth)
        # Name-Value alone survives; the merged cells' three relations match nothing true.
        self.assertEqual((s.matched, s.predicted, s.true), (1, 4, 7))

    def test_a_spurious_empty_column_costs_nothing(self):
        truth = grid([["a", "b"], ["c", "d"]])
        padded = grid([["a", "", "b"], ["c", "", "d"]])
        self.assertEqual(score(padded, truth).f1, 1.0)

    def test_a_letter_misread_in_a_long_cell_still_matches(self):
        truth = grid([["Population total", "1,234"]])
        read = grid([["Popu1ation total", "1,234"]])
        self.assertEqual(score(read, truth).matched, 1)
        self.assertEqual(score(grid([["Income", "1,234"]]), truth).matched, 0)

    def test_no_prediction_scores_zero_recall(self):
        s = score([], grid([["a", "b"]]))
        self.assertEqual((s.matched, s.predicted, s.true, s.f1), (0, 0, 1, 0.0))


class HtmlTest(unittest.TestCase):
    def test_cells_are_placed_as_a_browser_places_spans(self):
        table = parse_table('<table><tr><td rowspan="2">a</td><td>b</td></tr>'
                            '<tr><td>c</td></tr></table>')
        self.assertEqual(cells_from_node(table),
                         [Cell(0, 0, 1, 0, "a"), Cell(0, 1, 0, 1, "b"), Cell(1, 1, 1, 1, "c")])

    def test_tables_are_keyed_by_their_page(self):
        document = ("<div class='page' data-page-id='2'><table><tr><td>x</td></tr></table></div>"
                    "<div class='page' data-page-id='5'><p>no table</p></div>")
        pages = tables_by_page(document)
        self.assertEqual(sorted(pages), [2, 5])
        self.assertEqual(len(pages[2]), 1)
        self.assertEqual(pages[5], [])


XML = """<?xml version="1.0" encoding="UTF-8"?>
<document filename="x-str.xml">
  <table id="1">
    <region id="1" page="2" col-increment="0" row-increment="0">
      <cell id="1" start-row="0" start-col="1" end-col="2">
        <bounding-box x1="1" y1="1" x2="2" y2="2"/><content>Group</content></cell>
      <cell id="2" start-row="1" start-col="0"><content>Row
label</content></cell>
      <cell id="3" start-row="1" start-col="2"><content>7</content></cell>
    </region>
    <region id="2" page="2" col-increment="3" row-increment="0">
      <cell id="4" start-row="1" start-col="0"><content>8</content></cell>
    </region>
  </table>
  <table id="2">
    <region id="1" page="3" col-increment="0" row-increment="0">
      <cell id="1" start-row="1" start-col="1"><content>a</content></cell>
      <cell id="2" start-row="1" start-col="2"><content>b</content></cell>
    </region>
  </table>
</document>
"""


class TruthTest(unittest.TestCase):
    def test_the_xml_becomes_a_grid_per_page_with_empty_cells_where_none_is_annotated(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "us-900-str.xml"), "w", encoding="utf-8") as f:
                f.write(XML)
            open(os.path.join(folder, "us-900.pdf"), "wb").close()
            blocks, counted_from_one = load_truth(folder)
        self.assertEqual((blocks.doc, blocks.page, blocks.group), ("us-900", 1, "us"))
        # The second region of the page is placed beside the first by its col-increment.
        self.assertEqual(grid_html(blocks.cells),
                         '<table><tr><td></td><td colspan="2">Group</td><td></td></tr>'
                         "<tr><td>Row label</td><td></td><td>7</td><td>8</td></tr></table>")
        self.assertEqual(word_share(blocks.cells, blocks.cells), 1.0)
        self.assertEqual(word_share(grid([["Row", "7"]]), blocks.cells), 0.4)
        # Rows and columns counted from 1 leave no empty row or column before the first cell.
        self.assertEqual((counted_from_one.name, counted_from_one.page), ("us-900 t2 p3", 2))
        self.assertEqual(grid_html(counted_from_one.cells),
                         "<table><tr><td>a</td><td>b</td></tr></table>")


if __name__ == "__main__":
    unittest.main()
