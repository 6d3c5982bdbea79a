#!/usr/bin/env python3
"""Faults (issue 7), against the real `onnxocr serve` on 127.0.0.1:

1. Start-up with a broken model set (a copy of models/ppocrv4 with one file broken, passed as
   --models ppocrv4=DIR): a missing det/det.onnx, a corrupt rec/rec.onnx (random bytes), two
   wrong-shaped recognizers (the direction classifier, input [N,3,H,W] with a dynamic H and
   output [N,2]; a graph with output [N,C], no time axis) and a recognizer declaring 97 classes
   for a 6,623-line dictionary. Each must exit with code 3 before listening, with a message
   naming the broken file.
2. An inference error: a second model set whose rec/rec.onnx loads like a real recognizer but
   fails in ONNX Runtime at every run (tests/load/onnx_builder.py). A request for it gets 500
   `internal` (no details leaked), the log has the request id with the runtime's error, and the
   next request (default set) gets 200 with the right text; three rounds.
3. SIGTERM with requests in flight: one worker, four concurrent requests; SIGTERM once the
   server holds them all (one running, three queued, from /metrics). All four get 200 with the
   right text, new connections are refused, exit code 0.
4. kill -9, then a restart on the same port: it serves again. Prints the start-up time to ready
   (spawn to the first 200 from /readyz) for the first start and for the restart.

Exit 0 pass, 1 fail, 77 skipped (binary, models or pango-view missing). Bounded: 240 s.
Environment: ONNXOCR_BINARY (default build/release/onnxocr), OCR_MODELS_DIR.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "load"))
sys.path.insert(0, HERE)
import ocr_load as L  # noqa: E402
import onnx_builder  # noqa: E402

DEADLINE_S = 240
TEXT = "Fault test\nOrder 4711"
RESULTS = {}


def copy_set(src, dst, replace=None, remove=None):
    """A model set at dst: symlinks to src's files except `replace` {relpath: bytes} (written)
    and `remove` (left out)."""
    for dirpath, _, files in os.walk(src):
        rel_dir = os.path.relpath(dirpath, src)
        os.makedirs(os.path.join(dst, rel_dir), exist_ok=True)
        for f in files:
            rel = os.path.normpath(os.path.join(rel_dir, f))
            if rel == remove:
                continue
            target = os.path.join(dst, rel)
            if replace and rel in replace:
                with open(target, "wb") as out:
                    out.write(replace[rel])
            else:
                os.symlink(os.path.join(os.path.abspath(src), rel), target)
    return dst


def startup_failures(binary, models, tmp):
    with open(os.path.join(models, "cls", "cls.onnx"), "rb") as f:
        cls_bytes = f.read()
    cases = [
        ("missing det/det.onnx", {"remove": "det/det.onnx"}, "det/det.onnx"),
        ("corrupt rec/rec.onnx (random bytes)",
         {"replace": {"rec/rec.onnx": os.urandom(64 * 1024)}}, "rec/rec.onnx"),
        ("wrong-shaped rec/rec.onnx (the classifier, output [N,2])",
         {"replace": {"rec/rec.onnx": cls_bytes}}, "rec/rec.onnx"),
        ("wrong-shaped rec/rec.onnx (output [N,C], no time axis)",
         {"replace": {"rec/rec.onnx": onnx_builder.failing_recognizer(
             class_count(models), output_dims=["n", class_count(models)])}}, "rec/rec.onnx"),
        ("rec/rec.onnx with 97 classes for the dictionary",
         {"replace": {"rec/rec.onnx": onnx_builder.failing_recognizer(97)}}, "rec/rec.onnx"),
    ]
    out = []
    for i, (name, change, broken) in enumerate(cases):
        d = copy_set(models, os.path.join(tmp, f"broken{i}"), **change)
        start = time.monotonic()
        p = subprocess.run([binary, "serve", "--host", "127.0.0.1", "--port", "0",
                            "--jobs", "memory", "--models", f"ppocrv4={d}"],
                           capture_output=True, text=True,
                           timeout=60)
        seconds = time.monotonic() - start
        message = (p.stderr.strip().splitlines() or [""])[-1]
        L.log(f"{name}: exit {p.returncode} in {seconds:.2f} s: {message}")
        assert p.returncode == 3, f"{name}: exit code {p.returncode}, expected 3:\n{p.stderr}"
        assert os.path.join(d, broken) in p.stderr, \
            f"{name}: the message does not name {os.path.join(d, broken)}:\n{p.stderr}"
        assert "listening on" not in p.stderr, f"{name}: it listened before failing"
        out.append({"case": name, "exit": p.returncode, "message": message})
    RESULTS["startup_failures"] = out


def inference_error(binary, models, tmp, png):
    failing = onnx_builder.failing_recognizer(class_count(models))
    broken = copy_set(models, os.path.join(tmp, "runtime-failure"),
                      replace={"rec/rec.onnx": failing})
    server = L.Server(binary, ["--threads", "1"], models=[f"good={models}", f"broken={broken}"],
                      log_dir=tmp, name="inference-error")
    with server:
        c = L.Client(server.url)
        good = L.Case("good", "/ocr", L.json_body(png))
        L.take_references(server.url, [good])
        for round_ in range(3):
            a = c.post("/ocr", L.json_body(png, model="broken"))
            rid = a.headers.get("x-request-id")
            L.log(f"round {round_}: model 'broken' -> {a.status} {a.error_code()} "
                  f"(X-Request-Id {rid})")
            assert a.status == 500 and a.error_code() == "internal", a
            assert "onnx" not in a.body.decode().lower() and "rec.onnx" not in a.body.decode(), \
                f"the 500 leaks internals: {a.body!r}"
            b = good.send(c)
            L.log(f"round {round_}: next request -> {b.status} {b.texts()}")
            assert good.check(b) is None, good.check(b)
        time.sleep(0.2)
        log = server.log_text()
        assert f"request_id={rid}" in log and "inference failed" in log, \
            f"the log lacks the failed request {rid}:\n{log[-2000:]}"
        code = server.stop()
        assert code == 0, f"exit code {code}"
    RESULTS["inference_error"] = "500 internal, then 200 (3 rounds)"


def class_count(models):
    """Dictionary lines + 2, counted the way the server reads the dictionary."""
    txt = sorted(f for f in os.listdir(models) if f.endswith(".txt"))[0]
    with open(os.path.join(models, txt), "rb") as f:
        return len(f.read().splitlines()) + 2


def sigterm_in_flight(binary, tmp, png):
    server = L.Server(binary, ["--threads", "1"], log_dir=tmp, name="sigterm")
    with server:
        case = L.Case("in flight", "/ocr", L.json_body(png))
        L.take_references(server.url, [case])
        answers = []
        lock = threading.Lock()

        def send():
            a = case.send(L.Client(server.url))
            with lock:
                answers.append(a)

        threads = [threading.Thread(target=send) for _ in range(4)]
        for t in threads:
            t.start()
        # SIGTERM once the server holds all four: one on the worker, three queued.
        deadline = time.monotonic() + 20
        held = (0, 0)
        while time.monotonic() < deadline:
            m = L.metrics(server.url)
            held = (L.metric_sum(m, "onnxocr_in_flight_requests"),
                    L.metric_sum(m, "onnxocr_queue_depth"))
            if held[0] >= 1 and sum(held) >= len(threads):
                break
            time.sleep(0.005)
        server.signal(signal.SIGTERM)
        sent_at = time.monotonic()
        L.log(f"SIGTERM sent with {held[0]:.0f} request(s) running and {held[1]:.0f} queued")
        time.sleep(0.3)
        refused = False
        try:
            with socket.create_connection(("127.0.0.1", server.port), timeout=2) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                refused = s.recv(100) == b""
        except OSError:
            refused = True
        for t in threads:
            t.join(60)
        code = server.wait(40)
        drain_s = time.monotonic() - sent_at
        statuses = [a.status for a in answers]
        L.log(f"answers {statuses}, new connection refused: {refused}, exit code {code} "
              f"{drain_s:.2f} s after SIGTERM")
        assert len(answers) == 4 and all(case.check(a) is None for a in answers), \
            [case.check(a) for a in answers]
        assert refused, "a new connection was served while draining"
        assert code == 0, f"exit code {code} after SIGTERM"
        assert "draining" in server.log_text()
    RESULTS["sigterm"] = {"answers": statuses, "exit": code, "drain_s": round(drain_s, 2)}


def kill_and_restart(binary, tmp, png):
    server = L.Server(binary, ["--threads", "1"], log_dir=tmp, name="kill9")
    server.start(wait_ready=False)
    first_ready_s = server.wait_ready(60)
    case = L.Case("restart", "/ocr", L.json_body(png))
    L.take_references(server.url, [case])
    port = server.port
    idle = socket.create_connection(("127.0.0.1", port))  # a connection open at the kill
    os.kill(server.pid, signal.SIGKILL)
    code = server.wait(10)
    idle.close()
    L.log(f"kill -9: exit status {code}; restarting on the same port {port}")
    server.restart(port=port, wait_ready=False)
    restart_ready_s = server.wait_ready(60)
    a = case.send(L.Client(server.url))
    L.log(f"start-up to ready: first {first_ready_s:.2f} s, after kill -9 {restart_ready_s:.2f} s;"
          f" OCR after restart -> {a.status} {a.texts()}")
    assert case.check(a) is None, case.check(a)
    assert server.port == port
    assert server.stop() == 0
    RESULTS["startup_to_ready_s"] = {"first": round(first_ready_s, 2),
                                     "after_kill_9": round(restart_ready_s, 2)}


def main():
    binary = L.default_binary()
    models = L.default_models()
    L.require(binary)
    timer = threading.Timer(DEADLINE_S, lambda: (print("FAIL: over the time limit", flush=True),
                                                 L._kill_all(), os._exit(1)))
    timer.daemon = True
    timer.start()
    tmp = tempfile.mkdtemp(prefix="onnxocr-faults-")
    try:
        png = L.render_png(tmp, TEXT, 28)
        for step in (lambda: startup_failures(binary, models, tmp),
                     lambda: inference_error(binary, models, tmp, png),
                     lambda: sigterm_in_flight(binary, tmp, png),
                     lambda: kill_and_restart(binary, tmp, png)):
            step()
        L.print_summary(RESULTS)
        print("PASS: faults")
        return 0
    except (AssertionError, OSError, subprocess.SubprocessError) as e:
        L.print_summary(RESULTS)
        print(f"FAIL: {e}")
        return 1
    finally:
        timer.cancel()
        L._kill_all()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
