/* Submit asks first: a dialog naming the items still without an answer.
 *
 * Without this script the Submit attempt button opens the server's confirmation page, which
 * says the same. With it, the button opens the page's <dialog> instead; its Submit now button
 * posts as the page would (the practice quiz's submit form, or the exam sheet with
 * action=submit, which saves the answers on the page first). On the exam sheet an answer
 * counts as given once it is on the page, saved or not: submitting saves it.
 *
 * The countdown never goes through here: at the deadline it reloads the page, which the server
 * answers with the graded result, dialog open or not.
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

  var dialog = document.getElementById("submit-dialog");
  if (!dialog || typeof dialog.showModal !== "function") return;
  var summary = dialog.querySelector("[data-dialog-summary]");

  function hasAnswer(section, onPage) {
    if (!onPage) return section.dataset.answered === "yes";
    var fields = section.querySelectorAll("input, textarea");
    for (var i = 0; i < fields.length; i += 1) {
      var field = fields[i];
      var given = field.type === "radio" || field.type === "checkbox" ? field.checked :
        field.value.trim() !== "";
      if (given) return true;
    }
    return false;
  }

  function paragraph(text) {
    var p = document.createElement("p");
    p.textContent = text;
    return p;
  }

  function summarise(onPage) {
    var sections = document.querySelectorAll("section.item[data-item-number]");
    var missing = [];
    sections.forEach(function (section) {
      if (!hasAnswer(section, onPage)) missing.push(section);
    });
    summary.textContent = "";
    if (!missing.length) {
      summary.appendChild(paragraph(gettext("Every item has an answer. Once submitted, the attempt cannot be changed.")));
      return;
    }
    var lead = missing.length === sections.length ? gettext("No item has an answer yet:") :
      missing.length === 1 ? gettext("One item has no answer yet:") :
        interpolate(ngettext("%(missing)s of %(total)s item has no answer yet:", "%(missing)s of %(total)s items have no answer yet:", missing.length), { missing: missing.length, total: sections.length }, true);
    summary.appendChild(paragraph(lead));
    var list = document.createElement("ul");
    list.className = "unanswered-list";
    missing.forEach(function (section) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = "#" + section.id;
      link.textContent = interpolate(gettext("Item %(number)s"), { number: section.dataset.itemNumber }, true);
      link.addEventListener("click", function () { dialog.close(); });
      item.appendChild(link);
      list.appendChild(item);
    });
    summary.appendChild(list);
    summary.appendChild(paragraph(gettext("An item without an answer scores 0. Once submitted, the attempt cannot be changed.")));
  }

  // On the form itself, so it runs before page.js marks the form as on its way.
  document.querySelectorAll("form[data-confirm-submit]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      var whole = form.dataset.confirmSubmit === "form";
      var asks = whole || (event.submitter && event.submitter.hasAttribute("data-confirm-submit"));
      if (!asks) return;
      event.preventDefault();
      summarise(!whole);
      dialog.showModal();
    });
  });
})();
