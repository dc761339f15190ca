/* Exam countdown: shows the time left and, at zero, submits the answer sheet.
 *
 * The server enforces the deadline whatever this script does: an answer that arrives late is
 * refused and the answers saved before the deadline are graded. The script only keeps the
 * learner informed, and submitting at zero brings them straight to that graded result.
 */
(function () {
  "use strict";

  var clock = document.querySelector("[data-seconds-left]");
  if (!clock) return;
  var display = clock.querySelector("[data-countdown-display]");
  var end = Date.now() + 1000 * parseInt(clock.dataset.secondsLeft, 10);
  var announced = {};
  var live = document.getElementById("countdown-announcement");

  function format(seconds) {
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var rest = seconds % 60;
    var mm = (hours ? String(minutes).padStart(2, "0") : String(minutes));
    return (hours ? hours + ":" : "") + mm + ":" + String(rest).padStart(2, "0");
  }

  function finish() {
    display.textContent = "0:00";
    clock.classList.add("countdown-over");
    var form = document.getElementById(clock.dataset.form || "");
    var submit = form && form.querySelector("button[value='submit']");
    if (form && submit) {
      form.requestSubmit(submit);
    } else {
      window.location.reload();
    }
  }

  function tick() {
    var left = Math.max(0, Math.round((end - Date.now()) / 1000));
    display.textContent = format(left);
    clock.classList.toggle("countdown-low", left <= 60);
    // Screen readers hear the clock at a few moments only, not every second.
    [300, 60, 10].forEach(function (mark) {
      if (left <= mark && left > 0 && !announced[mark] && live) {
        announced[mark] = true;
        live.textContent = format(left) + " left.";
      }
    });
    if (left <= 0) {
      finish();
      return;
    }
    window.setTimeout(tick, 250);
  }

  tick();
})();
