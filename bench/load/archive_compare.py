#!/usr/bin/env python3
"""The searchable PDF against its anchor: one scanned PDF of --pages pages made from the synthetic
pages with exact ground truth (../shared/testdata/synthetic, document-like layouts first), made
searchable three ways in one run on this machine:

  tesseract  OCRmyPDF with its default engine (Tesseract, -l eng+chi_sim when installed)
  onnxocr    our server, POST /ocr output_format=pdf
  plugin     OCRmyPDF with contrib/ocrmypdf/onnxocr_plugin.py against the same server

Each is timed (wall), its output size taken, and the text pdftotext gives back of each page is
scored against the page's ground truth: word F1 (the set of lowercased words of 2 or more
letters or digits; a Chinese character counts as a word) and CER (edit distance over the
ground truth's characters, whitespace removed). Prints a Markdown table; --json prints one JSON
object last. Exits 77 when a tool or the test data is missing.

    bench/load/archive_compare.py --binary build/release/onnxocr --pages 12
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ocr_load as L  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(ROOT, "contrib", "ocrmypdf", "onnxocr_plugin.py")
DOCUMENT_LAYOUTS = ("paragraph", "dense", "table", "form", "receipt", "title")
WORD = re.compile(r"[0-9A-Za-z]{2,}|[\u3400-\u9fff]")


def words(text):
    return {w.lower() for w in WORD.findall(text)}


def f1(got, want):
    if not got and not want:
        return 1.0
    hit = len(got & want)
    p = hit / len(got) if got else 0.0
    r = hit / len(want) if want else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def cer(got, want):
    a, b = "".join(got.split()), "".join(want.split())
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return prev[-1] / max(1, len(b))


def pick_pages(synthetic, count):
    manifest = json.load(open(os.path.join(synthetic, "manifest.json"), encoding="utf-8"))
    order = sorted(manifest, key=lambda k: (manifest[k]["layout"] not in DOCUMENT_LAYOUTS, k))
    chosen = []
    for key in order[:count]:
        gt = json.load(open(os.path.join(synthetic, "gt", key + ".json"), encoding="utf-8"))
        chosen.append((os.path.join(synthetic, manifest[key]["file"]),
                       "\n".join(line["text"] for line in gt["lines"])))
    return chosen


def page_texts(pdf, pages):
    out = []
    for p in range(1, pages + 1):
        out.append(subprocess.run(["pdftotext", "-f", str(p), "-l", str(p), pdf, "-"],
                                  capture_output=True, text=True, check=True).stdout)
    return out


def post_pdf(url, path):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"output_format\"\r\n\r\npdf\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"in.pdf\"\r\n"
            "Content-Type: application/pdf\r\n\r\n").encode() + open(path, "rb").read() + \
        f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(url + "/ocr", data=body, method="POST", headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(req, timeout=3600) as answer:
        return answer.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=L.default_binary())
    ap.add_argument("--pages", type=int, default=12)
    ap.add_argument("--threads", type=int, default=0, help="the server's --threads (0: all)")
    ap.add_argument("--json", action="store_true")
    opts = ap.parse_args()
    L.require(opts.binary, pango=False)
    for tool in ("ocrmypdf", "img2pdf", "pdftotext", "tesseract"):
        if shutil.which(tool) is None:
            L.skip(f"{tool} is not installed")
    shared = L.shared_testdata()
    if not shared:
        L.skip("../shared/testdata is absent")
    pages = pick_pages(os.path.join(shared, "synthetic"), opts.pages)
    langs = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True).stdout
    tess_lang = "eng+chi_sim" if "chi_sim" in langs.split() else "eng"
    work = tempfile.mkdtemp(prefix="onnxocr-archive-")
    try:
        scan = os.path.join(work, "scan.pdf")
        subprocess.run(["img2pdf", "-o", scan, *[p for p, _ in pages]], check=True)
        results = {}
        runs = {}
        args = ["--threads", str(opts.threads)] if opts.threads else []
        with L.Server(opts.binary, args + ["--request-timeout", "3600"]) as server:
            runs["tesseract"] = lambda out: subprocess.run(
                ["ocrmypdf", "-l", tess_lang, "--output-type", "pdf", scan, out], check=True,
                capture_output=True)
            runs["onnxocr"] = lambda out: open(out, "wb").write(post_pdf(server.url, scan))
            runs["plugin"] = lambda out: subprocess.run(
                ["ocrmypdf", "--plugin", PLUGIN, "--onnxocr-url", server.url, "--output-type",
                 "pdf", scan, out], check=True, capture_output=True)
            for name, run in runs.items():
                out = os.path.join(work, name + ".pdf")
                start = time.monotonic()
                run(out)
                wall = time.monotonic() - start
                texts = page_texts(out, len(pages))
                f1s = [f1(words(t), words(gt)) for t, (_, gt) in zip(texts, pages)]
                cers = [cer(t, gt) for t, (_, gt) in zip(texts, pages)]
                results[name] = {"wall_s": wall, "bytes": os.path.getsize(out),
                                 "word_f1": statistics.mean(f1s), "cer": statistics.mean(cers)}
                print(f"{name}: {results[name]}", flush=True)
        print(f"\n{len(pages)} pages, scan {os.path.getsize(scan)} bytes, Tesseract -l {tess_lang}\n")
        print("| engine | wall s | output MB | word F1 | CER |")
        print("| --- | --- | --- | --- | --- |")
        for name, r in results.items():
            print(f"| {name} | {r['wall_s']:.1f} | {r['bytes'] / 1e6:.2f} | {r['word_f1']:.3f} "
                  f"| {r['cer']:.3f} |")
        if opts.json:
            print(json.dumps({"pages": len(pages), "tesseract_lang": tess_lang,
                              "results": results}))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
