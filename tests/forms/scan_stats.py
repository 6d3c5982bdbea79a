#!/usr/bin/python3
"""How a page image looks as a scan: paper, ink, noise, stroke width and edge blur (issue 42).

    scan_stats.py IMAGE_OR_DIR... [--json OUT]

Prints one row an image and the median of each folder, so that the forms set's renders
(make_form_set.py) can be compared with real pages at the same text size. Every measure is taken
on the grey image against Otsu's threshold between ink and paper:
  paper     the median grey level of the paper pixels
  ink       the 10th percentile of the ink pixels (the strokes' cores, not their edges)
  noise     the standard deviation of the paper's fine grain: the image less a 5 x 5 mean, over
            paper at least 3 px from any ink
  stroke    the median length of a horizontal run of ink (px), the strokes' width
  edge      the pixels between ink and paper levels (10% to 90% of the way) per edge a row
            crosses: how many pixels a blurred edge spans
  specks    ink pixels with at most 3 others within 2 px (a speck, not a stroke), per 100,000
            pixels
Needs numpy and Pillow (/usr/bin/python3 has them on Debian: python3-numpy, python3-pil).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

try:
    import numpy as np
    from PIL import Image, ImageFilter
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: {e} (run with /usr/bin/python3)")
    sys.exit(77)

FIELDS = ("paper", "ink", "noise", "stroke", "edge", "specks")


def otsu(grey: np.ndarray) -> int:
    hist = np.bincount(grey.ravel(), minlength=256).astype(np.float64)
    levels = np.arange(256)
    total, total_sum = hist.sum(), (hist * levels).sum()
    best, best_t, weight, weighted = -1.0, 128, 0.0, 0.0
    for t in range(256):
        weight += hist[t]
        weighted += hist[t] * t
        if weight == 0 or weight == total:
            continue
        m0, m1 = weighted / weight, (total_sum - weighted) / (total - weight)
        between = weight * (total - weight) * (m0 - m1) ** 2
        if between > best:
            best, best_t = between, t
    return best_t


def box_sum(a: np.ndarray, radius: int, edge: bool = False) -> np.ndarray:
    """The sum of `a` over the (2 radius + 1)-square around each pixel: zero outside, or with
    `edge` the border pixels repeated."""
    k = 2 * radius + 1
    padded = np.pad(a.astype(np.float64), radius, mode="edge" if edge else "constant")
    c = np.pad(padded.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    return c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]


def runs(mask: np.ndarray) -> np.ndarray:
    """Lengths of the horizontal runs of True in `mask`."""
    padded = np.zeros((mask.shape[0], mask.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    diff = np.diff(padded, axis=1)
    starts = np.argwhere(diff == 1)
    ends = np.argwhere(diff == -1)
    return ends[:, 1] - starts[:, 1]


def stats(path: str) -> dict:
    grey = np.asarray(Image.open(path).convert("L"))
    t = otsu(grey)
    ink_mask = grey <= t
    paper_px = grey[~ink_mask]
    paper = float(np.median(paper_px)) if paper_px.size else 255.0
    ink = float(np.percentile(grey[ink_mask], 10)) if ink_mask.any() else 0.0
    near_ink = np.asarray(Image.fromarray(ink_mask.astype(np.uint8) * 255, "L")
                          .filter(ImageFilter.MaxFilter(7))) > 0
    fine = grey.astype(np.float64) - box_sum(grey, 2, edge=True) / 25
    flat = fine[~near_ink]
    noise = float(flat.std()) if flat.size else 0.0
    lengths = runs(ink_mask)
    stroke = float(np.median(lengths)) if lengths.size else 0.0
    lo, hi = ink + 0.1 * (paper - ink), paper - 0.1 * (paper - ink)
    between = int(((grey > lo) & (grey < hi)).sum())
    edges = 2 * lengths.size
    edge = between / edges if edges else 0.0
    alone = ink_mask & (box_sum(ink_mask, 2) <= 4)
    specks = float(alone.sum()) * 1e5 / grey.size
    return {"paper": paper, "ink": ink, "noise": noise, "stroke": stroke, "edge": edge,
            "specks": specks}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--json", help="write every image's measures here")
    args = ap.parse_args()
    out: dict = {}
    print("| image | " + " | ".join(FIELDS) + " |")
    print("| --- |" + " --- |" * len(FIELDS))
    for item in args.inputs:
        paths = ([os.path.join(item, f) for f in sorted(os.listdir(item))
                  if f.lower().endswith((".jpg", ".jpeg", ".png", ".tif", ".tiff"))]
                 if os.path.isdir(item) else [item])
        rows = []
        for path in paths:
            row = stats(path)
            rows.append(row)
            out[path] = row
            if not os.path.isdir(item):
                print(f"| {os.path.basename(path)} | " +
                      " | ".join(f"{row[k]:.1f}" for k in FIELDS) + " |")
        if os.path.isdir(item) and rows:
            print(f"| {item} (median of {len(rows)}) | " +
                  " | ".join(f"{statistics.median(r[k] for r in rows):.1f}" for k in FIELDS) +
                  " |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
