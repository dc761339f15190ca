/* Waiting room: a countdown to the quiz's opening, and its start button made active then.
 *
 * The server enforces the opening whatever this script does: a start posted before it is
 * refused with the time the quiz opens, and a page loaded from the opening on has its start
 * active already (so without this script, a reload works). The time left is the server's
 * (data-opens-in-ms, measured when the page was made), counted down on the browser's monotonic
 * clock: a learner whose computer clock is wrong still sees the start become active at the
 * instant, never before the server would take it.
 */
(function () {
  "use strict";

  // Words come from Django's JavaScript catalog (loaded before this script); a page without it
  // shows the English.
  var gettext = window.gettext || function (text) { return text; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  var timer = document.querySelector("[data-opens-in-ms]");
  if (!timer) return;
  var display = timer.querySelector("[data-countdown-display]");
  var button = document.querySelector("[data-start-button]");
  var help = document.querySelector("[data-waiting-help]");
  var live = document.getElementById("waiting-announcement");
  var clock = window.performance && performance.now ? performance : Date;
  var opensAt = clock.now() + parseInt(timer.dataset.opensInMs, 10);
  var atLoad = Math.ceil(parseInt(timer.dataset.opensInMs, 10) / 1000);
  var announced = {};

  var format = window.softgradeClockText; // static/js/clock-text.js

  function say(text) {
    if (live) live.textContent = text;
  }

  function open() {
    display.textContent = format(0);
    timer.dataset.state = "open";
    if (button) button.disabled = false;
    if (help) help.textContent = gettext("The quiz is open: start when you are ready.");
    say(gettext("The quiz is open. You can start now."));
  }

  function tick() {
    var left = opensAt - clock.now();
    if (left <= 0) {
      open();
      return;
    }
    var seconds = Math.ceil(left / 1000);
    display.textContent = format(seconds);
    // Screen readers hear the countdown at a few moments only, not every second (and not
    // a mark already passed when the page loaded).
    [300, 60, 10].forEach(function (mark) {
      if (seconds <= mark && atLoad > mark && !announced[mark]) {
        announced[mark] = true;
        say(interpolate(gettext("The quiz opens in %(time)s."), { time: format(seconds) }, true));
      }
    });
    // Wake at the instant itself when it is near, else at the next second's change.
    window.setTimeout(tick, Math.min(left, (left % 1000) || 1000));
  }

  tick();
})();
