// Scenario page: while the runs go on, poll the combined status (overall and per-platform progress); once the
// worker has ranked the platforms, fetch the page again and put its results in place (plotly.js stays loaded), then
// each part still being prepared (charts, validation) as it arrives.  Figures are drawn one at a time, the radar
// first, so the first one shows without waiting for the others.
(function () {
  "use strict";
  function pct(x) { return Math.round(100 * x) + "%"; }

  function figures() {
    var out = [];
    [["radar-data", "radar"], ["curves-data", "curves"]].forEach(function (pair) {
      var data = document.getElementById(pair[0]);
      if (data) { out.push([pair[1], JSON.parse(data.textContent)]); }
    });
    var all = document.getElementById("scenario-figures");
    var named = all ? JSON.parse(all.textContent) : {};
    Object.keys(named).forEach(function (name) { out.push(["fig-" + name, named[name]]); });
    return out;
  }

  // plotly.js (3.5 MB to compile and run) is asked for once the page has painted: loaded with the page, even async,
  // it ran before the first paint whenever the browser had it in its cache.  Its load draws what is on the page.
  var plotlyUrl = document.currentScript && document.currentScript.dataset.plotly;
  function loadPlotly() {
    if (window.Plotly || document.getElementById("plotly-js") || !plotlyUrl) { return; }
    var script = document.createElement("script");
    script.id = "plotly-js";
    script.src = plotlyUrl;
    script.addEventListener("load", draw, {once: true});
    document.body.appendChild(script);
  }
  // after the next frame is painted; a hidden tab paints no frames, so also after a second at the latest
  requestAnimationFrame(function () { setTimeout(loadPlotly, 0); });
  setTimeout(loadPlotly, 1000);

  function draw() {
    if (!window.Plotly) { return; }  // drawn when plotly.js has loaded
    var queue = figures().filter(function (f) {
      var target = document.getElementById(f[0]);
      return target && f[1] && !target.dataset.drawn;
    });
    (function one() {
      var f = queue.shift();
      if (!f) { return; }
      var target = document.getElementById(f[0]);
      if (target && !target.dataset.drawn) {
        target.dataset.drawn = "1";
        var fig = JSON.parse(f[1]);
        Plotly.newPlot(target, fig.data, fig.layout, {responsive: true, displaylogo: false});
      }
      setTimeout(one, 0);  // let the browser paint this one before the next
    })();
  }

  function pendingOnPage() { return document.querySelectorAll("#scenario-page [data-pending]").length; }

  // put the freshly rendered page's results in place: all of the page the first time, then the parts that were
  // pending (with the jump links and the runs, which say what is still to come)
  function refresh() {
    var hadResults = document.getElementById("scenario-status").dataset.results === "1";
    fetch(window.location.href, {headers: {"Accept": "text/html"}})
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var ids = hadResults ? Array.prototype.map.call(document.querySelectorAll("#scenario-page [data-pending]"),
          function (el) { return el.id; }).concat(["page-jump", "scenario-status"]) : ["scenario-page"];
        ids.forEach(function (id) {
          var mine = document.getElementById(id), theirs = doc.getElementById(id);
          if (mine && theirs) { mine.replaceWith(document.adoptNode(theirs)); }
        });
        start();
      })
      .catch(function () { window.location.reload(); });
  }

  function start() {
    draw();
    if (window.skyplanScoringWeights) { window.skyplanScoringWeights(); }
    var box = document.getElementById("scenario-status");
    if (!box || box.dataset.status === "draft") { return; }
    window.skyplanJobPoll(box, {
      bar: "scenario-progress", text: "progress-text", status: "status-text",
      firstMs: 100, everyMs: 250, maxEveryMs: 2000,
      settled: function (s) {
        return s.finished && s.ready && (box.dataset.results !== "1" || s.pending.length < pendingOnPage());
      },
      done: refresh,
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
  }

  start();
})();
