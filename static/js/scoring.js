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
  var box = document.getElementById("run-status");
  if (!box || box.dataset.finished === "1") { return; }
  var bar = document.getElementById("run-progress");
  var text = document.getElementById("progress-text");
  var status = document.getElementById("status-text");
  function poll() {
    fetch(box.dataset.statusUrl, {headers: {"Accept": "application/json"}})
      .then(function (r) { return r.json(); })
      .then(function (s) {
        bar.value = s.progress;
        text.textContent = Math.round(100 * s.progress) + "% (" + s.done + " of " + s.total + ")";
        status.textContent = s.status;
        if (s.finished) { window.location.reload(); } else { setTimeout(poll, 1000); }
      })
      .catch(function () { setTimeout(poll, 3000); });
  }
  setTimeout(poll, 500);
})();
