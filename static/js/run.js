// Run page: draw the charts, and poll the status until the run finishes (then reload for results).
(function () {
  "use strict";
  function draw(id) {
    var data = document.getElementById(id + "-data");
    var target = document.getElementById(id);
    if (data && target && window.Plotly) {
      var fig = JSON.parse(JSON.parse(data.textContent));
      Plotly.newPlot(target, fig.data, fig.layout, {responsive: true, displaylogo: false});
    }
  }
  draw("timeline");
  draw("utilisation");

  window.skyplanJobPoll(document.getElementById("run-status"), {
    bar: "run-progress", text: "progress-text", status: "status-text"});
})();
