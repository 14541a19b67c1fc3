#!/usr/bin/env python3
"""Kreutzer et al.'s model of multi-GPU sparse MatMult (2012, sections 2.2-3), evaluated with this
machine's measured links, against bench_matmult's multi-rank measurements.

    python3 bench/scaling_model.py RESULTS.csv [MORE.csv ...] --links LINKS.csv
                                   [--staging pageable|pinned] [--alpha fit|min|max|VALUE]
                                   [--launch-us US] [--ours side|petsc] [--markdown FILE]
    python3 bench/scaling_model.py --selftest

RESULTS: bench_matmult CSVs (-csv) with rows on 1 and on P ranks of the same matrix name (strong
scaling) or of one series name at sizes growing with P (weak scaling: conf/scaling.sh names them so);
a matrix name ending in "@vector" was run without overlap (-mat_gpumat_overlap 0, the paper's vector
mode), any other with it (task mode). LINKS: bench/link_bandwidth's CSV ('#' lines skipped).

Node level, the paper's equations with B_GPU the device's copy bandwidth counted read + written
(2 x link_bandwidth's d2d GB/s at the largest size) and B_PCI its pinned host <-> device bandwidth
(the smaller of h2d_pinned and d2h_pinned at the largest size, median over the devices):

    (2)  T_MVM = 8 N / B_GPU [N_nzr (alpha + 3/2) + 2]        T_PCI = 16 N / B_PCI
    (3)  T_MVM <= T_PCI (PCIe costs 50 % or more)  when  N_nzr <= 2 (B_GPU/B_PCI - 1) / (alpha + 3/2)
    (4)  T_MVM >= 10 T_PCI (PCIe costs 10 % or less) when  N_nzr >= (20 B_GPU/B_PCI - 2) / (alpha + 3/2)

alpha (1/N_nzr <= alpha <= 1) is the share of x's loads that go to memory; alpha = 1/N_nzr makes
both bounds implicit in N_nzr, solved exactly here. Per matrix and type, the one-rank time fixes
alpha ("fit": the alpha for which (2) plus a kernel's fixed cost L gives the measured median; it
absorbs the kernel's distance from the stream, so a fit above 1 says the kernel is slower than the
model's worst case); --alpha min|max|VALUE uses 1/N_nzr, 1 or a number instead.

Distributed memory (section 3), per rank count P, for the busiest rank: its nonzeros nnz_p (the
CSV's nnz_max_rank), rows n_p = rows / P, off-diagonal nonzeros o_p = offdiag_share x nnz_p on
nonempty rows r_o = min(n_p, o_p), ghosts g (ghosts_max); then with (2)'s bytes

    T_diag = ((nnz_p - o_p)(12 + 8 alpha) + 16 n_p) / B_GPU + L
    T_offd = (o_p (12 + 8 alpha) + 16 r_o) / B_GPU + L          (y read and written again: the
                                                                 paper's extra 8/N_nzr bytes/flop)
    host-staged halo (PETSc with -use_gpu_aware_mpi 0: packed on the device, copied to PetscMalloc'd
    host buffers, MPI between host buffers, copied back): t_d2h(8g) + t_mpi(8g) + t_h2d(8g) + 2 L
    peer halo (what a CUDA-aware MPI or PETSc's NVSHMEM backend would do): t_p2p(8g) + 2 L

t_x(b): link_bandwidth's median time at b bytes, interpolated log-log between its sizes (the
latency of small messages included), median over devices or pairs; t_mpi is the host copy h2h
(MPI's shared-memory transport copies between host buffers; one message of all ghosts: a lower
bound on the latency of several neighbours). L: a kernel's fixed cost (--launch-us, default: the
device copy's time at the smallest size). --staging pinned uses the pinned copies instead.

    vector mode (no overlap):      T_P = T_comm + T_diag + T_offd
    task mode, host-staged:        T_P = t_d2h + max(T_diag, t_mpi) + t_h2d + T_offd + 2 L
                                   (PETSc's VecScatterBegin copies to the host before it returns,
                                   so only the MPI part overlaps the diagonal block)
    task mode, peer:               T_P = max(T_diag, t_p2p + 2 L) + T_offd
    task mode, side stream:        T_P = max(T_diag, T_comm) + T_offd
                                   (our MPI types with CUDA vectors, -mat_gpumat_side_stream: the
                                   diagonal product on its own stream while the whole halo, its
                                   host copies included, moves on PETSc's; --ours petsc predicts
                                   them in PETSc's order instead, for runs with the option off or
                                   made before it; aijcusparse and the other PETSc types always so)

Parallel efficiency, measured and predicted: E_P = (nnz_P / (P T_P)) / (nnz_1 / T_1) (the
throughput per rank against one rank's: T_1 / (P T_P) in strong scaling, where nnz_P = nnz_1).
The output: per matrix the node-level figures, then per (matrix, type, layout, mode) a line per P:
measured and predicted ms (task and vector mode, host-staged and peer), the halo's predicted time
against the benchmark's scatter_ms, the diagonal block's against its diag_ms, and E measured and
predicted (for the run's own mode and halo path: host-staged, or the peer halo for a series named
"<name>@gpuaware", run with device buffers in MPI; its one-rank row is <name>'s)."""
import argparse
import contextlib
import csv
import math
import os
import statistics
import sys
import tempfile

VECTOR_SUFFIX = "@vector"
GPUAWARE_SUFFIX = "@gpuaware"  # a series run with device buffers in MPI (conf/scaling.sh HALO=device)


# ---- the links ---------------------------------------------------------------------------------

class Links:
    """link_bandwidth's CSV: per test, the median time (us) at each size, over devices or pairs."""

    def __init__(self, path):
        self.points = {}  # test -> {bytes: [median_us, ...]}
        with open(path) as f:
            lines = [l for l in f if l.strip() and not l.lstrip().startswith("#")]
        for rec in csv.DictReader(lines):
            self.points.setdefault(rec["test"], {}).setdefault(int(rec["bytes"]), []).append(float(rec["median_us"]))
        if not self.points:
            sys.exit(f"{path}: no measurements")

    def has(self, test):
        return test in self.points

    def curve(self, test):
        """(bytes, us) sorted by size, the median over devices or pairs at each size."""
        if test not in self.points:
            raise KeyError(f"the links CSV has no '{test}' rows (run bench/link_bandwidth with that test)")
        return sorted((b, statistics.median(v)) for b, v in self.points[test].items())

    def time_us(self, test, nbytes):
        """The time of a copy of nbytes: log-log interpolation between the measured sizes; below
        the smallest the smallest's time (latency), above the largest at the largest's rate."""
        pts = self.curve(test)
        if nbytes <= 0:
            return 0.0
        if nbytes <= pts[0][0]:
            return pts[0][1]
        if nbytes >= pts[-1][0]:
            return pts[-1][1] * nbytes / pts[-1][0]
        for (b0, t0), (b1, t1) in zip(pts, pts[1:]):
            if b0 <= nbytes <= b1:
                f = math.log(nbytes / b0) / math.log(b1 / b0)
                return math.exp(math.log(t0) + f * (math.log(t1) - math.log(t0)))
        raise AssertionError("unreachable")

    def gbs(self, test):
        """GB/s at the largest size (bytes moved once / time)."""
        b, t = self.curve(test)[-1]
        return b / (t * 1e-6) / 1e9


# ---- the paper's equations -------------------------------------------------------------------

def t_mvm(n, nnzr, alpha, b_gpu):
    """Equation (2), seconds: N rows, N_nzr per row, B_GPU bytes/s."""
    return 8.0 * n / b_gpu * (nnzr * (alpha + 1.5) + 2.0)


def t_pci(n, b_pci):
    """Equation (2), seconds: x to the GPU and y back over PCIe."""
    return 16.0 * n / b_pci


def alpha_fit(t_seconds, n, nnzr, b_gpu):
    """The alpha for which (2) gives t_seconds."""
    return (t_seconds * b_gpu / (8.0 * n) - 2.0) / nnzr - 1.5


def nnzr_upper_bound(ratio, alpha=None):
    """Equation (3): T_MVM <= T_PCI up to this N_nzr (ratio = B_GPU / B_PCI); alpha None means
    1/N_nzr: N_nzr (1/N_nzr + 3/2) = 1 + 3/2 N_nzr <= 2 (ratio - 1)."""
    if alpha is None:
        return (2.0 * (ratio - 1.0) - 1.0) / 1.5
    return 2.0 * (ratio - 1.0) / (alpha + 1.5)


def nnzr_lower_bound(ratio, alpha=None):
    """Equation (4): T_MVM >= 10 T_PCI from this N_nzr on; alpha None: 1/N_nzr, as above."""
    if alpha is None:
        return (20.0 * ratio - 2.0 - 1.0) / 1.5
    return (20.0 * ratio - 2.0) / (alpha + 1.5)


class Machine:
    """The bandwidths and copy times the model uses, from the links CSV."""

    def __init__(self, links, staging="pageable", launch_us=None):
        self.links = links
        self.b_gpu = 2.0 * links.gbs("d2d") * 1e9                    # read + written, bytes/s
        self.b_pci = min(links.gbs("h2d_pinned"), links.gbs("d2h_pinned")) * 1e9
        self.b_peer = links.gbs("p2p") * 1e9 if links.has("p2p") else None
        self.staging = staging
        self.launch = (launch_us if launch_us is not None else links.curve("d2d")[0][1]) * 1e-6

    def halo_staged(self, nbytes):
        """(d2h, mpi, h2d) seconds of a host-staged halo of nbytes each way."""
        if nbytes <= 0:
            return 0.0, 0.0, 0.0
        kind = self.staging
        return (self.links.time_us(f"d2h_{kind}", nbytes) * 1e-6, self.links.time_us("h2h", nbytes) * 1e-6,
                self.links.time_us(f"h2d_{kind}", nbytes) * 1e-6)

    def halo_peer(self, nbytes):
        if nbytes <= 0 or not self.links.has("p2p"):
            return None
        return self.links.time_us("p2p", nbytes) * 1e-6


def predict_rank(m, alpha, rows, ranks, nnz_p, offdiag_share, ghosts):
    """The P-rank product of the busiest rank, seconds: dict of the parts and of the modes."""
    n_p = rows / ranks
    o_p = offdiag_share * nnz_p if ranks > 1 else 0.0
    r_o = min(n_p, o_p)
    per_nz = 12.0 + 8.0 * alpha
    t_diag = ((nnz_p - o_p) * per_nz + 16.0 * n_p) / m.b_gpu + m.launch
    t_offd = (o_p * per_nz + 16.0 * r_o) / m.b_gpu + m.launch if ranks > 1 else 0.0
    out = {"diag": t_diag, "offd": t_offd}
    if ranks == 1:
        out.update(comm=0.0, task=t_diag, vector=t_diag, side=t_diag, peer_comm=0.0, peer_task=t_diag, peer_vector=t_diag)
        return out
    d2h, mpi, h2d = m.halo_staged(8.0 * ghosts)
    comm = d2h + mpi + h2d + 2 * m.launch
    out["comm"] = comm
    out["vector"] = comm + t_diag + t_offd
    out["task"] = d2h + max(t_diag, mpi) + h2d + 2 * m.launch + t_offd
    out["side"] = max(t_diag, comm) + t_offd
    peer = m.halo_peer(8.0 * ghosts)
    if peer is not None:
        out["peer_comm"] = peer + 2 * m.launch
        out["peer_vector"] = out["peer_comm"] + t_diag + t_offd
        out["peer_task"] = max(t_diag, out["peer_comm"]) + t_offd
    return out


# ---- the benchmark's rows ----------------------------------------------------------------------

def number(text):
    text = (text or "").strip()
    if text in ("", "-"):
        return None
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_results(paths):
    """Rows keyed (series, mode, type, layout, ranks); a later row replaces an earlier one. The
    one-rank row of a series serves every layout."""
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            for rec in csv.DictReader(f):
                name = rec["matrix"].strip()
                mode = "vector" if name.endswith(VECTOR_SUFFIX) else "task"
                series = name[:-len(VECTOR_SUFFIX)] if mode == "vector" else name
                r = {k: number(rec.get(k)) for k in ("rows", "nnz", "median_ms", "nnz_max_rank", "offdiag_share",
                                                     "ghosts_max", "diag_ms", "offd_ms", "scatter_ms", "ksp_ms_per_it")}
                if r["median_ms"] is None or r["rows"] is None or r["nnz"] is None:
                    continue
                ranks = int(number(rec.get("ranks")) or 1)
                layout = (rec.get("layout") or "rows").strip() or "rows"
                r.update(series=series, mode=mode, type=rec["type"].strip(), ranks=ranks, layout=layout)
                rows[(series, mode, r["type"], layout, ranks)] = r
    return rows


def baseline(rows, series, typ):
    """The one-rank row of a series and type: task mode (one rank has no halo), any layout; a
    "<name>@gpuaware" series is served by <name>'s."""
    for name in dict.fromkeys((series, series.split("@", 1)[0])):
        for mode in ("task", "vector"):
            for (s, md, t, layout, p), r in rows.items():
                if s == name and md == mode and t == typ and p == 1:
                    return r
    return None


def efficiency(r1, t1, rp, tp):
    """(nnz_P / (P T_P)) / (nnz_1 / T_1)."""
    return (rp["nnz"] / (rp["ranks"] * tp)) / (r1["nnz"] / t1)


def fmt(v, spec, missing="-"):
    return missing if v is None else format(v, spec)


PETSC_ORDER_TYPES = ("aijcusparse", "sellcuda", "aij", "mpiaij", "seqaij", "aijkokkos")


def side_stream(typ, ours):
    """Whether a type's task-mode product is predicted with the side stream: ours (not a PETSc type)
    when the runs had it (ours == "side")."""
    root = typ.split(":", 1)[0]
    return ours == "side" and root not in PETSC_ORDER_TYPES


def evaluate(rows, m, alpha_mode="fit", ours="side"):
    """The report's lines (markdown) and the numbers behind them: {(series, mode, type, layout):
    [(P, measured ms, predicted ms of the run's mode, E measured, E predicted, dict), ...]}."""
    lines = ["# Scaling model (Kreutzer et al. 2012, equations 2-4, section 3)", ""]
    ratio = m.b_gpu / m.b_pci
    lines += [f"B_GPU {m.b_gpu / 1e9:.0f} GB/s (device copy, read + written), B_PCI {m.b_pci / 1e9:.1f} GB/s "
              f"(pinned host <-> device), B_GPU / B_PCI = {ratio:.1f}; peer copies "
              f"{fmt(m.b_peer and m.b_peer / 1e9, '.1f')} GB/s; host staging: {m.staging}; a kernel's fixed cost "
              f"L = {m.launch * 1e6:.1f} us.", "",
              "Equation (3), PCIe costs 50 % or more of the product (x and y cross PCIe at every product) up to "
              f"N_nzr = {nnzr_upper_bound(ratio):.1f} (alpha = 1/N_nzr) or {nnzr_upper_bound(ratio, 1.0):.1f} (alpha = 1); "
              f"equation (4), it costs 10 % or less from N_nzr = {nnzr_lower_bound(ratio):.1f} (alpha = 1/N_nzr) or "
              f"{nnzr_lower_bound(ratio, 1.0):.1f} (alpha = 1) on. With the vectors kept on the GPU (PETSc's CUDA "
              "vectors) only the halo crosses: the table below.", ""]
    series_types = sorted({(s, md, t, layout) for (s, md, t, layout, p) in rows})
    done_series = set()
    results = {}
    for s, md, t, layout in series_types:
        r1 = baseline(rows, s, t)
        if not r1:
            continue
        ps = sorted(p for (s2, md2, t2, l2, p) in rows if (s2, md2, t2, l2) == (s, md, t, layout) and p > 1)
        if not ps:
            continue
        n1, nnz1 = r1["rows"], r1["nnz"]
        nnzr = nnz1 / n1
        t1 = r1["median_ms"] * 1e-3
        if alpha_mode == "fit":  # (2) plus a kernel's fixed cost gives the measured one-rank time
            alpha = alpha_fit(t1 - m.launch, n1, nnzr, m.b_gpu)
        elif alpha_mode == "min":
            alpha = 1.0 / nnzr
        elif alpha_mode == "max":
            alpha = 1.0
        else:
            alpha = float(alpha_mode)
        if s not in done_series:
            done_series.add(s)
            lines += [f"## {s}", "",
                      f"{n1:.0f} rows, {nnz1:.0f} nonzeros at 1 rank (N_nzr {nnzr:.1f}); on one GPU equation (2) gives "
                      f"T_PCI = {t_pci(n1, m.b_pci) * 1e3:.3f} ms against T_MVM = {t_mvm(n1, nnzr, 1.0 / nnzr, m.b_gpu) * 1e3:.3f} ms "
                      f"(alpha = 1/N_nzr) .. {t_mvm(n1, nnzr, 1.0, m.b_gpu) * 1e3:.3f} ms (alpha = 1).", ""]
        pred1 = predict_rank(m, alpha, n1, 1, nnz1, 0.0, 0.0)
        side = md == "task" and side_stream(t, ours)
        lines += [f"### {s}, {t}, layout {layout}, {md} mode{'' if md == 'task' else ' (-mat_gpumat_overlap 0)'}"
                  f"{', side stream' if side else ''}"
                  f"{', device buffers in MPI (predicted: the peer halo)' if s.endswith(GPUAWARE_SUFFIX) else ''}", "",
                  f"alpha {alpha:.3f} ({alpha_mode}; 1/N_nzr = {1.0 / nnzr:.3f}); one rank: measured {t1 * 1e3:.4f} ms, "
                  f"(2) gives {pred1['task'] * 1e3:.4f} ms (with L).", "",
                  "| P | nnz max rank | ghosts max | measured ms | predicted ms (this mode) | task / vector (staged) | "
                  "task / vector (peer) | halo pred / scatter_ms | diag pred / diag_ms | E measured | E predicted |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        out = []
        for p in ps:
            rp = rows[(s, md, t, layout, p)]
            nnz_p = rp["nnz_max_rank"] if rp["nnz_max_rank"] else rp["nnz"] / p
            pr = predict_rank(m, alpha, rp["rows"], p, nnz_p, rp["offdiag_share"] or 0.0, rp["ghosts_max"] or 0.0)
            tp = rp["median_ms"] * 1e-3
            peer_run = s.endswith(GPUAWARE_SUFFIX)  # device buffers in MPI: the peer halo's prediction
            mine = pr.get(f"peer_{md}", pr[md]) if peer_run else pr["side" if side else md]
            # the one-rank reference of the prediction is (2)'s own one-rank time (equal to the
            # measured one when alpha is fitted and L is small)
            e_meas = efficiency(r1, t1, rp, tp)
            e_pred = efficiency(r1, pred1["task"], rp, mine)
            out.append((p, tp * 1e3, mine * 1e3, e_meas, e_pred, pr))
            peer = (f"{pr['peer_task'] * 1e3:.4f} / {pr['peer_vector'] * 1e3:.4f}" if "peer_task" in pr else "-")
            lines.append(f"| {p} | {nnz_p:.0f} | {fmt(rp['ghosts_max'], '.0f')} | {tp * 1e3:.4f} | {mine * 1e3:.4f} | "
                         f"{pr['task'] * 1e3:.4f} / {pr['vector'] * 1e3:.4f} | {peer} | "
                         f"{pr['peer_comm' if peer_run and 'peer_comm' in pr else 'comm'] * 1e3:.4f} / {fmt(rp['scatter_ms'], '.4f')} | {pr['diag'] * 1e3:.4f} / "
                         f"{fmt(rp['diag_ms'], '.4f')} | {e_meas:.3f} | {e_pred:.3f} |")
        lines.append("")
        results[(s, md, t, layout)] = out
    if not results:
        lines.append("No (matrix, type) with rows on 1 and on more ranks in the CSV files.")
    return lines, results


# ---- self-test -----------------------------------------------------------------------------------

def write_links(path, b_copy_gbs, pci_gbs, pageable_gbs, h2h_gbs, p2p_gbs, latency_us):
    """A link_bandwidth CSV of constant rates with a fixed latency (t = latency + bytes / rate)."""
    with open(path, "w") as f:
        f.write("# link_bandwidth: synthetic\n# device 0: none\n")
        f.write("test,src,dst,bytes,reps,median_us,min_us,gbs,peer\n")
        b = 1024
        while b <= 256 << 20:
            for test, rate, src, dst in (("h2d_pinned", pci_gbs, "host", "0"), ("d2h_pinned", pci_gbs, "0", "host"),
                                         ("h2d_pageable", pageable_gbs, "host", "0"), ("d2h_pageable", pageable_gbs, "0", "host"),
                                         ("d2d", b_copy_gbs, "0", "0"), ("h2h", h2h_gbs, "host", "host"),
                                         ("p2p", p2p_gbs, "0", "1"), ("p2p", p2p_gbs, "1", "0")):
                us = latency_us + b / (rate * 1e9) * 1e6
                f.write(f"{test},{src},{dst},{b},5,{us:.6f},{us:.6f},{b / (us * 1e-6) / 1e9:.4f},1\n")
            b *= 2


def selftest():
    # the paper's own numbers (section 2.2): alpha = 1/N_nzr and B_GPU ~ 20 B_PCI give N_nzr <= 25;
    # alpha = 1 and B_GPU ~ 10 B_PCI give N_nzr <= 7 and, for (4), N_nzr >~ 80; the worst case of (4)
    # (alpha = 1/N_nzr, B_GPU ~ 20 B_PCI) N_nzr >~ 266 (the paper rounds alpha ~ 0 up)
    assert abs(nnzr_upper_bound(20.0) - 24.67) < 0.01 and round(nnzr_upper_bound(20.0)) == 25
    assert abs(nnzr_upper_bound(10.0, 1.0) - 7.2) < 1e-9
    assert abs(nnzr_lower_bound(10.0, 1.0) - 79.2) < 1e-9
    assert 264 < nnzr_lower_bound(20.0) < 266 and abs(nnzr_lower_bound(20.0, 0.0) - 265.33) < 0.01
    # (3) is where T_MVM = T_PCI, (4) where T_MVM = 10 T_PCI, for any B_GPU and B_PCI
    for alpha in (0.2, 1.0):
        n, b_gpu, b_pci = 1e6, 3e12, 50e9
        up = nnzr_upper_bound(b_gpu / b_pci, alpha)
        assert abs(t_mvm(n, up, alpha, b_gpu) - t_pci(n, b_pci)) < 1e-12 * t_pci(n, b_pci) * 1e3
        lo = nnzr_lower_bound(b_gpu / b_pci, alpha)
        assert abs(t_mvm(n, lo, alpha, b_gpu) - 10 * t_pci(n, b_pci)) < 1e-9
    assert abs(alpha_fit(t_mvm(2e6, 7.0, 0.37, 3e12), 2e6, 7.0, 3e12) - 0.37) < 1e-12

    with tempfile.TemporaryDirectory() as d:
        links_path = os.path.join(d, "links.csv")
        # copy 1500 GB/s one way (3000 read + written), pinned 50, pageable 20, host 10, peer 200 GB/s,
        # 10 us latency everywhere
        write_links(links_path, 1500.0, 50.0, 20.0, 10.0, 200.0, 10.0)
        links = Links(links_path)
        # the interpolation is exact at measured sizes and between them log-log
        assert abs(links.time_us("h2h", 4096) - (10 + 4096 / 10e9 * 1e6)) < 1e-9
        t_a, t_b = links.time_us("h2h", 4096), links.time_us("h2h", 8192)
        assert t_a < links.time_us("h2h", 6000) < t_b
        assert links.time_us("h2h", 100) == links.time_us("h2h", 1024)            # latency floor
        big = links.curve("h2h")[-1]
        assert abs(links.time_us("h2h", 2 * big[0]) - 2 * big[1]) < 1e-9        # the largest's rate
        m = Machine(links, "pageable", launch_us=5.0)
        assert abs(m.b_gpu / (2 * (256 << 20) / ((10 + (256 << 20) / 1500e9 * 1e6) * 1e-6)) - 1) < 1e-6
        assert abs(m.b_pci / 1e9 - 50.0) < 0.1

        # synthetic benchmark rows from the model itself with alpha 0.4: the model gives them back,
        # measured E equals predicted E; a vector-mode series is predicted as vector mode
        rows_, nnz_, alpha = 8e6, 56e6, 0.4
        res_path = os.path.join(d, "results.csv")
        head = ["matrix", "type", "rows", "cols", "nnz", "median_ms", "ranks", "layout", "nnz_min_rank", "nnz_max_rank",
                "offdiag_share", "ghosts_max", "diag_ms", "offd_ms", "scatter_ms"]
        truth = {}
        with open(res_path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(head)
            for name, mode in (("lap3d", "task"), ("lap3d@vector", "vector")):
                for p in (1, 2, 4):
                    nnz_p = nnz_ / p * (1.02 if p > 1 else 1.0)
                    share, ghosts = (0.0, 0) if p == 1 else (0.02 * p / 2, 40000 * p)
                    pr = predict_rank(m, alpha, rows_, p, nnz_p, share, ghosts)
                    truth[(mode, p)] = pr
                    t = pr["side" if mode == "task" else mode]  # csrspec: ours, the side stream
                    w.writerow([name, "csrspec", int(rows_), int(rows_), int(nnz_), t * 1e3, p, "rows", int(nnz_p * 0.98),
                                int(nnz_p), share, ghosts, pr["diag"] * 1e3, pr["offd"] * 1e3, pr["comm"] * 1e3])
            # a weak-scaling series: the matrix grows with P, each rank keeps 10M nonzeros
            for p in (1, 2):
                nnz_p, rows_p = 10e6, 1.4e6 * p
                pr = predict_rank(m, alpha, rows_p, p, nnz_p, 0.0 if p == 1 else 0.01, 0 if p == 1 else 20000)
                w.writerow(["weak_fem3", "pjds", int(rows_p), int(rows_p), int(nnz_p * p), pr["side"] * 1e3, p, "rows",
                            int(nnz_p), int(nnz_p), 0.0 if p == 1 else 0.01, 0 if p == 1 else 20000, "", "", ""])
            # device buffers in MPI: rows at P > 1 only, made from the peer prediction (lap3d's one rank serves)
            for p in (2, 4):
                nnz_p = nnz_ / p * 1.02
                share, ghosts = 0.02 * p / 2, 40000 * p
                pr = predict_rank(m, alpha, rows_, p, nnz_p, share, ghosts)
                w.writerow(["lap3d@gpuaware", "csrspec", int(rows_), int(rows_), int(nnz_), pr["peer_task"] * 1e3, p, "rows",
                            int(nnz_p * 0.98), int(nnz_p), share, ghosts, "", "", ""])
            w.writerow(["lonely", "csrspec", 100, 100, 500, 0.01, 1, "rows", 500, 500, 0, 0, "", "", ""])  # no P > 1
        rows = read_results([res_path])
        assert ("lap3d", "vector", "csrspec", "rows", 2) in rows and ("lap3d", "task", "csrspec", "rows", 1) in rows
        lines, results = evaluate(rows, m, "fit")
        text = "\n".join(lines)
        for mode in ("task", "vector"):
            out = results[("lap3d", mode, "csrspec", "rows")]
            assert [o[0] for o in out] == [2, 4]
            for p, meas, pred, e_meas, e_pred, pr in out:
                assert abs(pred / meas - 1) < 1e-9, (mode, p, pred, meas)   # alpha 0.4 recovered
                assert abs(e_pred / e_meas - 1) < 1e-9
        aware = results[("lap3d@gpuaware", "task", "csrspec", "rows")]
        assert [o[0] for o in aware] == [2, 4], aware
        for p, meas, pred, e_meas, e_pred, pr in aware:  # predicted with the peer halo, from lap3d's one rank
            assert abs(pred / meas - 1) < 1e-9 and abs(e_pred / e_meas - 1) < 1e-9, (p, pred, meas)
        assert "device buffers in MPI (predicted: the peer halo)" in text
        # the vector mode is slower than the task mode by what the overlap hides: min(T_diag, t_mpi)
        pr2 = results[("lap3d", "task", "csrspec", "rows")][0][5]
        t_mpi = m.halo_staged(8.0 * 80000)[1]
        assert abs(pr2["vector"] - pr2["task"] - min(pr2["diag"], t_mpi)) < 1e-15
        assert pr2["peer_task"] < pr2["task"], "peer copies at 200 GB/s beat host staging at 20 GB/s"
        # the side stream hides the whole halo behind the diagonal block, PETSc's order only its MPI part
        assert abs(pr2["side"] - (max(pr2["diag"], pr2["comm"]) + pr2["offd"])) < 1e-15 and pr2["side"] <= pr2["task"]
        assert "lap3d, csrspec, layout rows, task mode, side stream" in text
        _, petsc = evaluate(rows, m, "fit", "petsc")  # --ours petsc: the same rows predicted in PETSc's order
        for p, meas, pred, e_meas, e_pred, pr in petsc[("lap3d", "task", "csrspec", "rows")]:
            assert abs(pred - pr["task"] * 1e3) < 1e-12 and pred >= meas  # equal where the halo outlasts the block
        assert not side_stream("aijcusparse:alg1", "side") and side_stream("bccoo", "side") and not side_stream("bccoo", "petsc")
        assert "alpha 0.400 (fit" in text
        # weak scaling: same nonzeros per rank; E = (nnz_P / (P T_P)) / (nnz_1 / T_1)
        weak = results[("weak_fem3", "task", "pjds", "rows")]
        assert len(weak) == 1 and abs(weak[0][3] - weak[0][4]) < 1e-9 and 0.5 < weak[0][3] < 1.0
        assert "lonely" not in text, "a matrix on one rank only has no scaling table"
        assert "## lap3d" in text and "### lap3d, csrspec, layout rows, vector mode (-mat_gpumat_overlap 0)" in text
        # alpha min / max / a number run too
        for a in ("min", "max", "0.5"):
            evaluate(rows, m, a)
        # the command line end to end
        md = os.path.join(d, "model.md")
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
            main([res_path, "--links", links_path, "--markdown", md])
        with open(md) as f:
            assert f.read().startswith("# Scaling model")
    print("scaling_model.py self-test passed: equations (3)/(4) reproduce the paper's bounds, the link "
          "interpolation, the halo model's modes and the efficiency on synthetic strong and weak series")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="*", help="bench_matmult CSV files (rows on 1 and P ranks)")
    p.add_argument("--links", help="bench/link_bandwidth's CSV")
    p.add_argument("--staging", choices=("pageable", "pinned"), default="pageable",
                   help="the host buffers of the staged halo (PETSc's: pageable)")
    p.add_argument("--alpha", default="fit", help="fit (default), min (1/N_nzr), max (1) or a number")
    p.add_argument("--launch-us", type=float, help="a kernel's fixed cost in us (default: the device copy's at the smallest size)")
    p.add_argument("--ours", choices=("side", "petsc"), default="side",
                   help="the order of our MPI types' product in the runs: side (-mat_gpumat_side_stream 1, the default) "
                        "or petsc (the option off, or runs made before it)")
    p.add_argument("--markdown", help="write the report to this file too")
    p.add_argument("--selftest", action="store_true", help="synthetic inputs with known answers")
    args = p.parse_args(argv)
    if args.selftest:
        selftest()
        return
    if not args.csv or not args.links:
        p.error("give bench_matmult CSV files and --links")
    if args.alpha not in ("fit", "min", "max"):
        try:
            float(args.alpha)
        except ValueError:
            p.error(f"--alpha must be fit, min, max or a number, not '{args.alpha}'")
    m = Machine(Links(args.links), args.staging, args.launch_us)
    lines, _ = evaluate(read_results(args.csv), m, args.alpha, args.ours)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
