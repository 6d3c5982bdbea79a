#!/usr/bin/env python3
"""Speed and word F1 of onnxocr against `ocrmypdf -l eng` (Tesseract) on the forms set's pages.

    compare_ocrmypdf.py --onnxocr BIN --set DIR [--models NAME=DIR] [--jobs 2] [--out DIR]
                        [--skip-bench] [--skip-ocrmypdf]

onnxocr: `onnxocr bench --images SET/images --concurrency 1 --requests N --json` (one pass over
the N pages: cpu_ms_per_image and the per-stage split) and the same at --concurrency JOBS (pages
per second on JOBS cores). ocrmypdf: the pages as one PDF (img2pdf, 100 dpi, so a page is its
paper size), `ocrmypdf -l eng --jobs JOBS` timed (wall, and CPU of its processes), its text layer
read back page by page with `pdftotext -layout` and scored with word_f1.py against the set's
ground truth. Needs ocrmypdf, img2pdf and pdftotext (Debian: ocrmypdf, img2pdf, poppler-utils);
the part whose tools are missing is skipped with a message. Prints one JSON report (also written
to OUT/compare.json). Exit 0, or 77 when the set is missing.

Timings on a shared machine move with its load: compare the two in one run, and prefer CPU ms
a page (cpu_ms_per_image; ocrmypdf's children's user + system time) to wall time.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from word_f1 import page_scores, text_of_gt, words  # noqa: E402

SKIP = 77


def children_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def bench(binary: str, models: list[str], images: str, concurrency: int, n: int) -> dict:
    cmd = [binary, "bench", "--images", images, "--concurrency", str(concurrency),
           "--requests", str(n), "--no-model-bound", "--json"]
    for m in models:
        cmd += ["--models", m]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    report = json.loads(out.stdout)
    levels = report.get("levels", report if isinstance(report, list) else [])
    return {"report": report, "level": levels[0] if levels else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxocr", required=True)
    ap.add_argument("--set", required=True)
    ap.add_argument("--models", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--skip-ocrmypdf", action="store_true")
    args = ap.parse_args()
    images_dir = os.path.join(args.set, "images")
    if not os.path.isdir(images_dir):
        print(f"SKIP: no set at {args.set}")
        return SKIP
    out_dir = args.out or tempfile.mkdtemp(prefix="onnxocr-forms-compare-")
    os.makedirs(out_dir, exist_ok=True)
    names = sorted(os.path.splitext(n)[0] for n in os.listdir(images_dir) if n.endswith(".jpg"))
    result: dict = {"pages": len(names), "jobs": args.jobs}

    if not args.skip_bench:
        one = bench(args.onnxocr, args.models, images_dir, 1, len(names))
        many = bench(args.onnxocr, args.models, images_dir, args.jobs, len(names))
        result["onnxocr"] = {"concurrency_1": one["level"],
                             f"concurrency_{args.jobs}": many["level"]}
        print(f"onnxocr: {one['level']['cpu_ms_per_image']} CPU ms a page, "
              f"{many['level']['images_per_s']} pages/s at concurrency {args.jobs}",
              file=sys.stderr)

    tools = [shutil.which(t) for t in ("ocrmypdf", "img2pdf", "pdftotext")]
    if args.skip_ocrmypdf:
        pass
    elif not all(tools):
        print("ocrmypdf part skipped: ocrmypdf, img2pdf or pdftotext is missing", file=sys.stderr)
    else:
        src = os.path.join(out_dir, "forms.pdf")
        dst = os.path.join(out_dir, "forms_ocr.pdf")
        subprocess.run(["img2pdf", "--imgsize", "100dpi", "-o", src]
                       + [os.path.join(images_dir, n + ".jpg") for n in names], check=True)
        cpu0, t0 = children_cpu_s(), time.monotonic()
        run = subprocess.run(["ocrmypdf", "-l", "eng", "--jobs", str(args.jobs), src, dst],
                             capture_output=True, text=True)
        wall, cpu = time.monotonic() - t0, children_cpu_s() - cpu0
        if run.returncode != 0:
            print(f"ocrmypdf failed ({run.returncode}): {run.stderr[-600:]}", file=sys.stderr)
            return 1
        f1s = []
        for i, name in enumerate(names, 1):
            text = subprocess.run(["pdftotext", "-layout", "-f", str(i), "-l", str(i), dst, "-"],
                                  check=True, capture_output=True, text=True).stdout
            truth = words(text_of_gt(os.path.join(args.set, "gt", name + ".json")))
            f1s.append(page_scores(truth, words(text))[2])
        result["ocrmypdf"] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                              "pages_per_s": round(len(names) / wall, 3),
                              "cpu_ms_per_page": round(cpu * 1000 / len(names), 1),
                              "word_f1": round(sum(f1s) / len(f1s), 4),
                              "per_page_word_f1": dict(zip(names, [round(f, 4) for f in f1s]))}
        print(f"ocrmypdf: {result['ocrmypdf']['pages_per_s']} pages/s, "
              f"{result['ocrmypdf']['cpu_ms_per_page']} CPU ms a page, word F1 "
              f"{result['ocrmypdf']['word_f1']}", file=sys.stderr)

    with open(os.path.join(out_dir, "compare.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    json.dump(result, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
