/* The setup page's copy buttons: copy a value to the clipboard and say so. Where the clipboard
 * is not available (an old browser, a page not served over https), the value is selected for
 * the person to copy themselves. Without script the buttons stay hidden and each value is
 * selected whole by a click (CSS user-select: all). */
(function () {
  "use strict";
  // The page's catalog (Django's JavaScript catalog, loaded by base.html); English without it.
  var gettext = window.gettext || function (text) { return text; };
  function select(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  function say(target, words) {
    var status = document.querySelector('[data-copy-status="' + target + '"]');
    if (status) status.textContent = words;
  }
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    var target = button.dataset.copy;
    var element = document.getElementById(target);
    if (!element) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      var text = element.textContent.trim();
      function selected() {
        select(element);
        say(target, gettext("Selected: press Ctrl+C (⌘C) to copy."));
      }
      if (!navigator.clipboard || !window.isSecureContext) {
        selected();
        return;
      }
      navigator.clipboard.writeText(text).then(function () {
        say(target, gettext("Copied."));
      }, selected);
    });
  });
})();
