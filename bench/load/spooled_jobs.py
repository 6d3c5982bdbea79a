#!/usr/bin/env python3
"""Many large jobs at once on a memory budget: uploads wait on disk, not in memory.

Starts a real `onnxocr serve --memory-budget-mb B --threads T` (127.0.0.1, ephemeral port) once
per store (--stores: `disk`, the default job store, and `memory`, `--jobs memory`), posts J jobs
(--jobs, 100) of one P-page scanned PDF (--pages, 150; page i is the i-th JPEG of --jpegs-from,
cycling, so a 100-dpi office scan of about 70 KB a page makes a PDF of about 10 MB) from 8
client threads at once, then lets the server work for --work-s seconds (60). Reports per store:
the answers to the posts (202, 503 with and without Retry-After), the time to post them all, the
server's peak RSS (VmRSS sampled every 0.25 s, and VmHWM) against the budget plus the RSS before
the posts (the models), the pages read meanwhile, and the spool's size. Every job is then deleted
(cancelled, then forgotten) and the spool must be empty. A job store that kept uploads in memory
refuses most of the jobs on a budget (or, without one, holds them all in RSS); the disk store
accepts them all while RSS stays within the budget plus the models.

    bench/load/spooled_jobs.py --jpegs-from SCAN.pdf [--jobs 100] [--pages 150]

With --cost-rounds N (and --jobs 0 to skip the above), what the disk store costs one job, on an
idle server of each store, alternated N times: a --cost-pages (10) page PDF as one job, wall time
from the POST to `succeeded` (polled every 50 ms), and the answer time of `POST /jobs` with the
--pages-page PDF (the upload written and synced to the spool; the job is then deleted); medians
and their ratios.

--jpegs-from: a scanned PDF whose JPEGs (pdfimages -j, poppler-utils) become the pages. Numbers
for docs/benchmarks/jobs.md ("Jobs on disk"). Exit 0 when the disk store accepted every job with
RSS within budget + models + 64 MB, 1 otherwise.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ocr_load as L  # noqa: E402
import long_documents as D  # noqa: E402

log = L.log


def vm_hwm_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


def du_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def post_all(url, pdf, jobs, threads=8):
    body, ctype = L.multipart_body(pdf, {}, filename="scan.pdf")
    answers = []
    lock = threading.Lock()
    todo = list(range(jobs))

    def worker():
        c = L.Client(url, 600)
        try:
            while True:
                with lock:
                    if not todo:
                        return
                    todo.pop()
                a = c.request("POST", "/jobs", body, {"Content-Type": ctype})
                with lock:
                    answers.append((a.status, a.headers.get("retry-after"),
                                    a.json().get("id") if a.status == 202 else None,
                                    a.json().get("code") if a.status != 202 else None))
        finally:
            c.close()

    ts = [threading.Thread(target=worker) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return answers


def run_store(opts, store, pdf, tmp):
    args = ["--threads", str(opts.threads), "--memory-budget-mb", str(opts.budget_mb),
            "--request-timeout", "600", "--max-jobs", str(max(opts.jobs, 64))]
    if store == "memory":
        args += ["--jobs", "memory"]
    server = L.Server(opts.binary, args, log_dir=tmp, name=f"store-{store}").start()
    try:
        base_mb = server.rss_kb() / 1024
        sampler = L.RssSampler(server)
        with sampler:
            t = time.monotonic()
            answers = post_all(server.url, pdf, opts.jobs)
            post_s = time.monotonic() - t
            pages0 = L.metric_sum(L.metrics(server.url), "onnxocr_pages_processed_total")
            time.sleep(opts.work_s)
            pages = L.metric_sum(L.metrics(server.url), "onnxocr_pages_processed_total") - pages0
        spool = du_bytes(server.data_dir) if store == "disk" else 0
        hwm_mb = vm_hwm_kb(server.pid) / 1024
        ids = [a[2] for a in answers if a[2]]
        c = L.Client(server.url, 60)
        for _ in range(2):  # cancel, then forget
            for i in ids:
                c.request("DELETE", f"/jobs/{i}")
            time.sleep(1)
        c.close()
        left = du_bytes(os.path.join(server.data_dir, "spool")) if store == "disk" else 0
        statuses = {}
        for status, retry, _, code in answers:
            key = f"{status}" + (f" {code}" if code else "") + (" Retry-After" if retry else "")
            statuses[key] = statuses.get(key, 0) + 1
        out = {"store": store, "jobs_posted": opts.jobs, "answers": statuses,
               "post_all_s": round(post_s, 1), "rss_before_posts_mb": round(base_mb, 1),
               "peak_rss_mb": sampler.max_mb(), "vm_hwm_mb": round(hwm_mb, 1),
               "budget_mb": opts.budget_mb, "pages_read_in_work_s": int(pages),
               "work_s": opts.work_s, "data_dir_mb": round(spool / 2**20, 1),
               "spool_left_after_delete_bytes": left}
        log(json.dumps(out))
        return out
    finally:
        server.stop()


def job_walls_s(opts, store, small_pdf, big_pdf, tmp, name):
    """(seconds from POST to succeeded for small_pdf, seconds POST /jobs of big_pdf answers)."""
    args = ["--threads", str(opts.threads)] + (["--jobs", "memory"] if store == "memory" else [])
    with L.Server(opts.binary, args, log_dir=tmp, name=name) as server:
        c = L.Client(server.url, 600)
        body, ctype = L.multipart_body(small_pdf, {}, filename="scan.pdf")
        t = time.monotonic()
        job = c.request("POST", "/jobs", body, {"Content-Type": ctype}).json()["id"]
        while c.request("GET", f"/jobs/{job}").json().get("status") not in (
                "succeeded", "failed", "cancelled"):
            time.sleep(0.05)
        wall = time.monotonic() - t
        assert c.request("GET", f"/jobs/{job}").json()["status"] == "succeeded"
        body, ctype = L.multipart_body(big_pdf, {}, filename="scan.pdf")
        a = c.request("POST", "/jobs", body, {"Content-Type": ctype})
        assert a.status == 202, f"POST /jobs of the large PDF: {a.status} {a.body[:200]!r}"
        c.request("DELETE", f"/jobs/{a.json()['id']}")
        c.close()
        return wall, a.seconds


def store_cost(opts, jpegs, big_pdf, tmp):
    small_pdf = D.scanned_pdf(jpegs, opts.cost_pages, dpi=100)
    walls = {"disk": [], "memory": []}
    posts = {"disk": [], "memory": []}
    for r in range(opts.cost_rounds):
        for store in ("disk", "memory") if r % 2 == 0 else ("memory", "disk"):
            # A name per server: a log file is read for the port it listens on.
            wall, post = job_walls_s(opts, store, small_pdf, big_pdf, tmp, f"cost-{store}-{r}")
            walls[store].append(round(wall, 2))
            posts[store].append(round(post * 1000))
            log(f"cost round {r + 1}: {store} job {wall:.2f} s, POST /jobs {post * 1000:.0f} ms")

    def median(v):
        return sorted(v)[len(v) // 2]

    out = {"job_pages": opts.cost_pages, "job_wall_s": walls,
           "job_median_s": {k: median(v) for k, v in walls.items()},
           "job_disk_over_memory": round(median(walls["disk"]) / median(walls["memory"]), 2),
           "post_pages": opts.pages, "post_mb": round(len(big_pdf) / 2**20, 1),
           "post_ms": posts, "post_median_ms": {k: median(v) for k, v in posts.items()}}
    log(json.dumps(out))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=L.default_binary())
    ap.add_argument("--jpegs-from", required=True)
    ap.add_argument("--jobs", type=int, default=100)
    ap.add_argument("--pages", type=int, default=150)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--budget-mb", type=int, default=1024)
    ap.add_argument("--work-s", type=float, default=60)
    ap.add_argument("--stores", default="disk,memory")
    ap.add_argument("--cost-rounds", type=int, default=0)
    ap.add_argument("--cost-pages", type=int, default=10)
    ap.add_argument("--out", help="write the results as JSON here")
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="onnxocr-spooled-")
    try:
        subprocess.run(["pdfimages", "-j", opts.jpegs_from, os.path.join(tmp, "p")], check=True)
        jpegs = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(tmp, "p-*.jpg")))]
        assert jpegs, f"no JPEG in {opts.jpegs_from}"
        pdf = D.scanned_pdf(jpegs, opts.pages, dpi=100)
        log(f"{opts.pages}-page PDF of {len(pdf) / 2**20:.1f} MB from {len(jpegs)} JPEGs")
        results = [run_store(opts, s, pdf, tmp) for s in opts.stores.split(",") if opts.jobs]
        if opts.cost_rounds:
            results.append(store_cost(opts, jpegs, pdf, tmp))
        if opts.out:
            with open(opts.out, "w") as f:
                json.dump(results, f, indent=1)
        disk = [r for r in results if r.get("store") == "disk"]
        ok = all(r["answers"].get("202", 0) == opts.jobs and
                 r["peak_rss_mb"] <= r["budget_mb"] + r["rss_before_posts_mb"] + 64 and
                 r["spool_left_after_delete_bytes"] == 0 for r in disk)
        print("PASS" if ok else "FAIL")
        return 0 if ok else 1
    finally:
        L._kill_all()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
