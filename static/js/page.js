/* Small enhancements for every page; each page works without them.
 *
 * A form marked data-submit-once ignores a second submission while the first is on its way,
 * so a double click sends one request (the server also recognises a repeated submission token).
 * Buttons are not disabled: a disabled submit button would drop its name=value from the request.
 * Block formulas, worked-solution steps and tables wider than the page scroll in their own box
 * and become keyboard-focusable.
 */
(function () {
  "use strict";

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-submit-once")) return;
    // A script that sends the form itself (the exam page's Save answers) sends no request here.
    if (event.defaultPrevented) return;
    if (form.dataset.submitting === "yes") {
      event.preventDefault();
      return;
    }
    form.dataset.submitting = "yes";
    form.setAttribute("aria-busy", "true");
  });

  // Coming back with the browser's Back button restores the page as it was: allow submitting.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-submit-once]").forEach(function (form) {
      delete form.dataset.submitting;
      form.removeAttribute("aria-busy");
    });
  });

  // A wide formula, worked-solution step or table (.table-wrap: the results grid, an attempt's
  // tries on a phone) scrolls sideways inside its own box; keyboard users need to reach it too. Only those that overflow take a tab stop: the others would be stops
  // that do nothing.
  function focusableWideMath() {
    document.querySelectorAll('math[display="block"], .solution-steps li, .table-wrap').forEach(function (box) {
      // No slack: a box a single pixel too narrow (math rounds sub-pixel widths up) scrolls too.
      if (box.scrollWidth > box.clientWidth) {
        box.setAttribute("tabindex", "0");
      } else {
        box.removeAttribute("tabindex");
      }
    });
  }
  focusableWideMath();
  window.addEventListener("resize", focusableWideMath);
  // The math font arrives after this script runs (font-display: swap) and widens formulas.
  // "ready" settles once for the loads pending now; a face first needed by a later layout (a
  // solution just opened) loads afterwards, so each finished load is listened for too.
  if (document.fonts) {
    document.fonts.ready.then(focusableWideMath);
    document.fonts.addEventListener("loadingdone", focusableWideMath);
  }
  window.addEventListener("load", focusableWideMath);
  // A folded worked solution has no width until it is opened ("toggle" does not bubble).
  document.addEventListener("toggle", focusableWideMath, true);
})();
