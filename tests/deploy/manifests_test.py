#!/usr/bin/env python3
"""Validates the deployment files against the server they deploy.

deploy/k8s/*.yaml (through kustomization.yaml), docker-compose.yml and deploy/compose/scale.yml:
every YAML document parses; kustomization lists exactly the manifest files; probe paths are
/healthz (startup, liveness) and /readyz (readiness), and a real `onnxocr serve` answers both
with 200; ports agree (containerPort = ONNXOCR_PORT = Service targetPort = 5005); every ONNXOCR_*
key is an environment variable of `onnxocr serve --help`; the grace period exceeds preStop plus
the server's 30 s drain; the security context is non-root, read-only, without privilege
escalation or capabilities, with an emptyDir on /tmp; requests equal limits with whole CPUs and
ONNXOCR_THREADS equal to them; selectors of Service, PDB and HPA reach the Deployment.

Exit 0 pass, 1 fail, 77 skipped (PyYAML or the server binary missing). Needs python3-yaml:
re-runs itself under Debian's /usr/bin/python3 when the first interpreter lacks it.
Environment: ONNXOCR_BINARY (default build/release/onnxocr).
"""
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

try:
    import yaml
except ImportError:
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            os.access("/usr/bin/python3", os.X_OK):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("SKIP: PyYAML is missing (apt-get install python3-yaml)")
    sys.exit(77)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
K8S = os.path.join(ROOT, "deploy", "k8s")
PORT = 5005
DRAIN_TIMEOUT_S = 30  # http::ServerConfig::drain_timeout
HEALTH_PATHS = {"/healthz", "/readyz"}

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def load_all(path):
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    check(docs, f"{path}: no YAML document")
    return docs


def serve_env_vars(binary):
    out = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True,
                         timeout=20, check=True).stdout
    names = set(re.findall(r"\(Env:(ONNXOCR_[A-Z_]+)\)", out))
    check(len(names) >= 10, f"parsed only {sorted(names)} from `serve --help`")
    return names


def live_paths(binary, paths):
    """Starts the real server on a loopback port and returns {path: HTTP status}."""
    log_file = tempfile.NamedTemporaryFile(prefix="onnxocr-manifests-", suffix=".log")
    log_path = log_file.name
    with open(log_path, "w") as err:
        p = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0",
                              "--threads", "1"], stdout=subprocess.DEVNULL, stderr=err,
                             start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        port = None
        while port is None and time.monotonic() < deadline and p.poll() is None:
            with open(log_path) as f:
                m = re.search(r"listening on 127\.0\.0\.1:(\d+)", f.read())
            port = int(m.group(1)) if m else time.sleep(0.1)
        if not check(port is not None, f"server did not start: {open(log_path).read()[-500:]}"):
            return {}
        statuses = {}
        for path in sorted(paths):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
                    statuses[path] = r.status
            except urllib.error.HTTPError as e:
                statuses[path] = e.code
        return statuses
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=35)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        log_file.close()


def cpu_count(quantity):
    q = str(quantity)
    return int(q[:-1]) / 1000 if q.endswith("m") else float(q)


def check_k8s(env_vars):
    kustomization = load_all(os.path.join(K8S, "kustomization.yaml"))[0]
    listed = kustomization.get("resources", [])
    present = sorted(os.path.basename(f) for f in glob.glob(os.path.join(K8S, "*.yaml"))
                     if os.path.basename(f) != "kustomization.yaml")
    check(sorted(listed) == present,
          f"kustomization resources {sorted(listed)} != manifest files {present}")
    by_kind = {}
    for name in listed:
        for doc in load_all(os.path.join(K8S, name)):
            check("apiVersion" in doc and "kind" in doc and "name" in doc.get("metadata", {}),
                  f"{name}: document without apiVersion, kind or metadata.name")
            by_kind.setdefault(doc["kind"], []).append(doc)
    for kind in ("Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget",
                 "ConfigMap"):
        check(len(by_kind.get(kind, [])) == 1, f"expected one {kind}")
    dep, svc = by_kind["Deployment"][0], by_kind["Service"][0]
    hpa, pdb = by_kind["HorizontalPodAutoscaler"][0], by_kind["PodDisruptionBudget"][0]
    cm = by_kind["ConfigMap"][0]

    # ConfigMap: only real flags.
    data = cm.get("data", {})
    for key in data:
        check(key in env_vars, f"ConfigMap key {key} is not an `onnxocr serve` env variable")
    check(data.get("ONNXOCR_PORT") == str(PORT), f"ConfigMap ONNXOCR_PORT != {PORT}")
    check(data.get("ONNXOCR_HOST") in ("0.0.0.0", "::"), "ONNXOCR_HOST must be a wildcard")

    spec = dep["spec"]["template"]["spec"]
    pod_labels = dep["spec"]["template"]["metadata"]["labels"]
    check(dep["spec"]["selector"]["matchLabels"].items() <= pod_labels.items(),
          "Deployment selector does not match its pod labels")
    (c,) = spec["containers"]
    env_from = [e["configMapRef"]["name"] for e in c.get("envFrom", []) if "configMapRef" in e]
    check(cm["metadata"]["name"] in env_from, "container does not read the ConfigMap")
    for e in c.get("env", []):
        if e["name"].startswith("ONNXOCR_"):
            check(e["name"] in env_vars, f"container env {e['name']} is not a serve flag")

    # Ports.
    ports = {p.get("name"): p["containerPort"] for p in c["ports"]}
    check(list(ports.values()) == [PORT], f"containerPort {ports} != {PORT}")
    (sp,) = svc["spec"]["ports"]
    check(sp["port"] == PORT, f"Service port {sp['port']} != {PORT}")
    check(sp["targetPort"] in ports or sp["targetPort"] == PORT,
          f"Service targetPort {sp['targetPort']} is not the container port")
    check(svc["spec"]["selector"].items() <= pod_labels.items(), "Service selects no pod")
    check(pdb["spec"]["selector"]["matchLabels"].items() <= pod_labels.items(),
          "PodDisruptionBudget selects no pod")
    ref = hpa["spec"]["scaleTargetRef"]
    check(ref["kind"] == "Deployment" and ref["name"] == dep["metadata"]["name"],
          "HPA does not target the Deployment")
    check(any(m.get("resource", {}).get("name") == "cpu" for m in hpa["spec"]["metrics"]),
          "HPA does not scale on CPU")
    check(hpa["spec"]["minReplicas"] >= 2, "HPA minReplicas < 2 leaves no replica in a drain")

    # Probes.
    probe_paths = {}
    for kind, want in (("startupProbe", "/healthz"), ("livenessProbe", "/healthz"),
                       ("readinessProbe", "/readyz")):
        probe = c.get(kind)
        if not check(probe is not None, f"{kind} missing"):
            continue
        get = probe["httpGet"]
        probe_paths[kind] = get["path"]
        check(get["path"] == want, f"{kind} path {get['path']} != {want}")
        check(get["port"] in ports or get["port"] == PORT, f"{kind} port {get['port']} unknown")
    startup = c.get("startupProbe", {})
    check(startup.get("periodSeconds", 10) * startup.get("failureThreshold", 3) >= 30,
          "startupProbe allows less than 30 s for the models to load")

    # Shutdown: preStop, then the drain, inside the grace period.
    pre_stop = c.get("lifecycle", {}).get("preStop", {})
    cmd = pre_stop.get("exec", {}).get("command", [])
    pre_stop_s = int(cmd[-1]) if cmd and cmd[0].endswith("sleep") else \
        int(pre_stop.get("sleep", {}).get("seconds", 0))
    check(pre_stop_s > 0, "no preStop delay")
    grace = spec.get("terminationGracePeriodSeconds", 30)
    check(grace > DRAIN_TIMEOUT_S, f"terminationGracePeriodSeconds {grace} <= drain timeout")
    check(grace > DRAIN_TIMEOUT_S + pre_stop_s,
          f"terminationGracePeriodSeconds {grace} <= preStop {pre_stop_s} s + drain 30 s")

    # Security.
    psc, csc = spec.get("securityContext", {}), c.get("securityContext", {})
    check(psc.get("runAsNonRoot") is True or csc.get("runAsNonRoot") is True, "runAsNonRoot")
    check(csc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem")
    check(csc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation must be false")
    check(csc.get("capabilities", {}).get("drop") == ["ALL"], "capabilities must drop ALL")
    mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    check("/tmp" in mounts and "emptyDir" in volumes.get(mounts.get("/tmp"), {}),
          "/tmp must be an emptyDir")
    check(spec.get("topologySpreadConstraints"), "no topologySpreadConstraints")

    # Resources: Guaranteed QoS with whole CPUs, one worker per CPU.
    res = c.get("resources", {})
    req, lim = res.get("requests", {}), res.get("limits", {})
    check(req and req == lim, f"requests {req} != limits {lim} (not Guaranteed QoS)")
    cpus = cpu_count(lim.get("cpu", "0"))
    check(cpus >= 1 and cpus.is_integer(), f"cpu limit {lim.get('cpu')} is not whole cores")
    check(data.get("ONNXOCR_THREADS") == str(int(cpus)),
          f"ONNXOCR_THREADS {data.get('ONNXOCR_THREADS')} != cpu limit {lim.get('cpu')}")
    return set(probe_paths.values())


def check_compose(env_vars):
    for rel in ("docker-compose.yml", "deploy/compose/scale.yml"):
        (doc,) = load_all(os.path.join(ROOT, rel))
        svc = doc["services"]["onnxocr"]
        env = svc.get("environment", {})
        for key in env:
            check(key in env_vars, f"{rel}: {key} is not an `onnxocr serve` env variable")
        test = svc.get("healthcheck", {}).get("test", [])
        check(test[:2] == ["CMD", "/usr/local/bin/onnxocr-healthcheck"],
              f"{rel}: healthcheck {test} is not the image's checker (exec form)")
        check(svc.get("read_only") is True and any(t.startswith("/tmp") for t in svc["tmpfs"]),
              f"{rel}: read_only with a tmpfs /tmp expected")
        check(svc.get("restart"), f"{rel}: no restart policy")
        limits = svc.get("deploy", {}).get("resources", {}).get("limits", {})
        check("cpus" in limits and "memory" in limits, f"{rel}: CPU and memory limits expected")
        check(str(env.get("ONNXOCR_THREADS")) == str(int(float(limits.get("cpus", 0)))),
              f"{rel}: ONNXOCR_THREADS != cpus limit")
        grace = svc.get("stop_grace_period", "10s")
        check(int(grace.rstrip("s")) > DRAIN_TIMEOUT_S, f"{rel}: stop_grace_period {grace}")
        published = [str(p) for p in svc.get("ports", [])] + [str(p) for p in svc.get("expose", [])]
        check(any(p.endswith(str(PORT)) for p in published), f"{rel}: port {PORT} not exposed")
    scale = load_all(os.path.join(ROOT, "deploy/compose/scale.yml"))[0]
    vols = scale["services"]["nginx"]["volumes"]
    check(any(v.startswith("../nginx/onnxocr.conf:") for v in vols),
          "scale.yml nginx does not mount deploy/nginx/onnxocr.conf")
    with open(os.path.join(ROOT, "deploy/nginx/onnxocr.conf")) as f:
        conf = f.read()
    check(re.search(rf"server\s+onnxocr:{PORT}\s", conf), "nginx upstream is not onnxocr:5005")
    check(re.search(r"^\s*listen\s+8080;", conf, re.M) and
          any(str(p).endswith(":8080") for p in scale["services"]["nginx"]["ports"]),
          "nginx listen port and published port differ")


def main():
    binary = os.environ.get("ONNXOCR_BINARY", os.path.join(ROOT, "build", "release", "onnxocr"))
    if not os.access(binary, os.X_OK):
        print(f"SKIP: server binary {binary} is missing (build it, or set ONNXOCR_BINARY)")
        return 77
    env_vars = serve_env_vars(binary)
    paths = set()
    try:
        paths = check_k8s(env_vars)
        check_compose(env_vars)
    except (KeyError, TypeError, ValueError) as e:
        failures.append(f"unexpected structure: {type(e).__name__}: {e}")
    check(paths <= HEALTH_PATHS, f"probe paths {paths} are not health routes")
    for path, status in live_paths(binary, HEALTH_PATHS).items():
        check(status == 200, f"GET {path} on a real server -> {status}, expected 200")
        print(f"GET {path} on a real server -> {status}")
    for f in failures:
        print(f"FAIL: {f}")
    if failures:
        return 1
    print(f"PASS: deploy/k8s ({len(glob.glob(os.path.join(K8S, '*.yaml')))} files), "
          f"docker-compose.yml, deploy/compose/scale.yml agree with the server")
    return 0


if __name__ == "__main__":
    sys.exit(main())
