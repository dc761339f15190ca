/* Tells the server the browser's time zone, so the next page shows times in it.
 *
 * The server writes every time in the reader's zone (accounts/middleware.py): their own
 * setting if they chose one, else the zone this script stores in the softgrade_time_zone
 * cookie, else UTC (named so) until it has. The server checks the name against the zones it
 * knows and ignores any other. Inside an LMS's iframe over HTTPS the cookie must be
 * SameSite=None; Secure; Partitioned to be kept, as the session's is (lti/middleware.py).
 */
(function () {
  "use strict";

  if (!window.Intl || typeof Intl.DateTimeFormat !== "function") return;
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  // IANA names ("Pacific/Auckland", "America/Port-au-Prince", "Etc/GMT+5") need no encoding
  // in a cookie, and the server reads the value as it is.
  if (!zone || zone.length > 64 || !/^[A-Za-z0-9_+\-\/]+$/.test(zone)) return;
  var name = "softgrade_time_zone";
  var current = document.cookie.split("; ").filter(function (pair) {
    return pair.indexOf(name + "=") === 0;
  })[0];
  var value = zone;
  if (current === name + "=" + value) return;
  var secure = window.location.protocol === "https:";
  var framed = window.top !== window.self;
  var attributes = "; path=/; max-age=31536000";
  attributes += secure && framed ? "; SameSite=None; Secure; Partitioned" : "; SameSite=Lax";
  if (secure && !framed) attributes += "; Secure";
  document.cookie = name + "=" + value + attributes;
})();
