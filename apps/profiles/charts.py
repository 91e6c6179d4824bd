"""Figures of a profile's analysis: pure functions from its frames to plotly JSON (``fig.to_json()``)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from apps.core.axes import axis_title
from apps.profiles.analysis import (
    class_series_frame,
    histogram_frame,
    phases_frame,
    series_frame,
)

__all__ = ["cpu_figure", "memory_figure", "io_figure", "class_figure", "histogram_figure", "fio_figure",
           "darshan_files_figure", "calibration_figure", "profile_figures"]

CLASS_LABELS = {"seq_read": "sequential read", "rand_read": "random read", "seq_write": "sequential write",
                "rand_write": "random write"}
CLASS_COLOURS = {"seq_read": "#1f77b4", "rand_read": "#d62728", "seq_write": "#2ca02c", "rand_write": "#ff7f0e"}
BOUND_COLOURS = {"cpu": "#9467bd", "seq_io": "#1f77b4", "random_io": "#d62728", "io": "#17becf", "idle": "#bbbbbb",
                 "no_io": "#dddddd"}
MB = 1e6


def _layout(fig: go.Figure, title: str, y: str, x: str = axis_title("time since start", "s")) -> go.Figure:
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, template="plotly_white", height=320,
                      margin={"l": 60, "r": 20, "t": 50, "b": 50}, legend={"orientation": "h", "y": -0.25})
    return fig


def _shade_phases(fig: go.Figure, phases: pd.DataFrame) -> None:
    for p in phases.itertuples():
        fig.add_vrect(x0=p.start_s, x1=p.end_s, fillcolor=BOUND_COLOURS.get(p.bound, "#eeeeee"), opacity=0.12,
                      line_width=0, annotation_text=p.label, annotation_position="top left",
                      annotation_font_size=10)


def cpu_figure(series: pd.DataFrame, phases: pd.DataFrame) -> go.Figure:
    """CPU use, user and kernel stacked, in % of one core, with the phases shaded."""
    fig = go.Figure()
    fig.add_scatter(x=series["t_s"], y=series["cpu_user_pct"], name="user", stackgroup="cpu", mode="lines")
    fig.add_scatter(x=series["t_s"], y=series["cpu_system_pct"], name="kernel", stackgroup="cpu", mode="lines")
    _shade_phases(fig, phases)
    return _layout(fig, "CPU", axis_title("CPU", "% of one core"))


def memory_figure(series: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    fig.add_scatter(x=series["t_s"], y=series["rss_bytes"] / MB, name="resident (RSS)", mode="lines")
    if series["vm_bytes"].notna().any():
        fig.add_scatter(x=series["t_s"], y=series["vm_bytes"] / MB, name="virtual (VM)", mode="lines")
    return _layout(fig, "Memory", axis_title("memory", "MB"))


def io_figure(series: pd.DataFrame, phases: pd.DataFrame) -> go.Figure:
    """I/O throughput (read, write, or both together when the format does not split them) and operations."""
    fig = go.Figure()
    if series["read_bytes_per_s"].notna().any():
        fig.add_scatter(x=series["t_s"], y=series["read_bytes_per_s"] / MB, name="read", mode="lines")
        fig.add_scatter(x=series["t_s"], y=series["write_bytes_per_s"] / MB, name="write", mode="lines")
    else:
        fig.add_scatter(x=series["t_s"], y=series["io_bytes_per_s"] / MB, name="read + write", mode="lines")
    if series["io_ops_per_s"].notna().any():
        fig.add_scatter(x=series["t_s"], y=series["io_ops_per_s"], name="operations/s", mode="lines", yaxis="y2",
                        line={"dash": "dot"})
        fig.update_layout(yaxis2={"title": axis_title("operations", "per s"), "overlaying": "y", "side": "right"})
    _shade_phases(fig, phases)
    return _layout(fig, "I/O", axis_title("throughput", "MB/s"))


def class_figure(frame: pd.DataFrame, phases: pd.DataFrame) -> go.Figure:
    """strace throughput per second for the four classes (the paper's §6 time series)."""
    fig = go.Figure()
    for cls, part in frame.groupby("class", sort=False):
        if part["bytes_per_s"].sum() > 0:
            fig.add_scatter(x=part["t_s"], y=part["bytes_per_s"] / MB, name=CLASS_LABELS.get(cls, cls), mode="lines",
                            line={"color": CLASS_COLOURS.get(cls)})
    _shade_phases(fig, phases)
    return _layout(fig, "Throughput by access class", axis_title("throughput", "MB/s"))


def _size_label(v: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if v >= scale:
            return f"{v / scale:g} {unit}"
    return f"{v:g} B"


def _time_label(v: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if v >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v / 1e-9:.3g} ns"


def histogram_figure(frame: pd.DataFrame, which: str) -> go.Figure:
    """Request sizes or inter-arrival times per class, one bar per log-spaced bin (labelled by its lower edge)."""
    fig = go.Figure()
    label = _size_label if which == "size" else _time_label
    bins = sorted(set(frame["lower"]))
    order = [("≥ " if lo > 0 else "< ") + label(lo if lo > 0 else frame.loc[frame["lower"] == lo, "upper"].iloc[0])
             for lo in bins]
    names = dict(zip(bins, order, strict=True))
    for cls, part in frame.groupby("class", sort=False):
        fig.add_bar(x=[names[lo] for lo in part["lower"]], y=part["count"], name=CLASS_LABELS.get(cls, cls),
                    marker_color=CLASS_COLOURS.get(cls))
    if which == "size":
        _layout(fig, "Request sizes", axis_title("requests", "count"), "request size (bin from)")
    else:
        _layout(fig, "Inter-arrival times (end of one request to start of the next, same class)",
                axis_title("requests", "count"),
                "time between requests (bin from)")
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=order)
    fig.update_layout(barmode="group")
    return fig


def fio_figure(jobs: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    fig.add_bar(x=jobs["job"], y=jobs["read_bw_bytes_per_s"] / MB, name="read MB/s")
    fig.add_bar(x=jobs["job"], y=jobs["write_bw_bytes_per_s"] / MB, name="write MB/s")
    fig.add_scatter(x=jobs["job"], y=jobs["read_iops"] + jobs["write_iops"], name="IOPS", mode="markers", yaxis="y2",
                    marker={"size": 10, "symbol": "diamond"})
    fig.update_layout(yaxis2={"title": axis_title("IOPS", "operations/s"), "overlaying": "y", "side": "right", "type": "log"}, barmode="group")
    return _layout(fig, "fio jobs", axis_title("throughput", "MB/s"), "job")


def darshan_files_figure(files: pd.DataFrame) -> go.Figure:
    """A Darshan log's busiest files: bytes read and written (POSIX), one bar pair per file."""
    fig = go.Figure()
    label = files["name"].map(lambda n: n if len(n) <= 40 else "…" + n[-39:]) if len(files) else files.get("name")
    fig.add_bar(x=label, y=files["read_bytes"] / MB, name="read", marker_color=CLASS_COLOURS["seq_read"])
    fig.add_bar(x=label, y=files["write_bytes"] / MB, name="written", marker_color=CLASS_COLOURS["seq_write"])
    fig.update_layout(barmode="group")
    fig.update_xaxes(type="category")
    return _layout(fig, "Busiest files (POSIX)", axis_title("data", "MB"), "file")


def calibration_figure(measured_s: float, before_s: float | None, after_s: float | None) -> str:
    """Measured vs simulated task duration, before and after calibration."""
    labels = ["measured", "simulated before", "simulated after"]
    values = [measured_s, before_s, after_s]
    fig = go.Figure(go.Bar(x=labels, y=values, marker_color=["#444444", "#d62728", "#2ca02c"],
                           text=[f"{v:.3g} s" if v is not None else "—" for v in values], textposition="outside"))
    fig.update_yaxes(type="log")
    return _layout(fig, "One task: measured vs simulated", axis_title("time", "s, log scale"), "").to_json()


def profile_figures(analysis: dict) -> dict[str, str]:
    """Every figure of a stored analysis, as plotly JSON, keyed by name."""
    kind = analysis.get("kind")
    phases = phases_frame(analysis)
    out: dict[str, go.Figure] = {}
    if kind == "samples":
        series = series_frame(analysis)
        out = {"cpu": cpu_figure(series, phases), "memory": memory_figure(series), "io": io_figure(series, phases)}
    elif kind == "strace":
        out = {"classes": class_figure(class_series_frame(analysis), phases),
               "sizes": histogram_figure(histogram_frame(analysis, "size"), "size"),
               "iat": histogram_figure(histogram_frame(analysis, "iat"), "iat")}
    elif kind == "darshan":
        sizes = histogram_frame(analysis, "size")
        out = {"sizes": histogram_figure(sizes, "size")} if len(sizes) else {}
        files = pd.DataFrame(analysis.get("files") or [], columns=["name", "read_bytes", "write_bytes"])
        if len(files):
            out["files"] = darshan_files_figure(files.head(10))
    elif kind == "fio":
        out = {"fio": fio_figure(pd.DataFrame(analysis.get("jobs") or []))}
    return {name: fig.to_json() for name, fig in out.items()}

