#!/usr/bin/env python3
"""Jobs survive the server: the durable job store (the default without --redis), for real.

One `onnxocr serve --threads 2 --data-dir DIR` process, killed and restarted over the same folder.
The input is the 40-page scanned PDF of redis_jobs_test.py (four short text pages rendered with
pango-view + ghostscript, cycled). The reference is the same job on a second server that nobody
interrupts: its JSON result, processing_time left out, byte for byte.

 1. kill -9 (/info names the disk store and its folder first): the server gets SIGKILL at random
    points of the job, 5 times, each once a few more pages were read and the pages the last kill
    stopped were stored; after each kill the job folder's `reading` table (the pages being read
    when it died) shows no page started twice, and after each restart GET /jobs/{id} answers 200
    with the job queued or running (or succeeded), never failed or forgotten.
 2. SIGTERM: with --drain-timeout 1, the drain stops the job; after the restart it goes on.
 3. The job succeeds; its result equals the reference byte for byte; its event stream has one
    `page` event per page, in order, with the reference texts, then `done`.
 4. One more restart: the finished job's result and events are served from the folder, equal.
 5. `onnxocr jobs check` reports the folder sound while the server runs; `onnxocr jobs vacuum`
    refuses while it runs and compacts once it stopped.

Exit 0 pass, 1 fail, 77 skipped (pango-view, ghostscript, the models or the binary missing).
Bounded: 150 s (about 30 s on 2 cores). Environment: ONNXOCR_BINARY (default
build/release/onnxocr), OCR_MODELS_DIR.
"""
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "load"))
sys.path.insert(0, HERE)
import ocr_load as L  # noqa: E402  (bench/load: servers, client, rendering, metrics)
import long_documents as D  # noqa: E402  (bench/load: scanned_pdf)
import redis_jobs_test as R  # noqa: E402  (same directory: job HTTP helpers, the SSE reader)

DEADLINE_S = 150
KILLS = 5
log = L.log


def without_time(doc):
    """The answer as bytes, without processing_time (the only field a restart may change)."""
    doc = dict(doc)
    doc.pop("processing_time", None)
    return json.dumps(doc, sort_keys=True, ensure_ascii=False)


def reading(folder):
    """{page index: times started} of the pages being read when the server stopped."""
    db = sqlite3.connect(os.path.join(folder, "jobs.sqlite"))
    try:
        return dict(db.execute("SELECT idx, starts FROM reading").fetchall())
    finally:
        db.close()


def events(server, job):
    stream = R.Events(server.url, R.path_of(job, "events_url", "/events"))
    stream.start()
    stream.join(60)
    return stream


def run(tmp, binary, models):
    jpegs = [L.render_jpeg(tmp, text, font_pt=22, dpi=120) for text in R.TEXTS]
    pdf = D.scanned_pdf(jpegs, R.PAGES)
    args = ["--threads", "2", "--drain-timeout", "1"]
    model = [f"ppocrv4={models}"]

    with L.Server(binary, args, models=model, log_dir=tmp, name="reference") as ref_server:
        ref_job = R.post_job(ref_server.url, pdf)
        R.wait_job(ref_server.url, ref_job, lambda j: j.get("status") == "succeeded", 60,
                   "reference")
        reference = R.result(ref_server.url, ref_job)
    R.check_document(reference, R.page_texts(reference), "reference")
    texts = R.page_texts(reference)
    log(f"reference: {R.PAGES} pages uninterrupted; page 0 reads {texts[0]}")

    server = L.Server(binary, args, models=model, log_dir=tmp, name="durable").start()
    info = R.request(server.url, "GET", "/info").json()
    assert info.get("jobs") == {"store": "disk", "data_dir": server.data_dir}, \
        f"/info's jobs: {info.get('jobs')}, expected the disk store in {server.data_dir}"
    job = R.post_job(server.url, pdf)
    done = 0
    kills = 0
    left = {}
    for _ in range(KILLS):
        # A few more pages read, and the pages stopped by the last kill read again and stored:
        # a page being read at two deaths would fail the job, as a document that kills the
        # server should.
        want = done + random.randint(3, 5)
        j, _ = R.wait_job(server.url, job, lambda j: (j.get("pages_done", 0) >= want and
                                                      not set(left) & set(reading(
                                                          server.data_dir))) or
                          j.get("status") == "succeeded", 60, f"before kill {kills + 1}",
                          poll_s=0.02)
        if j.get("status") == "succeeded":
            break
        time.sleep(random.uniform(0, 0.2))
        server.kill()
        kills += 1
        left = reading(server.data_dir)
        assert all(n < 2 for n in left.values()), \
            f"kill {kills}: pages started twice without being stored: {left}"
        server.restart()
        a = R.status(server.url, job)
        j = a.json()
        assert a.status == 200 and j.get("status") in ("queued", "running", "succeeded"), \
            f"after kill {kills}: GET /jobs/{job['id']}: {a.status} {a.body[:300]!r}"
        done = j.get("pages_done", 0)
        log(f"kill -9 #{kills}: pages being read {sorted(left)}; after the restart "
            f"{j.get('status')} with {done} of {R.PAGES} pages")
    assert kills >= 3, f"the job finished after {kills} kills; the test wants at least 3"

    j = R.status(server.url, job).json()
    if j.get("status") != "succeeded":
        code = server.stop(timeout_s=20)
        assert code == 0, f"SIGTERM: exit code {code}"
        server.restart()
        j = R.status(server.url, job).json()
        assert j.get("status") in ("queued", "running", "succeeded"), \
            f"after SIGTERM: the job is {j.get('status')} ({j.get('error')})"
        log(f"SIGTERM with --drain-timeout 1: after the restart {j.get('status')} with "
            f"{j.get('pages_done')} pages")

    R.wait_job(server.url, job, lambda j: j.get("status") == "succeeded", 60, "resumed job")
    for round_ in ("resumed", "after one more restart"):
        got = R.result(server.url, job)
        R.check_document(got, texts, round_)
        assert without_time(got) == without_time(reference), \
            f"{round_}: the result differs from the uninterrupted run's"
        stream = events(server, job)
        stream.check(texts, "done", f"{round_}: events")
        log(f"{round_}: result byte-identical to the reference; {len(stream.events)} events")
        if round_ == "resumed":
            server.stop()
            server.restart()

    # The folder from outside: check is safe while serving, vacuum waits for the server to stop.
    def jobs_cli(*words):
        return subprocess.run([binary, "jobs", *words, "--data-dir", server.data_dir],
                              capture_output=True, text=True, timeout=60)
    check = jobs_cli("check")
    assert check.returncode == 0 and "integrity ok" in check.stdout and \
        "succeeded: 1" in check.stdout, \
        f"jobs check: {check.returncode} {check.stdout}{check.stderr}"
    busy = jobs_cli("vacuum")
    assert busy.returncode == 1 and "another onnxocr server uses the job folder" in busy.stderr, \
        f"jobs vacuum while serving: {busy.returncode} {busy.stderr}"
    server.stop()
    vacuum = jobs_cli("vacuum")
    assert vacuum.returncode == 0, f"jobs vacuum: {vacuum.returncode} {vacuum.stderr}"
    log(f"onnxocr jobs check: {' / '.join(check.stdout.strip().splitlines())}")


def main():
    binary = L.default_binary()
    L.require(binary, models=True, pango=True, ghostscript=True)
    tmp = tempfile.mkdtemp(prefix="onnxocr-durable-jobs-")
    timer = threading.Timer(DEADLINE_S, lambda: (print("FAIL: over the time limit", flush=True),
                                                 L._kill_all(), os._exit(1)))
    timer.daemon = True
    timer.start()
    start = time.monotonic()
    try:
        run(tmp, binary, L.default_models())
    except (AssertionError, OSError, KeyError) as e:
        print(f"FAIL: {e}\n(logs kept in {tmp})")
        return 1
    finally:
        timer.cancel()
        L._kill_all()
    log(f"total {time.monotonic() - start:.1f} s")
    shutil.rmtree(tmp, ignore_errors=True)
    print("PASS: accepted jobs survive kill -9 and SIGTERM, and resume to the same result")
    return 0


if __name__ == "__main__":
    sys.exit(main())
