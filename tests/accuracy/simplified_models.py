#!/usr/bin/python3
"""The simplified fp32 graphs (scripts/quantize-models, simplify_graph) read as the originals do.

    simplified_models.py --onnxocr BIN --fp32 models/ppocrv4 --quantizer scripts/quantize-models

Makes the simplified fp32 set (`--roles ''`: nothing quantized, no calibration) in a temporary
folder, checks that its det, rec and cls graphs no longer hold the exporter's HardSwish chains
and have fewer nodes, and reads pages rendered here (English, Chinese, a line
turned upside down) with both sets: the same lines, texts and boxes, confidences within 1e-4
(--confidence-tolerance: a v6 set's float16 recognizer is made float32 first, which moves them
more).
Exits 77 (ctest: skipped) when pango-view, the quantizer's python3-onnx or the fp32 set is absent.
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
# Float rounding differs between the graphs, nothing else (measured: 2.6e-5 at most over the
# 2,109 lines of ../shared).
CONFIDENCE_TOLERANCE = 1e-4
PAGES = [
    ("DejaVu Sans 12", 0, "INVOICE No. 2024-00731   Date: 12/03/2024\n"
     "Qty  Description          Price\n2    Office chair          149.00\n"
     "The quick brown fox jumps over the lazy dog."),
    ("WenQuanYi Micro Hei 18", 0, "发票号码：04401900 开票日期：2024年3月12日\n"
     "购买方名称：上海市某某科技有限公司"),
    ("DejaVu Serif 16", 180, "Printed upside down on purpose\nRead by the direction model"),
]


def read(binary, models, images):
    # --models last: the flag takes several values and would swallow the file names after it.
    out = subprocess.run([binary, "run", "--format", "json", *images, "--models", models],
                         check=False, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"onnxocr run --models {models} failed ({out.returncode}): {out.stderr[-2000:]}")
    results = json.loads(out.stdout)
    return results if isinstance(results, list) else [results]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxocr", required=True)
    ap.add_argument("--fp32", required=True, help="the fp32 set's folder")
    ap.add_argument("--quantizer", required=True, help="scripts/quantize-models")
    ap.add_argument("--confidence-tolerance", type=float, default=CONFIDENCE_TOLERANCE,
                    help=f"largest confidence change allowed (default {CONFIDENCE_TOLERANCE})")
    args = ap.parse_args()
    if shutil.which("pango-view") is None:
        print("SKIP: pango-view not found (scripts/bootstrap installs pango1.0-tools)")
        return SKIP
    if not os.path.exists(os.path.join(args.fp32, "rec", "rec.onnx")):
        print(f"SKIP: no fp32 set in {args.fp32} (scripts/bootstrap installs it)")
        return SKIP

    failures = []
    with tempfile.TemporaryDirectory(prefix="onnxocr-simplified-") as tmp:
        simplified = os.path.join(tmp, "set")
        # The quantizer runs on its own interpreter (Debian's, with python3-onnx).
        made = subprocess.run([args.quantizer, "--fp32", args.fp32, "--roles", "", "--out",
                               simplified], check=False, capture_output=True, text=True)
        if "No module named" in made.stderr:
            print(f"SKIP: the quantizer lacks a module (scripts/bootstrap installs python3-onnx "
                  f"and python3-numpy): {made.stderr.strip().splitlines()[-1]}")
            return SKIP
        if made.returncode != 0:
            print(f"FAILED: {args.quantizer} exited {made.returncode}: {made.stderr[-2000:]}")
            return 1
        with open(os.path.join(simplified, "manifest.json"), encoding="utf-8") as f:
            models = json.load(f)["models"]
        for role in ("det", "rec", "cls"):
            before = collections.Counter(models[role]["ops_fp32"])
            after = collections.Counter(models[role]["ops"])
            nodes = (sum(before.values()), sum(after.values()))
            print(f"{role}: {nodes[0]} nodes -> {nodes[1]}; Clip {before['Clip']} -> "
                  f"{after['Clip']}, HardSigmoid {before['HardSigmoid']} -> "
                  f"{after['HardSigmoid']}")
            # Every Clip of these exports is a HardSwish's.
            if after["Clip"] > 0 or after["HardSigmoid"] != before["HardSigmoid"] + before["Clip"]:
                failures.append(f"{role}: {after['Clip']} HardSwish chains left")
            if nodes[1] >= nodes[0]:
                failures.append(f"{role}: nothing folded ({nodes[1]} nodes)")
            # A float16 model (the v6 tiny recognizer) is made float32 and its Casts go.
            if "upcast_fp16" in models[role] and after["Cast"] >= before["Cast"]:
                failures.append(f"{role}: made float32 but its {after['Cast']} Casts are left")

        images = []
        for i, (font, rotate, text) in enumerate(PAGES):
            page = os.path.join(tmp, f"page{i}.png")
            subprocess.run(["pango-view", "--no-display", "--output", page, "--font", font,
                            "--dpi", "110", "--margin", "30", "--rotate", str(rotate),
                            "--text", text], check=True, capture_output=True)
            images.append(page)
        original = read(args.onnxocr, f"ppocrv4={args.fp32}", images)
        rewritten = read(args.onnxocr, f"ppocrv4={simplified}", images)

    for page, a, b in zip(images, original, rewritten):
        name = os.path.basename(page)
        texts = [r["text"] for r in a["results"]]
        print(f"{name}: {texts}")
        if texts != [r["text"] for r in b["results"]]:
            failures.append(f"{name}: read {[r['text'] for r in b['results']]}, the original "
                            f"graphs {texts}")
            continue
        if not texts:
            failures.append(f"{name}: nothing read")
        for x, y in zip(a["results"], b["results"]):
            if x["bounding_box"] != y["bounding_box"]:
                failures.append(f"{name}: '{x['text']}' box {y['bounding_box']}, the original "
                                f"graphs {x['bounding_box']}")
            if abs(x["confidence"] - y["confidence"]) > args.confidence_tolerance:
                failures.append(f"{name}: '{x['text']}' confidence {y['confidence']}, the "
                                f"original graphs {x['confidence']}")
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    print("the simplified graphs read as the originals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
