#!/usr/bin/env python3
"""OCRs a rendered text image through a running server (or a proxy in front of one).

As a program, it is the --test-cmd of scripts/docker-check:
    tests/deploy/ocr_client.py [URL]      (URL defaults to $DOCKER_CHECK_URL)
It renders known text with pango-view, POSTs it to URL/ocr as a base64 JSON body, and exits 0
only when the answer is 200 and contains every expected word; it also checks /healthz, /readyz
and /metrics. As a module it gives nginx_failover_test.py the same image and the same check.
Standard library only; no network beyond the given URL.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

# Plain words a PP-OCRv4 model reads reliably; each must come back in the OCR text.
TEXT = "Deploy check\nOrder number 4711\nThank you"
WORDS = ("Deploy", "check", "Order", "number", "4711", "Thank", "you")


def render_png(directory):
    """Renders TEXT into directory/text.png with pango-view; returns the PNG bytes."""
    if shutil.which("pango-view") is None:
        raise FileNotFoundError("pango-view is missing (apt-get install pango1.0-tools)")
    text_file = os.path.join(directory, "text.txt")
    png = os.path.join(directory, "text.png")
    with open(text_file, "w", encoding="utf-8") as f:
        f.write(TEXT)
    subprocess.run(["pango-view", "-q", "--background=white", "--font", "DejaVu Sans 28",
                    "--margin", "30", "-o", png, text_file], check=True, timeout=30)
    with open(png, "rb") as f:
        return f.read()


def ocr_body(png):
    return json.dumps({"image": base64.b64encode(png).decode("ascii")}).encode("utf-8")


def post_ocr(base_url, body, timeout_s=60):
    """POSTs a JSON body to base_url/ocr; returns (status, parsed JSON or raw text)."""
    req = urllib.request.Request(base_url.rstrip("/") + "/ocr", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:
            raw = resp.read()
            status = resp.status
    except urllib.error.HTTPError as e:
        raw = e.read()
        status = e.code
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode("utf-8", "replace")


def missing_words(answer):
    """The expected words absent from an /ocr answer (all of them if it is not one)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("results"), list):
        return list(WORDS)
    text = " ".join(str(r.get("text", "")) for r in answer["results"])
    return [w for w in WORDS if w not in text]


def get(base_url, path, timeout_s=10):
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + path, timeout=timeout_s) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def main():
    url = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("DOCKER_CHECK_URL", "")
    if not url:
        print("usage: ocr_client.py URL (or set DOCKER_CHECK_URL)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        png = render_png(tmp)
    for path in ("/healthz", "/readyz"):
        status, body = get(url, path)
        print(f"GET {path} -> {status} {body.strip()}")
        if status != 200:
            return 1
    start = time.monotonic()
    status, answer = post_ocr(url, ocr_body(png))
    elapsed = time.monotonic() - start
    texts = [r.get("text") for r in answer.get("results", [])] if isinstance(answer, dict) else []
    print(f"POST /ocr ({len(png)} byte PNG) -> {status} in {elapsed:.2f}s: {texts}")
    if status != 200 or missing_words(answer):
        print(f"FAIL: expected 200 with {WORDS}; missing {missing_words(answer)}: {answer}")
        return 1
    status, metrics = get(url, "/metrics")
    requests_line = next((l for l in metrics.splitlines() if l.startswith("onnxocr_")), "")
    print(f"GET /metrics -> {status} ({len(metrics.splitlines())} lines, e.g. {requests_line})")
    if status != 200:
        return 1
    print("OK: the server read the rendered text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
