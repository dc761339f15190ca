/* How the exam's clocks write a time left: "4:05", "1:02:09" (hours only when there are any).
 * One definition for the attempt page's countdown (countdown.js) and the waiting room's
 * (waiting-room.js); each page loads this file before its clock's script.
 */
(function () {
  "use strict";

  window.softgradeClockText = function (seconds) {
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var rest = seconds % 60;
    var mm = hours ? String(minutes).padStart(2, "0") : String(minutes);
    return (hours ? hours + ":" : "") + mm + ":" + String(rest).padStart(2, "0");
  };
})();
