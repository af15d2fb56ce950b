"""The page and the markdown report.py writes: tables as markdown and HTML, numbers a person reads at a
glance, the comparison's markdown as HTML, a report.md that fits a GitHub comment, the page's style and the
check a browser test reads back."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from membench import cli


def quantity(value: float, unit: str) -> str:
    """A number a person reads at a glance: a readable prefix, three or four digits, never an exponent."""
    factor, prefix = cli.prefix(value)
    scaled = value / factor
    digits = f"{scaled:,.0f}" if abs(scaled) >= 100 else f"{scaled:.3g}"
    return f"{digits} {prefix}{unit}" if unit.startswith("B") or not prefix else f"{digits} {prefix} {unit}"


def duration(ns: float) -> str:
    """A time a person reads at a glance, from nanoseconds: 16.5 ns, 133 us, 1.20 ms, 2.5 s."""
    for factor, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if abs(ns) >= factor:
            return f"{ns / factor:.3g} {unit}"
    return f"{ns:.3g} ns"


def md_text(text: str) -> str:
    """Text from a file, safe in markdown that a page renders: no raw HTML (a GPU name may hold anything)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def readable(cell: str) -> str:
    """A number a script wrote in an exponent's notation (4.013e+12), with a prefix instead (4.01 T)."""
    try:
        return quantity(float(cell), "").strip() if "e+" in cell or "e-" in cell else cell
    except ValueError:
        return cell


def slug(text: str) -> str:
    """A heading as an HTML id: its letters and digits, lower case, joined by hyphens."""
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def md_to_html(text: str) -> str:
    """compare.py's and fleet.py's markdown as HTML: its tables as tables, its lists as lists, its other lines
    as paragraphs."""
    out, table, items = [], [], []

    def flush() -> None:
        if items:
            out.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>")
            items.clear()
        if table:
            cells = [[readable(c.strip()) for c in line.strip().strip("|").split(" | ")] for line in table]
            rows = [r for r in cells[1:] if not all(set(c) <= set("-: ") for c in r)]
            out.append(Table("", cells[0], rows).html())
            table.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        if line.startswith("- "):
            items.append(line[2:])
            continue
        flush()
        if line.startswith("## "):
            # The first heading is the one the page's contents link to.
            anchor = "others" if not any(o.startswith("<h2") for o in out) else slug(line[3:])
            out.append(f'<h2 id="{anchor}">{html.escape(line[3:])}</h2>')
        elif line.startswith("### "):
            out.append(f"<h3>{html.escape(line[4:])}</h3>")
        elif line.strip():
            out.append(f"<p>{html.escape(line)}</p>")
    flush()
    return "\n".join(out)


# A GitHub comment holds 65,536 characters: report.md keeps under it, cutting the comparison's rows.
MD_LIMIT = 65_000


def fit(md: str, limit: int = MD_LIMIT) -> str:
    """The markdown, its last table rows cut (and said so) where it is over the limit."""
    if len(md) <= limit:
        return md
    lines = md.splitlines()
    cut = 0
    while len("\n".join(lines)) > limit - 200 and any(line.startswith("| ") for line in lines[-50:]):
        last = max(k for k, line in enumerate(lines) if line.startswith("| "))
        del lines[last]
        cut += 1
    return (
        "\n".join(lines) + f"\n\n({cut} table rows left out: a GitHub comment holds 65,536 characters; "
        "report.html has them all.)\n"
    )


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""

    def markdown(self) -> str:
        def row(cells: list[str]) -> str:
            return "| " + " | ".join(md_text(c).replace("|", "\\|") for c in cells) + " |"

        lines = ([f"### {md_text(self.title)}", ""] if self.title else []) + [
            row(self.header),
            row(["---"] * len(self.header)),
        ]
        lines += [row(r) for r in self.rows]
        return "\n".join(lines + ([""] + [md_text(self.note)] if self.note else []))

    def html(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.header)
        # A case's name may break after any slash, so a wide table fits the page rather than scroll.
        body = "".join(
            "<tr>"
            + "".join(
                f"<td>{html.escape(c).replace('/', '/<wbr>') if k == 0 else html.escape(c)}</td>"
                for k, c in enumerate(row)
            )
            + "</tr>"
            for row in self.rows
        )
        note = f"<p>{html.escape(self.note)}</p>" if self.note else ""
        title = f"<h3>{html.escape(self.title)}</h3>" if self.title else ""
        return f"{title}<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"


STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;display:block;overflow-x:auto;max-width:100%}
td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}
th{background:#f3f3f3}td:nth-child(n+2){font-variant-numeric:tabular-nums}img{max-width:100%;border:1px solid #eee}
pre{background:#f7f7f7;padding:.5em;overflow-x:auto}"""


# Once the page has loaded, it records on its root element how many figures
# it holds and how many a browser drew (a test reads both back).
CHECK = """window.addEventListener("load", function () {
  var all = Array.prototype.slice.call(document.images);
  var drawn = all.filter(function (i) { return i.complete && i.naturalWidth > 0; });
  document.documentElement.setAttribute("data-figures", String(all.length));
  document.documentElement.setAttribute("data-figures-drawn", String(drawn.length));
});"""
