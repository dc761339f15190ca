/* The question page's preview follows the form while the author types.
 *
 * The server renders the preview (the learners' renderer and sanitizer, courses/markup.py) from
 * the form as it stands; this script only asks for it and shows it. Without the script the page
 * shows the saved question's preview.
 *
 * It also flags, as the author types, a wrong choice whose feedback still says "Right: …" or
 * "Correct!" (as the server's check does on saving, courses/admin_questions.py): the feedback box
 * is marked invalid and the reason is shown beneath it, linked by aria-describedby; the flag goes
 * as soon as the choice is right again or the feedback no longer says so.
 */
(function () {
  "use strict";

  // Words come from Django's JavaScript catalog (loaded before this script); a page without it
  // shows the English.
  var gettext = window.gettext || function (text) { return text; };

  // The learners' feedback is authored content, in the course's language: the check reads the
  // English words the server's check reads (courses/admin_questions.py).
  var SAYS_RIGHT = /^\s*(?:right|correct)\s*(?:[:!.,;\u2014\u2013]|$)/i;
  var FLAG = gettext("This choice is wrong, but its feedback still tells the learner they are right. Rewrite it for a learner who picked a wrong answer, or leave it empty.");

  function flagRow(feedback, correct) {
    var id = feedback.id + "-flag";
    var note = document.getElementById(id);
    var described = (feedback.getAttribute("aria-describedby") || "")
      .split(" ")
      .filter(function (part) {
        return part && part !== id;
      });
    if (!correct.checked && SAYS_RIGHT.test(feedback.value)) {
      if (!note) {
        note = document.createElement("p");
        note.id = id;
        note.className = "sg-choice-flag";
        note.textContent = FLAG;
        feedback.insertAdjacentElement("afterend", note);
      }
      described.push(id);
      feedback.setAttribute("aria-invalid", "true");
      feedback.setAttribute("aria-describedby", described.join(" "));
    } else {
      if (note) note.remove();
      feedback.removeAttribute("aria-invalid");
      if (described.length) feedback.setAttribute("aria-describedby", described.join(" "));
      else feedback.removeAttribute("aria-describedby");
    }
  }

  function flagChoices(form) {
    var boxes = form.querySelectorAll('textarea[name^="choices-"][name$="-feedback"]');
    Array.prototype.forEach.call(boxes, function (feedback) {
      var name = feedback.name.replace(/-feedback$/, "-is_correct");
      var correct = form.querySelector('input[name="' + name + '"]');
      if (correct && !/__prefix__/.test(name)) flagRow(feedback, correct);
    });
  }

  function start() {
    var questionForm = document.getElementById("question_form");
    if (questionForm) {
      questionForm.addEventListener("input", function () {
        flagChoices(questionForm);
      });
      questionForm.addEventListener("change", function () {
        flagChoices(questionForm);
      });
    }

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
