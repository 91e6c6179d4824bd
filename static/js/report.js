// Report page: poll the export's status until it is finished, then reload to show the download link.
(function () {
  "use strict";
  var box = document.getElementById("report-status");
  if (!box || box.dataset.finished === "1") { return; }
  var bar = document.getElementById("report-progress");
  var text = document.getElementById("progress-text");
  var stage = document.getElementById("stage-text");
  var status = document.getElementById("status-text");
  function poll() {
    fetch(box.dataset.statusUrl, {headers: {"Accept": "application/json"}})
      .then(function (r) { return r.json(); })
      .then(function (s) {
        bar.value = s.progress;
        text.textContent = Math.round(100 * s.progress) + "%";
        stage.textContent = s.stage;
        status.textContent = s.status;
        status.className = "status status-" + s.status;
        if (s.finished) { setTimeout(function () { window.location.reload(); }, 200); } else { setTimeout(poll, 400); }
      })
      .catch(function () { setTimeout(poll, 2000); });
  }
  setTimeout(poll, 300);
})();
