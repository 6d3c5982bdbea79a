#!/usr/bin/python3
"""Unit tests of scan_stats.py: a page of known bars, paper, ink, grain and blur (ctest
forms_scan_stats_unit). Skips (77) without numpy and Pillow."""
from __future__ import annotations

import os
import sys
import tempfile
import unittest

try:
    import numpy as np
    from PIL import Image, ImageFilter
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: {e}")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scan_stats  # noqa: E402


def page(stroke: int, paper: int, ink: int, grain: float, blur: float) -> str:
    """Rows of vertical bars `stroke` px wide, 12 px apart, on grained paper; its path."""
    a = np.full((300, 400), float(paper))
    for y in range(20, 280, 30):
        for x in range(20, 380, 12):
            a[y:y + 12, x:x + stroke] = ink
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "L")
    if blur:
        img = img.filter(ImageFilter.GaussianBlur(blur))
    a = np.asarray(img, np.float32) + np.random.default_rng(7).normal(0, grain, (300, 400))
    path = os.path.join(tempfile.mkdtemp(), "page.png")
    Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "L").save(path)
    return path


class ScanStatsTest(unittest.TestCase):
    def test_sharp_page(self):
        s = scan_stats.stats(page(3, 230, 40, 4.0, 0))
        self.assertAlmostEqual(s["paper"], 230, delta=2)
        self.assertAlmostEqual(s["ink"], 40, delta=8)
        self.assertAlmostEqual(s["stroke"], 3, delta=0.5)
        self.assertAlmostEqual(s["noise"], 4 * (24 / 25) ** 0.5, delta=0.6)
        self.assertLess(s["edge"], 0.5)  # a sharp edge has no pixel between the levels

    def test_blur_widens_the_edges_and_lightens_the_cores(self):
        sharp = scan_stats.stats(page(3, 230, 40, 1.0, 0))
        blurred = scan_stats.stats(page(3, 230, 40, 1.0, 1.2))
        self.assertGreater(blurred["edge"], sharp["edge"] + 1)
        self.assertGreater(blurred["ink"], sharp["ink"] + 10)

    def test_wider_strokes_measure_wider(self):
        self.assertAlmostEqual(scan_stats.stats(page(5, 230, 40, 1.0, 0))["stroke"], 5, delta=0.5)


if __name__ == "__main__":
    unittest.main()
