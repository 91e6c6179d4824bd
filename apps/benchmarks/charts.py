"""Benchmark figures (pure functions of a run's result dict; JSON for Plotly.newPlot)."""

from __future__ import annotations

import plotly.graph_objects as go

from apps.core.axes import axis_title

__all__ = ["contention_figure", "minipipeline_figure", "figure_for"]

PATTERN_LABELS = {"seq_read": "sequential read", "seq_write": "sequential write", "rand_read": "random 4 KiB read",
                  "rand_write": "random 4 KiB write"}


def contention_figure(result: dict) -> str:
    """Aggregate throughput against concurrent streams: the tier's contention curve."""
    fig = go.Figure()
    for pattern, label in PATTERN_LABELS.items():
        points = sorted((p for p in result.get("points", []) if p["pattern"] == pattern), key=lambda p: p["jobs"])
        if points:
            fig.add_trace(go.Scatter(x=[p["jobs"] for p in points], y=[p["bytes_per_s"] / 1e6 for p in points],
                                     mode="lines+markers", name=label,
                                     customdata=[p["iops"] for p in points],
                                     hovertemplate="%{x} streams: %{y:.1f} MB/s, %{customdata:.0f} IOPS<extra></extra>"))
    fig.update_layout(height=360, xaxis={"title": axis_title("concurrent streams", "count"), "type": "log", "dtick": 0.30103},
                      yaxis_title=axis_title("aggregate throughput", "MB/s"), margin={"l": 60, "r": 20, "t": 30, "b": 50})
    return fig.to_json()


def minipipeline_figure(result: dict) -> str:
    """Measured against simulated time per stage."""
    from apps.benchmarks.comparison import stage_order

    measured = result["measured"]["stages"]
    predicted = result["predicted"]["stages"]
    stages = stage_order(result)
    fig = go.Figure([
        go.Bar(name="measured", x=stages, y=[measured[s]["end_s"] - measured[s]["start_s"] for s in stages]),
        go.Bar(name="simulated", x=stages, y=[predicted.get(s, {}).get("task_seconds", 0.0) for s in stages]),
    ])
    fig.update_layout(barmode="group", height=340, yaxis_title=axis_title("time", "s"), margin={"l": 60, "r": 20, "t": 30, "b": 50})
    return fig.to_json()


def figure_for(run) -> str | None:
    if run.status != "succeeded" or not run.result:
        return None
    if run.kind == "storage":
        return contention_figure(run.result)
    if run.kind == "minipipeline":
        return minipipeline_figure(run.result)
    return None
