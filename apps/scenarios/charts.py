"""Plotly figures for simulation results (returned as JSON strings for ``Plotly.newPlot``).

Run pages: plain functions of the result dict that the simulator wrote.  Scenario pages:
pure functions ``DataFrame -> go.Figure`` over the frames of :mod:`apps.scenarios.adapters`.
No ORM access here.
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from apps.core.axes import axis_title

__all__ = [
    "timeline_figure", "utilisation_figure", "MAX_BARS",
    "stage_gantt_figure", "utilisation_over_time_figure", "cost_breakdown_figure", "cost_per_year_figure",
    "distribution_figure", "validation_error_figure", "io_curves_figure",
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
                    "egress": "#3a9c5a", "none billed": "#cccccc", "Capital": "#6b4c9a", "Staff": "#9a6b4c",
                    "Power": "#c9a227", "Compute": "#1f5f8b", "Storage": "#d9822b", "Transfer": "#3a9c5a"}


def _platforms(frame: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(frame["platform"]))


def stage_gantt_figure(stages: pd.DataFrame) -> go.Figure:
    """One panel per platform on one shared time axis (hours since submission), so a run of 70 h and one of
    2,700 h compare by length: the queue wait and each stage as a bar from start to end, hover naming the
    resource that bounded it."""
    platforms = _platforms(stages)
    rows = max(1, len(platforms))
    top, bottom, panel, gap = 40, 100, 130, 95  # pixels: a gap holds the ticks, the axis title and the next title
    plot = rows * panel + (rows - 1) * gap
    fig = make_subplots(rows=rows, cols=1, subplot_titles=platforms, shared_xaxes=True,
                        vertical_spacing=gap / plot if rows > 1 else 0)
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
    fig.update_xaxes(showticklabels=True, rangemode="tozero", title_text="time since submission (hours)",
                     title_standoff=4)
    fig.update_annotations(font_size=13)
    fig.update_layout(barmode="overlay", height=plot + top + bottom, margin={"l": 90, "r": 20, "t": top, "b": bottom},
                      legend={"title": {"text": "stage"}, "orientation": "h", "y": -58 / plot, "yanchor": "top"})
    return fig


#: the simulator's own resource groups in words (storage tiers carry their catalogue names already)
RESOURCE_LABELS = {"nic": "node network links (NICs)", "wan": "WAN link to the data source", "cpu": "cores"}


def resource_label(group: str) -> str:
    """A resource group of a run as a reader knows it: "nic" -> "node network links (NICs)"."""
    return RESOURCE_LABELS.get(group, group)


def utilisation_over_time_figure(utilisation: pd.DataFrame) -> go.Figure:
    """One panel per platform: MB/s in use over time on its busiest resource groups, each panel with its own
    legend under its time axis (so it never covers the lines, at any width); the resource that bounds the
    platform is the one that stays at its ceiling."""
    platforms = _platforms(utilisation)
    rows = max(1, len(platforms))
    top, bottom, panel, gap = 40, 120, 190, 175  # pixels: a gap holds the axis title, the legend (three lines at 400 px), the next title
    plot = rows * panel + (rows - 1) * gap
    fig = make_subplots(rows=rows, cols=1, subplot_titles=platforms, vertical_spacing=gap / plot if rows > 1 else 0)
    legends = {}
    for row, platform in enumerate(platforms, start=1):
        part = utilisation[utilisation["platform"] == platform]
        legend = "legend" if row == 1 else f"legend{row}"
        for i, (group, line) in enumerate(part.groupby("resource", sort=False)):
            resource = resource_label(group)
            fig.add_trace(go.Scatter(
                name=resource, mode="lines", line_shape="hv", x=line["t_h"], y=line["mb_per_s"], legend=legend,
                line={"color": STAGE_COLOURS[i % len(STAGE_COLOURS)]},
                hovertemplate=f"{resource}<br>%{{x:.1f}} h: %{{y:,.1f}} MB/s<extra>{platform}</extra>",
            ), row=row, col=1)
        fig.update_yaxes(title_text="MB/s", rangemode="tozero", row=row, col=1)
        fig.update_xaxes(title_text="time since submission (hours)", rangemode="tozero", title_standoff=4,
                         row=row, col=1)
        domain = fig.layout["yaxis" if row == 1 else f"yaxis{row}"].domain
        legends[legend] = {"orientation": "h", "x": 0, "xanchor": "left", "y": domain[0] - 62 / plot,
                           "yanchor": "top", "font": {"size": 11}}
    fig.update_annotations(font_size=13)
    fig.update_layout(height=plot + top + bottom, margin={"l": 70, "r": 20, "t": top, "b": bottom}, **legends)
    return fig


def cost_breakdown_figure(costs: pd.DataFrame, code: str = "AUD") -> go.Figure:
    """Stacked bars: the median replication's bill per platform, split by category (column ``aud``, already in
    ``code``)."""
    platforms = _platforms(costs)
    table = costs.pivot_table(index="platform", columns="category", values="aud", aggfunc="sum", fill_value=0.0)
    table = table.reindex(platforms)
    fig = go.Figure()
    for i, category in enumerate(table.columns):
        fig.add_trace(go.Bar(
            name=category, x=platforms, y=table[category].tolist(),
            marker_color=CATEGORY_COLOURS.get(category, STAGE_COLOURS[i % len(STAGE_COLOURS)]),
            hovertemplate=f"%{{x}}<br>{category}: %{{y:,.2f}} {code}<extra></extra>",
        ))
    fig.update_layout(barmode="stack", height=340, margin={"l": 70, "r": 20, "t": 30, "b": 40},
                      yaxis_title=f"{code} (median replication)", legend_title_text="category")
    return fig


def cost_per_year_figure(costs: pd.DataFrame, code: str = "AUD") -> go.Figure:
    """Horizontal stacked bars: each platform's cost a year by category (fixed costs, and the runs' bills), its
    name above its bar and its total written beside it, so a small one stays readable beside a large one and the
    chart holds on a narrow screen.  Amounts already in ``code``."""
    platforms = _platforms(costs)
    fig = go.Figure()
    for category in dict.fromkeys(costs["category"]):
        part = costs[costs["category"] == category].set_index("platform").reindex(platforms)
        if not (part["aud_per_year"].fillna(0) > 0).any():
            continue
        fig.add_trace(go.Bar(
            name=category, orientation="h", y=platforms, x=part["aud_per_year"].fillna(0).tolist(), width=0.4,
            marker_color=CATEGORY_COLOURS.get(category), legendgroup=category,
            hovertemplate=f"%{{y}}<br>{category}: {code} %{{x:,.0f}} a year<extra></extra>",
        ))
    totals = costs.drop_duplicates("platform").set_index("platform").reindex(platforms)["per_year_aud"]
    fig.add_trace(go.Scatter(
        x=totals.tolist(), y=platforms, mode="text", text=[f" {code} {v:,.0f}" for v in totals],
        textposition="middle right", showlegend=False, hoverinfo="skip", cliponaxis=False))
    for name in platforms:
        fig.add_annotation(x=0, y=name, text=name, showarrow=False, xanchor="left", yanchor="bottom", yshift=13,
                           xref="x", yref="y", font={"size": 12})
    fig.update_layout(barmode="stack", height=110 + 70 * len(platforms), margin={"l": 10, "r": 90, "t": 10, "b": 50},
                      xaxis={"title": {"text": f"cost a year ({code})"}, "rangemode": "tozero", "tickformat": ",.0f"},
                      yaxis={"showticklabels": False, "autorange": "reversed"},
                      legend={"orientation": "h", "y": -0.3, "yanchor": "top", "title": {"text": ""}})
    return fig


def distribution_figure(replications: pd.DataFrame, column: str, unit: str) -> go.Figure:
    """One horizontal strip per platform (stacked, each on its own axis from zero, since platforms differ by
    orders of magnitude): every replication's value as a dot, and P50 with a P10–P90 bar.  A platform whose
    replications all agree says so rather than drawing an axis around one point."""
    platforms = _platforms(replications)
    rows = max(1, len(platforms))
    top, bottom, panel, gap = 30, 90, 60, 75
    plot = rows * panel + (rows - 1) * gap
    fig = make_subplots(rows=rows, cols=1, subplot_titles=platforms, vertical_spacing=gap / plot if rows > 1 else 0)
    for row, platform in enumerate(platforms, start=1):
        values = replications.loc[replications["platform"] == platform, column].astype(float)
        p10, p50, p90 = (float(values.quantile(q)) for q in (0.1, 0.5, 0.9))
        fig.add_trace(go.Scatter(
            name="replications", legendgroup="reps", showlegend=row == 1, mode="markers", y=[platform] * len(values),
            x=values.tolist(), marker={"color": "#1f5f8b", "opacity": 0.5, "size": 9},
            hovertemplate=f"%{{x:,.2f}}<extra>{platform}</extra>",
        ), row=row, col=1)
        fig.add_trace(go.Scatter(
            name="P50 (bar: P10–P90)", legendgroup="p50", showlegend=row == 1, mode="markers", y=[platform], x=[p50],
            marker={"color": "#d9822b", "size": 14, "symbol": "diamond"},
            error_x={"type": "data", "symmetric": False, "array": [p90 - p50], "arrayminus": [p50 - p10], "width": 8},
            hovertemplate=f"P10 {p10:,.2f}<br>P50 {p50:,.2f}<br>P90 {p90:,.2f}<extra>{platform}</extra>",
        ), row=row, col=1)
        high = float(values.max()) if len(values) else 0.0
        fig.update_xaxes(title_text=unit, title_standoff=2, range=[0, high * 1.1 if high > 0 else 1.0],
                         tickformat=",.0f" if high >= 10 else None, row=row, col=1)
        fig.update_yaxes(showticklabels=False, row=row, col=1)
        if len(values) > 1 and values.max() - values.min() <= 1e-9 * max(1.0, abs(high)):
            axis = "" if row == 1 else str(row)
            fig.add_annotation(text=f"all {len(values)} replications alike", showarrow=False, xref=f"x{axis} domain",
                               yref=f"y{axis} domain", x=1, y=0, xanchor="right", yanchor="bottom",
                               font={"size": 11, "color": "#5b6775"})
    fig.update_annotations(font_size=12)
    fig.update_layout(height=plot + top + bottom, margin={"l": 20, "r": 20, "t": top, "b": bottom},
                      legend={"orientation": "h", "y": -55 / plot, "yanchor": "top"})
    return fig


def validation_error_figure(rows: pd.DataFrame) -> go.Figure:
    """Predicted against published, one dot per numeric row (error %, out-of-sample filled, fit points open),
    with the ±25% and ±50% bands."""
    fig = go.Figure()
    rows = rows[rows["error_pct"].notna()]
    labels = [f"{q}<br>{p}" for q, p in zip(rows["quantity_label"], rows["platform_name"], strict=True)]
    for in_sample, name, symbol in ((False, "predicted (out of sample)", "circle"),
                                    (True, "fit point / input (in sample)", "diamond-open")):
        part = rows[rows["in_sample"] == in_sample]
        if part.empty:
            continue
        fig.add_trace(go.Scatter(
            x=part["error_pct"], y=[labels[i] for i, keep in enumerate(rows["in_sample"] == in_sample) if keep],
            mode="markers", name=name, marker={"symbol": symbol, "size": 11, "color": "#1f5f8b" if not in_sample
                                              else "#d9822b", "line": {"width": 2}},
            customdata=part[["published", "simulated", "unit"]].to_numpy(),
            hovertemplate="%{y}<br>published %{customdata[0]:.4g}, simulated %{customdata[1]:.4g} "
                          "%{customdata[2]}<br>error %{x:+.1f}%<extra></extra>"))
    for edge, colour in ((25, "#3a9c5a"), (50, "#b5405d")):
        fig.add_vrect(x0=-edge, x1=edge, fillcolor=colour, opacity=0.07, line_width=0)
    fig.add_vline(x=0, line_color="#666", line_width=1)
    fig.update_layout(height=max(240, 40 * len(rows) + 110), margin={"l": 10, "r": 10, "t": 30, "b": 40},
                      xaxis_title="simulated vs published (%)", yaxis={"automargin": True, "autorange": "reversed"},
                      legend={"orientation": "h", "y": -0.25})
    return fig


def io_curves_figure(curves: pd.DataFrame, points: pd.DataFrame, axis: str) -> go.Figure:
    """The model's rate curves against one axis (nodes, data size, request size) with the published figures:
    filled markers where the figure is predicted, open diamonds where a fit used it, a dashed line at a
    published knee."""
    fig = go.Figure()
    log_x = axis != "nodes"
    part = curves[curves["axis"] == axis]
    for i, (exp, c) in enumerate(part.groupby("experiment", sort=False)):
        colour = STAGE_COLOURS[i % len(STAGE_COLOURS)]
        fig.add_trace(go.Scatter(x=c["x"], y=c["gb_per_s"], mode="lines", name=c["label"].iloc[0],
                                 line={"color": colour}, legendgroup=exp,
                                 hovertemplate="%{x:.4g}: %{y:.3g} GB/s<extra>model</extra>"))
        pts = points[(points["experiment"] == exp)] if not points.empty else points
        for _, p in pts.iterrows():
            if p["kind"] == "knee":
                # the line in data units; an annotation on a log axis is placed by the log of its position
                fig.add_vline(x=p["x"], line_dash="dash", line_color=colour)
                fig.add_annotation(x=math.log10(p["x"]) if log_x else p["x"], y=0.02, yref="paper",
                                   text=f"published knee ~{p['x']:g}", showarrow=False, xanchor="right",
                                   yanchor="bottom", font={"color": colour})
                continue
            fig.add_trace(go.Scatter(
                x=[p["x"]], y=[p["gb_per_s"]], mode="markers", legendgroup=exp, showlegend=False,
                marker={"symbol": "diamond-open" if p["in_sample"] else "circle", "size": 13, "color": colour,
                        "line": {"width": 2, "color": colour}},
                hovertemplate=f"{p['text']}{' (fit point)' if p['in_sample'] else ''}<extra>published</extra>"))
    fig.update_layout(height=380, margin={"l": 10, "r": 10, "t": 30, "b": 40}, xaxis_title=axis,
                      yaxis_title=axis_title("rate", "GB/s, per node where so stated"), yaxis={"automargin": True, "rangemode": "tozero"},
                      legend={"orientation": "h", "y": -0.3})
    if log_x:
        fig.update_xaxes(type="log")
    return fig
