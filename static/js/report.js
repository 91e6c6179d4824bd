// Report page: poll the export's status until it is finished, then reload to show the download link.
(function () {
  "use strict";
  window.skyplanJobPoll(document.getElementById("report-status"), {
    bar: "report-progress", text: "progress-text", status: "status-text", stage: "stage-text", everyMs: 400});
})();
