#!/usr/bin/env python3
"""How often POST /render writes what the server itself writes. Each input is read once as a job
(JSON); its result is then fetched in text, Markdown, HTML and CSV (the server's writers over the
pages it kept) and the JSON result is sent to POST /render in the same formats (the answer read
back, each block's rows found again from its lines' boxes). Prints, per format, how many files
agree byte for byte, and the first differing line of each that does not. PDFs are read twice,
paginated and not. Run from the checkout (the binary finds models/ there):

  bench/render_agreement.py build/release/onnxocr [--testdata ../shared/testdata]

Inputs: every image of testdata/real and testdata/synthetic/images and every ICDAR 2013 PDF; about
3 minutes on 2 cores.
"""
import argparse, glob, json, os, socket, subprocess, sys, time, urllib.error, urllib.request, uuid

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("binary")
ap.add_argument("--testdata", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "..", "shared", "testdata"))
args = ap.parse_args()
T = args.testdata
if not os.path.isdir(T):
    sys.exit(f"{T} not found: pass --testdata (../shared/testdata beside the checkout)")
INPUTS = (sorted(glob.glob(f"{T}/real/*.jpg") + glob.glob(f"{T}/real/*.png"))
          + sorted(glob.glob(f"{T}/synthetic/images/*")) + sorted(glob.glob(f"{T}/icdar2013-dev/*.pdf")))
FORMATS = ["text", "markdown", "html", "csv"]

s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
server = subprocess.Popen([os.path.abspath(args.binary), "serve", "--host", "127.0.0.1", "--port", str(port),
                           "--data-dir", f"/tmp/render-agreement-{uuid.uuid4().hex}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
url = f"http://127.0.0.1:{port}"
for _ in range(150):
    try:
        urllib.request.urlopen(url + "/readyz"); break
    except Exception:
        time.sleep(0.2)


def request(path, data=None, ctype=None):
    req = urllib.request.Request(url + path, data=data, headers={"Content-Type": ctype} if ctype else {})
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        return {"error": e.read().decode()}


def job(path, paginate):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"paginate_output\"\r\n\r\n"
            f"{'true' if paginate else 'false'}\r\n--{boundary}\r\nContent-Disposition: form-data; "
            f"name=\"file\"; filename=\"f\"\r\n\r\n").encode() + open(path, "rb").read() + f"\r\n--{boundary}--\r\n".encode()
    created = request("/jobs", body, f"multipart/form-data; boundary={boundary}")
    while request(created["status_url"])["status"] not in ("succeeded", "failed", "cancelled"):
        time.sleep(0.1)
    return created["result_url"]


agree = {f: 0 for f in FORMATS}
total = 0
try:
    for path in INPUTS:
        for paginate in ([False, True] if path.endswith(".pdf") else [False]):
            result = job(path, paginate)
            answer = request(result)
            total += 1
            for fmt in FORMATS:
                server_out = request(f"{result}?output_format={fmt}").get("output")
                rendered = request("/render", json.dumps({"answer": answer, "output_format": fmt,
                                                          "paginate_output": paginate}).encode(),
                                   "application/json").get("output")
                if server_out == rendered and server_out is not None:
                    agree[fmt] += 1
                    continue
                a, b = (server_out or "").splitlines(), (rendered or "").splitlines()
                first = next((i for i in range(max(len(a), len(b)))
                              if i >= len(a) or i >= len(b) or a[i] != b[i]), 0)
                print(f"{os.path.basename(path)} paginate={paginate} {fmt}: line {first + 1}\n"
                      f"  server: {a[first] if first < len(a) else '<end>'!r}\n"
                      f"  render: {b[first] if first < len(b) else '<end>'!r}")
finally:
    server.terminate()
    server.wait()
print(f"{total} answers ({len(INPUTS)} files):",
      ", ".join(f"{fmt} {agree[fmt]}/{total}" for fmt in FORMATS))
