"""Plotly figures for a simulation result (returned as JSON strings for ``Plotly.newPlot``).

Plain functions of the result dict that the simulator wrote; no ORM access here.
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["timeline_figure", "utilisation_figure", "MAX_BARS"]

#: beyond this many task bars the timeline shows the longest ones (the page says so)
MAX_BARS = 3000

STAGE_COLOURS = ["#1f5f8b", "#d9822b", "#3a9c5a", "#b5405d", "#7a5ea8", "#8c6d31", "#4d8a9c"]
HOUR = 3600.0


def timeline_figure(result: dict) -> tuple[str, int]:
    """A Gantt chart: one bar per task on its node, coloured by stage.  Returns (json, bars shown)."""
    tasks = [t for t in result.get("tasks", []) if t.get("pool")]
    if len(tasks) > MAX_BARS:
        tasks = sorted(tasks, key=lambda t: t["end_s"] - t["start_s"], reverse=True)[:MAX_BARS]
    stages: dict[str, list[dict]] = {}
    for t in tasks:
        stages.setdefault(t["stage"], []).append(t)
    fig = go.Figure()
    for i, (stage, items) in enumerate(stages.items()):
        fig.add_trace(go.Bar(
            name=stage, orientation="h",
            y=[t["node"] for t in items],
            x=[(t["end_s"] - t["start_s"]) / HOUR for t in items],
            base=[t["start_s"] / HOUR for t in items],
            marker_color=STAGE_COLOURS[i % len(STAGE_COLOURS)],
            customdata=[[t["label"], t["bound_by"] or "—", (t["start_s"] - t["ready_s"]) / HOUR] for t in items],
            hovertemplate=(f"<b>{stage}</b> %{{customdata[0]}}<br>node %{{y}}<br>start %{{base:.2f}} h, "
                           "duration %{x:.2f} h<br>waited %{customdata[2]:.2f} h for a slot<br>"
                           "bound by %{customdata[1]}<extra></extra>"),
        ))
    queue = result.get("queue_wait_s") or 0.0
    if queue > 0:
        fig.add_vrect(x0=0, x1=queue / HOUR, fillcolor="#999", opacity=0.15, line_width=0,
                      annotation_text="queue wait", annotation_position="top left")
    fig.update_layout(
        barmode="overlay", height=max(320, 14 * len({t["node"] for t in tasks}) + 120),
        margin={"l": 110, "r": 20, "t": 30, "b": 50}, xaxis_title="hours since submission",
        yaxis={"title": "node", "categoryorder": "category descending"}, legend_title_text="stage",
    )
    return fig.to_json(), len(tasks)


def utilisation_figure(result: dict, top: int = 6) -> str | None:
    """Rate in use over time for the busiest shared resources (bytes/s shown as MB/s)."""
    series = result.get("utilisation_series") or {}
    if not series:
        return None
    moved = result.get("bytes_moved") or {}
    busiest = sorted(series, key=lambda name: moved.get(name, 0.0), reverse=True)[:top]
    fig = go.Figure()
    for name in busiest:
        points = series[name]
        if not points:
            continue
        iops = name.endswith(":iops")
        scale = 1.0 if iops else 1e6
        fig.add_trace(go.Scatter(
            name=f"{name} ({'IOPS' if iops else 'MB/s'})", mode="lines", line_shape="hv",
            x=[p[0] / HOUR for p in points], y=[p[1] / scale for p in points],
        ))
    fig.update_layout(height=340, margin={"l": 60, "r": 20, "t": 30, "b": 50},
                      xaxis_title="hours since submission", yaxis_title="rate in use")
    return fig.to_json()
