#!/usr/bin/env python3
"""Two builds of the server side by side: images per second through `POST /ocr` for binary A and
binary B, alternated round by round on the same machine (A, B, A, B, ...), so that a refactor's
cost is measured against the noise of the machine rather than against an old number.

Each round starts one server (127.0.0.1, ephemeral port, the flags given), warms it up with one
pass over the images, then keeps --clients closed-loop clients sending the images of --images
(JSON form, base64; every answer must be 200) for --seconds, and stops it. Prints each round and
the median images/s of each binary with the ratio B / A; --json prints one JSON object last.

    bench/load/http_ab.py --a /tmp/base/build/release/onnxocr --b build/release/onnxocr \\
        --images ../shared/testdata/real --rounds 3 --seconds 60
"""
import argparse
import base64
import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ocr_load  # noqa: E402


def bodies(folder):
    exts = (".jpg", ".jpeg", ".png", ".webp", ".bmp")
    files = sorted(f for f in os.listdir(folder) if f.lower().endswith(exts))
    return [json.dumps({"image": base64.b64encode(open(os.path.join(folder, f), "rb").read())
                        .decode()}).encode() for f in files]


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_round(binary, args, images, clients, seconds):
    """Images per second of `binary` at `clients` concurrent clients over `seconds`, and the
    server's CPU milliseconds per image (steadier than the rate on a shared machine)."""
    with ocr_load.Server(binary, args, name=os.path.basename(os.path.dirname(binary))) as server:
        warm = ocr_load.Client(server.url)
        for body in images:
            answer = warm.post("/ocr", body)
            if answer.status != 200:
                raise SystemExit(f"{binary}: warm-up answered {answer.status}")
        warm.close()
        done = []
        failures = []
        lock = threading.Lock()
        stop_at = time.monotonic() + seconds

        def client(offset):
            c = ocr_load.Client(server.url)
            i = offset
            while time.monotonic() < stop_at:
                answer = c.post("/ocr", images[i % len(images)])
                with lock:
                    (done if answer.status == 200 else failures).append(time.monotonic())
                i += 1
            c.close()

        started = time.monotonic()
        cpu_before = cpu_seconds(server.pid)
        threads = [threading.Thread(target=client, args=(k * 3,)) for k in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - started
        cpu = cpu_seconds(server.pid) - cpu_before
        if failures:
            raise SystemExit(f"{binary}: {len(failures)} requests failed")
        return len(done) / wall, 1000 * cpu / len(done)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", required=True, help="the baseline binary")
    parser.add_argument("--b", required=True, help="the binary measured against it")
    parser.add_argument("--images", default=ocr_load.shared_testdata() and
                        os.path.join(ocr_load.shared_testdata(), "real"))
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0, help="--threads of both servers")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    if not opts.images or not os.path.isdir(opts.images):
        ocr_load.skip("no --images folder (../shared/testdata/real is absent)")
    images = bodies(opts.images)
    args = ["--request-timeout", "600"]
    if opts.threads:
        args += ["--threads", str(opts.threads)]
    rates = {"a": [], "b": []}
    cpu_ms = {"a": [], "b": []}
    for r in range(opts.rounds):
        for side in ("a", "b"):
            rate, cpu = one_round(getattr(opts, side), args, images, opts.clients, opts.seconds)
            rates[side].append(rate)
            cpu_ms[side].append(cpu)
            print(f"round {r + 1} {side.upper()}: {rate:.3f} images/s, {cpu:.0f} CPU ms / image",
                  flush=True)
    a, b = statistics.median(rates["a"]), statistics.median(rates["b"])
    ca, cb = statistics.median(cpu_ms["a"]), statistics.median(cpu_ms["b"])
    print(f"median images/s: A {a:.3f}, B {b:.3f}; B / A = {b / a:.3f}")
    print(f"median CPU ms / image: A {ca:.0f}, B {cb:.0f}; B / A = {cb / ca:.3f}")
    if opts.json:
        print(json.dumps({"images_per_s": rates, "cpu_ms_per_image": cpu_ms, "ratio": b / a,
                          "cpu_ratio": cb / ca, "clients": opts.clients,
                          "seconds": opts.seconds}))


if __name__ == "__main__":
    main()
