#!/usr/bin/env python3
"""Unit tests of word_f1.py: what a word is, and the per-page F1 and its mean.

    word_f1_test.py   (unittest; exit 0 when all pass)
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from word_f1 import mean_f1, page_scores, score_dirs, words  # noqa: E402


class Tokenization(unittest.TestCase):
    def test_case_is_folded(self):
        self.assertEqual(words("MEMORANDUM Memo memo"), {"memorandum", "memo"})

    def test_punctuation_separates_and_is_dropped(self):
        self.assertEqual(words("TO: R. Nakamura, (Legal)."), {"to", "nakamura", "legal"})

    def test_hyphens_apostrophes_slashes_split(self):
        self.assertEqual(words("co-operate don't and/or"), {"co", "operate", "don", "and", "or"})

    def test_digits_are_words_and_split_at_punctuation(self):
        self.assertEqual(words("$1,793.76 (535) 911-7777 48uu"),
                         {"793", "76", "535", "911", "7777", "48uu"})

    def test_single_characters_are_dropped(self):
        self.assertEqual(words("a I 1 x 12 ab"), {"12", "ab"})

    def test_duplicates_count_once(self):
        self.assertEqual(words("the the THE The"), {"the"})

    def test_underscore_separates(self):
        self.assertEqual(words("Name:____Smith"), {"name", "smith"})

    def test_unicode_letters_are_letters(self):
        self.assertEqual(words("Café naïve 2°C"), {"café", "naïve"})

    def test_empty(self):
        self.assertEqual(words(""), set())
        self.assertEqual(words(" .,;: - "), set())


class Scores(unittest.TestCase):
    def test_perfect(self):
        self.assertEqual(page_scores({"a1", "bb"}, {"bb", "a1"}), (1.0, 1.0, 1.0))

    def test_partial(self):
        p, r, f = page_scores({"aa", "bb", "cc", "dd"}, {"aa", "bb", "xx"})
        self.assertAlmostEqual(p, 2 / 3)
        self.assertAlmostEqual(r, 2 / 4)
        self.assertAlmostEqual(f, 2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2))

    def test_joined_words_miss_both(self):
        truth, read = words("call me if"), words("callmeif")
        self.assertEqual(page_scores(truth, read), (0.0, 0.0, 0.0))

    def test_empty_pages(self):
        self.assertEqual(page_scores(set(), set()), (1.0, 1.0, 1.0))
        self.assertEqual(page_scores({"aa"}, set())[2], 0.0)
        self.assertEqual(page_scores(set(), {"aa"})[2], 0.0)

    def test_mean_is_over_pages_not_words(self):
        big = ({f"w{i}" for i in range(100)}, {f"w{i}" for i in range(100)})
        small = ({"aa"}, set())
        self.assertAlmostEqual(mean_f1([big, small]), 0.5)
        self.assertEqual(mean_f1([]), 0.0)


class Folders(unittest.TestCase):
    def test_gt_json_txt_and_missing_prediction(self):
        with tempfile.TemporaryDirectory() as d:
            gt, pred = os.path.join(d, "gt"), os.path.join(d, "pred")
            os.makedirs(gt)
            os.makedirs(pred)
            with open(os.path.join(gt, "a.json"), "w") as f:
                json.dump({"lines": [{"text": "Fax cover", "polygon": [[0, 0]] * 4}]}, f)
            with open(os.path.join(gt, "b.txt"), "w") as f:
                f.write("Total[?] 12\n")
            with open(os.path.join(gt, "c.txt"), "w") as f:
                f.write("never read\n")
            with open(os.path.join(pred, "a.json"), "w") as f:
                json.dump({"results": [{"text": "FAX", "bounding_box": [0, 0, 1, 1]},
                                       {"text": "cover.", "bounding_box": [0, 0, 1, 1]}]}, f)
            with open(os.path.join(pred, "b.txt"), "w") as f:
                f.write("total 12 extra\n")
            r = score_dirs(d, pred)  # d/gt is used since it exists
            self.assertEqual(r["pages"], 3)
            by = {p["name"]: p for p in r["per_page"]}
            self.assertEqual(by["a"]["f1"], 1.0)
            self.assertAlmostEqual(by["b"]["f1"], 0.8)  # P 2/3, R 1
            self.assertEqual(by["c"]["f1"], 0.0)
            self.assertAlmostEqual(r["word_f1"], 0.6)


class WordChanges(unittest.TestCase):
    def test_counts_each_changed_word_against_the_truth(self):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "word_changes.py")
        with tempfile.TemporaryDirectory() as d:
            for sub, text in (("gt", None), ("before", "SPECLAL offer, call 555 now"),
                              ("after", "SPECIAL offer, hall 555 now")):
                os.makedirs(os.path.join(d, sub))
                if text is not None:
                    with open(os.path.join(d, sub, "a.json"), "w") as f:
                        json.dump({"results": [{"text": text}]}, f)
            with open(os.path.join(d, "gt", "a.txt"), "w") as f:
                f.write("Special offer, call 555 now\n")
            out = subprocess.run([sys.executable, script, "--gt", os.path.join(d, "gt"),
                                  "--before", os.path.join(d, "before"), "--after",
                                  os.path.join(d, "after"), "--list"],
                                 capture_output=True, text=True, check=True).stdout
            self.assertEqual(out.splitlines()[0], "true words gained 1, true words lost 1, "
                             "wrong words written 1, wrong words gone 1")
            # Before, "special" is misread (speclal); after, "call" is (hall).
            self.assertEqual(out.splitlines()[1],
                             "true words missing before: joined 0, misread 1, missed 0")
            self.assertEqual(out.splitlines()[2],
                             "true words missing after: joined 0, misread 1, missed 0")
            self.assertIn("a: + special (true words gained)", out)
            self.assertIn("a: - call (true words lost)", out)


if __name__ == "__main__":
    unittest.main()
