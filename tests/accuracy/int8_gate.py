#!/usr/bin/env python3
"""The int8 gate of issue 30: the int8 model set against the fp32 set it was made from, in one run.

Both sets read ../shared/testdata/synthetic and ../shared/testdata/real with `onnxocr run
--format json` (the default settings, as tests/accuracy/accuracy_check.py); ../shared/tools/
ocr-score scores the synthetic pages against their ground truth and the real photos against our
hand transcriptions (real_gt/). The int8 set passes when
  - synthetic detection F1 is at most 0.003 below fp32's,
  - synthetic CER and the real photos' page CER are at most 0.003 above fp32's,
  - no real photo's page CER is more than 0.01 above its fp32 page CER.
--limit N reads only the first N images of each folder: the short form ctest runs.
--funsd also reads ../shared/testdata/funsd-train's forms with both sets and reports their word F1
(../shared/tools/funsd-wordf1, set2 and bag1); --funsd-f1-drop X then fails an int8 set whose set2
word F1 is more than X below fp32's (no bound without it).
--read-check only checks that the int8 set loads and reads a page rendered here (pango-view) to
the text it shows, and that its manifest names the sha256 of the fp32 files beside it; it needs
no ../shared.

Exits 77 (ctest: skipped) when ../shared/testdata, ocr-score, pango-view or the int8 set is absent.
"""
import hashlib
import argparse
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77
# (detection F1 drop, CER rise, real page CER rise, one real page's CER rise) at most: issue 30's
# gate, what an int8 set must meet to be served as the default.
GATE = (0.003, 0.003, 0.003, 0.01)


def images_in(folder):
    exts = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.lower().endswith(exts))


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def read(binary, models, images, out_dir):
    """OCRs `images` with the set `models` (NAME=DIR) into out_dir/NAME.json per image."""
    os.makedirs(out_dir, exist_ok=True)
    # --models last: the flag takes several values and would swallow the file names after it.
    out = subprocess.run([binary, "run", "--format", "json", *images, "--models", models],
                         check=False, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"onnxocr run --models {models} failed ({out.returncode}): {out.stderr[-2000:]}")
    results = json.loads(out.stdout)
    results = results if isinstance(results, list) else [results]
    for path, result in zip(images, results):
        with open(os.path.join(out_dir, stem(path) + ".json"), "w", encoding="utf-8") as f:
            json.dump(result, f, ensure_ascii=False)


def score(tool, gt, pred, names):
    """ocr-score's report on the predictions of `names` only (a --limit run has no others)."""
    with tempfile.TemporaryDirectory() as only:
        for name in names:
            for ext in (".json", ".txt"):
                if os.path.exists(os.path.join(gt, name + ext)):
                    os.symlink(os.path.abspath(os.path.join(gt, name + ext)),
                               os.path.join(only, name + ext))
        out = subprocess.run([sys.executable, tool, "--gt", only, "--pred", pred, "--json"],
                             check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def word_f1(args, models, out_dir):
    """funsd-wordf1's mean page F1s ({"set2": f, "bag1": f}) of `models` on the FUNSD forms."""
    forms = images_in(os.path.join(args.testdata, "funsd-train", "images"))[:args.limit]
    pred = os.path.join(out_dir, "funsd")
    read(args.onnxocr, models, forms, pred)
    tool = os.path.join(args.testdata, "..", "tools", "funsd-wordf1")
    gt = os.path.join(args.testdata, "funsd-train", "gt-words")
    with tempfile.TemporaryDirectory() as only:
        # The forms read only (a --limit run has no others), as score() does.
        for path in forms:
            os.symlink(os.path.abspath(os.path.join(gt, stem(path) + ".json")),
                       os.path.join(only, stem(path) + ".json"))
        out = subprocess.run([sys.executable, tool, pred, "--gt", only], check=True,
                             capture_output=True, text=True)
    scores = {}
    for line in out.stdout.splitlines():
        words = line.split()
        if words and words[0] in ("set2", "bag1") and "F1" in words:
            scores[words[0]] = float(words[words.index("F1") + 1])
    return scores


def measure(args, tool, models, out_dir):
    synthetic = images_in(os.path.join(args.testdata, "synthetic", "images"))[:args.limit]
    real = images_in(os.path.join(args.testdata, "real"))[:args.limit]
    read(args.onnxocr, models, synthetic, os.path.join(out_dir, "synthetic"))
    read(args.onnxocr, models, real, os.path.join(out_dir, "real"))
    syn = score(tool, os.path.join(args.testdata, "synthetic", "gt"),
                os.path.join(out_dir, "synthetic"), [stem(p) for p in synthetic])
    rgt = os.path.join(os.path.dirname(os.path.abspath(__file__)), "real_gt")
    rea = score(tool, rgt, os.path.join(out_dir, "real"), [stem(p) for p in real])
    pages = {p["name"]: p["page_edits"] / max(1, p["page_chars"]) for p in rea["per_page"]}
    return {"f1": syn["overall"]["f1"], "cer": syn["overall"]["cer"],
            "cer_norm": syn["overall"]["cer_norm"], "real_page_cer": rea["text_only"]["page_cer"],
            "pages": pages, "synthetic_images": len(synthetic), "real_images": len(real)}


READ_CHECK_LINES = ["Invoice 2024-00731 total 191.50 EUR", "上海市中关村大街1号"]


def read_check(args):
    """The int8 set loads, reads a rendered page as it shows, and was made from these fp32
    files."""
    import shutil
    if shutil.which("pango-view") is None:
        print("SKIP: pango-view not found (scripts/bootstrap installs pango1.0-tools)")
        return SKIP
    with open(os.path.join(args.int8, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    failures = []
    for rel, sha in manifest["fp32"].items():
        with open(os.path.join(args.fp32, rel), "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != sha:
                failures.append(f"manifest: {rel} is not the fp32 file the set was made from")
    with tempfile.TemporaryDirectory(prefix="onnxocr-int8-read-") as tmp:
        page = os.path.join(tmp, "page.png")
        subprocess.run(["pango-view", "--no-display", "--output", page, "--font",
                        "WenQuanYi Micro Hei 20", "--margin", "30", "--text",
                        "\n".join(READ_CHECK_LINES)], check=True, capture_output=True)
        read(args.onnxocr, f"ppocrv4-int8={args.int8}", [page], tmp)
        with open(os.path.join(tmp, "page.json"), encoding="utf-8") as f:
            texts = [r["text"] for r in json.load(f)["results"]]
    print(f"int8 set read: {texts}")
    if [t.replace(" ", "") for t in texts] != [t.replace(" ", "") for t in READ_CHECK_LINES]:
        failures.append(f"read {texts}, expected {READ_CHECK_LINES}")
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxocr", required=True)
    ap.add_argument("--testdata", required=True)
    ap.add_argument("--fp32", required=True, help="the fp32 set's folder")
    ap.add_argument("--int8", required=True, help="the int8 set's folder")
    ap.add_argument("--limit", type=int, default=None, help="first N images of each folder")
    ap.add_argument("--json", help="write both sets' numbers here")
    ap.add_argument("--read-check", action="store_true", help="only the quick read check")
    ap.add_argument("--funsd", action="store_true", help="also the FUNSD forms' word F1")
    ap.add_argument("--funsd-f1-drop", type=float, default=None,
                    help="with --funsd: fail when set2 word F1 drops by more than this")
    args = ap.parse_args()

    if not os.path.exists(os.path.join(args.int8, "rec", "rec.onnx")):
        print(f"SKIP: no int8 set in {args.int8} (scripts/quantize-models makes it)")
        return SKIP
    if args.read_check:
        return read_check(args)

    tool = os.path.join(args.testdata, "..", "tools", "ocr-score")
    synthetic = os.path.join(args.testdata, "synthetic")
    needed = [synthetic, os.path.join(args.testdata, "real"), tool]
    if args.funsd:
        needed += [os.path.join(args.testdata, "funsd-train"),
                   os.path.join(args.testdata, "..", "tools", "funsd-wordf1")]
    for path in needed:
        if not os.path.exists(path):
            print(f"SKIP: {path} not found (../shared beside the checkout)")
            return SKIP

    with tempfile.TemporaryDirectory(prefix="onnxocr-int8-gate-") as tmp:
        fp32 = measure(args, tool, f"ppocrv4={args.fp32}", os.path.join(tmp, "fp32"))
        int8 = measure(args, tool, f"ppocrv4-int8={args.int8}", os.path.join(tmp, "int8"))
        if args.funsd:
            fp32["funsd"] = word_f1(args, f"ppocrv4={args.fp32}", os.path.join(tmp, "fp32"))
            int8["funsd"] = word_f1(args, f"ppocrv4-int8={args.int8}", os.path.join(tmp, "int8"))
    print(f"{fp32['synthetic_images']} synthetic pages, {fp32['real_images']} real photos")
    print("| metric | fp32 | int8 | difference | bound |")
    print("| --- | --- | --- | --- | --- |")
    failures = []
    f1_drop, cer_rise, real_rise, page_rise = GATE
    for key, label, bound, sign in (("f1", "synthetic detection F1", f1_drop, -1),
                                    ("cer", "synthetic CER", cer_rise, 1),
                                    ("cer_norm", "synthetic CER normalized", None, 1),
                                    ("real_page_cer", "real photos' page CER", real_rise, 1)):
        diff = int8[key] - fp32[key]
        print(f"| {label} | {fp32[key]:.4f} | {int8[key]:.4f} | {diff:+.4f} | "
              f"{'' if bound is None else ('>= ' if sign < 0 else '<= ') + f'{sign * bound:+.3f}'} |")
        if bound is not None and sign * diff > bound:
            failures.append(f"{label} {fp32[key]:.4f} -> {int8[key]:.4f}")
    for key in ("set2", "bag1") if args.funsd else ():
        diff = int8["funsd"][key] - fp32["funsd"][key]
        bound = args.funsd_f1_drop if key == "set2" else None
        print(f"| FUNSD word F1 ({key}) | {fp32['funsd'][key]:.4f} | {int8['funsd'][key]:.4f} | "
              f"{diff:+.4f} | {'' if bound is None else f'>= {-bound:+.3f}'} |")
        if bound is not None and -diff > bound:
            failures.append(f"FUNSD word F1 {fp32['funsd'][key]:.4f} -> {int8['funsd'][key]:.4f}")
    for name, cer in sorted(fp32["pages"].items()):
        mine = int8["pages"].get(name, 1.0)
        mark = f" (worse by more than {page_rise})" if mine - cer > page_rise else ""
        print(f"  {name}: page CER {cer:.4f} -> {mine:.4f}{mark}")
        if mark:
            failures.append(f"{name} page CER {cer:.4f} -> {mine:.4f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"fp32": fp32, "int8": int8, "failures": failures}, f, indent=1)
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    print("int8 set within the gate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
