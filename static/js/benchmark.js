// Benchmark page: draw its chart, poll the status until the benchmark finishes (then reload).
(function () {
  "use strict";
  var data = document.getElementById("bench-chart-data");
  if (data && window.Plotly) {
    var fig = JSON.parse(JSON.parse(data.textContent));
    Plotly.newPlot("bench-chart", fig.data, fig.layout, {responsive: true, displaylogo: false});
  }
  window.skyplanJobPoll(document.getElementById("run-status"), {bar: "run-progress", text: "progress-text"});
})();
