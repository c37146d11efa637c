#!/usr/bin/env python3
"""Write the report of a Tessera scorecard: Markdown with plots.

usage: scorecard_report.py SCORECARD.json OUT_DIR

SCORECARD.json is the document `tessera main` (or `tessera scorecard --out`) writes: the scorecard
lines (one per kernel family), the steps of the run, every benchmark record and the roofline
measurements.  Writes OUT_DIR/report.md and, when matplotlib is installed, the plots it shows:
  gemm_ratio.png      Tessera's GEMM against its reference, per shape and epilogue
  copy_bandwidth.png  copy GB/s against the buffer size, with cudaMemcpy D2D measured in the same run
  roofline.png/.svg   the roofline (drawn by roofline_plot.py, as `tessera roofline` draws it)
Without matplotlib the report is written without plots and says so.  Every number in the report is
read from SCORECARD.json.  Prints the paths it wrote.
"""
import json
import pathlib
import sys

INSTALL_HINT = "python3 -m pip install matplotlib"


def fig(v):
    """A figure as the scorecard prints it (tools/scorecard.cpp, format_figure)."""
    a = abs(v)
    if a >= 1000 or v == 0:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def cell(text):
    """Text for a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def size_bytes(size):
    """'256 MiB (8192x8192 fp32)' -> 268435456; None for other sizes."""
    parts = size.split()
    if len(parts) < 2:
        return None
    try:
        v = float(parts[0])
    except ValueError:
        return None
    scale = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}.get(parts[1])
    return v * scale if scale else None


def gemm_shape(size):
    """'M=16,N=8192,K=8192' -> '16x8192x8192'; None for other sizes."""
    try:
        dims = dict(p.split("=") for p in size.split(","))
        return f"{int(dims['M'])}x{int(dims['N'])}x{int(dims['K'])}"
    except (ValueError, KeyError):
        return None


# ---- plots -----------------------------------------------------------------------------------

GEMM_CASES = [  # (case, label): the GEMM records against a library reference
    ("bare", "bare vs cuBLAS"),
    ("bias_gelu", "bias+GELU fused vs cuBLASLt GELU_BIAS"),
    ("bias_silu_residual", "bias+SiLU+residual fused vs cuBLAS + epilogue kernel"),
]


def gemm_plot_records(records):
    """Tessera's GEMM records with a reference figure, of the bench's default type (bf16, or no type named): an f16
    run's records (`tessera bench gemm --dtype f16`) beside them would draw each shape twice."""
    return [r for r in records if r["suite"] == "gemm" and r["kernel"] == "tessera" and r["reference_figure"] > 0
            and gemm_shape(r["size"]) and r.get("dtype", "") in ("", "bf16")]


def plot_gemm(plt, records, path):
    recs = gemm_plot_records(records)
    shapes = []
    for r in recs:
        if gemm_shape(r["size"]) not in shapes:
            shapes.append(gemm_shape(r["size"]))
    series = []
    for case, label in GEMM_CASES:
        by_shape = {gemm_shape(r["size"]): r["ratio"] for r in recs if r["variant"] == case}
        if by_shape:
            series.append((label, [by_shape.get(s) for s in shapes]))
    if not series:
        return "no GEMM records"
    fig, ax = plt.subplots(figsize=(max(7, 1.3 * len(shapes) + 3), 4.8))
    width = 0.8 / len(series)
    for i, (label, ratios) in enumerate(series):
        xs = [k + (i - (len(series) - 1) / 2) * width for k in range(len(shapes)) if ratios[k] is not None]
        ys = [v for v in ratios if v is not None]
        bars = ax.bar(xs, ys, width, label=label)
        ax.bar_label(bars, labels=[f"{v:.2f}" for v in ys], fontsize=7, padding=2)
    ax.axhline(1.0, color="#444444", lw=1, ls="--")
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels(shapes, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("Tessera / reference (same run; above 1: Tessera faster)")
    ax.set_xlabel("shape M x N x K (bf16)")
    ax.set_ylim(0, max(1.2, max(v for _, r in series for v in r if v is not None) * 1.15))
    ax.set_title("GEMM: ratio to the reference library, per shape")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return None


def plot_copy(plt, records, path):
    recs = [r for r in records if r["suite"] == "copy" and r["kernel"] == "copy_2d" and size_bytes(r["size"])]
    if not recs:
        return "no copy records"
    variants = {}
    reference = {}
    for r in recs:
        b = size_bytes(r["size"])
        variants.setdefault(r["variant"].split(" [")[0], {})[b] = r["figure"]
        if r["reference_figure"] > 0:
            reference[(b, r["reference"])] = r["reference_figure"]
    fig, ax = plt.subplots(figsize=(9 if len(variants) <= 8 else 11, 5))
    for ref in sorted({name for _, name in reference}):
        pts = sorted((b, v) for (b, name), v in reference.items() if name == ref)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color="black", lw=2.2, marker="s", label=f"{ref} (same run)")
    for name, pts in variants.items():
        xs = sorted(pts)
        ax.plot(xs, [pts[x] for x in xs], marker="o", lw=1.2, label=name)
    l2 = [size_bytes(r["size"]) for r in recs if "L2-resident" in r["size"]]
    if l2:
        ax.axvspan(min(l2) / 1.4, max(l2) * 1.4, color="#dddddd", alpha=0.6, lw=0, label="L2-resident sizes (warm)")
    sizes = sorted({size_bytes(r["size"]) for r in recs})
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([r_label(s) for s in sizes])
    ax.set_xlabel("buffer size (fp32 matrix, row-major to row-major)")
    ax.set_ylabel("GB/s (bytes read + written)")
    ax.set_title("Copy bandwidth against size")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7 if len(variants) > 8 else 8, loc="upper left", bbox_to_anchor=(1.01, 1),
              ncol=1 if len(variants) <= 16 else 2)
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    return None


def r_label(b):
    return f"{b / 2**30:g} GiB" if b >= 2**30 else f"{b / 2**20:g} MiB"


def draw_plots(data, out):
    """{name: (file, None) or (None, why not)} for the three plots; (None, reason) when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no display
        import matplotlib.pyplot as plt
    except ImportError:
        return None, f"matplotlib is not installed ({INSTALL_HINT})"
    plots = {}
    records = data.get("records", [])
    for name, draw in (("gemm_ratio", plot_gemm), ("copy_bandwidth", plot_copy)):
        path = out / f"{name}.png"
        why = draw(plt, records, path)
        plots[name] = (None, why) if why else (path, None)
    if data.get("roofline"):
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
        import roofline_plot

        roofline_plot.draw(data["roofline"], str(out / "roofline"))
        plots["roofline"] = (out / "roofline.png", None)
    else:
        plots["roofline"] = (None, "no roofline measurements")
    return plots, None


# ---- Markdown ----------------------------------------------------------------------------------

PLOT_TITLES = {
    "gemm_ratio": "GEMM: Tessera against cuBLAS / cuBLASLt per shape",
    "copy_bandwidth": "Copy bandwidth against size",
    "roofline": "Roofline",
}


def markdown(data, plots, no_plots):
    gpu = data.get("gpu", {})
    out = ["# Tessera scorecard", ""]
    what = gpu.get("name", "GPU not recorded")
    if gpu.get("sm_count"):
        what += f" ({gpu['sm_count']} SMs, driver {gpu.get('driver', '?')}, runtime {gpu.get('runtime', '?')})"
    out.append(f"{what}; {data.get('date', '')}; commit `{data.get('git_commit') or 'not recorded'}`; "
               f"command `{data.get('command', '')}`.")
    out.append("")
    out.append("| kernel family | measured | Tessera | reference (same run) | ratio | target | verdict |")
    out.append("| --- | --- | ---: | --- | ---: | --- | --- |")
    for line in data.get("scorecard", []):
        if line["verdict"] == "not run":
            out.append(f"| {cell(line['family'])} | | | {cell(line['reference'])} | | {cell(line['target'])} | not run |")
            continue
        measured = line["measured"] + (f": {line['detail']}" if line.get("detail") else "")
        out.append(f"| {cell(line['family'])} | {cell(measured)} | {fig(line['figure'])} {cell(line['unit'])} | "
                   f"{cell(line['reference'])} {fig(line['reference_figure'])} {cell(line['unit'])} | "
                   f"{line['ratio']:.2f} | {cell(line['target']) or 'none stated'} | {cell(line['verdict'])} |")
    out += ["", "Ratio: Tessera's figure against the reference measured in the same process on the same data "
            "(for times, reference time / Tessera's time): above 1, Tessera is faster.  `measured` says how the "
            "family's records are combined and which one decided.", ""]

    out += ["## Plots", ""]
    if no_plots:
        out += [f"Plots not drawn: {no_plots}.", ""]
    else:
        for name, (path, why) in plots.items():
            if path:
                out += [f"![{PLOT_TITLES[name]}]({path.name})", ""]
            else:
                out += [f"{PLOT_TITLES[name]}: not drawn ({why}).", ""]

    steps = data.get("steps", [])
    if steps:
        out += ["## Steps", "", "| step | command | seconds | status |", "| --- | --- | ---: | --- |"]
        for s in steps:
            secs = f"{s['seconds']:.1f}" if "seconds" in s else ""
            source = f" (from `{s['file']}`)" if s.get("file") else ""
            out.append(f"| {cell(s['name'])} | `{cell(s['command'])}`{cell(source)} | {secs} | "
                       f"{'ok' if s.get('status', 0) == 0 else 'failed: ' + str(s['status'])} |")
        out.append("")

    records = data.get("records", [])
    out += ["## Records", "", f"{len(records)} records, by suite, as the suites wrote them.", ""]
    suites = []
    for r in records:
        if r["suite"] not in suites:
            suites.append(r["suite"])
    for suite in suites:
        recs = [r for r in records if r["suite"] == suite]
        out += [f"### {suite} ({len(recs)} records)", "",
                "| kernel | case | size | figure | reference | reference figure | ratio | target |",
                "| --- | --- | --- | ---: | --- | ---: | ---: | --- |"]
        for r in recs:
            ref = fig(r["reference_figure"]) if r["reference_figure"] > 0 else "n/a"
            ratio = f"{r['ratio']:.3f}" if r["reference_figure"] > 0 else ""
            out.append(f"| {cell(r['kernel'])} | {cell(r['variant'])} | {cell(r['size'])} | {fig(r['figure'])} "
                       f"{cell(r['unit'])} | {cell(r['reference'])} | {ref} | {ratio} | {cell(r.get('target', ''))} |")
        out.append("")
    return "\n".join(out)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        data = json.load(f)
    out = pathlib.Path(argv[2])
    out.mkdir(parents=True, exist_ok=True)
    plots, no_plots = draw_plots(data, out)
    report = out / "report.md"
    report.write_text(markdown(data, plots, no_plots) + "\n")
    print(f"report: {report}")
    if no_plots:
        print(f"plots:  none: {no_plots}")
    else:
        drawn = [str(p) for p, _ in plots.values() if p]
        print("plots:  " + (", ".join(drawn) if drawn else "none (no records to plot)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
