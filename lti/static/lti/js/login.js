/* The OIDC login page: go on to the LMS's sign-in if softgrade's cookies work in this frame;
 * otherwise say so and offer a new tab (first-party there, so its cookies work). Without script
 * the page's own "Continue" link does the same job as the automatic redirect. */
(function () {
  "use strict";
  var page = document.getElementById("lti-login");
  if (!page) return;
  var cookieName = page.dataset.cookie + "=";
  var cookiesWork = document.cookie.split(";").some(function (part) {
    return part.trim().indexOf(cookieName) === 0;
  });
  if (cookiesWork) {
    window.location.replace(page.dataset.authUrl);
    return;
  }
  document.getElementById("lti-login-continue").hidden = true;
  document.getElementById("lti-cookies-blocked").hidden = false;
})();
