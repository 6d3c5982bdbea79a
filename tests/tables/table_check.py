#!/usr/bin/env python3
"""Table recognition accuracy of `onnxocr run --format html`, scored with TEDS (teds.py) and the
ICDAR 2013 competition's adjacency relations (adjacency.py).

The set (written by make_table_set.mjs) has pages rendered twice: an image, read by OCR, and a
born-digital PDF, read from its text layer. Each is scored on its own, since the two paths
find cells from different evidence. The same script scores the broad set (make_table_set.mjs
--broad, usually with --no-synthetic, against the same thresholds.json):

* per group (pages tagged `ruled`, `unruled`, and all pages of the set, `no_table` ones
  included): mean structure-only TEDS and mean full TEDS over ground-truth tables (a missed
  table scores 0), adjacency F1 over all their relations (a missed table loses its own), and
  table-detection precision (matched / predicted tables, so a table on a
  `no_table` page counts against "all") and recall (matched / ground-truth tables);
* pages with no table (the set's `no_table` pages, and for images also every synthetic page of
  ../shared/testdata that holds no table): the share where no table was predicted. Synthetic
  pages hold tables where their layout is `table` (ruled grids) or `receipt` (an item list under
  the column headings 品名 数量 金额, or Item/Qty/Amount: a table by any definition, and one the
  writers should keep as a table). They have no table ground truth: how many got a table is
  printed, not scored. The precision with the receipts counted as pages without a table is
  printed too. --no-synthetic leaves these pages out (the broad set scores only its own);
* per tag (style, layout, language, degradation): the same TEDS, recall and precision over the
  tables that carry the tag, to show which kind of table fails.

A page's tags apply to all its tables, unless the manifest gives each table its own
(`table_tags`, the broad set's pages with two tables of different styles): TEDS and recall of a
group or tag then count the tables that carry it, precision the pages where any table does.

Predicted tables are matched to a page's ground-truth tables one to one, greedily by best full
TEDS; any pair counts as a detection (pages hold at most two tables, and the text has no boxes
to match). Thresholds (thresholds.json) apply to the image and the pdf results separately; a
metric with no pages (or precision with no predicted table) is reported `n/a` and not failed:
the TEDS floors already fail a run that predicts nothing.

Exit 0 when every threshold holds, 1 listing the ones that fail (or when onnxocr fails), 77
(ctest: skipped) when the set or the binary is missing.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from adjacency import Score, cells_from_node, score  # noqa: E402
from teds import Node, parse_table, parse_tables, teds_trees  # noqa: E402

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ("image", "pdf")
GROUPS = ("ruled", "unruled", "all")
# The per-tag breakdown, in this order; tags no table carries are left out.
BREAKDOWN_TAGS = ("ruled", "unruled", "zebra", "hrules", "booktabs", "borderless", "headfill",
                  "dark_header", "wrap", "spans", "mixed_cells", "decimal", "no_header",
                  "two_tables", "beside_prose", "degraded", "rotated", "blur", "noise", "en",
                  "zh", "mixed", "all")


@dataclass
class Job:
    """One onnxocr invocation: a page of the set in one source, or a synthetic page."""
    kind: str  # "image", "pdf" or "synthetic"
    name: str
    path: str
    html: str = ""
    error: str = ""
    seconds: float = 0.0
    layout: str = ""  # synthetic pages: their manifest's layout


@dataclass
class PageScore:
    name: str
    source: str
    tags: list[str]
    gt_tables: int
    pred_tables: int
    matched: int
    structure: list[float] = field(default_factory=list)  # one per GT table, 0 when missed
    full: list[float] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""
    hit: list[bool] = field(default_factory=list)  # one per GT table: matched to a prediction
    table_tags: list[list[str]] = field(default_factory=list)  # one per GT table
    # One per GT table: the ICDAR 2013 adjacency relations (adjacency.py), none predicted when
    # missed.
    adjacency: list[Score] = field(default_factory=list)


def run_onnxocr(binary: str, batch: list[Job], threads: int) -> None:
    """Reads a batch of files in one process, so that the models load once per batch rather than
    once per file (0.6 s each): with several files `run` prints each one's HTML after a line
    "==> PATH <==", and a file that fails prints nothing there (its error goes to stderr)."""
    if not batch:
        return
    start = time.monotonic()
    try:
        out = subprocess.run([binary, "run", "--format", "html", "--threads", str(threads),
                              *[job.path for job in batch]], check=False, capture_output=True,
                             text=True)
    except OSError as e:  # e.g. the binary is being relinked under us
        for job in batch:
            job.error = f"cannot run {binary}: {e}"
        return
    seconds = (time.monotonic() - start) / len(batch)
    if len(batch) == 1:
        parts = {batch[0].path: out.stdout} if out.returncode == 0 else {}
    else:
        parts, current = {}, None
        paths = {job.path for job in batch}
        for line in out.stdout.splitlines(keepends=True):
            header = re.fullmatch(r"==> (.*) <==\n", line)
            if header and header.group(1) in paths:
                current = header.group(1)
                parts[current] = ""
            elif current is not None:
                parts[current] += line
    for job in batch:
        job.seconds = seconds
        if job.path in parts:
            job.html = parts[job.path]
        else:
            job.error = f"exit {out.returncode}: {out.stderr.strip()[-500:]}"


def match_tables(preds: list[Node], gts: list[Node]) -> list[tuple[int, int, float]]:
    """Greedy one-to-one matching by full TEDS, best pairs first: (pred, gt, full TEDS)."""
    pairs = sorted(((teds_trees(p, g), i, j) for i, p in enumerate(preds)
                    for j, g in enumerate(gts)), key=lambda t: (-t[0], t[1], t[2]))
    used_p: set[int] = set()
    used_g: set[int] = set()
    matches = []
    for score, i, j in pairs:
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
            matches.append((i, j, score))
    return matches


def score_page(page: dict, job: Job) -> PageScore:
    tags = list(page.get("tags", []))
    tables = page.get("tables", [])
    per_table = page.get("table_tags") or [tags] * len(tables)
    parsed = [(parse_table(html), list(t)) for html, t in zip(tables, per_table)]
    parsed = [(g, t) for g, t in parsed if g is not None]
    gts = [g for g, _ in parsed]
    preds = parse_tables(job.html)
    n = len(gts)
    result = PageScore(page["name"], job.kind, tags, n, len(preds), 0, [0.0] * n, [0.0] * n,
                       job.seconds, job.error, [False] * n, [t for _, t in parsed],
                       [score([], cells_from_node(g)) for g in gts])
    for i, j, full in match_tables(preds, gts):
        result.matched += 1
        result.hit[j] = True
        result.full[j] = full
        result.structure[j] = teds_trees(preds[i], gts[j], structure_only=True)
        result.adjacency[j] = score(cells_from_node(preds[i]), cells_from_node(gts[j]))
    return result


def mean(values: list[float]) -> Optional[float]:
    return sum(values) / len(values) if values else None


def ratio(num: int, den: int) -> Optional[float]:
    return num / den if den else None


def summarize(scores: list[PageScore], group: str) -> dict:
    """TEDS and recall over the tables in `group`; precision over the pages holding one, or
    tagged with it (a no-table page is in "all" and in its own tags)."""
    tables = [(p, j) for p in scores for j in range(p.gt_tables)
              if in_group(p.table_tags[j], group)]
    pages = [p for p in scores if in_group(p.tags, group)
             or any(in_group(t, group) for t in p.table_tags)]
    predicted = sum(p.pred_tables for p in pages)
    matched = sum(p.matched for p in pages)
    hits = sum(p.hit[j] for p, j in tables)
    relations = Score()
    for p, j in tables:
        relations.add(p.adjacency[j])
    return {"adjacency_f1": relations.f1, "pages": len(pages), "gt_tables": len(tables), "pred_tables": predicted,
            "matched": matched, "structure_teds": mean([p.structure[j] for p, j in tables]),
            "full_teds": mean([p.full[j] for p, j in tables]),
            "precision": ratio(matched, predicted), "recall": ratio(hits, len(tables))}


def in_group(tags: list[str], group: str) -> bool:
    return group == "all" or group in tags


def fmt(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


# Synthetic layouts whose pages hold a table (see the module docstring).
TABLE_LAYOUTS = ("table", "receipt")


def load_synthetic(testdata: str) -> Optional[tuple[list[Job], list[Job]]]:
    """(pages without a table, pages holding one), or None if absent."""
    synthetic = os.path.join(testdata, "synthetic")
    manifest_path = os.path.join(synthetic, "manifest.json")
    if not os.path.exists(manifest_path):
        return None
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    plain, with_table = [], []
    for name, entry in sorted(manifest.items()):
        path = os.path.join(synthetic, entry.get("file") or f"images/{name}.jpg")
        job = Job("synthetic", name, path)
        job.layout = entry.get("layout") or ""
        (with_table if job.layout in TABLE_LAYOUTS else plain).append(job)
    return plain, with_table


def check_thresholds(results: dict, floors: dict) -> tuple[list[str], list[str]]:
    """(failures, notes): each floor applied to the image and the pdf results."""
    failures, notes = [], []
    metrics = {
        "structure_teds_ruled": lambda r: r["groups"]["ruled"]["structure_teds"],
        "structure_teds_unruled": lambda r: r["groups"]["unruled"]["structure_teds"],
        "full_teds": lambda r: r["groups"]["all"]["full_teds"],
        "no_table_precision": lambda r: r["no_table"]["precision"],
        "detection_precision": lambda r: r["groups"]["all"]["precision"],
        "detection_recall": lambda r: r["groups"]["all"]["recall"],
    }
    for key, floor in floors.items():
        if key == "icdar":
            continue  # icdar_check.py's floors
        if key not in metrics:
            notes.append(f"unknown threshold {key} ignored")
            continue
        for source in SOURCES:
            value = metrics[key](results[source])
            if value is None:
                notes.append(f"{source} {key}: n/a (nothing to measure), not checked")
            elif value < floor:
                failures.append(f"{source} {key} {value:.4f} < {floor}")
    return failures, notes


def main() -> int:
    default_testdata = os.environ.get(
        "OCR_SHARED_TESTDATA", os.path.join(HERE, "..", "..", "..", "shared", "testdata"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--onnxocr", required=True, help="the onnxocr binary")
    ap.add_argument("--set", required=True, help="folder written by make_table_set.mjs")
    ap.add_argument("--shared-testdata", default=default_testdata,
                    help="../shared/testdata (its synthetic pages are the no-table pages)")
    ap.add_argument("--no-synthetic", action="store_true",
                    help="leave out ../shared/testdata's synthetic pages and score only the "
                    "set's own (the broad set: the default set's run already covers them)")
    ap.add_argument("--thresholds", default=os.path.join(HERE, "thresholds.json"))
    ap.add_argument("--out", default=None, help="write predictions and report.json here")
    ap.add_argument("--json", action="store_true",
                    help="print report.json to stdout (the readable report goes to stderr)")
    ap.add_argument("--jobs", type=int, default=2, help="onnxocr processes at once")
    args = ap.parse_args()
    log = sys.stderr if args.json else sys.stdout

    def say(text: str = "") -> None:
        print(text, file=log, flush=True)

    manifest_path = os.path.join(args.set, "manifest.json")
    if not os.path.exists(manifest_path):
        say(f"SKIP: {manifest_path} not found (write the set with make_table_set.mjs)")
        return SKIP
    if not os.access(args.onnxocr, os.X_OK):
        say(f"SKIP: onnxocr binary {args.onnxocr} not found (build it first)")
        return SKIP
    with open(manifest_path, encoding="utf-8") as f:
        pages = json.load(f)["pages"]
    with open(args.thresholds, encoding="utf-8") as f:
        floors = json.load(f)
    out_dir = args.out or tempfile.mkdtemp(prefix="onnxocr-tables-")

    jobs: list[Job] = []
    for page in pages:
        for source in SOURCES:
            if page.get(source):
                jobs.append(Job(source, page["name"], os.path.join(args.set, page[source])))
    synthetic = None if args.no_synthetic else load_synthetic(args.shared_testdata)
    if args.no_synthetic:
        say("synthetic no-table pages left out (--no-synthetic); no-table precision uses the "
            "set's own pages")
        synthetic_plain, synthetic_table = [], []
    elif synthetic is None:
        say(f"synthetic no-table pages skipped: {args.shared_testdata}/synthetic not found "
            "(../shared beside the checkout); no-table precision uses the set's own pages")
        synthetic_plain, synthetic_table = [], []
    else:
        synthetic_plain, synthetic_table = synthetic
        jobs += synthetic_plain + synthetic_table

    # Each process gets an equal share of the cores, so that --jobs processes fill the machine,
    # and reads every --jobs-th file.
    workers = max(1, min(args.jobs, len(jobs)))
    threads = max(1, (os.cpu_count() or 1) // workers)
    say(f"running onnxocr on {len(jobs)} files ({workers} processes, --threads {threads})")
    start = time.monotonic()
    batches = [jobs[i::workers] for i in range(workers)]
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda batch: run_onnxocr(args.onnxocr, batch, threads), batches))
    wall = time.monotonic() - start

    for job in jobs:
        folder = os.path.join(out_dir, job.kind)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, safe_name(job.name) + ".html"), "w",
                  encoding="utf-8") as f:
            f.write(job.html)
    errors = [f"{job.kind} {job.name}: {job.error}" for job in jobs if job.error]

    by_key = {(job.kind, job.name): job for job in jobs}
    results: dict = {}
    all_scores: dict[str, list[PageScore]] = {}
    page_lines: list[dict] = []
    say("\nper page (GT tables, predicted tables, structure TEDS, full TEDS, seconds):")
    for source in SOURCES:
        scores = [score_page(page, by_key[(source, page["name"])]) for page in pages
                  if (source, page["name"]) in by_key]
        for s in scores:
            teds_text = (" ".join(f"{a:.3f}/{b:.3f}" for a, b in zip(s.structure, s.full))
                         or "-")
            say(f"  {source:5} {s.name:24} [{','.join(s.tags)}] gt {s.gt_tables} pred "
                f"{s.pred_tables} teds {teds_text} {s.seconds:.1f}s"
                + (f" ERROR {s.error}" if s.error else ""))
            page_lines.append({**vars(s), "adjacency": [vars(a) for a in s.adjacency]})
        all_scores[source] = scores
        groups = {g: summarize(scores, g) for g in GROUPS}
        present = {t for s in scores for tags in s.table_tags for t in tags} | {"all"}
        breakdown = {t: summarize(scores, t) for t in BREAKDOWN_TAGS if t in present}
        # No-table pages: the set's own, and for images the synthetic pages without a table.
        plain = [s.pred_tables == 0 for s in scores if s.gt_tables == 0]
        if source == "image":
            plain += [parse_tables(job.html) == [] for job in synthetic_plain]
            receipts = [parse_tables(job.html) == [] for job in synthetic_table
                        if job.layout == "receipt"]
            strict = plain + receipts
            say(f"image: pages with no table, receipts counted among them: {sum(strict)}/"
                f"{len(strict)} without a predicted table (precision "
                f"{fmt(ratio(sum(strict), len(strict)))})")
        results[source] = {
            "groups": groups,
            "tags": breakdown,
            "no_table": {"pages": len(plain), "without_table": sum(plain),
                         "precision": ratio(sum(plain), len(plain))},
            "seconds_per_page": mean([s.seconds for s in scores]),
        }
    got_table = [job.name for job in synthetic_table if parse_tables(job.html)]
    synthetic_report = {"pages": len(synthetic_table), "with_predicted_table": len(got_table),
                        "names": got_table}
    for job, layout_table in ([(j, False) for j in synthetic_plain]
                              + [(j, True) for j in synthetic_table]):
        count = len(parse_tables(job.html))
        if count or job.error:
            expected = f"layout {job.layout}" if layout_table else "no table"
            say(f"  synthetic {job.name} ({expected}): pred {count} {job.seconds:.1f}s"
                + (f" ERROR {job.error}" if job.error else ""))
            page_lines.append({"name": job.name, "source": "synthetic", "pred_tables": count,
                               "layout_table": layout_table, "error": job.error})

    say()
    say("| source | group | pages | GT tables | structure TEDS | full TEDS | adjacency F1 | "
        "precision | recall |")
    say("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for source in SOURCES:
        for group in GROUPS:
            g = results[source]["groups"][group]
            say(f"| {source} | {group} | {g['pages']} | {g['gt_tables']} | "
                f"{fmt(g['structure_teds'])} | {fmt(g['full_teds'])} | "
                f"{fmt(g['adjacency_f1'])} | {fmt(g['precision'])} | "
                f"{fmt(g['recall'])} |")
    say()
    say("by tag (TEDS and recall over the tables carrying the tag, precision over their pages):")
    say("| tag | tables | image structure | image full | image recall | image precision | "
        "pdf structure | pdf full | pdf recall | pdf precision |")
    say("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for tag in BREAKDOWN_TAGS:
        cells = []
        for source in SOURCES:
            g = results[source]["tags"].get(tag)
            cells += ([fmt(g["structure_teds"]), fmt(g["full_teds"]), fmt(g["recall"]),
                       fmt(g["precision"])] if g else ["n/a"] * 4)
        tables = max(results[source]["tags"].get(tag, {}).get("gt_tables", 0)
                     for source in SOURCES)
        if tables or tag == "all":
            say(f"| {tag} | {tables} | " + " | ".join(cells) + " |")
    say()
    # The tables to look at first: the lowest structure TEDS per source (0: missed).
    for source in SOURCES:
        worst = sorted((p.structure[j], p.full[j], p.name, j) for p in all_scores[source]
                       for j in range(p.gt_tables) if p.structure[j] < 1.0)[:12]
        say(f"{source}: lowest structure/full TEDS: " + ("; ".join(
            f"{name}#{j + 1} {st:.3f}/{fu:.3f}" for st, fu, name, j in worst) or "none below 1"))
    say()
    for source in SOURCES:
        nt = results[source]["no_table"]
        say(f"{source}: pages with no table: {nt['without_table']}/{nt['pages']} without a "
            f"predicted table (precision {fmt(nt['precision'])}); "
            f"{fmt(results[source]['seconds_per_page'])} s per page")
    if synthetic is not None:
        say(f"synthetic pages holding a table ({', '.join(TABLE_LAYOUTS)}; no GT, not scored): "
            f"{len(got_table)}/{len(synthetic_table)} got at least one table")
    say(f"onnxocr wall time {wall:.1f} s for {len(jobs)} files")

    failures, notes = check_thresholds(results, floors)
    if errors:
        failures.insert(0, f"onnxocr failed on {len(errors)} files: " + "; ".join(errors[:5]))
    report = {"onnxocr": args.onnxocr, "set": os.path.abspath(args.set), "thresholds": floors,
              "results": results, "synthetic_with_table": synthetic_report,
              "wall_seconds": wall, "pages": page_lines, "failures": failures, "notes": notes}
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, ensure_ascii=False, indent=1)
    say(f"predictions and report.json in {out_dir}")
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
    for note in notes:
        say(f"note: {note}")
    if failures:
        say("FAILED:\n  " + "\n  ".join(failures))
        return 1
    say("table accuracy within thresholds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
