/* Times in the learner's own time zone.
 *
 * The server writes each time as <time datetime="…Z" data-local-time="datetime|time">, its text
 * in UTC and labelled so ({% local_time %}, grading/templatetags/local_times.py). Here the text
 * becomes the same moment in the browser's zone and language, its zone named; the UTC text
 * stays as the element's title. Without the script, or without Intl, the UTC text stands.
 */
(function () {
  "use strict";

  if (!window.Intl || typeof Intl.DateTimeFormat !== "function") return;
  var styles = {
    datetime: {
      year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
      timeZoneName: "short",
    },
    time: { hour: "2-digit", minute: "2-digit", timeZoneName: "short" },
  };
  var formats = {};

  document.querySelectorAll("time[data-local-time]").forEach(function (element) {
    var moment = new Date(element.getAttribute("datetime"));
    var style = styles[element.dataset.localTime] ? element.dataset.localTime : "datetime";
    if (isNaN(moment.getTime())) return;
    formats[style] = formats[style] || new Intl.DateTimeFormat(undefined, styles[style]);
    if (!element.title) element.title = element.textContent;
    element.textContent = formats[style].format(moment);
    element.dataset.localised = "yes";
  });
})();
