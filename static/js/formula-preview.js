/* The formula editor's live preview.
 *
 * On every change to the form, after a short pause, the form is posted (with its CSRF token) to
 * the preview endpoint, and the server-rendered preview replaces the one shown. Without the
 * script the form's Preview button posts the whole page and gets the same preview back.
 *
 * When the form has errors, the preview lists them, each naming its field's id (data-field):
 * the script marks each such field (aria-invalid="true", a visible message beside it that the
 * field names by aria-describedby) and clears the marks of the fields no longer listed. The
 * error lists the server put on the page at the last save are cleared too: they are stale.
 */
(function () {
  "use strict";

  var form = document.getElementById("formula-form");
  var target = document.getElementById("formula-preview");
  if (!form || !target || !window.fetch || !window.FormData) return;
  var url = form.dataset.previewUrl;
  var timer = null;
  var latest = 0;

  function unmark() {
    var marked = form.querySelectorAll("[data-preview-marked]");
    Array.prototype.forEach.call(marked, function (field) {
      var id = field.id + "_flag";
      var note = document.getElementById(id);
      if (note) note.remove();
      var rest = (field.getAttribute("aria-describedby") || "").split(" ").filter(function (part) {
        return part && part !== id;
      });
      if (rest.length) field.setAttribute("aria-describedby", rest.join(" "));
      else field.removeAttribute("aria-describedby");
      field.removeAttribute("aria-invalid");
      field.removeAttribute("data-preview-marked");
    });
    // What the last save found is stale once the preview has checked the form again.
    Array.prototype.forEach.call(form.querySelectorAll(".errorlist"), function (list) {
      list.remove();
    });
    Array.prototype.forEach.call(form.querySelectorAll("[aria-invalid]"), function (field) {
      field.removeAttribute("aria-invalid");
    });
    Array.prototype.forEach.call(form.querySelectorAll(".errors"), function (box) {
      box.classList.remove("errors");
    });
  }

  function mark() {
    var problems = target.querySelectorAll("[data-field]");
    Array.prototype.forEach.call(problems, function (problem) {
      var field = document.getElementById(problem.dataset.field);
      if (!field || !form.contains(field)) return;
      var id = field.id + "_flag";
      var note = document.getElementById(id);
      var message = problem.querySelector(".formula-problem-message");
      var text = message ? message.textContent : problem.textContent;
      if (note) {
        note.textContent += " " + text; // a second error of the same field
        return;
      }
      note = document.createElement("span");
      note.id = id;
      note.className = "formula-flag";
      note.textContent = text;
      field.insertAdjacentElement("afterend", note);
      var described = (field.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      described.push(id);
      field.setAttribute("aria-describedby", described.join(" "));
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("data-preview-marked", "");
    });
  }

  function refresh() {
    var request = ++latest;
    var body = new FormData(form);
    fetch(url, { method: "POST", body: body, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        if (request !== latest) return; // an older answer arriving late must not win
        target.innerHTML = html; // the server's template escapes everything the form holds
        unmark();
        mark();
        target.dataset.refreshed = String(request);
      })
      .catch(function () {
        if (request === latest) target.dataset.refreshed = "failed";
      });
  }

  function later() {
    window.clearTimeout(timer);
    timer = window.setTimeout(refresh, 400);
  }

  form.addEventListener("input", later);
  form.addEventListener("change", later);
})();
