#!/usr/bin/env python3
"""Accuracy and parity of `onnxocr run` on ../shared/testdata.

1. Accuracy: OCR every synthetic page with the default settings, score with
   ../shared/tools/ocr-score, and fail when detection F1, CER or normalized CER is worse than the
   floor in thresholds.json (what we reached, minus half a point; see BENCHMARKS.md). The per-tag
   table is printed.
2. Real photos: the same run's answers for ../shared/testdata/real are scored against our own
   hand transcriptions (real_gt/NAME.txt, text per line: ocr-score's order-insensitive page CER).
3. Parity: OCR every real and synthetic image again as the reference reads it (`--reference`:
   one detection pass at 960 px, per-line direction, its batch shapes, raw text) and compare with the
   Python reference pipeline's output (../shared/testdata/reference): a line matches when its
   text is equal and its box overlaps the reference box with IoU >= 0.9. Fails when the share of
   matching lines drops below the floor.

Exits 77 (ctest: skipped) when ../shared/testdata is absent.
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77
# The reference pipeline's reading: its detection resize and input, per-line direction, batch
# shapes and raw text.
REFERENCE_SETTINGS = ["--reference"]


def load_ocr_score(path):
    loader = importlib.machinery.SourceFileLoader("ocr_score", path)
    spec = importlib.util.spec_from_loader("ocr_score", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def run_onnxocr(binary, images, extra=()):
    out = subprocess.run([binary, "run", "--format", "json", *extra, *images], check=False,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"onnxocr run failed ({out.returncode}): {out.stderr[-2000:]}")
    results = json.loads(out.stdout)
    return results if isinstance(results, list) else [results]


def images_in(folder):
    exts = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.lower().endswith(exts))


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def parity(score, predictions, reference_dir):
    """Lines of the reference that we reproduce (same text, box IoU >= 0.9)."""
    matched = total = ours = 0
    worst = []
    for name, pred in predictions.items():
        ref_path = os.path.join(reference_dir, name + ".json")
        if not os.path.exists(ref_path):
            continue
        with open(ref_path, encoding="utf-8") as f:
            ref = json.load(f)["results"]
        mine = [(r["text"], score.Shape(score.parse_box(r["bounding_box"]))) for r in pred["results"]]
        used = set()
        hits = 0
        for r in ref:
            shape = score.Shape(score.parse_box(r["bounding_box"]))
            for i, (text, s) in enumerate(mine):
                if i not in used and text == r["text"] and score.iou(shape, s) >= 0.9:
                    used.add(i)
                    hits += 1
                    break
        matched += hits
        total += len(ref)
        ours += len(mine)
        worst.append((hits / len(ref) if ref else 1.0, name, hits, len(ref), len(mine)))
    return matched, total, ours, sorted(worst)[:5]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxocr", required=True)
    ap.add_argument("--testdata", required=True)
    ap.add_argument("--thresholds", required=True)
    ap.add_argument("--out", default=None, help="keep predictions here")
    args = ap.parse_args()

    synthetic = os.path.join(args.testdata, "synthetic")
    tool = os.path.join(args.testdata, "..", "tools", "ocr-score")
    if not os.path.isdir(synthetic) or not os.path.exists(tool):
        print(f"SKIP: {synthetic} or {tool} not found (../shared beside the checkout)")
        return SKIP
    with open(args.thresholds, encoding="utf-8") as f:
        floors = json.load(f)
    out_dir = args.out or tempfile.mkdtemp(prefix="onnxocr-accuracy-")
    os.makedirs(out_dir, exist_ok=True)

    # Accuracy with the default settings; parity, line for line, with the reference's settings,
    # which is what proves each pipeline step reproduces the reference.
    predictions, reference_shaped = {}, {}
    for folder in (os.path.join(synthetic, "images"), os.path.join(args.testdata, "real")):
        images = images_in(folder)
        for path, result in zip(images, run_onnxocr(args.onnxocr, images)):
            predictions[stem(path)] = result
        for path, result in zip(images, run_onnxocr(args.onnxocr, images, REFERENCE_SETTINGS)):
            reference_shaped[stem(path)] = result
    real_dir = os.path.join(out_dir, "real")
    os.makedirs(real_dir, exist_ok=True)
    real_names = {stem(p) for p in images_in(os.path.join(args.testdata, "real"))}
    for name, result in predictions.items():
        folder = real_dir if name in real_names else out_dir
        with open(os.path.join(folder, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(result, f, ensure_ascii=False)

    report = subprocess.run([sys.executable, tool, "--gt", synthetic, "--pred", out_dir, "--json"],
                            check=True, capture_output=True, text=True)
    full = json.loads(report.stdout)
    overall = full["overall"]
    f1, cer, cer_norm = overall["f1"], overall["cer"], overall["cer_norm"]
    print(f"synthetic: detection F1 {f1:.4f} (P {overall['precision']:.4f}, R {overall['recall']:.4f})"
          f", CER {cer:.4f}, CER normalized {cer_norm:.4f}, "
          f"line accuracy {overall['line_accuracy']:.4f}")
    print("| tag | pages | lines | F1 | CER | CER normalized | line accuracy |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for tag, t in sorted(full["per_tag"].items()):
        print(f"| {tag} | {t['pages']} | {t['gt_lines']} | {t['f1']:.4f} | {t['cer']:.4f} | "
              f"{t['cer_norm']:.4f} | {t['line_accuracy']:.4f} |")

    real_gt = os.path.join(os.path.dirname(os.path.abspath(__file__)), "real_gt")
    real = subprocess.run([sys.executable, tool, "--gt", real_gt, "--pred", real_dir, "--json"],
                          check=True, capture_output=True, text=True)
    real_text = json.loads(real.stdout)["text_only"]
    real_cer = real_text["page_cer"]
    print(f"real photos (hand transcriptions of {real_text['pages']}): page CER {real_cer:.4f}, "
          f"normalized {real_text['page_cer_norm']:.4f}")
    for page in json.loads(real.stdout)["per_page"]:
        print(f"  {page['name']}: page CER {page['page_edits'] / max(1, page['page_chars']):.4f}")

    score = load_ocr_score(tool)
    failures = []
    for subset, ref_dir in (("real", os.path.join(args.testdata, "reference", "real")),
                            ("synthetic", os.path.join(args.testdata, "reference", "synthetic"))):
        if not os.path.isdir(ref_dir):
            print(f"parity {subset}: no reference outputs, skipped")
            continue
        names = {stem(p) for p in images_in(os.path.join(synthetic, "images") if subset == "synthetic"
                                            else os.path.join(args.testdata, "real"))}
        matched, total, ours, worst = parity(score, {n: reference_shaped[n] for n in names},
                                             ref_dir)
        share = matched / total if total else 1.0
        print(f"parity {subset} ({' '.join(REFERENCE_SETTINGS)}): {matched}/{total} reference lines "
              f"reproduced exactly ({share:.4f}); we output {ours} lines")
        for frac, name, hits, n_ref, n_ours in worst:
            print(f"  lowest: {name}: {hits}/{n_ref} (ours {n_ours})")
        floor = floors[f"parity_{subset}_min"]
        if share < floor:
            failures.append(f"parity {subset} {share:.4f} < {floor}")

    if f1 < floors["f1_min"]:
        failures.append(f"detection F1 {f1:.4f} < {floors['f1_min']}")
    if cer > floors["cer_max"]:
        failures.append(f"CER {cer:.4f} > {floors['cer_max']}")
    if cer_norm > floors["cer_norm_max"]:
        failures.append(f"normalized CER {cer_norm:.4f} > {floors['cer_norm_max']}")
    if real_cer > floors["real_page_cer_max"]:
        failures.append(f"real photos' page CER {real_cer:.4f} > {floors['real_page_cer_max']}")
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    print("accuracy and parity within bounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
