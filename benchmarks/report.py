"""Presenting results: a terminal table, a Markdown table, an optional plot."""

from __future__ import annotations

import re

CELL_WIDTH = 70  # long error messages are cut here; the full text is listed below the table


def fmt_time(s):
    if s is None:
        return ""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_bytes(n):
    if n is None:
        return ""
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


def rows(results):
    """Flatten [(workload, cells)] into display rows of strings, plus the full notes."""
    out, notes = [], []
    for w, cells in results:
        hand = next((c for c in cells if c.impl == "hand" and c.median), None)
        for k, c in enumerate(cells):
            label = w.title if k == 0 else ""
            if c.error:
                text = c.error
                if len(text) > CELL_WIDTH:
                    notes.append(f"{w.name} / {c.impl}: {text}")
                    text = text[: CELL_WIDTH - 4] + f" [{len(notes)}]"
                out.append([label, c.impl, text, "", "", "", ""])
                continue
            ratio = f"{c.median / hand.median:.2f}x" if hand else ""
            spread = f"{100 * c.spread:.0f}%" if c.spread is not None else ""
            build = "" if c.impl == "hand" or c.build_s is None else f"{1e3 * c.build_s:.1f}"
            mem = fmt_bytes(c.peak_bytes)
            if c.peak_bytes is not None and hand and hand.peak_bytes:
                mem += f" ({c.peak_bytes / hand.peak_bytes:.2f}x)"
            out.append([label, c.impl, fmt_time(c.median), spread, ratio, build, mem])
    if not any(r[6] for r in out):  # no workload measured memory: drop the column
        out = [r[:6] for r in out]
    return out, notes


HEADER = ["workload", "impl", "time/call", "iqr", "vs hand", "build ms", "peak mem (vs hand)"]


def text_table(results):
    body, notes = rows(results)
    header = HEADER[: len(body[0])] if body else HEADER

    def failed(r):  # such a row is label, impl, message
        return r[2].startswith(("error", "n/a"))

    widths = [max(len(r[i]) for r in [header, *body] if i < 2 or not failed(r)) for i in range(len(header))]

    def line(r):
        cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1])]
        cells += [r[2]] if failed(r) else [c.rjust(wd) for c, wd in zip(r[2:], widths[2:])]
        return "  ".join(cells).rstrip()

    text = [line(header), "  ".join("-" * wd for wd in widths)]
    text += [line(r) for r in body]
    text += [f"[{i}] {n}" for i, n in enumerate(notes, 1)]
    return "\n".join(text)


def markdown_table(results):
    body, notes = rows(results)
    header = HEADER[: len(body[0])] if body else HEADER

    def esc(s):
        return s.replace("|", "\\|")

    text = ["| " + " | ".join(header) + " |", "|" + "|".join(["---", "---"] + ["---:"] * (len(header) - 2)) + "|"]
    text += ["| " + " | ".join(esc(c) for c in r) + " |" for r in body]
    if notes:
        text += [""] + [f"{i}. {esc(n)}" for i, n in enumerate(notes, 1)]
    return "\n".join(text)


START, END = "<!-- results:start -->", "<!-- results:end -->"


def rewrite_markdown(path, header, results):
    """Replace the text between the results markers in ``path``."""
    with open(path, encoding="utf-8") as fh:
        doc = fh.read()
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(doc):
        raise SystemExit(f"{path}: markers {START} / {END} not found")
    block = f"{START}\n{header}\n\n{markdown_table(results)}\n{END}"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(pattern.sub(lambda _: block, doc, count=1))


def plot(path, results):
    """Bar chart of time relative to hand-written NumPy (log scale); needs matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("--plot: matplotlib is not installed; skipped")
        return
    # hand is the vertical line at 1; implementations that never ran are left out
    impls = [c.impl for c in results[0][1] if c.impl != "hand"] if results else []
    impls = [n for n in impls if any(c.impl == n and c.median for _, cells in results for c in cells)]
    fig, ax = plt.subplots(figsize=(9, 0.6 + 0.45 * len(results) * len(impls) / 2))
    width = 0.8 / max(1, len(impls))
    for j, name in enumerate(impls):
        ys, xs = [], []
        for k, (w, cells) in enumerate(results):
            hand = next((c for c in cells if c.impl == "hand" and c.median), None)
            cell = next((c for c in cells if c.impl == name), None)
            if hand and cell and cell.median:
                ys.append(k + j * width)
                xs.append(cell.median / hand.median)
        ax.barh(ys, xs, height=width, label=name)
    ax.set_yticks([k + (len(impls) - 1) * width / 2 for k in range(len(results))], [w.title for w, _ in results])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_xlabel("time per gradient call / hand-written NumPy (lower is better)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")
