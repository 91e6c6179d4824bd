// The one status poller of every job page (runs, scenarios, searches, profile imports, benchmarks, reports).
// skyplanJobPoll(box, options): while box.dataset.finished is not "1", fetch box.dataset.statusUrl (JSON with at
// least progress, status, finished), show the progress in the elements whose ids the options name (bar, text,
// status, stage, error), call options.update(s) for the page's own parts, and when the job is settled
// (options.settled(s), by default s.finished) call options.done(s) (default: reload the page).  It asks every
// options.everyMs (1000 by default; the first time after options.firstMs), and when options.maxEveryMs is set,
// half as often again each time nothing changed, up to that.  A failed fetch is retried, less often.
(function () {
  "use strict";
  function byId(id) { return id ? document.getElementById(id) : null; }
  function percent(s) { return Math.round(100 * s.progress) + "%"; }

  window.skyplanJobPoll = function (box, options) {
    if (!box || box.dataset.finished === "1") { return; }
    var o = options || {};
    var bar = byId(o.bar), text = byId(o.text), status = byId(o.status), stage = byId(o.stage), error = byId(o.error);
    var base = o.everyMs || 1000, every = base, last = "";
    var settled = o.settled || function (s) { return s.finished; };
    function show(s) {
      if (bar) { bar.value = s.progress; }
      if (text) { text.textContent = (o.percentText || percent)(s); }
      if (status) { status.textContent = s.status; status.className = "status status-" + s.status; }
      if (stage) { stage.textContent = s.stage || ""; }
      if (error && s.error) { error.textContent = s.error; error.hidden = false; }
      if (o.update) { o.update(s); }
    }
    function next(s) {
      var seen = JSON.stringify(s);
      every = seen !== last || !o.maxEveryMs ? base : Math.min(o.maxEveryMs, every * 1.5);
      last = seen;
      return every;
    }
    function poll() {
      fetch(box.dataset.statusUrl, {headers: {"Accept": "application/json"}})
        .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
        .then(function (s) {
          show(s);
          if (!settled(s)) { setTimeout(poll, next(s)); return; }
          if (o.done) { o.done(s); } else { setTimeout(function () { window.location.reload(); }, 200); }
        })
        .catch(function () { setTimeout(poll, 3 * every); });
    }
    setTimeout(poll, o.firstMs || Math.min(500, base));
  };
})();
