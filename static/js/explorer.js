/* Softmax saturation explorer: how the head width d_k and the 1/√d_k scaling shape a softmax.
 *
 * One draw makes N keys and Q queries of the largest width (1024) with standard-normal
 * components from a seeded generator; the running sums of q_i·k_i are kept, so any width d_k
 * reads its scores in O(Q·N) and every input updates the page at once (well within 100 ms).
 * The bars and most readings are for the first query; the median largest probability over all
 * Q queries shows what is typical, since one query's top two keys can happen to tie.
 * The theory the lesson states is about the variance of q·k over many independent draws
 * (d_k σ_q² σ_k² = d_k here, and 1 once divided by √d_k), so the page compares it with the
 * variance over DRAWS independent pairs (q, k), not with one query's 12 scores, whose spread
 * depends on that one q (at d_k = 1 it is |q_1| times the keys' spread, which may be tiny).
 * The variance for every width is summed once per draw, so an update only reads it.
 * The slider's positions are the distinct widths of 2^(i/10), i = 0…100: at small d_k several
 * of those round to the same width, and an arrow key that changed nothing looked broken.
 * Bars are sized through the CSSOM (element.style), which the Content Security Policy allows.
 */
(function () {
  "use strict";

  // Words come from Django's JavaScript catalog (loaded before this script); a page without it
  // shows the English.
  var gettext = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, count) { return count === 1 ? one : many; };
  var pgettext = window.pgettext || function (context, text) { return text; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  var section = document.getElementById("explorer");
  if (!section) return;

  // Numbers in the page's language (its <html lang>): 0.123 in English, 0,123 in German.
  var language = document.documentElement.lang || undefined;
  var threeDigits = new Intl.NumberFormat(language, {
    minimumSignificantDigits: 3, maximumSignificantDigits: 3, useGrouping: false,
  });
  var twoDecimals = new Intl.NumberFormat(language, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  var whole = new Intl.NumberFormat(language, { maximumFractionDigits: 0, useGrouping: false });
  var count = new Intl.NumberFormat(language);
  // A list of numbers that write a decimal comma is separated by semicolons, as answers are.
  var commaDecimal = twoDecimals.format(0.5).indexOf(",") !== -1;
  var listSeparator = commaDecimal ? "; " : ", ";

  var KEYS = parseInt(section.dataset.keys, 10) || 12;
  var QUERIES = parseInt(section.dataset.queries, 10) || 64;
  var MAX_WIDTH = parseInt(section.dataset.maxWidth, 10) || 1024;
  var DRAWS = parseInt(section.dataset.draws, 10) || 1000;
  var seed = parseInt(section.dataset.seed, 10) || 1;
  var draws = 1;

  var slider = document.getElementById("explorer-width");
  var widthOut = document.getElementById("explorer-width-value");
  var scaleSwitch = document.getElementById("explorer-scale");
  var drawButton = document.getElementById("explorer-draw");
  var drawCount = document.getElementById("explorer-draw-count");
  var barsBox = document.getElementById("explorer-bars");
  var stdOut = document.getElementById("explorer-std");
  var varianceOut = document.getElementById("explorer-variance");
  var theoryOut = document.getElementById("explorer-variance-theory");
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
  var varianceAt = new Float64Array(MAX_WIDTH + 1); // variance of q·k over DRAWS pairs, by d_k

  // Every distinct width round(2^(i/10)), so each slider step changes d_k.
  var WIDTHS = [];
  for (var step = 0; step <= 10 * Math.log2(MAX_WIDTH); step++) {
    var candidate = Math.round(Math.pow(2, step / 10));
    if (WIDTHS[WIDTHS.length - 1] !== candidate) WIDTHS.push(candidate);
  }

  function sampleVariances(random) {
    var sums = new Float64Array(MAX_WIDTH + 1);
    var squares = new Float64Array(MAX_WIDTH + 1);
    for (var m = 0; m < DRAWS; m++) {
      var dot = 0;
      for (var i = 0; i < MAX_WIDTH; i++) {
        // q_i k_i without drawing q_i and k_i: Box–Muller's two outputs r cos θ and r sin θ are
        // independent standard normals, and their product is (r² / 2) sin 2θ = −ln(1 − u) sin 2θ.
        dot += -Math.log(1 - random()) * Math.sin(4 * Math.PI * random());
        sums[i + 1] += dot;
        squares[i + 1] += dot * dot;
      }
    }
    for (var d = 1; d <= MAX_WIDTH; d++) {
      var mean = sums[d] / DRAWS;
      varianceAt[d] = (squares[d] - DRAWS * mean * mean) / (DRAWS - 1);
    }
  }

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
    sampleVariances(random);
  }

  function median(values) {
    var sorted = values.slice().sort(function (a, b) { return a - b; });
    var middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  function widthFromSlider() {
    var position = Math.round(parseFloat(slider.value));
    return WIDTHS[Math.min(WIDTHS.length - 1, Math.max(0, position))];
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

  var SUPERSCRIPTS = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

  // Three significant digits; below 0.001 in scientific notation as printed: 1.23 × 10⁻⁴.
  function show(x) {
    if (x === 0) return "0";
    if (Math.abs(x) < 0.001) {
      var parts = x.toExponential(2).split("e");
      var power = String(parseInt(parts[1], 10)).split("").map(function (c) {
        return SUPERSCRIPTS[c];
      }).join("");
      return twoDecimals.format(parseFloat(parts[0])) + " × 10" + power;
    }
    if (Math.abs(x) >= 1000) return whole.format(Math.round(x));
    return threeDigits.format(x);
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
    var variance = varianceAt[width] / (scaled ? width : 1);

    widthOut.textContent = String(width);
    slider.setAttribute("aria-valuetext", "dₖ = " + width);
    for (var j = 0; j < bars.length; j++) {
      bars[j].style.height = (100 * p[j]).toFixed(2) + "%";
      bars[j].parentNode.classList.toggle("bar-top", p[j] === top);
    }
    barsBox.setAttribute(
      "aria-label",
      interpolate(
        ngettext("Softmax probabilities of the %(count)s key: %(probabilities)s", "Softmax probabilities of the %(count)s keys: %(probabilities)s", KEYS),
        { count: KEYS, probabilities: p.map(show).join(listSeparator) },
        true
      )
    );
    stdOut.textContent = show(std);
    varianceOut.textContent = show(variance);
    theoryOut.textContent = scaled ? "1" : String(width);
    maxOut.textContent = show(top);
    typicalOut.textContent = show(typical);
    jacobianOut.textContent = show(jacobian);
    var state = typical > 0.9
      ? gettext("The softmax is saturated: typically nearly one-hot, so the gradients through the softmax vanish.")
      : gettext("The softmax is not saturated: the weights are typically spread and the gradients stay alive.");
    var readings = interpolate(
      gettext("dₖ = %(width)s, %(scores)s: variance of the score over %(draws)s draws %(variance)s (theory %(theory)s), spread of the first query's scores %(spread)s, largest probability %(largest)s (median over %(queries)s queries %(typical)s), largest Jacobian entry %(jacobian)s."),
      {
        width: width,
        scores: scaled ? gettext("scores divided by √dₖ") : gettext("raw scores"),
        draws: count.format(DRAWS),
        variance: show(variance),
        theory: scaled ? "1" : String(width),
        spread: show(std),
        largest: show(top),
        queries: count.format(QUERIES),
        typical: show(typical),
        jacobian: show(jacobian),
      },
      true
    );
    readout.textContent = readings + " " + state;
  }

  slider.addEventListener("input", update);
  scaleSwitch.addEventListener("change", update);
  drawButton.addEventListener("click", function () {
    seed += 1;
    draws += 1;
    drawCount.textContent = interpolate(pgettext("a draw of random vectors, numbered", "Draw %(number)s"), { number: draws }, true);
    draw();
    update();
  });

  slider.max = String(WIDTHS.length - 1);
  draw();
  buildBars();
  section.querySelectorAll("[data-explorer-controls], [data-explorer-output]").forEach(
    function (part) { part.hidden = false; }
  );
  section.querySelectorAll("[data-explorer-fallback]").forEach(function (note) { note.hidden = true; });
  update();
})();
