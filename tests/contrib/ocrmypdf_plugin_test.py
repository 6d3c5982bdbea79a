#!/usr/bin/env python3
"""contrib/ocrmypdf/onnxocr_plugin.py inside Debian's real `ocrmypdf` against a real server:
a scanned two-page PDF (text rendered by pango-view, wrapped by img2pdf) comes out of OCRmyPDF
with the text our server read, through both of OCRmyPDF's renderers (sandwich: our searchable
PDF's text layer; hocr: our hOCR drawn by OCRmyPDF). Exits 77 (skipped) with the reason when
ocrmypdf, img2pdf, pdftotext, pango-view or the binary is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "load"))
import ocr_load as L  # noqa: E402

PLUGIN = os.path.join(ROOT, "contrib", "ocrmypdf", "onnxocr_plugin.py")
PAGES = ["Invoice number 2026\nTotal 42 boxes", "Second page 2026\nThank you"]


def squeeze(text):
    return "".join(text.split())


def main():
    binary = L.default_binary()
    L.require(binary)
    for tool in ("ocrmypdf", "img2pdf", "pdftotext"):
        if shutil.which(tool) is None:
            L.skip(f"{tool} is not installed (Debian's ocrmypdf, img2pdf, poppler-utils: "
                   "scripts/bootstrap installs them)")
    work = tempfile.mkdtemp(prefix="onnxocr-ocrmypdf-")
    try:
        pngs = []
        for i, text in enumerate(PAGES):
            pngs.append(os.path.join(work, f"page{i}.png"))
            with open(pngs[-1], "wb") as f:
                f.write(L.render_png(work, text))
        scan = os.path.join(work, "scan.pdf")
        subprocess.run(["img2pdf", "--imgsize", "150dpi", "-o", scan, *pngs], check=True)
        failures = []
        with L.Server(binary, ["--threads", "2"]) as server:
            for renderer in ("sandwich", "hocr"):
                out = os.path.join(work, f"out-{renderer}.pdf")
                run = subprocess.run(
                    ["ocrmypdf", "--plugin", PLUGIN, "--onnxocr-url", server.url,
                     "--pdf-renderer", renderer, "--output-type", "pdf", scan, out],
                    capture_output=True, text=True, timeout=300)
                if run.returncode != 0:
                    failures.append(f"{renderer}: ocrmypdf exited {run.returncode}:\n"
                                    f"{run.stderr[-3000:]}")
                    continue
                for page, want in enumerate(PAGES, 1):
                    got = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), out, "-"],
                                         capture_output=True, text=True, check=True).stdout
                    print(f"{renderer}, page {page}: {got.strip()!r}")
                    if squeeze(got) != squeeze(want):
                        failures.append(f"{renderer}, page {page}: read {got!r}, want {want!r}")
        for failure in failures:
            print("FAIL:", failure)
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
