/* Exam sheet autosave: answers changed on the page are saved in the background, and a save the
 * service could not take is sent again until it is taken, the learner told all along.
 *
 * Without this script the page's own Save answers and Submit buttons do the same work. The
 * script sends the very form the buttons send (CSRF and submission token included), asking for
 * JSON; the server answers with the count saved and a fresh token for the next save. A save that
 * failed (the service restarting: a 503, or no answer at all) is sent again unchanged, with the
 * same token, so if it was stored after all it is recorded once; changes made meanwhile follow
 * in the next save. The countdown asks for a save ten seconds before the end (event
 * "softgrade:save-now" on the form).
 *
 * The Save answers button saves the same way, so the learner stays on the page and hears what
 * was saved. When the server could not read an answer, or refuses the save (signed out, a stale
 * form), the button's own request follows, with the same token, and the server's page shows
 * why next to each box. Submit is never taken over.
 */
(function () {
  "use strict";

  // Words come from Django's JavaScript catalog (loaded before this script); a page without it
  // shows the English.
  var gettext = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, count) { return count === 1 ? one : many; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  var form = document.querySelector("form[data-autosave]");
  if (!form || !window.fetch || !window.FormData) return;
  var QUIET = 5000; // ms without a change before saving
  var GAP = 15000; // ms at least between two saves that were taken
  var RETRY = [2, 4, 8, 15]; // s before sending a failed save again; the last one repeats
  var token = form.querySelector("input[name='token']");
  var saveButton = form.querySelector("button[name='action'][value='save']");
  var status = document.createElement("p");
  status.className = "autosave-status";
  status.id = "autosave-status";
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  var clock = document.querySelector("[data-seconds-left]");
  (clock || form.querySelector(".submit-bar") || form).appendChild(status);

  var changed = false; // the page differs from what was last sent
  var failed = null; // the save that failed, to send again as it was
  var failures = 0;
  var sending = false;
  var lastTaken = 0;
  var timer = null;
  var urgent = false; // the countdown asked: no waiting between saves
  var asked = false; // the learner pressed Save answers: the next save says what it saved
  var native = false; // the button's own request is on its way: let the browser send it

  function time() {
    // In the page's language (its <html lang>), as the server writes times.
    var language = document.documentElement.lang || undefined;
    return new Date().toLocaleTimeString(language, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  function tell(text, kind) {
    status.textContent = text;
    status.dataset.state = kind;
  }

  function later(ms) {
    window.clearTimeout(timer);
    timer = window.setTimeout(save, ms);
  }

  function snapshot() {
    var data = new FormData(form);
    data.set("action", "save");
    return data;
  }

  // Item headings say "saved" for every answer the save sent, as the page would after a reload.
  function markSaved(data) {
    data.forEach(function (value, name) {
      var match = /^item-(\d+)-(answer|choice)$/.exec(name);
      if (!match || !String(value).trim()) return;
      var state = document.querySelector("#item-" + match[1] + " [data-item-state]");
      if (state) state.textContent = gettext("saved");
    });
  }

  // The server's own page says best what went wrong: send the button's request itself.
  function showOnPage(text) {
    tell(text, "failed");
    native = true;
    form.requestSubmit(saveButton);
  }

  function retry(why) {
    failures += 1;
    var wait = RETRY[Math.min(failures, RETRY.length) - 1];
    tell(interpolate(gettext("Not saved yet: %(reason)s Your answers are still on this page; trying again in %(seconds)s s."), { reason: why, seconds: wait }, true), "failed");
    later(wait * 1000);
  }

  function save() {
    window.clearTimeout(timer);
    if (sending) return;
    if (!failed && !changed) return;
    var request = failed || { data: snapshot(), asked: asked };
    if (!failed) {
      changed = false;
      asked = false;
    }
    sending = true;
    tell(failures ? gettext("Trying to save again…") : gettext("Saving…"), "saving");
    // getAttribute: the buttons named "action" shadow form.action.
    fetch(form.getAttribute("action"), {
      method: "POST",
      body: request.data,
      credentials: "same-origin",
      headers: { Accept: "application/json" },
      redirect: "manual",
    }).then(function (response) {
      var json = (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
      return (json ? response.json() : Promise.resolve(null)).then(function (body) {
        sending = false;
        if (response.status === 503 || response.status === 502 || response.status === 504) {
          failed = request;
          retry(gettext("the service is briefly unavailable."));
          return;
        }
        failed = null;
        failures = 0;
        if (response.ok && body && body.code === "saved") {
          if (request.asked && body.unreadable) {
            // The same token: the server hands back the answers it just stored, not new ones.
            showOnPage(interpolate(ngettext("%(count)s answer could not be read; showing why…", "%(count)s answers could not be read; showing why…", body.unreadable), { count: body.unreadable }, true));
            return;
          }
          if (token && body.token) token.value = body.token;
          lastTaken = Date.now();
          if (!body.unreadable) markSaved(request.data);
          if (request.asked) {
            tell(body.saved ?
              interpolate(ngettext("Saved %(count)s answer at %(time)s.", "Saved %(count)s answers at %(time)s.", body.saved), { count: body.saved, time: time() }, true) :
              interpolate(gettext("Nothing new to save at %(time)s: your answers were already saved."), { time: time() }, true), "saved");
          } else {
            tell(body.message || interpolate(gettext("All answers saved at %(time)s."), { time: time() }, true), body.message ? "failed" : "saved");
          }
          if (changed) later(urgent || asked ? 0 : GAP);
          return;
        }
        if (body && body.code === "attempt_closed" && body.location) {
          tell(body.message, "failed");
          window.location.assign(body.location);
          return;
        }
        // Signed out, a stale form, a refusal: the buttons show the server's own page for it.
        if (request.asked || asked) {
          showOnPage((body && body.message ? body.message + " " : "") + gettext("Opening the page…"));
          return;
        }
        tell((body && body.message ? body.message + " " : "") +
          gettext("Not saved automatically: press Save answers."), "failed");
      });
    }).catch(function () {
      sending = false;
      failed = request;
      retry(gettext("the service is not answering."));
    });
  }

  function edited() {
    changed = true;
    if (failed || sending) return; // the pending save goes first, then this change
    var wait = Math.max(QUIET, lastTaken + GAP - Date.now());
    later(wait);
  }

  form.addEventListener("input", edited);
  form.addEventListener("change", edited);
  form.addEventListener("softgrade:save-now", function () {
    urgent = true;
    changed = true;
    save();
  });
  form.addEventListener("submit", function (event) {
    window.clearTimeout(timer);
    // Submit, and the fallback above, go as the browser sends them: no background save races
    // them. So does a second press while the first is on its way (static/js/page.js).
    if (native || !saveButton || event.submitter !== saveButton) return;
    if (form.dataset.submitting === "yes" || typeof form.requestSubmit !== "function") return;
    event.preventDefault();
    asked = true;
    changed = true;
    tell(gettext("Saving…"), "saving");
    save(); // or, while a save is on its way, right after it
  });
  form.dataset.autosave = "on";
})();
