/* The formula editor's live preview.
 *
 * On every change to the form, after a short pause, the form is posted (with its CSRF token) to
 * the preview endpoint, and the server-rendered preview replaces the one shown. Without the
 * script the form's Preview button posts the whole page and gets the same preview back.
 */
(function () {
  "use strict";

  var form = document.getElementById("formula-form");
  var target = document.getElementById("formula-preview");
  if (!form || !target || !window.fetch || !window.FormData) return;
  var url = form.dataset.previewUrl;
  var timer = null;
  var latest = 0;

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
