// A screen redrawn under a pressed finger or mouse loses the tap: the button that got the
// press is replaced before the release, and the browser sends no click to either copy.  The
// kiosk redraws every panel on each change (a ball on the other lane, an odds refinement),
// so a bowler tapping "NO" at that moment saw nothing happen.  ``steady`` holds the redraws
// of an area while a press that began in it is down, and draws once after the release (and
// its click) — or after ``MAX_HOLD_MS``, so a resting hand never freezes the screen.
(function () {
  "use strict";
  const MAX_HOLD_MS = 1000;

  function steady(area, draw) {
    let pressed = false, owed = false, holdTimer = null;
    function release() {
      clearTimeout(holdTimer);
      holdTimer = null;
      pressed = false;
      if (owed) { owed = false; draw(); }
    }
    area.addEventListener("pointerdown", function () {
      pressed = true;
      clearTimeout(holdTimer);
      holdTimer = setTimeout(release, MAX_HOLD_MS);
    }, true);
    ["pointerup", "pointercancel"].forEach(function (type) {
      // The click comes after the pointer's release, in the same task: draw after it.
      window.addEventListener(type, function () { if (pressed) setTimeout(release, 0); }, true);
    });
    return function redraw() {
      if (pressed) { owed = true; return; }
      draw();
    };
  }

  window.AlleySteadyTaps = { steady: steady, MAX_HOLD_MS: MAX_HOLD_MS };
})();
