/* Deep linking: post the signed choice back to the LMS at once; the button stays for people
 * without script. */
(function () {
  "use strict";
  var form = document.getElementById("lti-deep-linking-return");
  if (form) form.submit();
})();
