// Benchmark page: draw its chart, poll the status until the benchmark finishes (then reload).
(function () {
  "use strict";
  var data = document.getElementById("bench-chart-data");
  if (data && window.Plotly) {
    var fig = JSON.parse(JSON.parse(data.textContent));
    Plotly.newPlot("bench-chart", fig.data, fig.layout, {responsive: true, displaylogo: false});
  }
  var box = document.getElementById("run-status");
  if (!box || box.dataset.finished === "1") { return; }
  var bar = document.getElementById("run-progress"), text = document.getElementById("progress-text");
  function poll() {
    fetch(box.dataset.statusUrl, {headers: {"Accept": "application/json"}})
      .then(function (r) { return r.json(); })
      .then(function (s) {
        bar.value = s.progress;
        text.textContent = Math.round(100 * s.progress) + "%";
        if (s.finished) { window.location.reload(); } else { setTimeout(poll, 1000); }
      })
      .catch(function () { setTimeout(poll, 3000); });
  }
  setTimeout(poll, 500);
})();
