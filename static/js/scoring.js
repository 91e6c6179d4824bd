// Scoring pages: draw the radar, cost curves or Pareto chart; on a search page poll until it finishes.
(function () {
  "use strict";
  ["radar", "curves", "pareto"].forEach(function (id) {
    var data = document.getElementById(id + "-data");
    var target = document.getElementById(id);
    if (data && target && window.Plotly) {
      var fig = JSON.parse(JSON.parse(data.textContent));
      Plotly.newPlot(target, fig.data, fig.layout, {responsive: true, displaylogo: false});
    }
  });
  window.skyplanJobPoll(document.getElementById("run-status"), {
    bar: "run-progress", text: "progress-text", status: "status-text",
    percentText: function (s) { return Math.round(100 * s.progress) + "% (" + s.done + " of " + s.total + ")"; }});
})();
