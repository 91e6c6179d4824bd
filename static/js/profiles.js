// Profile pages: drag-and-drop upload, import progress polling, charts.
(function () {
  "use strict";

  // Charts: a JSON object {name: plotly JSON} drawn into #chart-<name>.
  function drawAll(dataId, single) {
    var data = document.getElementById(dataId);
    if (!data || !window.Plotly) { return; }
    var figures = JSON.parse(data.textContent);
    if (single) { figures = {}; figures[single] = JSON.parse(data.textContent); }
    Object.keys(figures).forEach(function (name) {
      var target = document.getElementById("chart-" + name);
      if (!target) { return; }
      var fig = figures[name];
      if (typeof fig === "string") { fig = JSON.parse(fig); }
      Plotly.newPlot(target, fig.data, fig.layout, {responsive: true, displaylogo: false});
    });
  }
  drawAll("profile-figures");
  drawAll("calibration-figure", "calibration");

  // Upload: dropping files puts them in the form's file input (the plain input works without this).
  var zone = document.getElementById("drop-zone");
  var input = document.getElementById("profile-files");
  var list = document.getElementById("drop-list");
  function showFiles() {
    if (!list || !input) { return; }
    list.textContent = "";
    Array.prototype.forEach.call(input.files, function (f) {
      var li = document.createElement("li");
      li.textContent = f.name + " (" + Math.round(f.size / 1024) + " KiB)";
      list.appendChild(li);
    });
  }
  if (zone && input) {
    ["dragenter", "dragover"].forEach(function (type) {
      zone.addEventListener(type, function (e) { e.preventDefault(); zone.classList.add("dragging"); });
    });
    ["dragleave", "drop"].forEach(function (type) {
      zone.addEventListener(type, function (e) { e.preventDefault(); zone.classList.remove("dragging"); });
    });
    zone.addEventListener("drop", function (e) {
      if (e.dataTransfer && e.dataTransfer.files.length) {
        input.files = e.dataTransfer.files;
        showFiles();
      }
    });
    input.addEventListener("change", showFiles);
  }

  // Import page: poll the status until the import finishes.
  if (!window.skyplanJobPoll) { return; }  // only the import page loads the poller
  window.skyplanJobPoll(document.getElementById("import-status"), {
    bar: "import-progress", text: "progress-text", status: "status-text", error: "import-error",
    done: function (s) { if (s.profile_url) { window.location.href = s.profile_url; } else { window.location.reload(); } }});
})();
