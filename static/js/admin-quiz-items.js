/* The quiz's items in the admin: a row added with "Add another" starts at the next order.
 *
 * The server gives the blank row it copies the order after the last item's
 * (courses/quiz_items_admin.py); each further copy here takes one more than the highest order in
 * the table, so rows added in a row count up. Without the script every copy has the server's
 * next order, and the author numbers them.
 *
 * The pickers of a question, problem or pool are drawn by the admin's autocomplete (a box of its
 * own in place of the <select>): the box gets the <select>'s accessible name, the column's label.
 */
(function () {
  "use strict";

  function nameThePickers() {
    var selects = document.querySelectorAll("#items-group select.admin-autocomplete");
    Array.prototype.forEach.call(selects, function (select) {
      var label = select.getAttribute("aria-label");
      var container = select.nextElementSibling;
      if (!label || !container) return;
      // The box itself and the text it shows (select2 gives that one a role of its own).
      var parts = container.querySelectorAll('[role="combobox"], [role="textbox"]');
      Array.prototype.forEach.call(parts, function (part) {
        part.setAttribute("aria-label", label);
      });
    });
  }

  // After the admin's own scripts have drawn the pickers (on DOMContentLoaded).
  window.addEventListener("load", nameThePickers);
  document.addEventListener("formset:added", function () {
    window.setTimeout(nameThePickers, 0);
  });

  document.addEventListener("formset:added", function (event) {
    if (!event.detail || event.detail.formsetName !== "items") return;
    var row = event.target;
    var own = row.querySelector('input[name$="-order"]');
    if (!own) return;
    var highest = 0;
    var inputs = document.querySelectorAll('#items-group input[name^="items-"][name$="-order"]');
    Array.prototype.forEach.call(inputs, function (input) {
      if (input === own || /__prefix__/.test(input.name)) return;
      var value = parseInt(input.value, 10);
      if (!isNaN(value) && value > highest) highest = value;
    });
    var next = highest + 1;
    if (next > (parseInt(own.value, 10) || 0)) own.value = String(next);
  });
})();
