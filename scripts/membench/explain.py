"""membench-explain: your kernel on this GPU. Reads an Nsight Compute report of your kernels and says, for each
launch, where it stands against this GPU's measured ceilings, what its accesses look like (sectors a request,
bank conflicts, hit rates), which membench case has the same access and what that case and its fixed twin
measure here, and what fixing each anomaly is predicted to be worth.

    ncu --set full -o app ./app
    membench-explain app.ncu-rep                       # ceilings: the reference built in for the report's GPU
    membench-explain app.ncu-rep --results run.json    # ... from a membench run of the same GPU model
    membench-explain app.ncu-rep --measure             # ... measured now, on this machine's GPU (seconds)
    membench-explain app.csv --format md               # a CSV export (ncu --import app.ncu-rep --csv --page raw)
    membench-explain a.ncu-rep b.ncu-rep --measure     # several reports, one set of ceilings

--format text (default), md (for a pull request) or json (for a CI job); --plot FILE.png draws the roofline with
the kernels as points. The model and what it leaves out: membench/explain_model.py; the path from a profile to
an answer: docs/explain.md.

Exit status: 0 explained; 2 refused, in one line: a report of another GPU model than the ceilings (unless
--allow-other-gpu), a report without the metrics explain reads (the line names the ncu --section flags that
collect them), an ncu that cannot be run, a CSV that cannot be read, no ceilings for the report's GPU.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from membench import ceilings as mc
from membench import cli
from membench import explain_show as show
from membench import results as mr
from membench.explain_model import Placement, place
from membench.ncu_kernel import Kernel, kernel
from membench.ncu_profile import parse_csv


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="membench-explain", description=__doc__.split("\n\n")[0])
    p.add_argument("reports", nargs="+", help="Nsight Compute reports (.ncu-rep) or their raw pages as CSV")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--results", help="a membench result file of the same GPU model: its measured ceilings")
    where.add_argument("--measure", action="store_true", help="measure the ceilings now, on this machine's GPU")
    p.add_argument("--membench", help="with --measure: the binary (default $MEMBENCH_EXE, else build/release/membench)")
    p.add_argument("--device", type=int, help="with --measure: the GPU ordinal to measure on")
    p.add_argument("--save-run", help="with --measure: keep the run's result file here, for --results next time")
    p.add_argument("--ncu", default="ncu", help="Nsight Compute's command line, to read a .ncu-rep (default ncu)")
    p.add_argument("--format", choices=["text", "md", "json"], default="text")
    p.add_argument("--out", help="write the answer to this file instead of standard output")
    p.add_argument("--plot", help="draw the roofline with the kernels as points into this PNG")
    p.add_argument("--allow-other-gpu", action="store_true", help="place a report against another model's ceilings")
    return p


def read_report(path: str, ncu: str) -> list[dict]:
    """The report's rows: a CSV read as it is, a .ncu-rep exported through ncu."""
    if path.endswith(".ncu-rep"):
        if not Path(path).is_file():
            raise mr.InputError(f"{path}: no such report")
        exe = shutil.which(ncu)
        if exe is None:
            raise mr.InputError(
                f"{path}: reading a .ncu-rep needs Nsight Compute ('{ncu}' not found): pass --ncu, or the CSV "
                f"`ncu --import {path} --csv --page raw` writes"
            )
        try:
            done = subprocess.run(
                [exe, "--import", path, "--csv", "--page", "raw", "--print-units", "base"],
                capture_output=True,
                text=True,
                timeout=600,
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            raise mr.InputError(f"{exe}: cannot run it ({e})") from e
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise mr.InputError(f"{path}: ncu --import exited {done.returncode}: {tail[0]}")
        text = done.stdout
    else:
        text = mr.read_input(path)
    rows = parse_csv(text)
    if not rows:
        raise mr.InputError(f"{path}: the report holds no kernel launch")
    return rows


def load_kernels(reports: list[str], ncu: str) -> list[Kernel]:
    """Every launch of the reports, each named by its report and ncu's ID."""
    kernels = []
    for report in reports:
        for i, row in enumerate(read_report(report, ncu)):
            k = kernel(row, i)
            k.launch = f"{Path(report).name} #{k.launch}"
            kernels.append(k)
    return kernels


def placed(kernels: list[Kernel], ceilings: mc.Ceilings, allow_other_gpu: bool = False) -> list[Placement]:
    """The kernels under the ceilings; InputError for a kernel of another GPU model, unless allowed."""
    other = sorted({k.gpu for k in kernels if k.gpu != ceilings.gpu})
    if other and not allow_other_gpu:
        raise mr.InputError(
            f"the report is of {', '.join(g or 'an unnamed GPU' for g in other)}, the ceilings of {ceilings.gpu}"
            " (--allow-other-gpu places it anyway)"
        )
    return [place(k, ceilings) for k in kernels]


def ceilings_for(args, gpu: str) -> mc.Ceilings:
    if args.results:
        return mc.from_results(mr.load(args.results), args.results)
    if args.measure:
        return mc.measure(args.membench, args.device, args.save_run)
    found = mc.reference_for(gpu)
    if found is None:
        raise mr.InputError(
            f"no reference is built in for {gpu or 'the report GPU'}: pass --results (a membench run on this "
            "GPU model) or --measure"
        )
    return found


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        if (args.membench or args.device is not None or args.save_run) and not args.measure:
            raise mr.InputError("--membench, --device and --save-run go with --measure")
        if args.plot and not args.plot.endswith(".png"):
            raise mr.InputError(f"--plot {args.plot}: the figure is a .png")
        kernels = load_kernels(args.reports, args.ncu)
        gpus = sorted({k.gpu for k in kernels})
        ceilings = ceilings_for(args, gpus[0] if len(gpus) == 1 else "")
        placements = placed(kernels, ceilings, args.allow_other_gpu)
        answer = show.render(placements, ceilings, args.format)
        if args.out:
            cli.replace_file(Path(args.out), answer)
        else:
            sys.stdout.write(answer)
        if args.plot:
            show.figure(placements, ceilings, args.plot)
    except (mr.InputError, OSError) as e:
        return cli.refused("membench-explain", e)
    except ModuleNotFoundError as e:
        cli.missing_package("membench-explain", e)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
