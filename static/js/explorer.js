/* Softmax saturation explorer: how the head width d_k and the 1/√d_k scaling shape a softmax.
 *
 * One draw makes N keys and Q queries of the largest width (1024) with standard-normal
 * components from a seeded generator; the running sums of q_i·k_i are kept, so any width d_k
 * reads its scores in O(Q·N) and every input updates the page at once (well within 100 ms).
 * The bars and most readings are for the first query; the median largest probability over all
 * Q queries shows what is typical, since one query's top two keys can happen to tie.
 * Bars are sized through the CSSOM (element.style), which the Content Security Policy allows.
 */
(function () {
  "use strict";

  var section = document.getElementById("explorer");
  if (!section) return;

  var KEYS = parseInt(section.dataset.keys, 10) || 12;
  var QUERIES = parseInt(section.dataset.queries, 10) || 64;
  var MAX_WIDTH = parseInt(section.dataset.maxWidth, 10) || 1024;
  var seed = parseInt(section.dataset.seed, 10) || 1;
  var draws = 1;

  var slider = document.getElementById("explorer-width");
  var widthOut = document.getElementById("explorer-width-value");
  var scaleSwitch = document.getElementById("explorer-scale");
  var drawButton = document.getElementById("explorer-draw");
  var drawCount = document.getElementById("explorer-draw-count");
  var barsBox = document.getElementById("explorer-bars");
  var stdOut = document.getElementById("explorer-std");
  var maxOut = document.getElementById("explorer-max");
  var typicalOut = document.getElementById("explorer-typical");
  var jacobianOut = document.getElementById("explorer-jacobian");
  var readout = document.getElementById("explorer-readout");

  // mulberry32: a small, well-mixed 32-bit generator; the same seed always draws the same q, k.
  function generator(state) {
    return function () {
      state = (state + 0x6d2b79f5) | 0;
      var t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function normals(random, count) {
    var out = new Float64Array(count);
    for (var i = 0; i < count; i += 2) {
      // Box–Muller; 1 − u keeps the logarithm away from 0.
      var radius = Math.sqrt(-2 * Math.log(1 - random()));
      var angle = 2 * Math.PI * random();
      out[i] = radius * Math.cos(angle);
      if (i + 1 < count) out[i + 1] = radius * Math.sin(angle);
    }
    return out;
  }

  var runningDots = []; // runningDots[query][key][d] = Σ_{i<d} q_i k_i

  function draw() {
    var random = generator(seed * 2654435761);
    var keys = [];
    for (var j = 0; j < KEYS; j++) keys.push(normals(random, MAX_WIDTH));
    runningDots = [];
    for (var n = 0; n < QUERIES; n++) {
      var q = normals(random, MAX_WIDTH);
      var row = [];
      for (var k = 0; k < KEYS; k++) {
        var key = keys[k];
        var sums = new Float64Array(MAX_WIDTH + 1);
        for (var i = 0; i < MAX_WIDTH; i++) sums[i + 1] = sums[i] + q[i] * key[i];
        row.push(sums);
      }
      runningDots.push(row);
    }
  }

  function median(values) {
    var sorted = values.slice().sort(function (a, b) { return a - b; });
    var middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  function widthFromSlider() {
    var width = Math.round(Math.pow(2, parseFloat(slider.value)));
    return Math.min(MAX_WIDTH, Math.max(1, width));
  }

  function softmax(z) {
    var top = Math.max.apply(null, z);
    var exps = z.map(function (x) { return Math.exp(x - top); });
    var total = exps.reduce(function (a, b) { return a + b; }, 0);
    return exps.map(function (e) { return e / total; });
  }

  function spread(z) {
    var mean = z.reduce(function (a, b) { return a + b; }, 0) / z.length;
    var square = z.reduce(function (a, x) { return a + (x - mean) * (x - mean); }, 0);
    return Math.sqrt(square / z.length);
  }

  // The largest |J_ij| of J = diag(p) − p pᵀ: p_i(1 − p_i) on the diagonal, p_i p_j off it.
  function largestJacobianEntry(p) {
    var largest = 0;
    for (var i = 0; i < p.length; i++) {
      for (var j = 0; j < p.length; j++) {
        var entry = i === j ? p[i] * (1 - p[i]) : p[i] * p[j];
        if (entry > largest) largest = entry;
      }
    }
    return largest;
  }

  function show(x) {
    if (x === 0) return "0";
    if (Math.abs(x) < 0.001) return x.toExponential(2).replace("e", " × 10^");
    return x.toPrecision(3);
  }

  var bars = [];
  function buildBars() {
    barsBox.textContent = "";
    bars = [];
    for (var j = 0; j < KEYS; j++) {
      var column = document.createElement("div");
      column.className = "bar";
      var fill = document.createElement("span");
      fill.className = "bar-fill";
      var label = document.createElement("span");
      label.className = "bar-label";
      label.textContent = String(j + 1);
      column.appendChild(fill);
      column.appendChild(label);
      barsBox.appendChild(column);
      bars.push(fill);
    }
  }

  function update() {
    var width = widthFromSlider();
    var scaled = scaleSwitch.checked;
    var divisor = scaled ? Math.sqrt(width) : 1;
    var tops = runningDots.map(function (row) {
      return Math.max.apply(null, softmax(row.map(function (sums) { return sums[width] / divisor; })));
    });
    var typical = median(tops);
    var z = runningDots[0].map(function (sums) { return sums[width] / divisor; });
    var p = softmax(z);
    var std = spread(z);
    var top = Math.max.apply(null, p);
    var jacobian = largestJacobianEntry(p);

    widthOut.textContent = String(width);
    slider.setAttribute("aria-valuetext", "dₖ = " + width);
    for (var j = 0; j < bars.length; j++) {
      bars[j].style.height = (100 * p[j]).toFixed(2) + "%";
      bars[j].parentNode.classList.toggle("bar-top", p[j] === top);
    }
    barsBox.setAttribute(
      "aria-label",
      "Softmax probabilities of the " + KEYS + " keys: " + p.map(show).join(", ")
    );
    stdOut.textContent = show(std) + " (theory: " + (scaled ? "1" : show(Math.sqrt(width))) + ")";
    maxOut.textContent = show(top);
    typicalOut.textContent = show(typical);
    jacobianOut.textContent = show(jacobian);
    var state = typical > 0.9
      ? "saturated: typically nearly one-hot, so the gradients through the softmax vanish"
      : "not saturated: the weights are typically spread and the gradients stay alive";
    readout.textContent =
      "dₖ = " + width + ", " + (scaled ? "scores divided by √dₖ" : "raw scores") +
      ": logit standard deviation " + show(std) + ", largest probability " + show(top) +
      " (median over " + QUERIES + " queries " + show(typical) + "), largest Jacobian entry " +
      show(jacobian) + ". The softmax is " + state + ".";
  }

  slider.addEventListener("input", update);
  scaleSwitch.addEventListener("change", update);
  drawButton.addEventListener("click", function () {
    seed += 1;
    draws += 1;
    drawCount.textContent = "Draw " + draws;
    draw();
    update();
  });

  draw();
  buildBars();
  section.querySelectorAll("[data-explorer-controls], [data-explorer-output]").forEach(
    function (part) { part.hidden = false; }
  );
  section.querySelectorAll("[data-explorer-fallback]").forEach(function (note) { note.hidden = true; });
  update();
})();
