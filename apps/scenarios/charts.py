"""Plotly figures for simulation results (returned as JSON strings for ``Plotly.newPlot``).

Run pages: plain functions of the result dict that the simulator wrote.  Scenario pages:
pure functions ``DataFrame -> go.Figure`` over the frames of :mod:`apps.scenarios.adapters`.
No ORM access here.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

__all__ = [
    "timeline_figure", "utilisation_figure", "MAX_BARS",
    "stage_gantt_figure", "utilisation_over_time_figure", "cost_breakdown_figure", "distribution_figure",
]

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


# --- scenario pages: DataFrame -> Figure -----------------------------------------------------------
QUEUE_COLOUR = "#9a9a9a"
CATEGORY_COLOURS = {"compute": "#1f5f8b", "storage": "#d9822b", "iops": "#b5405d", "transfer": "#3a9c5a",
                    "egress": "#3a9c5a", "none billed": "#cccccc"}


def _platforms(frame: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(frame["platform"]))


def stage_gantt_figure(stages: pd.DataFrame) -> go.Figure:
    """One panel per platform: the queue wait and each stage as a bar from start to end (hours),
    hover naming the resource that bounded it.  Each panel has its own time axis."""
    platforms = _platforms(stages)
    fig = make_subplots(rows=max(1, len(platforms)), cols=1, subplot_titles=platforms, vertical_spacing=0.12)
    stage_names = [s for s in dict.fromkeys(stages["stage"]) if s != "queue wait"]
    colours = {s: STAGE_COLOURS[i % len(STAGE_COLOURS)] for i, s in enumerate(stage_names)}
    colours["queue wait"] = QUEUE_COLOUR
    shown: set[str] = set()
    for row, platform in enumerate(platforms, start=1):
        part = stages[stages["platform"] == platform]
        for _, st in part.iterrows():
            fig.add_trace(go.Bar(
                name=st["stage"], legendgroup=st["stage"], showlegend=st["stage"] not in shown, orientation="h",
                y=[st["stage"]], x=[st["end_h"] - st["start_h"]], base=[st["start_h"]],
                marker_color=colours[st["stage"]],
                customdata=[[st["tasks"], st["bound_by"], st["bound_share"], st["end_h"]]],
                hovertemplate=(f"<b>{platform}: {st['stage']}</b><br>%{{base:.1f}} h to %{{customdata[3]:.1f}} h"
                               "<br>%{customdata[0]} tasks<br>bound by %{customdata[1]} "
                               "(%{customdata[2]:.0%} of task time)<extra></extra>"),
            ), row=row, col=1)
            shown.add(st["stage"])
        order = [s for s in ["queue wait", *stage_names] if s in set(part["stage"])]
        fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(order)), row=row, col=1)
        fig.update_xaxes(title_text="hours since submission", row=row, col=1)
    fig.update_layout(barmode="overlay", height=max(320, 210 * len(platforms)),
                      margin={"l": 90, "r": 20, "t": 40, "b": 40}, legend_title_text="stage")
    return fig


def utilisation_over_time_figure(utilisation: pd.DataFrame) -> go.Figure:
    """One panel per platform: MB/s in use over time on its busiest resource groups."""
    platforms = _platforms(utilisation)
    fig = make_subplots(rows=max(1, len(platforms)), cols=1, subplot_titles=platforms, vertical_spacing=0.12)
    for row, platform in enumerate(platforms, start=1):
        part = utilisation[utilisation["platform"] == platform]
        for resource, line in part.groupby("resource", sort=False):
            fig.add_trace(go.Scatter(
                name=f"{platform}: {resource}", mode="lines", line_shape="hv", x=line["t_h"], y=line["mb_per_s"],
                hovertemplate=f"{resource}<br>%{{x:.1f}} h: %{{y:.1f}} MB/s<extra>{platform}</extra>",
            ), row=row, col=1)
        fig.update_yaxes(title_text="MB/s", row=row, col=1)
        fig.update_xaxes(title_text="hours since submission", row=row, col=1)
    fig.update_layout(height=max(320, 220 * len(platforms)), margin={"l": 70, "r": 20, "t": 40, "b": 40})
    return fig


def cost_breakdown_figure(costs: pd.DataFrame) -> go.Figure:
    """Stacked bars: the median replication's bill per platform, split by category (AUD)."""
    platforms = _platforms(costs)
    table = costs.pivot_table(index="platform", columns="category", values="aud", aggfunc="sum", fill_value=0.0)
    table = table.reindex(platforms)
    fig = go.Figure()
    for i, category in enumerate(table.columns):
        fig.add_trace(go.Bar(
            name=category, x=platforms, y=table[category].tolist(),
            marker_color=CATEGORY_COLOURS.get(category, STAGE_COLOURS[i % len(STAGE_COLOURS)]),
            hovertemplate=f"%{{x}}<br>{category}: %{{y:,.2f}} AUD<extra></extra>",
        ))
    fig.update_layout(barmode="stack", height=340, margin={"l": 70, "r": 20, "t": 30, "b": 40},
                      yaxis_title="AUD (median replication)", legend_title_text="category")
    return fig


def distribution_figure(replications: pd.DataFrame, column: str, unit: str) -> go.Figure:
    """One panel per platform: every replication's value, and P50 with a P10–P90 bar."""
    platforms = _platforms(replications)
    fig = make_subplots(rows=1, cols=max(1, len(platforms)), subplot_titles=platforms, horizontal_spacing=0.08)
    for col, platform in enumerate(platforms, start=1):
        values = replications.loc[replications["platform"] == platform, column].astype(float)
        p10, p50, p90 = (float(values.quantile(q)) for q in (0.1, 0.5, 0.9))
        fig.add_trace(go.Scatter(
            name="replications", legendgroup="reps", showlegend=col == 1, mode="markers", x=[platform] * len(values),
            y=values.tolist(), marker={"color": "#1f5f8b", "opacity": 0.5, "size": 8},
            hovertemplate=f"%{{y:,.2f}} {unit}<extra>{platform}</extra>",
        ), row=1, col=col)
        fig.add_trace(go.Scatter(
            name="P50 (bar: P10–P90)", legendgroup="p50", showlegend=col == 1, mode="markers", x=[platform], y=[p50],
            marker={"color": "#d9822b", "size": 14, "symbol": "diamond"},
            error_y={"type": "data", "symmetric": False, "array": [p90 - p50], "arrayminus": [p50 - p10], "width": 12},
            hovertemplate=f"P10 {p10:,.2f}<br>P50 {p50:,.2f}<br>P90 {p90:,.2f} {unit}<extra>{platform}</extra>",
        ), row=1, col=col)
        fig.update_yaxes(title_text=unit if col == 1 else None, row=1, col=col)
    fig.update_layout(height=320, margin={"l": 70, "r": 20, "t": 40, "b": 40})
    return fig
