/* The question page's preview follows the form while the author types.
 *
 * The server renders the preview (the learners' renderer and sanitizer, courses/markup.py) from
 * the form as it stands; this script only asks for it and shows it. Without the script the page
 * shows the saved question's preview.
 */
(function () {
  "use strict";

  function start() {
    var body = document.querySelector(".sg-learner-preview-body[data-preview-url]");
    var form = body && document.getElementById("question_form");
    if (!form) return;

    var timer = null;
    var asked = 0;

    function refresh() {
      var ticket = ++asked;
      fetch(body.dataset.previewUrl, {
        method: "POST",
        body: new FormData(form),
        credentials: "same-origin",
      })
        .then(function (response) {
          if (!response.ok) throw new Error("preview: HTTP " + response.status);
          return response.text();
        })
        .then(function (html) {
          // Only the latest answer counts: an earlier, slower one must not overwrite it.
          if (ticket !== asked) return;
          body.innerHTML = html;
          body.removeAttribute("data-stale");
        })
        .catch(function () {
          if (ticket === asked) body.setAttribute("data-stale", "true");
        });
    }

    function later() {
      clearTimeout(timer);
      timer = setTimeout(refresh, 400);
    }

    form.addEventListener("input", later);
    form.addEventListener("change", later);
    document.addEventListener("formset:removed", later);
  }

  // The admin loads its scripts in the page's head, before the form exists.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
