/* Exam countdown: the time left, a last save of changed answers, and the result at the end.
 *
 * The server enforces the deadline whatever this script does: an answer that arrives late is
 * refused and the answers saved before the deadline are graded. The script keeps the learner
 * informed, saves answers changed since the page loaded when ten seconds are left, and once the
 * deadline has passed opens the attempt again, which the server answers with the graded result.
 * The last save goes through the page's autosave (static/js/autosave.js), which sends it again
 * while the service is briefly unavailable; and the result is opened only once the service
 * answers (/health/), so a restart at the deadline shows the learner a message that it is on
 * its way, not an error page.
 */
(function () {
  "use strict";

  // Words come from Django's JavaScript catalog (loaded before this script); a page without it
  // shows the English.
  var gettext = window.gettext || function (text) { return text; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  var clock = document.querySelector("[data-seconds-left]");
  if (!clock) return;
  var LAST_SAVE = 10;
  var display = clock.querySelector("[data-countdown-display]");
  var secondsAtLoad = parseInt(clock.dataset.secondsLeft, 10);
  var end = Date.now() + 1000 * secondsAtLoad;
  var form = document.getElementById(clock.dataset.form || "");
  var live = document.getElementById("countdown-announcement");
  var health = clock.dataset.health;
  var announced = {};
  var waits = 0;
  var changed = false;
  var saved = false;

  if (form) {
    form.addEventListener("input", function () { changed = true; });
    form.addEventListener("change", function () { changed = true; });
  }

  var format = window.softgradeClockText; // static/js/clock-text.js

  function say(text) {
    if (live) live.textContent = text;
  }

  function tick() {
    var left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
    display.textContent = format(left);
    clock.classList.toggle("countdown-low", left <= 60);
    // Screen readers hear the clock at a few moments only, not every second.
    [300, 60, 10].forEach(function (mark) {
      if (left <= mark && left > 0 && !announced[mark]) {
        announced[mark] = true;
        say(interpolate(gettext("%(time)s left."), { time: format(left) }, true));
      }
    });
    // Only a page open before the last seconds saves by itself, so a reload never loops.
    if (left <= LAST_SAVE && secondsAtLoad > LAST_SAVE && changed && !saved && form) {
      saved = true;
      say(gettext("Saving your answers before time runs out."));
      if (form.dataset.autosave === "on") {
        form.dispatchEvent(new Event("softgrade:save-now"));
      } else {
        var save = form.querySelector("button[value='save']");
        form.requestSubmit(save || undefined);
        return;
      }
    }
    if (Date.now() >= end + 1000) {
      clock.classList.add("countdown-over");
      say(gettext("Time is up. Opening your result."));
      openResult();
      return;
    }
    window.setTimeout(tick, 250);
  }

  // Reload (the server answers with the graded result) once the service answers.
  function openResult() {
    if (!health || !window.fetch) {
      window.location.reload();
      return;
    }
    fetch(health, { credentials: "same-origin", cache: "no-store" }).then(function (response) {
      if (response.ok) {
        window.location.reload();
      } else {
        waitForService();
      }
    }).catch(waitForService);
  }

  function waitForService() {
    waits += 1;
    var wait = Math.min(2 * waits, 10);
    var text = interpolate(gettext("Time is up. The service is briefly unavailable; your answers saved by the deadline are graded and your result opens as soon as it answers (trying again in %(seconds)s s)."), { seconds: wait }, true);
    say(text);
    var notice = document.getElementById("autosave-status");
    if (notice) {
      notice.textContent = text;
      notice.dataset.state = "failed";
    }
    window.setTimeout(openResult, wait * 1000);
  }

  tick();
})();
