#!/usr/bin/env python3
"""Cost of the HTTP layer: the same images through `onnxocr run` (in-process) and through
`onnxocr serve` (POST /ocr, JSON + base64), with the same inference configuration (one worker,
one intra-op thread), sequentially, after a warm-up. Prints per-image medians and the ratio.

    bench/load/http_overhead.py --onnxocr build/release/onnxocr --images ../shared/testdata/real
"""
import argparse
import base64
import json
import os
import re
import statistics
import subprocess
import threading
import time
import urllib.request


def images_in(folder):
    exts = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.lower().endswith(exts))


def in_process(binary, images, rounds):
    """Seconds per image from the processing_time `onnxocr run` reports (model load excluded)."""
    out = subprocess.run([binary, "run", "--threads", "1", *(images * (rounds + 1))],
                         check=True, capture_output=True, text=True).stdout
    times = [r["processing_time"] for r in json.loads(out)]
    per_image = {}
    for i, t in enumerate(times[len(images):]):  # the first round is the warm-up
        per_image.setdefault(images[i % len(images)], []).append(t)
    return per_image


def over_http(binary, images, rounds):
    """Seconds per image as a client sees it: request sent to response parsed."""
    proc = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--threads",
                             "1", "--jobs", "memory"], stderr=subprocess.PIPE, text=True)
    try:
        port = None
        for line in proc.stderr:
            m = re.search(r"listening on [^:\s]+:(\d+)", line)
            if m:
                port = int(m.group(1))
                break
        # Keep draining the log so the server never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
        bodies = {}
        for path in images:
            with open(path, "rb") as f:
                bodies[path] = json.dumps({"image": base64.b64encode(f.read()).decode()}).encode()
        per_image = {}
        for r in range(rounds + 1):
            for path in images:
                req = urllib.request.Request(f"http://127.0.0.1:{port}/ocr", data=bodies[path],
                                             headers={"Content-Type": "application/json"})
                start = time.perf_counter()
                with urllib.request.urlopen(req) as resp:
                    json.loads(resp.read())
                if r > 0:
                    per_image.setdefault(path, []).append(time.perf_counter() - start)
        return per_image
    finally:
        proc.terminate()
        proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxocr", required=True)
    ap.add_argument("--images", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    images = images_in(args.images)
    local = in_process(args.onnxocr, images, args.rounds)
    remote = over_http(args.onnxocr, images, args.rounds)
    total_local = sum(statistics.median(v) for v in local.values())
    total_remote = sum(statistics.median(v) for v in remote.values())
    print(f"{'image':28s} {'in-process ms':>14s} {'HTTP ms':>10s}")
    for path in images:
        print(f"{os.path.basename(path):28s} {statistics.median(local[path]) * 1000:14.1f} "
              f"{statistics.median(remote[path]) * 1000:10.1f}")
    print(f"sum of medians: in-process {total_local:.3f} s, HTTP {total_remote:.3f} s, "
          f"HTTP/in-process = {total_remote / total_local:.4f}")


if __name__ == "__main__":
    main()
