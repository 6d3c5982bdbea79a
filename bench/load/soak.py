#!/usr/bin/env python3
"""Soak: a long run at about 80% of saturation with varied images and a share of bad inputs
(issue 7). Memory must stay flat and every answer must be the expected one.

1. Builds a fixed set of inputs (seed printed): text rendered by pango-view at font sizes from
   0.3x to 1.5x of 28 pt as PNG, the same through ghostscript as JPEG at 50..150 dpi, and, when
   ../shared/testdata is present (and --no-testdata is not given), a few of its real and
   synthetic images, leaving out those slower than --max-image-seconds at idle; sent as the JSON
   form (/ocr and /ocr_api) and as multipart uploads. Bad inputs (bad base64, truncated PNG,
   corrupt JPEG, not an image, huge declared dimensions, bad JSON, wrong content type, a body
   over --max-body-mb, ...) each carry the status and error code of spec/API.md.
2. Starts `onnxocr serve` on 127.0.0.1 (ephemeral port) and takes every good input's reference
   answer at idle.
3. Primes the server (2 x threads clients each send the slower half of the good inputs at
   once), measures saturation with the same mix (closed loop, 2 x threads clients), then offers
   --load (0.8) x that rate, open loop, for --duration seconds (600), --bad-share (0.1) of them
   bad. Requests in flight are capped at --max-outstanding; a request that had to wait for the
   cap is counted as `held` (the machine was slower than at the start).
4. Checks: zero unexpected statuses or error codes; every good answer equals its reference;
   RSS growth after --warmup seconds below --max-rss-growth-pct (5): the peak RSS (VmRSS,
   sampled every second) of the first half of the time after the warm-up against the peak of
   the second half; the server counted every answer; SIGTERM exits 0.
   Prints a JSON summary (`SUMMARY {...}`) and PASS/FAIL lines. Exit 0 pass, 1 fail, 77 skip.

    bench/load/soak.py --onnxocr build/release/onnxocr                 # 10 minutes
    bench/load/soak.py --duration 3600 --warmup 120                    # an hour
    bench/load/soak.py --duration 60 --warmup 15 --saturation-duration 10 --no-testdata  # ctest
"""
import argparse
import os
import random
import sys
import tempfile
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ocr_load as L  # noqa: E402

TEXTS = [
    "Soak test\nOrder 4711",
    "Invoice 2024-118\nTotal due 1,234.50 EUR\nPayable within 30 days",
    "The quick brown fox\njumps over the lazy dog",
    "Room 42 Level 3\nOpen 9:00-17:30",
    "Serial number A7-338-XK\nMade in Europe",
    "Meeting notes\n1. Budget review\n2. Hiring plan\n3. Next steps",
]


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxocr", default=L.default_binary(), help="server binary")
    ap.add_argument("--threads", type=int, default=2, help="server --threads")
    ap.add_argument("--queue-size", type=int, default=64, help="server --queue-size")
    ap.add_argument("--max-body-mb", type=int, default=8, help="server --max-body-mb")
    ap.add_argument("--duration", type=float, default=600.0, help="seconds at the soak load")
    ap.add_argument("--warmup", type=float, default=60.0, help="seconds before RSS is compared")
    ap.add_argument("--saturation-duration", type=float, default=30.0, help="seconds")
    ap.add_argument("--load", type=float, default=0.8, help="offered rate / saturation rate")
    ap.add_argument("--bad-share", type=float, default=0.1, help="share of bad inputs")
    ap.add_argument("--max-outstanding", type=int, default=16, help="client cap on in-flight")
    ap.add_argument("--max-rss-growth-pct", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--no-testdata", action="store_true", help="only rendered images")
    ap.add_argument("--max-image-seconds", type=float, default=1.5,
                    help="leave out test-data images slower than this at idle")
    ap.add_argument("--json-out", help="also write the summary to this file")
    return ap.parse_args(argv)


def good_cases(tmp, rng, use_testdata):
    """Varied images (sizes from ~0.3x to 1.5x) in varied request forms."""
    images = []
    for i, text in enumerate(TEXTS):
        scale = 0.3 + 1.2 * i / (len(TEXTS) - 1)  # 0.3x .. 1.5x of 28 pt, spread evenly
        pt = max(9, round(28 * scale))
        images.append((f"png {pt}pt", L.render_png(tmp, text, pt, margin_px=rng.randint(8, 60))))
        dpi = rng.choice([50, 72, 100, 150])
        images.append((f"jpeg {pt}pt {dpi}dpi", L.render_jpeg(tmp, text, pt, dpi=dpi)))
    data = None if use_testdata is False else L.shared_testdata()
    if data:
        picks = []
        for sub in ("real", os.path.join("synthetic", "images")):
            folder = os.path.join(data, sub)
            if os.path.isdir(folder):
                files = sorted(f for f in os.listdir(folder)
                               if f.lower().endswith((".jpg", ".png")) and
                               os.path.getsize(os.path.join(folder, f)) < 400_000)
                picks += [os.path.join(folder, f) for f in rng.sample(files, min(4, len(files)))]
        for path in picks:
            with open(path, "rb") as f:
                images.append((os.path.basename(path), f.read()))
    cases = []
    for i, (name, data_bytes) in enumerate(images):
        size = L.image_size(data_bytes)
        label = f"{name} {size[0]}x{size[1]}" if size else name
        form = rng.choice(["json", "json", "ocr_api", "multipart"])
        if form == "multipart":
            body, ctype = L.multipart_body(data_bytes, {"output_format": "json"})
            case = L.Case(f"{label} multipart", "/ocr", body, ctype)
        else:
            case = L.Case(f"{label} {form}", "/ocr_api" if form == "ocr_api" else "/ocr",
                          L.json_body(data_bytes))
        case.source = "rendered" if i < 2 * len(TEXTS) else "testdata"
        cases.append(case)
    return cases


class Picker:
    """Request i: a bad case with probability bad_share, else a good one (seeded)."""

    def __init__(self, good, bad, bad_share, seed):
        self.good, self.bad, self.bad_share = good, bad, bad_share
        self.seed = seed

    def __call__(self, i):
        rng = random.Random(self.seed * 1_000_003 + i)
        if rng.random() < self.bad_share:
            return rng.choice(self.bad)
        return rng.choice(self.good)


def prime(url, good, clients):
    """Every client sends the slower half of the good inputs (those that take the most memory),
    slowest first, all at the same time, so the allocator has seen the largest inputs side by
    side before RSS is compared."""
    order = sorted(good, key=lambda c: c.idle_s or 0, reverse=True)[:max(1, len(good) // 2)]
    answers = []
    lock = threading.Lock()

    def send(c):
        for case in order:
            a = case.send(c)
            with lock:
                answers.append(a)

    L.on_clients(url, clients, send)
    return answers


def rss_windows(rss, start_s, end_s):
    """Peak RSS of the first and of the second half of [start_s, end_s]: with varied inputs RSS
    swings with what is in flight, but each half's high-water mark is stable unless memory
    leaks or fragments."""
    window = (end_s - start_s) / 2
    return window, rss.max_mb(start_s, start_s + window), rss.max_mb(end_s - window, end_s)


def run(args, tmp):
    rng = random.Random(args.seed)
    good = good_cases(tmp, rng, not args.no_testdata)
    text_png = L.render_png(tmp, TEXTS[0], 28)
    bad = L.bad_input_cases(text_png, max_body_mb=args.max_body_mb)
    server = L.Server(args.onnxocr, ["--threads", str(args.threads), "--queue-size",
                                     str(args.queue_size), "--max-body-mb",
                                     str(args.max_body_mb), "--request-timeout", "120",
                                     "--log-level", "debug"],
                      log_dir=tmp, name="soak-server")
    with server:
        L.log(f"server pid {server.pid} on {server.url}")
        L.take_references(server.url, good)
        slow = [c for c in good if c.source == "testdata" and c.idle_s > args.max_image_seconds]
        good = [c for c in good if c not in slow]
        L.log(f"seed {args.seed}: {len(good)} good inputs, {len(bad)} kinds of bad input")
        for c in good:
            L.log(f"  good: {c.name} ({len(c.body)} byte body, {c.idle_s:.2f} s at idle)")
        for c in slow:
            L.log(f"  left out (slower than {args.max_image_seconds} s at idle): {c.name}")
        picker = Picker(good, bad, args.bad_share, args.seed)
        L.log(f"priming: {2 * args.threads} clients each send the slower half of the inputs")
        primed = prime(server.url, good, 2 * args.threads)
        L.log(f"saturation with the mix: {2 * args.threads} clients for "
              f"{args.saturation_duration:.0f} s")
        sat = L.closed_loop(server.url, picker, 2 * args.threads, args.saturation_duration)
        span = max(a.sent_at + a.seconds for a in sat) - min(a.sent_at for a in sat)
        sat_rps = len(sat) / span
        rate = args.load * sat_rps
        L.log(f"saturation {sat_rps:.2f} req/s; soak at {rate:.2f} req/s for "
              f"{args.duration:.0f} s")

        problems = []
        lock = threading.Lock()
        counts = {"good": 0, "bad": 0}

        def on_answer(a):
            why = a.tag.check(a)
            with lock:
                counts["bad" if a.tag.expect_status != 200 else "good"] += 1
                if why:
                    problems.append(f"{a.tag.name}: {why}")
            a.body = b""  # keep memory flat over long runs

        for a in primed + sat:
            on_answer(a)
        counts["good"] = counts["bad"] = 0
        before = L.metrics(server.url)
        with L.RssSampler(server, interval_s=1.0) as rss:
            loop = L.OpenLoop(server.url, rate, args.duration, picker,
                              senders=args.max_outstanding + 4,
                              max_outstanding=args.max_outstanding, on_answer=on_answer)
            progress = threading.Thread(target=report_progress, args=(loop, rss, args.duration),
                                        daemon=True)
            progress.start()
            answers = loop.run()
            end_s = rss.elapsed_s()
        after = L.metrics(server.url)
        server_counted = int(L.metric_sum(after, "onnxocr_http_requests_total") -
                             L.metric_sum(before, "onnxocr_http_requests_total"))
        exit_code = server.stop()
        server_log = server.notable_log_lines()

    warm = min(args.warmup, end_s / 2)
    window, rss_first, rss_last = rss_windows(rss, warm, end_s)
    growth_pct = (rss_last / rss_first - 1) * 100 if rss_first and rss_last else None
    statuses = L.summarize_statuses(answers)
    lat = [a.seconds for a in answers if a.tag.expect_status == 200 and a.status == 200]
    summary = {
        "tool": "soak",
        "seed": args.seed,
        "server": {"threads": args.threads, "queue_size": args.queue_size,
                   "max_body_mb": args.max_body_mb},
        "inputs": {"good": [c.name for c in good], "bad": [c.name for c in bad]},
        "saturation_rps": round(sat_rps, 2),
        "offered_rps": round(rate, 2),
        "seconds": round(end_s, 1),
        "requests": len(answers),
        "good_requests": counts["good"],
        "bad_requests": counts["bad"],
        "statuses": statuses,
        "held_by_client_cap": loop.held,
        "good_latency_ms": {"p50": L.ms(L.percentile(lat, 50)),
                            "p99": L.ms(L.percentile(lat, 99))},
        "problems": len(problems),
        "problem_examples": problems[:10],
        "rss_mb": {"idle": round(rss.samples[0][1] / 1024, 1) if rss.samples else None,
                   "warmup_s": round(warm, 1), "window_s": round(window, 1),
                   "start_peak": rss_first, "end_peak": rss_last,
                   "max": rss.max_mb(), "growth_pct": round(growth_pct, 2)
                   if growth_pct is not None else None},
        "rss_timeline_mb": timeline(rss, 40),
        "server_counted_answers": server_counted,
        # What the server logged besides answers and normal connection ends: why it closed a
        # connection a client found reset, warnings, errors.
        "server_log": server_log,
    }
    summary["checks"] = {
        "no_unexpected_status_or_wrong_answer": not problems,
        "rss_growth_pct<%g" % args.max_rss_growth_pct:
            growth_pct is not None and growth_pct < args.max_rss_growth_pct,
        "server_counted_every_answer": server_counted >= len(answers),
        "sigterm_exit_0": exit_code == 0,
    }
    summary["pass"] = all(summary["checks"].values())
    return summary


def timeline(rss, points):
    """[seconds, peak MB] over `points` equal slices of the run, for plotting or eyeballing."""
    if not rss.samples:
        return []
    end = rss.samples[-1][0]
    step = end / points
    return [[round(i * step), rss.max_mb(i * step, (i + 1) * step)] for i in range(points)
            if rss.max_mb(i * step, (i + 1) * step) is not None]


def report_progress(loop, rss, duration_s):
    step = max(10.0, duration_s / 10)
    while True:
        threading.Event().wait(step)
        if rss.elapsed_s() > duration_s + 5:
            return
        L.log(f"  {len(loop.answers)} answers, RSS {rss.samples[-1][1] / 1024:.1f} MB"
              if rss.samples else "  ...")


def main(argv=None):
    args = parse_args(argv)
    L.require(args.onnxocr, ghostscript=True)
    with tempfile.TemporaryDirectory(prefix="onnxocr-soak-") as tmp:
        summary = run(args, tmp)
    return L.report(summary, args.json_out)


if __name__ == "__main__":
    sys.exit(main())
