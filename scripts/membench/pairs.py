"""Every pair of GPUs of a node: the cases that name the GPU they reached (the `peer_device` counter) as
matrices, one a case, a row for the GPU that ran it and a column for the GPU it reached. A slow link is the one
cell that stands out, as in nvbandwidth's matrices.

The cases come from one process that ran every GPU (`--device=all`, cases tagged device:K) or from a process a
GPU on one host (`--device=local`); `membench --device=all --sweep=sweeps/pairs.json` fills every cell."""

from __future__ import annotations

from dataclasses import dataclass, field

from membench import declarations as md
from membench import results as mr
from membench.report_page import Table, quantity

PEER = "peer_device"  # the model counter: the ordinal of the GPU a case reached


@dataclass
class Matrix:
    case: str  # the case's name without its device and the axes that pick its peer: the same in every cell
    host: str
    ordinals: list[int]  # the host's GPUs, the rows and the columns
    cells: dict[tuple[int, int], float] = field(default_factory=dict)  # (ran on, reached) -> the metric

    def table(self, unit: str) -> Table:
        """The matrix as a table: a row the GPU that ran the case, a column the GPU it reached."""
        rows = []
        for here in self.ordinals:
            row = [f"device {here}"]
            for there in self.ordinals:
                if here == there:
                    row.append("·")
                elif (here, there) in self.cells:
                    row.append(quantity(self.cells[here, there], unit))
                else:
                    row.append("-")
            rows.append(row)
        return Table(
            f"{self.case} on {self.host}",
            ["ran on ↓, reached →", *(f"device {k}" for k in self.ordinals)],
            rows,
            "A row the GPU that ran the case, a column the GPU whose memory it reached; - where no case of the "
            "files reached it (skipped, failed, or not run).",
        )


def matrices(docs: list[tuple[str, dict]], metric: str) -> list[Matrix]:
    """The pair matrices of the files' cases on `metric`, in the order the cases first appear; only cases that
    name their peer are cells, and a matrix needs two cells or more (one pair is no matrix)."""
    found: dict[tuple[str, str], Matrix] = {}
    for path, doc in docs:
        host = str(doc.get("context", {}).get("host_name", "unknown-host"))
        gpus = sorted(mr.devices(doc, path))
        families = md.families(doc)
        for case in mr.cases(doc).values():
            here = case.params.get("device", gpus[0])
            peer = families[case.family].peer_axes() if case.family in families else ()
            name = case.name_without("device", *peer, suffix="")
            if case.error or case.skipped:
                continue  # a case that did not run names no peer
            there = case.median(PEER)
            value = case.median(metric)
            if there is None or value is None or not isinstance(here, int):
                continue
            m = found.setdefault((name, host), Matrix(name, host, []))
            m.ordinals = sorted(set(m.ordinals) | set(gpus) | {int(there)})
            m.cells[here, int(there)] = value
    return [m for m in found.values() if len(m.cells) >= 2]


def markdown(docs: list[tuple[str, dict]], metric: str) -> str:
    """The pair matrices as markdown (empty where the files hold none), in the metric's unit from the catalog."""
    found = matrices(docs, metric)
    if not found:
        return ""
    unit = mr.meaning(docs[0][1], metric).unit
    return "## Every pair of GPUs\n\n" + "\n\n".join(m.table(unit).markdown() for m in found) + "\n"
