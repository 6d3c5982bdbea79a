#!/usr/bin/env python3
"""Shared jobs: what Redis-shared jobs (`onnxocr serve --redis URL`) buy for one long document.

Starts Debian's redis-server here (127.0.0.1, a free port, no persistence) and `onnxocr serve`
replicas on it (127.0.0.1, ephemeral ports, `--threads T --redis URL --job-lease S`), and runs one
scanned PDF of --pages pages (200) as a job two ways, each on a fresh Redis database (FLUSHALL)
and freshly started replicas warmed with one single-image `POST /ocr` each:

 1. one: one replica. POST /jobs, then GET /jobs/{id} every --poll-s (0.2 s) until `succeeded`.
 2. many: --replicas (2) replicas on the same Redis. POST /jobs to replica 0, poll replica 1.
    Pages per replica: the growth of each replica's `onnxocr_pages_processed_total` (/metrics)
    over the job.

For each: seconds from POST to `succeeded` as seen by polling (wall), the job's own
created_at..finished_at (server) and started_at..finished_at, pages/s, pages per replica, the CPU
seconds of each replica over the job (/proc: how many cores the replicas kept busy), and
Redis memory per page of results: `MEMORY USAGE onnxocr:job:{id}:pages SAMPLES 0` / pages (plus
every onnxocr:* key by pattern and INFO used_memory). Both results (GET /jobs/{id}/result, read
from the polled replica) must have the same pages, in order, with the same texts per page: the
pages that differ from the first result are counted and reported as an error. Reported: many/one
seconds (below 1 is a gain), the speedup, the PDF size.

Inputs: the JPEGs of --images (default ../shared/testdata/real next to the checkout; when absent,
text rendered with pango-view + ghostscript), cycled, one per page (long_documents.scanned_pdf).
With --rounds R the two scenarios alternate R times (one, many, one, many, ...) and each reports
its round with the median wall seconds (every round's in wall_s_rounds).

Server and Redis logs (stdout and stderr) go to a temporary directory, removed at the end unless
a run failed or --keep-logs is given; on a failure their tails are printed. Prints a human
summary; --json also prints one JSON object as the last line of stdout, --json-out FILE writes it
to a file. Exit 0 when every run succeeded with matching texts, 1 otherwise, 77 when the binary,
the models or redis-server is missing.

    bench/load/shared_jobs.py --json-out shared_jobs.json                       # 200 pages
    bench/load/shared_jobs.py --pages 12 --lease 10                             # smoke run
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ocr_load as L  # noqa: E402
import long_documents as D  # noqa: E402

FINISHED = ("succeeded", "failed", "cancelled")
PAGES_METRIC = "onnxocr_pages_processed_total"


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", "--onnxocr", dest="binary", default=L.default_binary(),
                    help="server binary (default build/release/onnxocr, or $ONNXOCR_BINARY)")
    ap.add_argument("--models", default=L.default_models(),
                    help="model set directory, passed as --models ppocrv4=DIR")
    ap.add_argument("--redis-server", default=os.environ.get("REDIS_SERVER") or
                    "/usr/bin/redis-server", help="redis-server binary (or $REDIS_SERVER)")
    ap.add_argument("--images", default=os.path.join(os.path.dirname(L.ROOT), "shared",
                                                     "testdata", "real"),
                    help="folder of JPEGs/PNGs (default ../shared/testdata/real)")
    ap.add_argument("--pages", type=int, default=200, help="pages of the PDF (200)")
    ap.add_argument("--replicas", type=int, default=2, help="replicas of the second scenario (2)")
    ap.add_argument("--threads", type=int, default=1, help="--threads of every replica (1)")
    ap.add_argument("--lease", type=int, default=10, help="--job-lease seconds (10)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="runs of each scenario, alternated; the median is reported")
    ap.add_argument("--poll-s", type=float, default=0.2, help="job status polling interval")
    ap.add_argument("--job-timeout-s", type=float, default=3600,
                    help="give up on a job after this many seconds")
    ap.add_argument("--server-arg", action="append", default=[],
                    help="extra argument for `onnxocr serve` (repeatable; use --server-arg=--x)")
    ap.add_argument("--keep-logs", action="store_true", help="keep the log directory")
    ap.add_argument("--json", action="store_true", help="print the JSON object last on stdout")
    ap.add_argument("--json-out", help="also write the JSON object to this file")
    args = ap.parse_args(argv)
    if args.pages < 1 or args.replicas < 2 or args.threads < 0 or args.rounds < 1:
        ap.error("need --pages >= 1, --replicas >= 2, --threads >= 0, --rounds >= 1")
    return args


# --- Redis ---------------------------------------------------------------------------------------

class RedisError(Exception):
    """An error reply (-ERR ...) of Redis."""


class Resp:
    """One connection to Redis speaking RESP2: command(*args) returns the decoded reply (str for
    simple strings, int, bytes for bulk strings, list, None)."""

    def __init__(self, port, timeout_s=30):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
        self.f = self.sock.makefile("rb")

    def close(self):
        self.f.close()
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def command(self, *args):
        parts = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(parts))
        return self._reply()

    def _reply(self):
        line = self.f.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("redis closed the connection")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RedisError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self.f.read(n + 2)[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ConnectionError(f"unexpected RESP reply {line[:80]!r}")


def redis_call(port, *args):
    with Resp(port) as r:
        return r.command(*args)


def info_fields(text):
    out = {}
    for line in (text.decode() if isinstance(text, bytes) else text).splitlines():
        if ":" in line and not line.startswith("#"):
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """Debian's redis-server on 127.0.0.1, no persistence, its output in log_dir; stopped by
    PID (SIGTERM, then SIGKILL)."""

    def __init__(self, binary, log_dir):
        self.binary = binary
        self.log_path = os.path.join(log_dir, "redis.log")
        self.port = None
        self.proc = None

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        for _ in range(3):  # a probed free port can be taken before redis binds it
            port = free_port()
            with open(self.log_path, "ab") as out:
                self.proc = subprocess.Popen(
                    [self.binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                     "--appendonly", "no", "--daemonize", "no"],
                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    start_new_session=True, preexec_fn=L._die_with_parent)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    if redis_call(port, "PING") == "PONG":
                        self.port = port
                        return self
                except (OSError, RedisError):
                    pass
                time.sleep(0.05)
            self.stop()
        raise RuntimeError(f"redis-server did not start:\n{tail(self.log_path)}")

    def stop(self, timeout_s=10):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def key_pattern(key, job_id):
    return key.replace(job_id, "{id}") if job_id else key


def redis_memory(port, job_id, pages):
    """MEMORY USAGE (all elements sampled) of the job's pages hash, per page, and of every
    onnxocr:* key grouped by pattern; INFO used_memory."""
    with Resp(port) as r:
        pages_key = f"onnxocr:job:{job_id}:pages"
        usage = r.command("MEMORY", "USAGE", pages_key, "SAMPLES", "0")
        fields = r.command("HLEN", pages_key) if usage is not None else None
        keys, cursor = [], "0"
        while True:
            cursor, batch = r.command("SCAN", cursor, "MATCH", "onnxocr:*", "COUNT", "1000")
            keys += [k.decode() for k in batch]
            cursor = cursor.decode()
            if cursor == "0":
                break
        by_pattern = {}
        for k in sorted(set(keys)):
            b = r.command("MEMORY", "USAGE", k, "SAMPLES", "0") or 0
            p = key_pattern(k, job_id)
            e = by_pattern.setdefault(p, {"keys": 0, "bytes": 0,
                                          "type": r.command("TYPE", k)})
            e["keys"] += 1
            e["bytes"] += b
        mem = info_fields(r.command("INFO", "memory"))
    out = {"pages_key": key_pattern(pages_key, job_id), "pages_key_bytes": usage,
           "pages_key_fields": fields,
           "bytes_per_page": round(usage / pages) if usage else None,
           "kb_per_page": round(usage / pages / 1024, 2) if usage else None,
           "keys": by_pattern,
           "used_memory_bytes": int(mem["used_memory"]) if "used_memory" in mem else None}
    if usage is None:
        raise D.ContractError(f"redis has no key {pages_key} (keys: {sorted(by_pattern)})")
    return out


# --- servers -------------------------------------------------------------------------------------

def tail(path, lines=30):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return "(no log)"


class Replica(L.Server):
    """L.Server with stdout as well as stderr in its log file."""

    def start(self, wait_ready=True, timeout_s=120):
        with open(self.log_path, "ab") as out:
            self.spawned_at = time.monotonic()
            self.proc = subprocess.Popen(self.command(), stdout=out, stderr=out,
                                         stdin=subprocess.DEVNULL, start_new_session=True,
                                         env=self.env, preexec_fn=L._die_with_parent)
        L._servers.append(self)
        self.port = self.wait_listening(timeout_s)
        if wait_ready:
            self.wait_ready(timeout_s)
        return self

    def cpu_s(self):
        """User + system CPU seconds of the server process so far (None once it has exited)."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    def workers(self):
        found = [ln.split("workers: ", 1)[1] for ln in self.log_text().splitlines()
                 if "workers: " in ln]
        return found[-1] if found else "?"


def warm(server, body):
    c = L.Client(server.url, timeout_s=120)
    try:
        a = c.post("/ocr", body)
    finally:
        c.close()
    if a.status != 200:
        raise D.ContractError(f"warm-up POST /ocr on {server.name}: {a}")
    return a.seconds


def pages_read(server):
    return int(L.metric_sum(L.metrics(server.url), PAGES_METRIC))


def page_texts(doc):
    return [[str(r.get("text", "")) for r in p.get("results", []) if isinstance(r, dict)]
            for p in doc.get("pages", []) if isinstance(p, dict)]


def compare(doc, reference, pages):
    """Pages that differ from the reference (texts per page), missing or extra pages, and pages
    out of order."""
    pl = doc.get("pages") if isinstance(doc, dict) else None
    if not isinstance(pl, list):
        return {"pages": None, "mismatched_pages": pages, "order_ok": False, "first": None}
    numbers = [p.get("page") if isinstance(p, dict) else None for p in pl]
    out = {"pages": len(pl), "order_ok": numbers == list(range(len(pl)))}
    if reference is None:
        out.update(mismatched_pages=0, first=None)
        return out
    texts = page_texts(doc)
    bad = [i for i in range(min(len(texts), len(reference))) if texts[i] != reference[i]]
    out["mismatched_pages"] = len(bad) + abs(len(texts) - len(reference))
    out["first"] = (None if not bad else
                    {"page": bad[0], "got": texts[bad[0]][:8], "reference": reference[bad[0]][:8]})
    return out


def run_scenario(name, n, args, redis, pdf, warm_body, server_args, log_dir, round_no,
                 reference):
    """Fresh Redis database, n fresh replicas, one job of the PDF; returns (result, doc)."""
    redis_call(redis.port, "FLUSHALL")
    replicas = []
    job, poster = None, None
    try:
        for i in range(n):
            r = Replica(args.binary, server_args, models=[f"ppocrv4={args.models}"],
                        log_dir=log_dir, name=f"r{round_no}-{name}-{i}")
            replicas.append(r)
            r.start()
        warm_s = [round(warm(r, warm_body), 3) for r in replicas]
        before = [pages_read(r) for r in replicas]
        cpu0 = [r.cpu_s() for r in replicas]
        load0 = os.getloadavg()[0]
        used0 = int(info_fields(redis_call(redis.port, "INFO", "memory"))["used_memory"])
        poster, poller = D.Jobs(replicas[0].url), D.Jobs(replicas[-1 if n == 1 else 1].url)
        L.log(f"{name}: {n} replica(s) ready (workers {replicas[0].workers()}); POST /jobs "
              f"({args.pages} pages, {len(pdf) / 1e6:.1f} MB) to {replicas[0].name}, polling "
              f"{replicas[-1 if n == 1 else 1].name}")
        t0 = time.monotonic()
        job = poster.create(pdf)
        t_post = time.monotonic() - t0
        st, seen = poller.wait(job, lambda s: s["status"] in FINISHED, args.job_timeout_s,
                               args.poll_s)
        wall = seen - t0
        if st["status"] != "succeeded":
            raise D.ContractError(f"job ended {st['status']}: {st.get('error')!r}")
        after = [pages_read(r) for r in replicas]
        cpu = [D.rnd(b - a, 2) if a is not None and b is not None else None
               for a, b in zip(cpu0, (r.cpu_s() for r in replicas))]
        res = poller.result(job)
        doc = res.json()
        if not isinstance(doc, dict):
            raise D.ContractError(f"result is not a JSON object: {res.body[:200]!r}")
        mem = redis_memory(redis.port, job["id"], args.pages)
        mem["used_memory_growth_bytes"] = (mem["used_memory_bytes"] - used0
                                           if mem["used_memory_bytes"] is not None else None)
        created, started, finished = (D.to_epoch(st.get(k)) for k in
                                      ("created_at", "started_at", "finished_at"))
        server_s = finished - created if finished and created else None
        per_replica = [a - b for a, b in zip(after, before)]
        check = compare(doc, reference, args.pages)
        out = {"round": round_no, "replicas": n, "threads": args.threads,
               "workers": [r.workers() for r in replicas], "job_id": job["id"],
               "warm_s": warm_s, "post_s": D.rnd(t_post), "wall_s": D.rnd(wall),
               "server_s": D.rnd(server_s),
               "run_s": D.rnd(finished - started if finished and started else None),
               "queued_s": D.rnd(started - created if started and created else None),
               "pages": args.pages, "pages_done": st.get("pages_done"),
               "pages_per_s_wall": D.rnd(args.pages / wall),
               "pages_per_s_server": D.rnd(args.pages / server_s if server_s else None),
               "pages_per_replica": per_replica, "pages_read_total": sum(per_replica),
               "cpu_s_per_replica": cpu,
               "cores_busy": D.rnd(sum(c or 0 for c in cpu) / wall, 2),
               "loadavg_1m_before": round(load0, 2),
               "result_pages": check["pages"], "result_order_ok": check["order_ok"],
               "result_bytes": len(res.body),
               "result_kb_per_page": round(len(res.body) / args.pages / 1024, 2),
               "texts_mismatched_pages": check["mismatched_pages"],
               "redis": mem,
               "timestamps": {k: st.get(k) for k in ("created_at", "started_at", "finished_at")}}
        if check["first"]:
            out["texts_first_mismatch"] = check["first"]
        L.log(f"{name}: succeeded; wall {out['wall_s']} s, server {out['server_s']} s, "
              f"{out['pages_per_s_wall']} pages/s; pages per replica {per_replica}, CPU s "
              f"{cpu} ({out['cores_busy']} cores busy); redis "
              f"{mem['kb_per_page']} KiB/page; result {check['pages']} pages, "
              f"{check['mismatched_pages']} mismatched")
        return out, doc
    except BaseException:
        if job is not None and poster is not None:
            try:
                poster.delete(job)  # the job would keep the replicas busy while they drain
            except Exception:  # noqa: BLE001 (best effort)
                pass
        for r in replicas:
            print(f"--- {r.name} log tail ({r.log_path}) ---\n{tail(r.log_path)}", flush=True)
        print(f"--- redis log tail ({redis.log_path}) ---\n{tail(redis.log_path)}", flush=True)
        raise
    finally:
        for c in (poster,):
            if c is not None:
                c.close()
        for r in replicas:
            code = r.stop()
            if code not in (0, None):
                L.log(f"{r.name} exited with {code}")


# --- main ----------------------------------------------------------------------------------------

def median_round(outs):
    """The round with the median wall seconds (the lower middle one of an even count)."""
    ranked = sorted(outs, key=lambda o: o["wall_s"])
    best = dict(ranked[(len(ranked) - 1) // 2])
    if len(outs) > 1:
        best["wall_s_rounds"] = [o["wall_s"] for o in outs]
        best["server_s_rounds"] = [o["server_s"] for o in outs]
    return best


def human(summary):
    r, q = summary["results"], summary["ratios"]
    i = summary["inputs"]
    print("\n== shared jobs (Redis) ==")
    print(f"PDF: {i['pages']} pages, {i['pdf_mb']} MB ({i['pdf_bytes']} bytes) from "
          f"{i['pdf_jpegs']} JPEGs of {i['source']}; --threads {summary['server']['threads']} "
          f"per replica, --job-lease {summary['server']['lease']}, {summary['machine']['cpus']} "
          f"CPUs; Redis {summary['redis'].get('version')}")
    many_label = f"{summary['server']['replicas']} replicas"
    for key, label in (("one", "1 replica "), ("many", many_label)):
        if key not in r:
            continue
        o = r[key]
        print(f"{label}: POST..succeeded {o['wall_s']} s ({o['pages_per_s_wall']} pages/s); "
              f"created..finished {o['server_s']} s ({o['pages_per_s_server']} pages/s); "
              f"pages per replica {o['pages_per_replica']}")
        print(f"            CPU s per replica {o['cpu_s_per_replica']} = {o['cores_busy']} cores "
              f"busy over the wall time (1-min load average before: {o['loadavg_1m_before']})")
        print(f"            redis {o['redis']['pages_key']}: {o['redis']['pages_key_bytes']} "
              f"bytes = {o['redis']['kb_per_page']} KiB/page; result JSON "
              f"{o['result_kb_per_page']} KiB/page; texts mismatched on "
              f"{o['texts_mismatched_pages']} pages")
        if o.get("wall_s_rounds"):
            print(f"            wall s per round {o['wall_s_rounds']} (median shown)")
    if q:
        print(f"many / one seconds: wall {q.get('wall_many_over_one')}, server "
              f"{q.get('server_many_over_one')} (speedup {q.get('speedup_wall')}x wall)")
    print(f"texts: {summary['checks'].get('texts_mismatched_pages')} mismatched pages over "
          f"{summary['checks'].get('runs_compared')} runs compared with the first")
    for e in summary["errors"]:
        print(f"ERROR: {e}")


def main(argv=None):
    args = parse_args(argv)
    L.require(args.binary, models=False, pango=False)
    if not os.path.isfile(os.path.join(args.models, "rec", "rec.onnx")):
        L.skip(f"models missing under {args.models} (run scripts/bootstrap)")
    if not os.access(args.redis_server, os.X_OK):
        L.skip(f"{args.redis_server} is missing (apt-get install redis-server)")
    tmp = tempfile.mkdtemp(prefix="onnxocr-sharedjobs-")
    images, jpegs, source = D.load_images(args, tmp)
    pdf = D.scanned_pdf(jpegs, args.pages)
    warm_body = L.json_body(min(images, key=lambda x: len(x[1]))[1])

    server_args = ["--request-timeout", "3600", "--job-lease", str(args.lease)]
    if args.threads:
        server_args += ["--threads", str(args.threads)]
    if len(pdf) > (31 << 20):
        server_args += ["--max-body-mb", str((len(pdf) >> 20) + 2)]
    if args.pages > 200:
        server_args += ["--max-pdf-pages", str(args.pages)]
    server_args += args.server_arg

    summary = {"tool": "bench/load/shared_jobs.py",
               "server": {"binary": args.binary, "args": server_args + ["--redis", "URL"],
                          "threads": args.threads, "replicas": args.replicas,
                          "lease": args.lease},
               "inputs": {"source": source, "pdf_jpegs": len(jpegs), "pages": args.pages,
                          "pdf_bytes": len(pdf), "pdf_mb": round(len(pdf) / 1e6, 2),
                          "poll_s": args.poll_s, "rounds": args.rounds},
               "machine": {"cpus": os.cpu_count()}, "redis": {"binary": args.redis_server},
               "results": {}, "ratios": {}, "checks": {}, "errors": [], "log_dir": tmp}
    runs = {"one": [], "many": []}
    reference, compared, mismatched = None, 0, 0
    with RedisServer(args.redis_server, tmp) as redis:
        srv = info_fields(redis_call(redis.port, "INFO", "server"))
        summary["redis"]["version"] = srv.get("redis_version")
        L.log(f"redis-server {srv.get('redis_version')} on port {redis.port} (pid "
              f"{redis.proc.pid}); logs in {tmp}")
        args_for = server_args + ["--redis", redis.url]
        for rnd_no in range(1, args.rounds + 1):
            for name, n in (("one", 1), ("many", args.replicas)):
                try:
                    out, doc = run_scenario(name, n, args, redis, pdf, warm_body, args_for,
                                            tmp, rnd_no, reference)
                except (D.ContractError, AssertionError, OSError, RedisError,
                        RuntimeError) as e:
                    summary["errors"].append(f"round {rnd_no} {name}: {e}")
                    L.log(f"round {rnd_no} {name}: ERROR {e}")
                    continue
                runs[name].append(out)
                if reference is None:
                    reference = page_texts(doc)
                else:
                    compared += 1
                    mismatched += out["texts_mismatched_pages"]
                    if out["texts_mismatched_pages"]:
                        summary["errors"].append(
                            f"round {rnd_no} {name}: texts differ from the first result on "
                            f"{out['texts_mismatched_pages']} pages "
                            f"(first: {out.get('texts_first_mismatch')})")
                if out["result_pages"] != args.pages or not out["result_order_ok"]:
                    summary["errors"].append(
                        f"round {rnd_no} {name}: result has {out['result_pages']} pages "
                        f"(in order: {out['result_order_ok']}), expected {args.pages}")
                if out["pages_read_total"] != args.pages:
                    L.log(f"round {rnd_no} {name}: note: the replicas read "
                          f"{out['pages_read_total']} pages for {args.pages} (a page read "
                          f"twice after a lost lease counts twice)")
    for name, outs in runs.items():
        if outs:
            summary["results"][name] = median_round(outs)
    summary["checks"] = {"runs_compared": compared, "texts_mismatched_pages": mismatched,
                         "runs_ok": {k: len(v) for k, v in runs.items()},
                         "runs_expected": args.rounds}
    one, many = summary["results"].get("one"), summary["results"].get("many")
    if one and many:
        summary["ratios"] = {
            "wall_many_over_one": D.ratio(many["wall_s"], one["wall_s"]),
            "server_many_over_one": D.ratio(many["server_s"], one["server_s"]),
            "speedup_wall": D.ratio(one["wall_s"], many["wall_s"]),
            "speedup_server": D.ratio(one["server_s"], many["server_s"])}
    human(summary)
    failed = bool(summary["errors"]) or not (one and many)
    if failed or args.keep_logs:
        print(f"logs kept in {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
        summary["log_dir"] = None
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(summary, f, indent=2)
    if args.json:
        print(json.dumps(summary), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
