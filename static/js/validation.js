// Validation page: draw every seed's charts from the figures the page carries.
(function () {
  "use strict";
  var data = document.getElementById("validation-figures");
  if (!data || !window.Plotly) { return; }
  var figures = JSON.parse(data.textContent);
  Object.keys(figures).forEach(function (id) {
    var target = document.getElementById(id);
    if (!target) { return; }
    var fig = JSON.parse(figures[id]);
    Plotly.newPlot(target, fig.data, fig.layout, {responsive: true, displaylogo: false});
  });
})();
