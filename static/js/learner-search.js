/* The accommodation form's learner: suggestions from the course's learners while typing.
 *
 * After a short pause, what is typed is sent to the course's learner search (for those who may
 * set accommodations, teaching/accommodations/views.py), and the suggestions list of the field
 * (a <datalist>) is filled with the learners found, each offered as "Name (username)"; the
 * server reads either a username or such a label. Without the script the page's own search
 * form finds learners, and the field still takes a username or a name.
 */
(function () {
  "use strict";

  var form = document.getElementById("accommodation-form");
  var field = document.getElementById("id_learner");
  var list = document.getElementById("learner-options");
  if (!form || !field || !list || !window.fetch || field.disabled) return;
  var url = form.dataset.learnerSearch;
  var timer = null;
  var asked = 0;

  function fill(learners) {
    while (list.firstChild) list.removeChild(list.firstChild);
    learners.forEach(function (learner) {
      var option = document.createElement("option");
      option.value = learner.label;
      list.appendChild(option);
    });
    list.dataset.filled = String(learners.length);
  }

  function search() {
    var text = field.value.trim();
    var ticket = ++asked;
    if (!text) {
      fill([]);
      return;
    }
    fetch(url + "?q=" + encodeURIComponent(text), { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("learner search: HTTP " + response.status);
        return response.json();
      })
      .then(function (data) {
        if (ticket === asked) fill(data.learners || []);
      })
      .catch(function () {
        if (ticket === asked) fill([]);
      });
  }

  field.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(search, 250);
  });
})();
