// Scenario results: draw the radar and TCO curves; weight sliders re-rank the platforms live through /scoring/rerank/ (the server aggregates).
(function () {
  "use strict";
  ["radar", "curves"].forEach(function (id) {
    var data = document.getElementById(id + "-data"), target = document.getElementById(id);
    if (data && target && window.Plotly) {
      var fig = JSON.parse(JSON.parse(data.textContent));
      Plotly.newPlot(target, fig.data, fig.layout, {responsive: true, displaylogo: false});
    }
  });
  var form = document.getElementById("weights-form");
  var rankData = document.getElementById("rank-data");
  if (!form || !rankData) { return; }
  var ranks = JSON.parse(rankData.textContent);
  var table = document.getElementById("aggregate-table");
  var slugs = Array.prototype.map.call(table.querySelectorAll("thead th[data-slug]"), function (th) { return th.dataset.slug; });
  var names = {};
  Array.prototype.forEach.call(table.querySelectorAll("thead th[data-slug]"), function (th) { names[th.dataset.slug] = th.textContent; });
  var pending = null;
  function update() {
    var sliders = form.querySelectorAll("input[type=range]");
    var weights = Array.prototype.map.call(sliders, function (s) {
      s.nextElementSibling.textContent = s.value;
      s.setAttribute("aria-valuetext", s.value);
      return s.value;
    });
    var url = form.dataset.rerankUrl + "?ranks=" + encodeURIComponent(JSON.stringify(ranks)) + "&weights=" + weights.join(",");
    fetch(url, {headers: {"Accept": "application/json"}})
      .then(function (r) { return r.json(); })
      .then(function (data) {
        if (data.error) { form.querySelector(".hint").textContent = data.error; return; }
        Object.keys(data.aggregates).forEach(function (method) {
          var row = table.querySelector("tr[data-method='" + method + "']");
          if (!row) { return; }
          var cells = row.querySelectorAll("td");
          slugs.forEach(function (slug, i) { cells[i].textContent = data.aggregates[method][slug].toFixed(4); });
          row.querySelector("td.order").textContent = data.orders[method].join(" > ");
        });
        var winner = document.getElementById("winner");
        if (winner && data.orders.weighted_sum) { winner.textContent = data.orders.weighted_sum[0]; }
      });
  }
  form.addEventListener("input", function () { clearTimeout(pending); pending = setTimeout(update, 150); });
})();
