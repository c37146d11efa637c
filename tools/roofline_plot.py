#!/usr/bin/env python3
"""Draw the roofline measured by `tessera roofline` (tools/roofline.cpp).

usage: roofline_plot.py DATA.json PREFIX      writes PREFIX.png and PREFIX.svg

DATA.json is the file `tessera roofline --json` writes: the measured ceilings (memory GB/s from
cudaMemcpy D2D, bf16 and fp32 GFLOP/s from cuBLAS) and one record per kernel with its arithmetic
intensity (FLOPs / bytes that must move) and achieved GFLOP/s.  The plot is log-log: the memory roof
(slope = bandwidth) meets each compute roof at its ridge point; every kernel is one labelled point;
fused/unfused pairs (records sharing "pair") are joined by an arrow from unfused to fused.  Kernels that
do no arithmetic (copies) have no place on the intensity axis: they are listed in a box with their
bandwidth.  Needs matplotlib (python3 -m pip install matplotlib).  tools/scorecard_report.py draws the
main job's roofline with draw().
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

GROUP_STYLE = {  # marker, colour
    "ceiling": ("*", "#222222"),
    "copy": ("o", "#1f77b4"),
    "fused": ("D", "#d62728"),
    "gemm": ("s", "#2ca02c"),
}
ROOF_STYLE = {"bf16": ("#2ca02c", "bf16 tensor cores (cuBLAS)"), "fp32": ("#ff7f0e", "fp32 CUDA cores (cuBLAS)")}


def short_label(r):
    """A compact label: kernel, the distinguishing part of the variant, and the size."""
    k, v, s = r["kernel"], r["variant"], r["size"]
    if k.startswith("chain "):
        return f"{k[6:]} {r['role'] or ''} ({v})".replace("  ", " ")
    if k == "stream_transform":
        return "stream " + v.split(", ")[-1].replace(" FMA/elem", " FMA/el")
    if k.startswith("cuBLAS"):
        return f"{k} {s}"
    if k == "gemm + bias + gelu":
        return f"GEMM+bias+gelu {r['role']} {s}"
    if k.startswith("tessera::gemm"):
        return f"{k.replace('tessera::', '')} {s}"
    if "norm" in k:
        return f"{k} {s} {v.split(' ')[0]}"
    return f"{k} {v} {s}".strip()


def place_labels(ax, pts, obstacles):
    """Choose an offset for each label so that it overlaps no other label, marker, roof or box.

    pts: [(x, y, text)] in data coordinates.  obstacles: boxes (x0, y0, x1, y1) in points (display
    coordinates scaled to points, so the search is the same on log axes).  Candidates are tried at
    growing distance in 16 directions; the first free one wins.  Returns [(x, y, text, dx, dy, ha)].
    """
    fig = ax.figure
    fig.canvas.draw()
    ppd = 72.0 / fig.dpi  # points per display pixel
    to_pt = lambda xy: tuple(c * ppd for c in ax.transData.transform(xy))  # noqa: E731
    frame = tuple(c * ppd for c in ax.bbox.extents)
    boxes = list(obstacles)
    # markers
    for x, y, _ in pts:
        px, py = to_pt((x, y))
        boxes.append((px - 6, py - 6, px + 6, py + 6))

    def free(b):
        if b[0] < frame[0] + 2 or b[2] > frame[2] - 2 or b[1] < frame[1] + 2 or b[3] > frame[3] - 2:
            return False
        return all(b[2] < o[0] or b[0] > o[2] or b[3] < o[1] or b[1] > o[3] for o in boxes)

    angles = [-35, -60, 0, -90, 35, 60, 90, -120, 180, 145, 120, 215, -145, 250, -10, 10]
    out = []
    order = sorted(range(len(pts)), key=lambda i: pts[i][0])
    for i in order:
        x, y, text = pts[i]
        px, py = to_pt((x, y))
        w, h = 4.15 * len(text) + 2, 8.5
        choice = None
        for r in (10, 18, 28, 40, 55, 70, 90, 110, 135, 165, 200, 240):
            for a in angles:
                dx, dy = r * math.cos(math.radians(a)), r * math.sin(math.radians(a))
                left = dx >= 0
                x0 = px + dx if left else px + dx - w
                box = (x0, py + dy - h / 2, x0 + w, py + dy + h / 2)
                if free(box):
                    choice = (dx, dy, "left" if left else "right", box)
                    break
            if choice:
                break
        if not choice:
            choice = (10.0, 0.0, "left", (px + 10, py - h / 2, px + 10 + w, py + h / 2))
        boxes.append(choice[3])
        out.append((x, y, text, choice[0], choice[1], choice[2]))
    return out


def roof_obstacles(ax, xs, ys):
    """Small boxes (in points) along a plotted line, so that labels keep off it."""
    fig = ax.figure
    ppd = 72.0 / fig.dpi
    out = []
    for x, y in zip(xs, ys):
        px, py = (c * ppd for c in ax.transData.transform((x, y)))
        out.append((px - 2.5, py - 2.5, px + 2.5, py + 2.5))
    return out


def draw(data, prefix):
    """Draw the roofline of `data` (a document of `tessera roofline --json`) into PREFIX.png and PREFIX.svg."""
    ceil = data["ceilings"]
    bw = ceil["memory_gbps"]  # GB/s
    peaks = {"bf16": ceil["bf16_gflops"], "fp32": ceil["fp32_gflops"]}
    recs = data["records"]
    arith = [r for r in recs if r["flops"] > 0]
    zero = [r for r in recs if r["flops"] == 0]

    ais = [r["intensity"] for r in arith]
    x_lo = 10 ** math.floor(math.log10(min(ais + [0.1]) / 2))
    x_hi = 10 ** math.ceil(math.log10(max(ais + [max(peaks.values()) / bw * 10]) * 2))
    ys = [r["gflops"] for r in arith]
    y_lo = 10 ** math.floor(math.log10(min(ys + [bw * x_lo]) / 2))
    y_hi = max(peaks.values()) * 4

    fig, ax = plt.subplots(figsize=(13, 8.5))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)

    # Roofs: the memory slope up to each ridge point, then the flat compute ceiling.
    n = 400
    xs = [x_lo * (x_hi / x_lo) ** (i / (n - 1)) for i in range(n)]
    roof_lines = []
    for name, peak in sorted(peaks.items(), key=lambda kv: -kv[1]):
        colour, label = ROOF_STYLE[name]
        roof_y = [min(peak, bw * x) for x in xs]
        roof_lines.append(roof_y)
        ax.plot(xs, roof_y, color=colour, lw=2.2,
                label=f"{label}: {peak / 1e3:.1f} TFLOP/s, ridge {peak / bw:.1f} FLOP/B")
        ax.axvline(peak / bw, color=colour, lw=0.8, ls=":", alpha=0.7)
    # The memory roof's label, along the slope.
    mem_x = x_lo * 2.0
    p0 = ax.transData.transform((mem_x, bw * mem_x))
    p1 = ax.transData.transform((mem_x * 10, bw * mem_x * 10))
    slope_deg = math.degrees(math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
    ax.annotate(f"memory: {bw:.0f} GB/s (cudaMemcpy D2D)", xy=(mem_x, bw * mem_x), xytext=(-4, 8),
                textcoords="offset points", rotation=slope_deg, rotation_mode="anchor", fontsize=9,
                color="#444444")

    # Points.
    seen_groups = set()
    for r in arith:
        marker, colour = GROUP_STYLE.get(r["group"], ("o", "#9467bd"))
        hollow = r.get("role") == "unfused"
        label = None
        if r["group"] not in seen_groups:
            seen_groups.add(r["group"])
            label = {"ceiling": "cuBLAS (the compute ceilings)", "copy": "copy / streaming pipeline",
                     "fused": "fused memory-bound kernels", "gemm": "tessera::gemm"}.get(r["group"], r["group"])
        ax.scatter([r["intensity"]], [r["gflops"]], marker=marker, s=70 if marker != "*" else 160,
                   facecolors="white" if hollow else colour, edgecolors=colour, linewidths=1.6, zorder=5,
                   label=label)
    ax.scatter([], [], marker="D", s=60, facecolors="white", edgecolors="#555555", label="unfused sequence (hollow)")

    # Fused vs unfused: arrow from the unfused point to the fused one.
    pairs = {}
    for r in arith:
        if r.get("pair"):
            pairs.setdefault(r["pair"], {})[r["role"]] = r
    for name, p in pairs.items():
        if "fused" in p and "unfused" in p:
            u, f_ = p["unfused"], p["fused"]
            ax.annotate("", xy=(f_["intensity"], f_["gflops"]), xytext=(u["intensity"], u["gflops"]),
                        arrowprops=dict(arrowstyle="-|>", color="#d62728", lw=1.6, shrinkA=6, shrinkB=6,
                                        mutation_scale=14), zorder=4)

    # Kernels without arithmetic.
    boxes_to_avoid = []
    if zero:
        lines = ["no arithmetic (bandwidth only):"]
        for r in zero:
            lines.append(f"  {r['kernel']} {r['variant']} {r['size']}: {r['gbps']:.0f} GB/s"
                         f" = {100 * r['gbps'] / bw:.1f}% of D2D")
        ax.text(0.99, 0.02, "\n".join(lines), transform=ax.transAxes, ha="right", va="bottom", fontsize=8,
                family="monospace", bbox=dict(boxstyle="round", fc="#f7f7f7", ec="#bbbbbb"))

    gpu = data.get("gpu", {}).get("name", "GPU")
    ax.set_title(f"Roofline of Tessera's kernels on {gpu}, measured {data.get('date', '')[:10]}\n"
                 "percent = achieved / roof at that intensity; arrows: unfused sequence -> fused kernel",
                 fontsize=11)
    ax.set_xlabel("arithmetic intensity (FLOPs / bytes that must move)")
    ax.set_ylabel("achieved GFLOP/s")
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)
    legend = ax.legend(loc="upper left", fontsize=8.5, framealpha=0.92)
    fig.tight_layout()
    fig.canvas.draw()
    ppd = 72.0 / fig.dpi
    for artist in [legend] + list(ax.texts):
        e = artist.get_window_extent()
        boxes_to_avoid.append((e.x0 * ppd - 3, e.y0 * ppd - 3, e.x1 * ppd + 3, e.y1 * ppd + 3))
    for roof_y in roof_lines:
        boxes_to_avoid += roof_obstacles(ax, xs, roof_y)

    # Labels, with leader lines.
    pts = [(r["intensity"], r["gflops"], short_label(r) + f"  {100 * r['ratio']:.0f}%") for r in arith]
    colour_of = {p[2]: GROUP_STYLE.get(r["group"], ("o", "#9467bd"))[1] for p, r in zip(pts, arith)}
    for x, y, text, dx, dy, ha in place_labels(ax, pts, boxes_to_avoid):
        ax.annotate(text, xy=(x, y), xytext=(dx, dy), textcoords="offset points", fontsize=7.2, ha=ha,
                    va="center", arrowprops=dict(arrowstyle="-", color=colour_of[text], lw=0.6, alpha=0.6,
                                                 shrinkA=0, shrinkB=4))

    fig.savefig(prefix + ".png", dpi=130)
    fig.savefig(prefix + ".svg")
    plt.close(fig)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        data = json.load(f)
    draw(data, argv[2])
    print(f"wrote {argv[2]}.png and {argv[2]}.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
