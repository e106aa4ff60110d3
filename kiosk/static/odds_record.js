// The odds' record (docs/odds.md, "The record, shown"): while the first record is being
// worked out, ask the API now and then and show the page again once it is ready.  The chart
// itself is drawn by the server; nothing else here.
(function () {
  "use strict";
  const section = document.querySelector(".odds-record[data-record-state='working']");
  if (!section) return;
  const EVERY_MS = 3000;

  function ask() {
    fetch("/api/v1/odds/record", { headers: { Accept: "application/json" } })
      .then(function (answer) { return answer.ok ? answer.json() : null; })
      .then(function (record) {
        if (record && record.state !== "working") window.location.reload();
        else window.setTimeout(ask, EVERY_MS);
      })
      .catch(function () { window.setTimeout(ask, EVERY_MS); });
  }
  window.setTimeout(ask, EVERY_MS);
})();
