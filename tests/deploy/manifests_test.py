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

Redis (jobs across replicas): scale.yml has a redis service (appendonly, maxmemory under its
memory limit, noeviction, a named volume on /data, a PONG health check, no host port) that the
replicas' ONNXOCR_REDIS names and wait for; the Deployment reads ONNXOCR_REDIS from an optional
Secret; deploy/k8s/redis/ (its own kustomization) holds a one-replica StatefulSet with the same
Redis settings, a persistent volume and its password from that Secret, a Service on 6379 that
selects it and no onnxocr pod (nor the reverse), and docs/DEPLOYMENT.md shows the Secret's URL
with that Service's name. With kubectl on the PATH, `kubectl kustomize` builds both directories.

Exit 0 pass, 1 fail, 77 skipped (PyYAML or the server binary missing). Needs python3-yaml:
re-runs itself under Debian's /usr/bin/python3 when the first interpreter lacks it.
Environment: ONNXOCR_BINARY (default build/release/onnxocr).
"""
import glob
import os
import re
import shutil
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
K8S_REDIS = os.path.join(K8S, "redis")
PORT = 5005
REDIS_PORT = 6379
REDIS_ENV = "ONNXOCR_REDIS"
REDIS_URL = re.compile(r"^redis://(?::[^@/]*@)?([A-Za-z0-9.-]+):(\d+)/(\d+)$")
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


def load_kustomized(directory, label):
    """The documents of `directory`'s kustomization by kind; every manifest file is listed there
    and every document has apiVersion, kind and metadata.name. `label` prefixes messages."""
    kustomization = load_all(os.path.join(directory, "kustomization.yaml"))[0]
    listed = kustomization.get("resources", [])
    present = sorted(os.path.basename(f) for f in glob.glob(os.path.join(directory, "*.yaml"))
                     if os.path.basename(f) != "kustomization.yaml")
    check(sorted(listed) == present,
          f"{label}kustomization resources {sorted(listed)} != manifest files {present}")
    by_kind = {}
    for name in listed:
        for doc in load_all(os.path.join(directory, name)):
            check("apiVersion" in doc and "kind" in doc and "name" in doc.get("metadata", {}),
                  f"{label}{name}: document without apiVersion, kind or metadata.name")
            by_kind.setdefault(doc["kind"], []).append(doc)
    return by_kind


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
                              "--threads", "1", "--jobs", "memory"], stdout=subprocess.DEVNULL,
                             stderr=err,
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


def redis_memory_bytes(value):
    """Redis's own units: 1gb = 1024^3 bytes, 1g = 10^9 bytes."""
    m = re.fullmatch(r"(\d+)(b|k|kb|m|mb|g|gb)?", str(value).lower())
    if not m:
        raise ValueError(f"maxmemory {value!r}")
    scale = {None: 1, "b": 1, "k": 10**3, "kb": 2**10, "m": 10**6, "mb": 2**20, "g": 10**9,
             "gb": 2**30}
    return int(m.group(1)) * scale[m.group(2)]


def k8s_memory_bytes(value):
    m = re.fullmatch(r"(\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?", str(value))
    if not m:
        raise ValueError(f"memory {value!r}")
    scale = {None: 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6,
             "G": 10**9, "T": 10**12}
    return int(m.group(1)) * scale[m.group(2)]


def compose_memory_bytes(value):
    m = re.fullmatch(r"(\d+)([bkmg])?", str(value).lower())
    if not m:
        raise ValueError(f"memory {value!r}")
    return int(m.group(1)) * {None: 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30}[m.group(2)]


def redis_options(where, argv):
    """["redis-server", "--appendonly", "yes", ...] -> {"appendonly": "yes", ...}."""
    argv = [str(a) for a in argv]
    check(argv[:1] == ["redis-server"], f"{where}: command {argv[:1]} is not redis-server")
    options, key = {}, None
    for arg in argv[1:]:
        if arg.startswith("--"):
            key = arg[2:]
            options[key] = ""
        elif check(key is not None, f"{where}: argument {arg!r} without an option"):
            options[key] = (options[key] + " " + arg).strip()
    return options


def check_redis_options(where, options, memory_limit_bytes):
    """Persistence, and a memory bound that refuses writes instead of dropping jobs."""
    check(options.get("appendonly") == "yes", f"{where}: --appendonly yes expected")
    check(options.get("maxmemory-policy") == "noeviction",
          f"{where}: --maxmemory-policy noeviction expected (eviction loses jobs)")
    maxmemory = redis_memory_bytes(options.get("maxmemory", "0"))
    check(maxmemory > 0, f"{where}: no --maxmemory")
    check(maxmemory < memory_limit_bytes,
          f"{where}: maxmemory {options.get('maxmemory')} not below the memory limit")


def check_kustomize_build():
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        print("kubectl kustomize: skipped (no kubectl on the PATH)")
        return
    for path in (K8S, K8S_REDIS):
        r = subprocess.run([kubectl, "kustomize", path], capture_output=True, text=True,
                           timeout=60)
        check(r.returncode == 0, f"kubectl kustomize {path}: {r.stderr.strip()[-500:]}")
        if r.returncode == 0:
            print(f"kubectl kustomize {os.path.relpath(path, ROOT)}: "
                  f"{len([d for d in yaml.safe_load_all(r.stdout) if d])} objects")


def check_k8s_redis(dep, onnxocr_selectors):
    """deploy/k8s/redis/ against the base Deployment's Secret reference."""
    (c,) = dep["spec"]["template"]["spec"]["containers"]
    onnxocr_pod = dep["spec"]["template"]["metadata"]["labels"]
    refs = [e["valueFrom"]["secretKeyRef"] for e in c.get("env", [])
            if e["name"] == REDIS_ENV and "secretKeyRef" in e.get("valueFrom", {})]
    if not check(len(refs) == 1, f"Deployment does not read {REDIS_ENV} from a Secret"):
        return
    (ref,) = refs
    check(ref.get("optional") is True,
          f"{REDIS_ENV} Secret reference must be optional (the base runs without Redis)")
    secret = ref["name"]

    by_kind = load_kustomized(K8S_REDIS, "redis/")
    for kind in ("StatefulSet", "Service"):
        check(len(by_kind.get(kind, [])) == 1, f"redis/: expected one {kind}")
    sts, svc = by_kind["StatefulSet"][0], by_kind["Service"][0]

    spec = sts["spec"]
    pod = spec["template"]["metadata"]["labels"]
    pod_spec = spec["template"]["spec"]
    check(spec.get("replicas") == 1, "Redis StatefulSet: one replica (no failover is configured)")
    check(spec["selector"]["matchLabels"].items() <= pod.items(),
          "Redis StatefulSet selector does not match its pod labels")
    check(spec.get("serviceName") == svc["metadata"]["name"],
          "Redis StatefulSet serviceName is not its Service")
    (rc,) = pod_spec["containers"]
    check(str(rc.get("image", "")).startswith("redis:"), f"Redis image {rc.get('image')}")
    limits = rc.get("resources", {}).get("limits", {})
    check(rc.get("resources", {}).get("requests") == limits and "memory" in limits,
          "Redis: memory requests must equal limits")
    options = redis_options("redis/statefulset.yaml",
                            (rc.get("command") or []) + rc.get("args", []))
    check_redis_options("redis/statefulset.yaml", options,
                        k8s_memory_bytes(limits.get("memory", "0")))

    # The password: from the Secret the onnxocr pods read their URL from.
    env = {e["name"]: e for e in rc.get("env", [])}
    m = re.fullmatch(r"\$\((\w+)\)", options.get("requirepass", ""))
    if check(m, "Redis: --requirepass $(VAR) from the Secret expected"):
        src = env.get(m.group(1), {}).get("valueFrom", {}).get("secretKeyRef", {})
        check(src.get("name") == secret and src.get("key") and src.get("optional") is not True,
              f"Redis password must come from Secret {secret} (not optional)")

    # Data on a persistent volume.
    claims = {t["metadata"]["name"] for t in spec.get("volumeClaimTemplates", [])}
    mounts = {m["mountPath"]: m["name"] for m in rc.get("volumeMounts", [])}
    check(mounts.get("/data") in claims, "Redis /data must be a volumeClaimTemplate")

    # Security.
    psc, csc = pod_spec.get("securityContext", {}), rc.get("securityContext", {})
    check(psc.get("runAsNonRoot") is True or csc.get("runAsNonRoot") is True,
          "Redis: runAsNonRoot")
    check(csc.get("readOnlyRootFilesystem") is True, "Redis: readOnlyRootFilesystem")
    check(csc.get("allowPrivilegeEscalation") is False, "Redis: allowPrivilegeEscalation")
    check(csc.get("capabilities", {}).get("drop") == ["ALL"], "Redis: capabilities drop ALL")
    check(rc.get("readinessProbe"), "Redis: no readinessProbe")

    # Service: 6379 to the Redis pod, and no label overlap with onnxocr in either direction.
    ports = {p.get("name"): p["containerPort"] for p in rc["ports"]}
    check(list(ports.values()) == [REDIS_PORT], f"Redis containerPort {ports} != {REDIS_PORT}")
    (sp,) = svc["spec"]["ports"]
    check(sp["port"] == REDIS_PORT, f"Redis Service port {sp['port']} != {REDIS_PORT}")
    check(sp["targetPort"] in ports or sp["targetPort"] == REDIS_PORT,
          "Redis Service targetPort is not the container port")
    check(svc["spec"]["selector"].items() <= pod.items(), "Redis Service selects no Redis pod")
    check(not svc["spec"]["selector"].items() <= onnxocr_pod.items(),
          "Redis Service selects onnxocr pods")
    for what, sel in onnxocr_selectors.items():
        check(not sel.items() <= pod.items(), f"onnxocr {what} selector also selects Redis pods")
    for np in by_kind.get("NetworkPolicy", []):
        check(np["spec"]["podSelector"]["matchLabels"].items() <= pod.items(),
              "Redis NetworkPolicy does not select the Redis pod")
        sources = [f.get("podSelector", {}).get("matchLabels", {})
                   for rule in np["spec"].get("ingress", []) for f in rule.get("from", [])]
        check(any(src.items() <= onnxocr_pod.items() for src in sources),
              "Redis NetworkPolicy does not admit the onnxocr pods")

    # The documented Secret points at this Service.
    with open(os.path.join(ROOT, "docs", "DEPLOYMENT.md"), encoding="utf-8") as f:
        guide = f.read()
    check(f"kubectl create secret generic {secret}" in guide,
          f"docs/DEPLOYMENT.md does not show how to create Secret {secret}")
    check(f"@{svc['metadata']['name']}:{REDIS_PORT}/0" in guide,
          f"docs/DEPLOYMENT.md's URL does not name the Service {svc['metadata']['name']}")


def check_k8s(env_vars):
    by_kind = load_kustomized(K8S, "")
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
    check(REDIS_ENV in env_vars, f"`serve --help` lists no {REDIS_ENV}")
    check_k8s_redis(dep, {"Service": svc["spec"]["selector"],
                          "PodDisruptionBudget": pdb["spec"]["selector"]["matchLabels"]})

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
    check_compose_redis(scale)
    vols = scale["services"]["nginx"]["volumes"]
    check(any(v.startswith("../nginx/onnxocr.conf:") for v in vols),
          "scale.yml nginx does not mount deploy/nginx/onnxocr.conf")
    with open(os.path.join(ROOT, "deploy/nginx/onnxocr.conf")) as f:
        conf = f.read()
    check(re.search(rf"server\s+onnxocr:{PORT}\s", conf), "nginx upstream is not onnxocr:5005")
    check(re.search(r"^\s*listen\s+8080;", conf, re.M) and
          any(str(p).endswith(":8080") for p in scale["services"]["nginx"]["ports"]),
          "nginx listen port and published port differ")


def check_compose_redis(scale):
    """scale.yml: the replicas share jobs through its redis service."""
    services = scale["services"]
    ocr = services["onnxocr"]
    m = REDIS_URL.match(str(ocr.get("environment", {}).get(REDIS_ENV, "")))
    if not check(m, f"scale.yml: onnxocr {REDIS_ENV} is not redis://[:password@]host:port/db"):
        return
    host, port = m.group(1), int(m.group(2))
    check(port == REDIS_PORT, f"scale.yml: {REDIS_ENV} port {port} != {REDIS_PORT}")
    redis = services.get(host)
    if not check(redis is not None, f"scale.yml: {REDIS_ENV} names {host}, not a service"):
        return
    check(str(redis.get("image", "")).startswith("redis:"), f"scale.yml: {host} image")
    depends = ocr.get("depends_on", {})
    check(isinstance(depends, dict) and
          depends.get(host, {}).get("condition") == "service_healthy",
          f"scale.yml: onnxocr must depend on {host} being healthy")
    limits = redis.get("deploy", {}).get("resources", {}).get("limits", {})
    check("memory" in limits, f"scale.yml: {host} has no memory limit")
    check_redis_options(f"scale.yml {host}", redis_options(f"scale.yml {host}",
                                                           redis.get("command", [])),
                        compose_memory_bytes(limits.get("memory", "0")))
    test = " ".join(str(t) for t in redis.get("healthcheck", {}).get("test", []))
    check("redis-cli ping" in test and "PONG" in test,
          f"scale.yml: {host} health check {test!r} must look for PONG")
    check(not redis.get("ports"), f"scale.yml: {host} must not publish a host port")
    named = scale.get("volumes") or {}
    data = [str(v).split(":")[0] for v in redis.get("volumes", [])
            if str(v).split(":")[1:2] == ["/data"]]
    check(data and data[0] in named, f"scale.yml: {host} /data must be a named volume")
    check(redis.get("restart"), f"scale.yml: {host} has no restart policy")


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
        check_kustomize_build()
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
          f"deploy/k8s/redis ({len(glob.glob(os.path.join(K8S_REDIS, '*.yaml')))} files), "
          f"docker-compose.yml, deploy/compose/scale.yml agree with the server")
    return 0


if __name__ == "__main__":
    sys.exit(main())
