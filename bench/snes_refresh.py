#!/usr/bin/env python3
"""The SNES re-assembly table: what each matrix type pays per Newton step to bring the
re-assembled Jacobian's values to the GPU, from the -log_view files of examples/bratu.

    python3 bench/snes_refresh.py FILE... [--markdown OUT.md]

Each FILE is the output of one `examples/bratu -dm_mat_type T -dm_vec_type cuda ... -log_view -log_view_gpu_time` run
(a CUDA PETSc prints no event times without -log_view_gpu_time: such a file is refused)
(conf/device.sh's snes step names them snes-<type>-np<ranks>.txt). Read per file: bratu's summary
line (the Jacobian's type, Newton steps, linear iterations, SNESSolve seconds) and the events
SNESJacobianEval, KSPSolve, MatMult, aijcusparse's MatCUSPARSCopyTo (its host-to-device copies of the
matrix: the pattern once, the values after every re-assembly) and our types' <Format>Build and
<Format>Refresh (the format built once per pattern, refreshed with new values only). Counts and
times are the maximum over ranks (-log_view's "Max" columns). The upload per Newton step is the
events' total time over the Newton steps; the last column divides it by aijcusparse's at the same
rank count."""
import argparse
import re
import sys

SUMMARY = re.compile(r"^bratu: Jacobian (\S+), (\d+) Newton steps, (\d+) linear iterations, SNESSolve ([0-9.eE+-]+) s")
EVENT = re.compile(r"^(\S+)\s+(\d+)\s+[0-9.]+\s+([0-9.eE+-]+)\s")
# a CUDA PETSc's -log_view without -log_view_gpu_time: no event times ("n/a")
NO_TIME = re.compile(r"^(SNESJacobianEval|MatMult)\s+\d+\s+[0-9.]+\s+n/a\s")


def parse(path):
    info = {"file": path, "events": {}}
    with open(path, errors="replace") as f:
        for line in f:
            m = SUMMARY.match(line)
            if m:
                info.update(mat=m.group(1), newton=int(m.group(2)), its=int(m.group(3)), solve=float(m.group(4)))
                continue
            if NO_TIME.match(line):
                sys.exit(f"snes_refresh.py: {path}: -log_view has no event times (n/a): with a CUDA PETSc run bratu with -log_view -log_view_gpu_time")
            m = EVENT.match(line)
            if m and m.group(1) not in info["events"]:
                info["events"][m.group(1)] = (int(m.group(2)), float(m.group(3)))
    m = re.search(r"-np(\d+)", path)
    info["ranks"] = int(m.group(1)) if m else 1
    return info


def upload(info):
    """(builds, build s, refreshes, refresh s) of the Jacobian's GPU copy."""
    ev = info["events"]
    if "MatCUSPARSCopyTo" in ev and not any(k.endswith("Refresh") for k in ev):
        n, t = ev["MatCUSPARSCopyTo"]
        return None, None, n, t
    b = [v for k, v in ev.items() if k.endswith("Build") and k != "PCBuild"]
    r = [v for k, v in ev.items() if k.endswith("Refresh")]
    return sum(x[0] for x in b), sum(x[1] for x in b), sum(x[0] for x in r), sum(x[1] for x in r)


def table(infos):
    rows = ["| type (Jacobian) | ranks | Newton steps | linear its | SNESSolve s | Jacobian assembly s | builds: count, ms | refreshes or copies: count, ms | upload per Newton step, ms | against aijcusparse |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    base = {}
    for i in infos:
        if "mat" in i and "cusparse" in i["mat"] and "MatCUSPARSCopyTo" in i["events"]:
            _, _, _, t = upload(i)
            base[i["ranks"]] = t / max(1, i["newton"])
    for i in sorted(infos, key=lambda i: (i["ranks"], "cusparse" not in i.get("mat", ""), i.get("mat", ""))):
        if "mat" not in i:
            rows.append(f"| {i['file']} | {i['ranks']} | failed: no bratu summary line | | | | | | | |")
            continue
        nb, tb, nr, tr = upload(i)
        per = ((tb or 0) + tr) / max(1, i["newton"]) * 1e3
        jac = i["events"].get("SNESJacobianEval", (0, 0.0))[1]
        rel = f"{per / (base[i['ranks']] * 1e3):.2f}" if base.get(i["ranks"]) else "-"
        builds = "-" if nb is None else f"{nb}, {tb * 1e3:.2f}"
        rows.append(f"| {i['mat']} | {i['ranks']} | {i['newton']} | {i['its']} | {i['solve']:.3f} | {jac:.3f} | {builds} | {nr}, {tr * 1e3:.2f} | {per:.3f} | {rel} |")
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+")
    p.add_argument("--markdown")
    a = p.parse_args(argv)
    rows = table([parse(f) for f in a.files])
    text = "\n".join(rows) + "\n"
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
