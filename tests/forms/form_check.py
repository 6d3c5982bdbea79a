#!/usr/bin/env python3
"""Reading of the scanned office forms set (make_form_set.py) by `onnxocr run --format json`.

    form_check.py --onnxocr BIN --set DIR [--thresholds thresholds.json] [--quick]
                  [--ocr-score PATH] [--out DIR] [--jobs N] [--models NAME=DIR]
                  [--json-out FILE] [--floors SECTION] [-- extra onnxocr run flags]

Reads every page of the set (with --quick only the manifest's "quick" pages: one of each kind,
and a number in heavy print),
one onnxocr process a page, --jobs at a time (default 2) with one inference thread each, and
scores:
* word F1 (word_f1.py: per page, the set of lowercased words of two or more letters or digits,
  F1, averaged over pages), with precision and recall;
* ocr-score's detection F1 (IoU 0.5) and CER over the lines of the ground truth;
* the vertical document numbers in the right margin: a page's number is found when some
  line read, letters and digits only, holds it;
per kind (fax, memo, questionnaire, purchase) and over the set. The real part of the set (real/,
document photos of ../shared/testdata/real scaled to 100-dpi text) is scored apart, word F1 and
ocr-score's order-insensitive page CER against the hand transcriptions.

Thresholds (thresholds.json; the "full" or the "quick" floors, or --floors' section): word_f1, det_f1, real_word_f1
and vertical_found (vertical numbers read) are minimums, cer and real_page_cer maximums; a
metric whose part was not scored (no real part, no ocr-score) is reported and not failed. Words missed most often are printed, for reading.
Flags after `--` go to every `onnxocr run` (e.g. `-- --det-limit-type max`) to compare readings.

Exit 0 when every floor holds, 1 listing the ones that fail (or when onnxocr fails on a page),
77 (ctest: skipped) when the set or the binary is missing. Python 3 standard library only.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from word_f1 import page_scores, text_of_gt, words  # noqa: E402

SKIP = 77
KINDS = ("fax", "memo", "questionnaire", "purchase")


def run_page(binary: str, models: list[str], extra: list[str], image: str, out_json: str
             ) -> tuple[str, float, str]:
    """One page, one process. Returns (name, seconds, error)."""
    name = os.path.splitext(os.path.basename(image))[0]
    cmd = [binary, "run", "--format", "json", "--threads", "1"]
    for m in models:
        cmd += ["--models", m]
    cmd += extra + [image]
    start = time.monotonic()
    try:
        out = subprocess.run(cmd, check=False, capture_output=True, text=True)
    except OSError as e:
        return name, 0.0, f"cannot run {binary}: {e}"
    seconds = time.monotonic() - start
    if out.returncode != 0:
        return name, seconds, f"exit {out.returncode}: {out.stderr.strip()[-400:]}"
    with open(out_json, "w", encoding="utf-8") as f:
        f.write(out.stdout)
    return name, seconds, ""


def pred_texts(path: str) -> list[str]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    results = doc.get("results", [])
    if not results and "pages" in doc:
        results = [r for p in doc["pages"] for r in p.get("results", [])]
    return [r.get("text", "") for r in results]


def alnum(s: str) -> str:
    return re.sub(r"[^0-9a-z]", "", s.lower())


def ocr_score(tool: str | None, gt_dir: str, pred_dir: str) -> dict | None:
    if not tool:
        return None
    out = subprocess.run([sys.executable, tool, "--gt", gt_dir, "--pred", pred_dir, "--json"],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def fmt(v, digits=3) -> str:
    return "n/a" if v is None else f"{v:.{digits}f}"


def main() -> int:
    argv = sys.argv[1:]
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxocr", required=True)
    ap.add_argument("--set", required=True)
    ap.add_argument("--thresholds")
    ap.add_argument("--quick", action="store_true", help="only the manifest's quick pages")
    ap.add_argument("--ocr-score", help="../shared/tools/ocr-score (default: beside the checkout)")
    ap.add_argument("--out", help="keep predictions here (default: a temporary folder)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--models", action="append", default=[], help="passed to onnxocr run")
    ap.add_argument("--json-out", help="write the summary here")
    ap.add_argument("--floors", help="the thresholds' section (default: quick with --quick, "
                    "else full)")
    args = ap.parse_args(argv)

    manifest_path = os.path.join(args.set, "manifest.json")
    if not os.path.exists(manifest_path):
        print(f"SKIP: no set at {args.set} (make_form_set.py writes it)")
        return SKIP
    if not os.path.exists(args.onnxocr):
        print(f"SKIP: {args.onnxocr} not found")
        return SKIP
    for spec in args.models:
        folder = spec.split("=", 1)[-1]
        if not os.path.isdir(folder):
            print(f"SKIP: model set {folder} not found (scripts/build release makes the int8 set)")
            return SKIP
    tool = args.ocr_score or os.path.join(HERE, "..", "..", "..", "shared", "tools", "ocr-score")
    if not os.path.exists(tool):
        print(f"note: {tool} not found: detection F1 and CER are not scored")
        tool = None
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    with open(os.path.join(HERE, "manifest.json"), encoding="utf-8") as f:
        quick_names = set(json.load(f).get("quick", []))
    pages = manifest["pages"]
    if args.quick:
        pages = [p for p in pages if p["name"] in quick_names]
    real = manifest.get("real", []) if not args.quick else []

    out_dir = args.out or tempfile.mkdtemp(prefix="onnxocr-forms-")
    pred_dir = os.path.join(out_dir, "pred")
    real_pred_dir = os.path.join(out_dir, "real_pred")
    gt_dir = os.path.join(out_dir, "gt")  # the pages scored, for ocr-score
    for d in (pred_dir, real_pred_dir, gt_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    for p in pages:
        shutil.copy(os.path.join(args.set, "gt", p["name"] + ".json"), gt_dir)

    jobs = [(os.path.join(args.set, "images", p["name"] + ".jpg"),
             os.path.join(pred_dir, p["name"] + ".json")) for p in pages]
    jobs += [(os.path.join(args.set, "real", "images", r["name"] + ".jpg"),
              os.path.join(real_pred_dir, r["name"] + ".json")) for r in real]
    start = time.monotonic()
    errors, seconds = [], {}
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for name, secs, err in pool.map(lambda j: run_page(args.onnxocr, args.models, extra, *j),
                                        jobs):
            seconds[name] = secs
            if err:
                errors.append(f"{name}: {err}")
    wall = time.monotonic() - start
    print(f"{len(jobs)} pages read in {wall:.1f} s ({args.jobs} at a time, one thread each; "
          f"{sum(seconds.values()) / max(1, len(jobs)):.2f} s a page)")
    if errors:
        print("onnxocr failed:\n  " + "\n  ".join(errors))
        return 1

    # Word F1 and the vertical numbers, page by page.
    per_page = {}
    missed = collections.Counter()
    for p in pages:
        truth = words(text_of_gt(os.path.join(args.set, "gt", p["name"] + ".json")))
        texts = pred_texts(os.path.join(pred_dir, p["name"] + ".json"))
        read = words("\n".join(texts))
        prec, rec, f1 = page_scores(truth, read)
        missed.update(truth - read)
        number = p.get("vertical_number")
        found = None
        if number:
            found = any(alnum(number) in alnum(t) for t in texts)
        per_page[p["name"]] = {"kind": p["kind"], "word_f1": f1, "word_precision": prec,
                               "word_recall": rec, "vertical": found}
    report = ocr_score(tool, gt_dir, pred_dir)

    summary: dict = {"pages": len(pages), "seconds_per_page": wall * args.jobs / max(1, len(jobs)),
                     "kinds": {}}
    rows = []
    for kind in KINDS + ("all",):
        ps = [v for v in per_page.values() if kind == "all" or v["kind"] == kind]
        if not ps:
            continue
        wf1 = sum(v["word_f1"] for v in ps) / len(ps)
        wp = sum(v["word_precision"] for v in ps) / len(ps)
        wr = sum(v["word_recall"] for v in ps) / len(ps)
        verts = [v["vertical"] for v in ps if v["vertical"] is not None]
        agg = None
        if report:
            agg = report["overall"] if kind == "all" else report["per_tag"].get(kind)
        entry = {"pages": len(ps), "word_f1": wf1, "word_precision": wp, "word_recall": wr,
                 "det_f1": agg["f1"] if agg else None, "cer": agg["cer"] if agg else None,
                 "vertical_found": sum(verts), "vertical_pages": len(verts)}
        summary["kinds"][kind] = entry
        rows.append((kind, entry))
    print("| kind | pages | word F1 | word P | word R | det F1 | CER | vertical numbers read |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for kind, e in rows:
        print(f"| {kind} | {e['pages']} | {fmt(e['word_f1'])} | {fmt(e['word_precision'])} | "
              f"{fmt(e['word_recall'])} | {fmt(e['det_f1'])} | {fmt(e['cer'])} | "
              f"{e['vertical_found']} of {e['vertical_pages']} |")
    print("words missed most often: " + ", ".join(f"{w} ({n})" for w, n in missed.most_common(25)))

    if real:
        real_pages = []
        for r in real:
            truth = words(text_of_gt(os.path.join(args.set, "real", "gt", r["name"] + ".txt")))
            read = words("\n".join(pred_texts(os.path.join(real_pred_dir, r["name"] + ".json"))))
            real_pages.append((r["name"], page_scores(truth, read)[2]))
        real_report = ocr_score(tool, os.path.join(args.set, "real", "gt"), real_pred_dir)
        real_cer = real_report["text_only"]["page_cer"] if real_report else None
        summary["real"] = {"pages": len(real_pages),
                           "word_f1": sum(f for _, f in real_pages) / len(real_pages),
                           "page_cer": real_cer, "per_page": dict(real_pages)}
        print(f"real documents at 100-dpi text ({len(real_pages)}): word F1 "
              f"{summary['real']['word_f1']:.3f} ("
              + ", ".join(f"{n} {f:.3f}" for n, f in real_pages) + f"), page CER {fmt(real_cer)}")
    else:
        print("real documents: not in this run (--quick, or the set was made without "
              "../shared/testdata/real)")

    summary["per_page"] = per_page
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=1)

    if not args.thresholds:
        return 0
    with open(args.thresholds, encoding="utf-8") as f:
        floors = json.load(f)[args.floors or ("quick" if args.quick else "full")]
    allk = summary["kinds"]["all"]
    values = {"word_f1": allk["word_f1"], "det_f1": allk["det_f1"], "cer": allk["cer"],
              "real_word_f1": summary.get("real", {}).get("word_f1"),
              "real_page_cer": summary.get("real", {}).get("page_cer"),
              "vertical_found": allk["vertical_found"]}
    failed = []
    for key, floor in floors.items():
        v = values.get(key)
        if key.startswith("_") or v is None:
            continue
        worse = v > floor if key.endswith("cer") else v < floor
        if worse:
            failed.append(f"{key} {v:.4f} {'above' if key.endswith('cer') else 'below'} {floor}")
    if failed:
        print("FAIL: " + "; ".join(failed))
        return 1
    print("all floors hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
