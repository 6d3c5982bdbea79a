#!/usr/bin/env python3
"""What one reading changed against another, word by word, judged by the truth (issue 42).

    word_changes.py --gt DIR --before DIR --after DIR [--list]

Per page, the words (as word_f1.py counts them: lowercased runs of two or more letters or digits)
that only one of the two readings has, each looked up in the page's truth: true words gained
(after has them, before had not), true words lost, wrong words written and wrong words gone.
--before and --after hold NAME.json (`onnxocr run --format json`, as form_check.py --out keeps
them); --gt as word_f1.py reads it. --list prints every changed word. Python 3 standard library.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from word_f1 import text_of_gt, text_of_pred, words  # noqa: E402


def edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]


def missing_by_class(truth: set[str], read: set[str]) -> dict[str, int]:
    """The true words `read` lacks: joined, misread or missed."""
    counts = {"joined": 0, "misread": 0, "missed": 0}
    wrong = read - truth
    for word in truth - read:
        if any(word in r and len(r) > len(word) for r in wrong):
            counts["joined"] += 1
        elif any(edit_distance(word, r) <= max(1, len(word) // 4) for r in wrong):
            counts["misread"] += 1
        else:
            counts["missed"] += 1
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gt", required=True)
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    gt_dir = os.path.join(args.gt, "gt") if os.path.isdir(os.path.join(args.gt, "gt")) else args.gt
    counts = {"true words gained": 0, "true words lost": 0, "wrong words written": 0,
              "wrong words gone": 0}
    changes = []
    classes = {"before": {"joined": 0, "misread": 0, "missed": 0},
               "after": {"joined": 0, "misread": 0, "missed": 0}}
    for name in sorted(os.listdir(gt_dir)):
        stem, ext = os.path.splitext(name)
        if ext not in (".json", ".txt"):
            continue
        paths = [os.path.join(folder, stem + ".json") for folder in (args.before, args.after)]
        if not any(os.path.exists(path) for path in paths):
            continue  # a page neither reading read
        truth = words(text_of_gt(os.path.join(gt_dir, name)))
        before, after = (words(text_of_pred(path)) for path in paths)
        for which, read in (("before", before), ("after", after)):
            for kind, n in missing_by_class(truth, read).items():
                classes[which][kind] += n
        for word in sorted(after - before):
            kind = "true words gained" if word in truth else "wrong words written"
            counts[kind] += 1
            changes.append(f"{stem}: + {word} ({kind})")
        for word in sorted(before - after):
            kind = "true words lost" if word in truth else "wrong words gone"
            counts[kind] += 1
            changes.append(f"{stem}: - {word} ({kind})")
    print(", ".join(f"{kind} {n}" for kind, n in counts.items()))
    for which, by_class in classes.items():
        print(f"true words missing {which}: " +
              ", ".join(f"{kind} {n}" for kind, n in by_class.items()))
    if args.list:
        print("\n".join(changes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
