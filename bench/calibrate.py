#!/usr/bin/env python3
"""gpuauto's constants for one GPU, fitted to a suite run.

    python3 bench/calibrate.py SUITE_DIR [SUITE_DIR ...] -o constants.txt [--base FILE] [--name NAME]
    python3 bench/calibrate.py --selftest

    python3 bench/calibrate.py SUITE_DIR [SUITE_DIR ...] --build-only -o constants.txt [--base FILE]
    python3 bench/calibrate.py SUITE_DIR [SUITE_DIR ...] --replay constants.txt [--horizon H]

A SUITE_DIR is the output of `conf/suite.sh` run with gpuauto among the types and
ARGS=-view_types (its suite.log, or suite.log.gz, holds gpuauto's predictions for every candidate: bytes per
product and the gathers' time, per matrix, as gpuauto's properties, the benchmark's "gpumat-property"
lines; logs from before those lines are read from MatView's table; a run split over several calls
may leave suite-*.log[.gz] instead, read in name order; its results.csv the measured time and the
build time of every type).
The model (src/core/gpuauto.hpp):

    t_c = launch + max(k_c B_c / bw + r_c n,  g_c (B_c / bw + G_c))

What is fitted, per candidate key (cusparsebsr per block size, "cusparsebsr:3"):
  - bw_gbs: the median GB/s of the floor:stream lines (the CSR bytes at the copy kernel's rate) of
    the matrices over 100 MB, when the log has them;
  - k and r: least squares of t - launch = k B/bw + r n over the stream-bound samples (gathers
    under 5 % of the bytes' time), r kept at 0 or above; with one sample, k alone;
  - g: the median of (t - launch) / (B/bw + G) over the gather-bound ones (gathers over 20 %);
  - pjds and bce: a matrix whose long part (rows over the long threshold, summed by warps in
    chunks) holds 90 % of the entries or more is a sample of "pjds:long" / "bce:long", one with
    10 % or less of the format's own line, one in between of neither (the model weighs the two by
    the share);
  - build_ns_nnz, build_ns_row and build_us per candidate: results.csv's build_ms (the first
    product after assembly minus a steady one: the conversion and upload) of every matrix, fitted
    as build_ms = build_us + build_ns_nnz nnz + build_ns_row rows by least squares of the relative
    error ((model - measured) / measured, so a 1M-nonzero matrix weighs as much as a 100M one), each
    term 0 or more (the best fit over the subsets of the three terms whose solution is not
    negative); --build-only fits these alone, from results.csv (no suite.log needed);
  - every other constant, and a key with too few samples, from --base (default
    conf/gpuauto/h100.txt: the constants the library ships, checked equal to them by
    test_core's GpuAuto.ShippedConstantsFileIsTheLibrarys).
The measured time of candidate c is the type c in results.csv (cusparsecsr: aijcusparse:alg1, the
same cuSPARSE kernel). The output is a file for -mat_gpuauto_constants.

--replay FILE replays gpuauto's decision with the constants of FILE on every matrix of the folders
(the logged bytes and gathers, the model above): the candidate it would choose, that type's measured
time against the fastest type measured, and how many are within 5 % of the fastest. The constants
are judged on matrices they were not fitted to when the folders are another set's (bench/validation.txt).
With --horizon H (gpuauto's -mat_gpuauto_horizon) the decision is the smallest predicted build +
H x product, and each type is scored by its measured build_ms + H x median_ms: the end-to-end time
of H products on a new pattern; 0, the default here, the product time alone. --products T scores
with T products instead (a horizon judged on runs of another length)."""
import argparse
import contextlib
import csv
import glob
import gzip
import itertools
import math
import os
import re
import statistics
import sys
import tempfile

SHIPPED_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conf", "gpuauto", "h100.txt")
MEASURED_AS = {"cusparsecsr": "aijcusparse:alg1"}
PRED = re.compile(r"^\s+([a-z]+)\s+([0-9.]+)\s+(?:build\s+[0-9.]+ ms\s+cost\s+[0-9.]+ ms\s+)?([0-9.e+]+) B\s+gather\s+([0-9.]+) ms\s+(stream|gather)\s+(.*?)(\s+<- chosen)?$")


BUILD_FIELDS = ("build_ns_nnz", "build_ns_row", "build_us")


def read_constants(path):
    """A constants file as a dict (every key of the format, "fmt": {key: [k, r_ps, g]}, "build":
    {candidate: [build_ns_nnz, build_ns_row, build_us]})."""
    c = {"fmt": {}, "build": {}}
    with open(path or SHIPPED_FILE) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            key, _, value = line.partition(" ")
            if key == "name":
                c["name"] = value.strip()
            elif "." in key:
                cand, field = key.rsplit(".", 1)
                if field in BUILD_FIELDS:
                    c["build"].setdefault(cand, [0.0, 0.0, 0.0])[BUILD_FIELDS.index(field)] = float(value)
                else:
                    c["fmt"].setdefault(cand, [1.0, 0.0, 1.0])["k r_ps g".split().index(field)] = float(value)
            else:
                c[key] = float(value)
    return c


def write_constants(path, c):
    with open(path, "w") as f:
        f.write("# gpuauto constants (src/core/gpuauto.hpp), fitted by bench/calibrate.py\n")
        f.write(f"name {c['name']}\n")
        for k in ("bw_gbs", "launch_us", "l2_bytes", "l2x_share", "l2_request_ps", "dram_sector_ps", "y_scatter_bytes", "hop_us"):
            if k in c:
                f.write(f"{k} {c[k]:.6g}\n")
        for k in sorted(c["fmt"]):
            kk, r, g = c["fmt"][k]
            f.write(f"{k}.k {kk:.6g}\n{k}.r_ps {max(r, 0.0):.6g}\n{k}.g {g:.6g}\n")
        for k in sorted(c.get("build", {})):  # the library's auto_write_constants writes them last, alike
            for field, v in zip(BUILD_FIELDS, c["build"][k]):
                f.write(f"{k}.{field} {max(v, 0.0):.6g}\n")


LONG = re.compile(r"long part ([0-9.]+) %")


def log_files(path):
    """suite.log, else suite.log.gz (the logs kept in docs/results), else the parts of a run split
    over several calls (suite-*.log, suite-*.log.gz), in name order; [] when there is none."""
    if os.path.isfile(path):
        return [path]
    if os.path.isfile(path + ".gz"):
        return [path + ".gz"]
    stem = path[: -len(".log")]
    return sorted(glob.glob(stem + "-*.log") + glob.glob(stem + "-*.log.gz"))


@contextlib.contextmanager
def open_log(path):
    """The lines of log_files(path), one file after another."""
    files = [gzip.open(f, "rt", errors="replace") if f.endswith(".gz") else open(f, errors="replace") for f in log_files(path)]
    try:
        yield itertools.chain(*files)
    finally:
        for f in files:
            f.close()


def parse_log(path):
    """{matrix: {candidate: (bytes, gather_ms, key, long_share, hops)}} and [floor:stream GB/s of matrices over 100 MB]."""
    preds, streams, cur, in_pred = {}, [], None, False
    longest, bccoo_floor = {}, {}  # for logs before bccoo's hops: the matrix's longest row, bccoo's parameters
    props = {}  # {matrix: {key: value}}: gpuauto's properties (bench_matmult -view_types' gpumat-property lines)
    with open_log(path) as f:
        for line in f:
            m = re.match(r"== \S+ (\S+), 1 rank", line)
            if m:
                cur, in_pred = m.group(1), False
                continue
            m = re.match(r"gpumat-property gpuauto (\S+) (.*)$", line.rstrip("\n"))
            if m and cur:
                props.setdefault(cur, {}).setdefault(m.group(1), m.group(2))  # the first view
                continue
            if "gpuauto predictions for" in line:
                in_pred = True
                continue
            p = PRED.match(line.rstrip("\n")) if in_pred else None
            if in_pred and not p:
                in_pred = False  # the line after the predictions (the features) is read below
            if p:
                cand, _, nbytes, gather, _, detail = p.groups()[:6]
                key = cand
                b = re.match(r"(\d+)x\d+ blocks", detail)
                if cand == "cusparsebsr" and b:
                    key = f"cusparsebsr:{b.group(1)}"
                lp = LONG.search(detail)
                share = float(lp.group(1)) / 100 if lp else (None if cand in ("pjds", "bce") else 0.0)
                hp = re.search(r"(\d+) hops", detail)
                hops = float(hp.group(1)) if hp else (None if cand == "bccoo" else 0.0)
                preds.setdefault(cur, {}).setdefault(cand, (float(nbytes), float(gather), key, share, hops))  # the diagonal block's first view
            m = re.search(r"gpuauto features .*longest (\d+)\)", line)
            if m and cur:
                longest.setdefault(cur, int(m.group(1)))
            m = re.search(r"^floor:bccoo-gather .*bccoo \dx(\d) .*slices (\d+), tile (\d+), group (\d+)", line)
            if m and cur:
                bccoo_floor.setdefault(cur, tuple(int(x) for x in m.groups()))
            m = re.match(r"floor:stream\s+([0-9.]+)\s+[0-9.]+\s+-\s+([0-9.]+)", line)
            if m and cur:
                ms, gbs = float(m.group(1)), float(m.group(2))
                if ms * 1e-3 * gbs * 1e9 > 100e6:
                    streams.append(gbs)
    # the properties, where the log has them: every prediction's parts from the record itself
    for mat, pr in props.items():
        cands = {}
        for k, v in pr.items():
            m = re.match(r"prediction\.([a-z]+)\.bytes$", k)
            if m:
                c = m.group(1)
                f = lambda field: pr.get(f"prediction.{c}.{field}")
                cands[c] = (float(v), float(f("gather_ms")), f("key") or c, float(f("long_share") or 0), float(f("hops") or 0))
        if cands:
            preds[mat] = cands
    # logs kept in docs/results from before the properties: MatView's prediction table above, and
    # for logs of gpuauto before its long part (no "long part" in its lines): the share from pjds's own
    # MatView of the matrix ("long part: R rows, E entries"), over the matrix's nonzeros
    if any(v[3] is None for cands in preds.values() for v in cands.values()):
        with open_log(path) as f:
            cur, entries, nnz = None, {}, {}
            for line in f:
                m = re.match(r"== \S+ (\S+), 1 rank", line)
                if m:
                    cur = m.group(1)
                    continue
                m = re.search(r"pJDS part: .*long part: \d+ rows, (\d+) entries", line)
                if m and cur:
                    entries.setdefault(cur, int(m.group(1)))
                m = re.search(r"total: nonzeros=(\d+)", line)
                if m and cur:
                    nnz.setdefault(cur, int(m.group(1)))
        for mat, cands in preds.items():
            for cand, v in cands.items():
                if v[3] is None:
                    share = entries[mat] / nnz[mat] if mat in entries and nnz.get(mat) else 0.0
                    cands[cand] = v[:3] + (share,) + v[4:]
    # logs of gpuauto before bccoo's hops (no "hops" in its line): src/core/gpuauto.cpp's count from the
    # matrix's longest row and the parameters bccoo's model chose (the floor:bccoo-gather line)
    for mat, cands in preds.items():
        v = cands.get("bccoo")
        if v is not None and v[4] is None:
            hops = 0.0
            if mat in longest and mat in bccoo_floor:
                w, slices, tile, group = bccoo_floor[mat]
                hops = max(0.0, math.ceil(math.ceil(longest[mat] / max(1, slices) / max(1, w)) / (tile * group)) - 1)
            cands["bccoo"] = v[:4] + (hops,)
    return preds, streams


def parse_csv(path):
    """{matrix: (rows, {type: median_ms})} of the one-rank rows."""
    return {m: (n, times) for m, (n, times, _, _) in parse_csv_builds(path).items()}


def number(r, key):
    """A finite float of row r's column key, else None (missing, '-', nan)."""
    try:
        v = float(r.get(key) or "nan")
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def parse_csv_builds(path):
    """{matrix: (rows, {type: median_ms}, {type: build_ms}, nnz)} of the one-rank rows."""
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if (r.get("ranks") or "1") != "1":
                continue
            ms = number(r, "median_ms")
            if ms is None:
                continue
            m = out.setdefault(r["matrix"], (float(r["rows"]), {}, {}, number(r, "nnz")))
            m[1][r["type"]] = ms
            b = number(r, "build_ms")
            if b is not None and b > 0:
                m[2][r["type"]] = b
    return out


def solve(a, b):
    """x of the square system a x = b (Gaussian elimination with pivoting); None when singular."""
    n = len(b)
    m = [list(a[i]) + [b[i]] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        if abs(m[p][i]) < 1e-300:
            return None
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [x - f * y for x, y in zip(m[r], m[i])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit_build_terms(samples):
    """[build_ns_nnz, build_ns_row, build_us] of samples [(nnz, rows, build_ms)]: the least squares
    of the relative error sum(((us 1e-3 + ns_nnz nnz 1e-6 + ns_row rows 1e-6) - b) / b)^2, every term
    0 or more: the best over the subsets of the terms whose least-squares solution has none negative."""
    cols = [lambda z, n: z * 1e-6, lambda z, n: n * 1e-6, lambda z, n: 1e-3]  # ms per unit of each term
    best = None
    for k in (1, 2, 3):
        for sub in itertools.combinations(range(3), k):
            if len(samples) < k:
                continue
            rows = [[cols[j](z, n) / b for j in sub] for z, n, b in samples]  # each row over its measured time: the target is 1
            ata = [[sum(r[i] * r[j] for r in rows) for j in range(k)] for i in range(k)]
            atb = [sum(r[i] for r in rows) for i in range(k)]
            x = solve(ata, atb)
            if x is None or min(x) < 0:
                continue
            res = sum((sum(xi * ri for xi, ri in zip(x, r)) - 1) ** 2 for r in rows)
            if best is None or res < best[0]:
                full = [0.0, 0.0, 0.0]
                for j, xi in zip(sub, x):
                    full[j] = xi
                best = (res, full)
    return best[1] if best else None


def relative_errors(terms, samples):
    """|model - measured| / measured of each sample."""
    ns_nnz, ns_row, us = terms
    return [abs(us * 1e-3 + (ns_nnz * z + ns_row * n) * 1e-6 - b) / b for z, n, b in samples]


def fit_build(dirs, c):
    """The build constants of every candidate of c (its keys without a variant) that the folders'
    results.csv measured; c["build"] updated; report lines."""
    samples = {}  # candidate -> [(nnz, rows, build_ms)]
    cands = sorted({k for k in c["fmt"] if ":" not in k} | set(c.get("build", {})))
    for d in dirs:
        for m, (n, _, builds, nnz) in parse_csv_builds(os.path.join(d, "results.csv")).items():
            for cand in cands:
                b = builds.get(MEASURED_AS.get(cand, cand))
                if b is not None and nnz:
                    samples.setdefault(cand, []).append((nnz, n, b))
    report = []
    for cand, ss in sorted(samples.items()):
        terms = fit_build_terms(ss)
        if terms is None:
            continue
        c.setdefault("build", {})[cand] = terms
        err = sorted(relative_errors(terms, ss))
        per_nnz = sorted(b * 1e6 / z for z, _, b in ss)
        report.append(f"{cand} build ({MEASURED_AS.get(cand, cand)}, {len(ss)} builds): {terms[0]:.3f} ns/nnz, {terms[1]:.3f} ns/row, {terms[2]:.1f} us; "
                      f"|relative error| median {100 * statistics.median(err):.0f} %, max {100 * err[-1]:.0f} %; measured ns/nnz median {statistics.median(per_nnz):.2f} ({per_nnz[0]:.2f}-{per_nnz[-1]:.2f})")
    return report


def fit(dirs, base):
    c = read_constants(base)
    samples = {}  # key -> [(B/bw ms, n, G ms, t - launch ms)]
    streams = []
    bw = None
    preds_all, times_all = {}, {}
    for d in dirs:
        p, s = parse_log(os.path.join(d, "suite.log"))
        preds_all.update(p)
        streams += s
        times_all.update(parse_csv(os.path.join(d, "results.csv")))
    if streams:
        bw = statistics.median(streams)
        c["bw_gbs"] = bw
    launch = c["launch_us"] * 1e-3
    for m, cands in preds_all.items():
        if m not in times_all:
            continue
        n, times = times_all[m]
        for cand, (nbytes, gather, key, share, hops) in cands.items():
            t = times.get(MEASURED_AS.get(cand, cand))
            if t is None:
                continue
            if share >= 0.9:
                key = cand + ":long"
            elif share > 0.1:
                continue
            samples.setdefault(key, []).append((nbytes / (c["bw_gbs"] * 1e6), n, gather, t - launch - hops * hop_ms(c)))
    report = []
    for key, ss in sorted(samples.items()):
        k, r, g = c["fmt"].get(key, c["fmt"].get(key.split(":")[0], [1.0, 0.0, 1.0]))
        stream = [s for s in ss if s[2] < 0.05 * s[0]]
        gath = [s for s in ss if s[2] > 0.2 * s[0]]
        if len(stream) >= 2:  # t = k x + r n: normal equations, r >= 0
            sxx = sum(s[0] * s[0] for s in stream); sxn = sum(s[0] * s[1] for s in stream); snn = sum(s[1] * s[1] for s in stream)
            sxt = sum(s[0] * s[3] for s in stream); snt = sum(s[1] * s[3] for s in stream)
            det = sxx * snn - sxn * sxn
            k2, r2 = ((sxt * snn - snt * sxn) / det, (sxx * snt - sxn * sxt) / det) if det > 0 else (sxt / sxx, 0.0)
            if r2 < 0 or k2 <= 0:
                k2, r2 = sxt / sxx, 0.0
            k, r = k2, r2 * 1e9  # ms per row -> ps per row
        elif len(stream) == 1:
            k, r = stream[0][3] / stream[0][0], 0.0
        if gath:
            g = statistics.median(s[3] / (s[0] + s[2]) for s in gath)
        c["fmt"][key] = [k, r, g]
        report.append(f"{key}: {len(stream)} stream-bound, {len(gath)} gather-bound samples -> k {k:.3f}, r {r:.2f} ps, g {g:.3f}")
    report += fit_build(dirs, c)
    return c, report, bw


def constants_of(c, key):
    """[k, r_ps, g] of key, else of its format (the library's AutoConstants::of)."""
    return c["fmt"].get(key) or c["fmt"].get(key.split(":")[0]) or [1.0, 0.0, 1.0]


def hop_ms(c):
    """bccoo's adjacent-synchronization hop (ms; the library's default where the file has none)."""
    return c.get("hop_us", 0.8) * 1e-3


def predict(c, nbytes, gather, key, share, n, hops=0.0):
    """The model's time (ms) of one candidate: src/core/gpuauto.cpp's auto_decide."""
    k, r, g = constants_of(c, key)
    if share > 0:
        kl, rl, gl = constants_of(c, key.split(":")[0] + ":long")
        k, r, g = (1 - share) * k + share * kl, (1 - share) * r + share * rl, (1 - share) * g + share * gl
    x = nbytes / (c["bw_gbs"] * 1e6)
    return c["launch_us"] * 1e-3 + max(k * x + r * 1e-9 * n, g * (x + gather)) + hops * hop_ms(c)


def predict_build(c, cand, nnz, n):
    """The model's build time (ms) of one candidate: src/core/gpuauto.cpp's auto_decide."""
    ns_nnz, ns_row, us = c.get("build", {}).get(cand, [0.0, 0.0, 0.0])
    return us * 1e-3 + (ns_nnz * nnz + ns_row * n) * 1e-6


def replay(dirs, path, horizon=0, products=None):
    """Lines of a markdown table and the summary: each matrix's replayed choice against the fastest.
    The choice: the least predicted build + horizon x product (the product alone at horizon 0); the
    score: each type's measured build + products x product (products: the horizon unless given;
    the product alone at 0)."""
    products = horizon if products is None else products
    c = read_constants(path)
    preds, times = {}, {}
    for d in dirs:
        preds.update(parse_log(os.path.join(d, "suite.log"))[0])
        times.update(parse_csv_builds(os.path.join(d, "results.csv")))
    unit = f"build + {products:g} products, ms" if products > 0 else "ms"
    lines = [f"| matrix | chosen | its time ({unit}) | fastest type | fastest ({unit}) | fastest / chosen | chosen / faster ALG |", "|---|---|---|---|---|---|---|"]
    within = total = 0
    lowest = math.inf
    logs = []
    for m, cands in preds.items():
        if m not in times:
            continue
        n, t, builds, nnz = times[m]
        if horizon > 0 and not nnz:
            continue
        if products > 0:  # the score: measured build + products x product, of the types with both
            t = {k: builds[k] + products * v for k, v in t.items() if k in builds}

        def cost(cand, b, g, key, share, hops):
            p = predict(c, b, g, key, share, n, hops)
            return predict_build(c, cand, nnz, n) + horizon * p if horizon > 0 else p

        ranked = sorted((cost(cand, b, g, key, share, hops), cand) for cand, (b, g, key, share, hops) in cands.items() if MEASURED_AS.get(cand, cand) in t)
        measured = {k: v for k, v in t.items() if k != "gpuauto"}
        if not ranked or not measured:
            continue
        chosen = ranked[0][1]
        tc = t[MEASURED_AS.get(chosen, chosen)]
        best = min(measured, key=measured.get)
        algs = [t[a] for a in ("aijcusparse:alg1", "aijcusparse:alg2") if a in t]
        vs_alg = min(algs) / tc if algs else math.nan
        total += 1
        within += measured[best] / tc >= 0.95
        logs.append(math.log(tc / measured[best]))
        lowest = min(lowest, vs_alg) if algs else lowest
        lines.append(f"| {m} | {chosen} | {tc:.4f} | {best} | {measured[best]:.4f} | {measured[best] / tc:.3f} | {vs_alg:.3f} |")
    gm = math.exp(sum(logs) / len(logs)) if logs else math.nan
    lines.append(f"\nwithin 5 % of the fastest: {within} of {total}; geometric mean chosen / fastest: {gm:.3f}; lowest against the faster ALG: {lowest:.3f}")
    return lines, within, total


def selftest():
    """Synthetic suite output from known constants: the fit recovers them, from the benchmark's
    property lines and from MatView's table (the logs kept from before those lines, and the table
    with its build and cost columns) alike; the build constants from results.csv's build_ms; the
    replay at a horizon chooses the least build + horizon x product."""
    truth = {"pjds": (1.02, 0.0, 0.9), "bccoo": (1.12, 0.0, 0.95), "cusparsecsr": (1.0, 10.0, 0.93), "pjds:long": (1.06, 0.0, 0.99)}
    truth_build = {"pjds": (1.5, 2.5, 1700.0), "bccoo": (1.6, 1.25, 2500.0), "cusparsecsr": (1.6, 0.5, 9000.0)}
    # matrices a-f: pjds without a long part; g-l: all long rows (pjds:long's samples); m: half
    # (neither's sample, the model weighing the two)
    mats = [("a", 2e7, 1500, 0.0), ("b", 1e7, 900, 0.01), ("c", 4e6, 600, 0.0), ("d", 3e7, 2000, 0.5), ("e", 5e6, 300, 0.8), ("f", 8e6, 800, 1.2)]
    mats += [("g", 1e4, 1200, 0.0), ("h", 2e4, 700, 0.02), ("i", 8e3, 500, 0.6), ("j", 5e4, 900, 0.9), ("l", 3e4, 400, 1.1), ("m", 1e7, 1000, 0.3)]
    for style in ("properties", "table", "table-build"):
        with tempfile.TemporaryDirectory() as d:
            log, rows = [], []
            for i, (name, n, mb, gfrac) in enumerate(mats):
                share = 1.0 if name in "ghijl" else 0.5 if name == "m" else 0.0
                log.append(f"== 00:00:{i:02d} {name}, 1 rank(s)")
                log.append("floor:stream              0.5000    0.4900         -     3000  100.0   (no row sums: a lower bound)")
                if style != "properties":
                    log.append(f"      gpuauto predictions for {int(n)} rows (ms per product; ...):")
                nnz = round(mb * 1e6 / 12)
                for cand in ("pjds", "bccoo", "cusparsecsr"):
                    b = mb * 1e6 * (1.0 + 0.05 * len(cand) % 3)
                    x = b / 3000e6
                    gather = gfrac * x
                    c = {"fmt": {k: list(v) for k, v in truth.items()}, "bw_gbs": 3000, "launch_us": 4}
                    sh = share if cand == "pjds" else 0.0
                    t = predict(c, b, gather, cand, sh, n)
                    c["build"] = {k: list(v) for k, v in truth_build.items()}
                    build = predict_build(c, cand, nnz, n)
                    if style != "properties":
                        detail = f"rows sorted by length, padding 0.0 %, long part {100 * share:.1f} %" if cand == "pjds" else "detail"
                        cost = f"  build {build:9.3f} ms  cost {build + 1000 * t:10.3f} ms" if style == "table-build" else ""
                        log.append(f"        {cand:<13s} {t:10.4f}{cost}  {b:12.4g} B  gather {gather:9.4f} ms  stream  {detail}")
                    else:
                        for field, v in (("bytes", f"{b:.6g}"), ("gather_ms", f"{gather:.6f}"), ("key", cand), ("long_share", f"{sh:.6g}"), ("hops", "0")):
                            log.append(f"gpumat-property gpuauto prediction.{cand}.{field} {v}")
                    rows.append([name, "aijcusparse:alg1" if cand == "cusparsecsr" else cand, int(n), nnz, f"{t:.6g}", f"{build:.9g}", 1])
                if style != "properties":
                    log.append("      gpuauto features (sampled): ...")
            with open(os.path.join(d, "suite.log"), "w") as f:
                f.write("\n".join(log) + "\n")
            with open(os.path.join(d, "results.csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["matrix", "type", "rows", "nnz", "median_ms", "build_ms", "ranks"])
                w.writerows(rows)
            c, report, bw = fit([d], None)
            out = os.path.join(d, "c.txt")
            write_constants(out, c)
            back = read_constants(out)
            _, within, total = replay([d], out)  # the fitted constants choose the fastest everywhere
            _, within_h, total_h = replay([d], out, horizon=1000)  # and the least build + 1000 products
            only = read_constants(None)
            build_report = fit_build([d], only)  # --build-only: results.csv alone
        assert (within, total) == (len(mats), len(mats)), (style, within, total)
        assert (within_h, total_h) == (len(mats), len(mats)), (style, within_h, total_h)
        assert abs(bw - 3000) < 1e-9, bw
        for cand, (k, r, g) in truth.items():
            fk, fr, fg = back["fmt"][cand]
            assert abs(fk - k) < 0.02 and abs(fr - r) < 0.5 and abs(fg - g) < 0.02, (style, cand, (fk, fr, fg), (k, r, g))
        assert back["fmt"]["bce"] == read_constants(None)["fmt"]["bce"], "a candidate without samples keeps the base constants"
        for fitted in (back["build"], only["build"]):
            for cand, terms in truth_build.items():
                assert all(abs(f - v) <= 1e-4 * max(v, 1.0) for f, v in zip(fitted[cand], terms)), (style, cand, fitted[cand], terms)
            assert fitted["bce"] == read_constants(None)["build"]["bce"], "a candidate without builds keeps the base build constants"
        assert len(build_report) == len(truth_build), build_report
    print("calibrate.py self-test passed (property lines and MatView's table, with and without the build columns): " + "; ".join(report))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dirs", nargs="*", help="conf/suite.sh output folders (suite.log with -view_types, results.csv)")
    p.add_argument("-o", "--output", help="the constants file to write")
    p.add_argument("--base", help="constants file to start from (default: the shipped H100 constants)")
    p.add_argument("--name", help="the GPU's name in the file (default: the base's)")
    p.add_argument("--build-only", action="store_true", help="fit only the build constants (results.csv alone); the rest from --base")
    p.add_argument("--replay", metavar="FILE", help="replay gpuauto's choices with these constants (no fit)")
    p.add_argument("--horizon", type=float, default=0, help="with --replay: products the build is paid back within (-mat_gpuauto_horizon; 0: the product alone)")
    p.add_argument("--products", type=float, help="with --replay: score each type by its measured build + this many products (default: --horizon)")
    p.add_argument("--selftest", action="store_true")
    a = p.parse_args(argv)
    if a.selftest:
        selftest()
        return
    if not a.dirs or not (a.output or a.replay):
        p.error("give suite folders and -o FILE or --replay FILE")
    for name, v in (("--horizon", a.horizon), ("--products", a.products)):
        if v is not None and (v < 0 or not math.isfinite(v)):
            p.error(f"{name} must be 0 or more, got {v:g}")
    for d in a.dirs:
        if not os.path.isfile(os.path.join(d, "results.csv")):
            sys.exit(f"{d}: no results.csv (a conf/suite.sh output folder?)")
        if not a.build_only and not log_files(os.path.join(d, "suite.log")):
            sys.exit(f"{d}: no suite.log (run conf/suite.sh with ARGS=-view_types and gpuauto among TYPES)")
    if a.replay:
        lines, _, total = replay(a.dirs, a.replay, a.horizon, a.products)
        if not total:
            sys.exit("no gpuauto predictions with measured candidates in these folders (ARGS=-view_types? gpuauto in TYPES?)")
        print("\n".join(lines))
        return
    if a.build_only:
        c = read_constants(a.base)
        report, bw = fit_build(a.dirs, c), None
        if not report:
            sys.exit("no build times of the candidates in these folders' results.csv")
    else:
        c, report, bw = fit(a.dirs, a.base)
        if not report:
            sys.exit("no gpuauto predictions with measured candidates in these folders (ARGS=-view_types? gpuauto in TYPES?)")
    if a.name:
        c["name"] = a.name
    write_constants(a.output, c)
    print(f"bw_gbs {c['bw_gbs']:.0f}" + ("" if bw else " (no floor:stream lines: kept)" if not a.build_only else " (--build-only: kept)"))
    print("\n".join(report))
    print(a.output)


if __name__ == "__main__":
    main()
