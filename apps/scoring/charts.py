"""Figure builders: pure functions from report data to plotly JSON (``fig.to_json()``)."""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["radar_figure", "tco_figure", "pareto_figure"]

SECONDS_PER_HOUR = 3600.0


def radar_figure(report: dict) -> str:
    """One closed trace per platform over the criteria's 0-5 ranks (the paper's Figure 12); an unknown rank is a
    gap in the trace (never drawn as 0), its hover text says why."""
    # two lines for a long label, so the radar keeps its labels inside a narrow screen
    labels = [c["label"].replace(" ", "<br>", 1) if len(c["label"]) > 15 else c["label"] for c in report["criteria"]]
    fig = go.Figure()
    for p in report["platforms"]:
        r = [s["score"] for s in p["scores"]]
        hover = [s["explanation"] for s in p["scores"]]
        fig.add_trace(go.Scatterpolar(r=r + r[:1], theta=labels + labels[:1], name=p["name"], fill="toself",
                                      opacity=0.6, text=hover + hover[:1], hoverinfo="name+text"))
    fig.update_layout(polar={"radialaxis": {"range": [0, 5], "dtick": 1}, "angularaxis": {"tickfont": {"size": 11}}},
                      margin={"t": 40, "b": 30, "l": 80, "r": 80}, legend={"orientation": "h"}, height=480)
    return fig.to_json()


def tco_figure(tco: dict, code: str = "AUD") -> str:
    """Cumulative cost after each epoch, one line per platform; a logarithmic cost axis when the platforms differ
    by more than a factor of 20 (hundreds beside hundreds of thousands), and ticks on whole years.  Amounts already
    in ``code``."""
    fig = go.Figure()
    per_year = tco["horizon"]["epochs_per_year"]
    values = []
    for slug, res in tco["platforms"].items():
        xs = [e / per_year for e, _ in res["cumulative"]]
        ys = [c for _, c in res["cumulative"]]
        values += ys
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines+markers", name=res["name"] or slug,
                                 hovertemplate=f"year %{{x:.2f}}: {code} %{{y:,.0f}}<extra>%{{fullData.name}}</extra>"))
    positive = [v for v in values if v > 0]
    log = bool(positive) and len(positive) == len(values) and max(positive) > 20 * min(positive)
    years = tco["horizon"]["years"]
    fig.update_layout(
        xaxis={"title": {"text": "time (years)"}, "tickmode": "linear", "tick0": 0, "dtick": 1,
               "range": [0, years + 0.2]},
        yaxis={"title": {"text": f"cumulative cost ({code}, log scale)" if log else f"cumulative cost ({code})"},
               "type": "log" if log else "linear", "tickformat": ",.0f"},
        margin={"t": 30, "l": 80, "r": 20}, height=420, legend={"orientation": "h", "y": -0.2})
    return fig.to_json()


def pareto_figure(points: list[dict], front: list[dict]) -> str:
    """Every evaluated configuration, cost vs time to result, with the Pareto front drawn as a step line."""
    ok = [p for p in points if "error" not in p]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[p["cost_aud"] for p in ok], y=[p["makespan_s"] / SECONDS_PER_HOUR for p in ok],
                             mode="markers", name="configurations", text=[str(p["config"]) for p in ok],
                             marker={"color": "#8aa", "size": 7}))
    fig.add_trace(go.Scatter(x=[p["cost_aud"] for p in front], y=[p["makespan_s"] / SECONDS_PER_HOUR for p in front],
                             mode="lines+markers", line={"shape": "hv"}, name="Pareto front",
                             text=[str(p["config"]) for p in front], marker={"size": 10}))
    fig.update_layout(xaxis_title="cost (AUD)", yaxis_title="time to result (h)", margin={"t": 30}, height=420,
                      legend={"orientation": "h"})
    return fig.to_json()
