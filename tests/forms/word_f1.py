#!/usr/bin/env python3
"""Word F1 of OCR output against ground truth, as issue 28 defines it.

    word_f1.py --gt DIR --pred DIR [--per-page] [--json]

Per page: the set of lowercased words of two or more letters or digits read by the engine,
against the same set of the ground truth; precision = |both| / |read|, recall = |both| / |truth|,
F1 their harmonic mean; the score is the mean of the pages' F1.

A word is a maximal run of letters and digits (Unicode: `[^\\W_]`), so punctuation, hyphens,
apostrophes, slashes and spaces all separate words ("co-operate" is "co" and "operate", "12.50"
is "12" and "50", "don't" is "don"); runs of one character are dropped; case is folded with
str.lower(); a page's words are a set, so a word read twice counts once. A page with no words in
either is 1.0; with words in only one of them, 0.0.

--gt DIR (or DIR/gt when it exists): NAME.json in ocr-score's format ({"lines": [{"text"}]}) or
NAME.txt (a line a line; ocr-score's "[?]" uncertainty marks are removed, their character kept).
--pred DIR: NAME.json, `onnxocr run --format json` or POST /ocr output ({"results": [{"text"}]}),
or NAME.txt (plain text, e.g. pdftotext's). A missing prediction scores as an empty page.
Exit 0; 2 on bad arguments. Python 3 standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> set[str]:
    """The set of lowercased words of two or more letters or digits in `text`."""
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 2}


def page_scores(truth: set[str], read: set[str]) -> tuple[float, float, float]:
    """(precision, recall, F1) of one page's word sets."""
    if not truth and not read:
        return 1.0, 1.0, 1.0
    both = len(truth & read)
    p = both / len(read) if read else 0.0
    r = both / len(truth) if truth else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def mean_f1(pages: list[tuple[set[str], set[str]]]) -> float:
    """Mean over pages of the F1 of (truth, read) word sets; 0.0 for no pages."""
    if not pages:
        return 0.0
    return sum(page_scores(t, r)[2] for t, r in pages) / len(pages)


def text_of_gt(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        if path.endswith(".json"):
            return "\n".join(l.get("text", "") for l in json.load(f).get("lines", []))
        return f.read().replace("[?]", "")


def text_of_pred(path: str) -> str:
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8") as f:
        if path.endswith(".json"):
            doc = json.load(f)
            results = doc.get("results", [])
            if not results and "pages" in doc:  # a multi-page document
                results = [r for p in doc["pages"] for r in p.get("results", [])]
            return "\n".join(r.get("text", "") for r in results)
        return f.read()


def score_dirs(gt_dir: str, pred_dir: str) -> dict:
    if os.path.isdir(os.path.join(gt_dir, "gt")):
        gt_dir = os.path.join(gt_dir, "gt")
    per_page = []
    for name in sorted(os.listdir(gt_dir)):
        stem, ext = os.path.splitext(name)
        if ext not in (".json", ".txt"):
            continue
        truth = words(text_of_gt(os.path.join(gt_dir, name)))
        pred = os.path.join(pred_dir, stem + ".json")
        if not os.path.exists(pred):
            pred = os.path.join(pred_dir, stem + ".txt")
        read = words(text_of_pred(pred))
        p, r, f = page_scores(truth, read)
        per_page.append({"name": stem, "precision": p, "recall": r, "f1": f,
                         "truth_words": len(truth), "read_words": len(read),
                         "missed": sorted(truth - read), "extra": sorted(read - truth)})
    n = len(per_page)
    return {"pages": n, "word_f1": sum(p["f1"] for p in per_page) / n if n else 0.0,
            "word_precision": sum(p["precision"] for p in per_page) / n if n else 0.0,
            "word_recall": sum(p["recall"] for p in per_page) / n if n else 0.0,
            "per_page": per_page}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gt", required=True)
    ap.add_argument("--pred", required=True)
    ap.add_argument("--per-page", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    report = score_dirs(args.gt, args.pred)
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        print()
        return 0
    if args.per_page:
        for p in report["per_page"]:
            print(f"{p['name']:24s} F1 {p['f1']:.3f}  P {p['precision']:.3f}  R {p['recall']:.3f}"
                  f"  missed {' '.join(p['missed'][:12])}")
    print(f"pages {report['pages']}  word F1 {report['word_f1']:.3f}  "
          f"P {report['word_precision']:.3f}  R {report['word_recall']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
