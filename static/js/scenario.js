// Scenario page: draw the result figures, and while the runs go on poll the combined status
// (overall and per-platform progress), then reload for the results.
(function () {
  "use strict";
  var data = document.getElementById("scenario-figures");
  if (data && window.Plotly) {
    var figures = JSON.parse(data.textContent);
    Object.keys(figures).forEach(function (name) {
      var target = document.getElementById("fig-" + name);
      if (!target || !figures[name]) { return; }
      var fig = JSON.parse(figures[name]);
      Plotly.newPlot(target, fig.data, fig.layout, {responsive: true, displaylogo: false});
    });
  }

  var box = document.getElementById("scenario-status");
  if (!box || box.dataset.status === "draft") { return; }
  function pct(x) { return Math.round(100 * x) + "%"; }
  window.skyplanJobPoll(box, {
    bar: "scenario-progress", text: "progress-text", status: "status-text", everyMs: 400,
    update: function (s) {
      s.platforms.forEach(function (p) {
        var row = box.querySelector("tr[data-platform='" + p.platform + "']");
          if (!row) { return; }
          var cell = row.querySelector(".status");
          cell.textContent = p.status;
          cell.className = "status status-" + p.status;
          row.querySelector("progress").value = p.progress;
          row.querySelector(".pct").textContent = pct(p.progress);
        });
    }
  });
})();
