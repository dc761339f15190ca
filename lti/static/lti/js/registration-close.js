/* Dynamic registration: tell the LMS that opened this page that softgrade is done, with the
 * message LTI Dynamic Registration defines. A registration that succeeded closes at once; a
 * refusal stays open to be read, and its button closes it. The message carries nothing secret,
 * and the opening LMS page's origin is not known here, hence the "*" target. */
(function () {
  "use strict";
  var page = document.getElementById("lti-registration");
  if (!page) return;
  function close() {
    var lms = window.opener || (window.parent !== window ? window.parent : null);
    if (lms) lms.postMessage({ subject: "org.imsglobal.lti.close" }, "*");
  }
  var button = document.getElementById("lti-registration-close");
  if (button) button.addEventListener("click", close);
  if (page.dataset.registered === "true") close();
})();
