// Scenario results: the weight sliders re-rank live. Each move asks the server for the recommendation and the scores
// under the new weights, rendered by the page's own templates, so every number that depends on the weights (winner,
// margin, chances of first, places, ties) changes together.  skyplanScoringWeights() binds the sliders on the page
// (once; scenario.js calls it when the page loads and when the results arrive).
(function () {
  "use strict";
  window.skyplanScoringWeights = function () {
    var form = document.getElementById("weights-form");
    if (!form || !form.dataset.url || form.dataset.bound) { return; }
    form.dataset.bound = "1";
    var sliders = form.querySelectorAll("input[type=range]");
    var error = document.getElementById("weights-error");
    var sent = 0, pending = null;
    function text(value) { return String(Number(Number(value).toFixed(2))); }
    function show(slider) {
      var shown = text(slider.value);
      slider.parentNode.querySelector("output").textContent = shown;
      slider.setAttribute("aria-valuetext", shown);
    }
    function update() {
      var weights = Array.prototype.map.call(sliders, function (s) { show(s); return s.value; });
      var mine = ++sent;
      form.setAttribute("aria-busy", "true");
      fetch(form.dataset.url + "?weights=" + weights.join(","), {headers: {"Accept": "application/json"}})
        .then(function (r) { return r.json(); })
        .then(function (data) {
          if (mine !== sent) { return; }  // a later move is on its way
          form.removeAttribute("aria-busy");
          if (data.error) { error.textContent = data.error; return; }
          error.textContent = "";
          document.getElementById("recommendation").innerHTML = data.recommendation;
          var methods = document.getElementById("methods");
          if (methods) { methods.innerHTML = data.methods; }
          form.dataset.winners = data.winners.join(",");
        })
        .catch(function () { if (mine === sent) { error.textContent = "Could not re-rank: is the server reachable?"; } });
    }
    Array.prototype.forEach.call(sliders, show);
    // a saved weight between two slider steps snaps to one: rank for what the sliders show
    if (Array.prototype.some.call(sliders, function (s) { return Number(s.value) !== Number(s.getAttribute("value")); })) {
      update();
    }
    form.addEventListener("input", function () { clearTimeout(pending); pending = setTimeout(update, 120); });
    form.addEventListener("reset", function () { setTimeout(update, 0); });
  };
})();
