// The night's close on the tablet: after [night] close, every match still in play is an alarm
// banner (read from the feed board, /api/v1/feeds) until the commissioner settles it as the
// hands stand or voids it with refunds.  No night ends with a match in play or money held.
(function () {
  "use strict";
  const T = window.Commissioner, el = T.el;
  const banner = document.getElementById("night-close");
  if (!banner) return;
  const list = banner.querySelector("ul");
  const title = banner.querySelector("strong");

  function row(alarm, match, named) {
    const li = el("li", "night-close-match");
    li.dataset.match = match.match_id;
    li.append(el("span", "", named + " is still " + match.status +
                 " · pot " + T.money(match.pot_cents) + " "));
    const reason = "the night closed at " + alarm.close + " with the match in play";
    li.append(T.button("Settle as the hands stand", async function () {
      if (await T.rule("Settle the match on " + named + " as the hands stand?\n" +
                       "Open decisions lapse, no end-of-match draws or buys; the best hand " +
                       "now takes the pot.", match.match_id, "settle-as-hands-stand",
                       { reason: reason }, named + ": settled as the hands stand")) {
        refresh();
      }
    }, "primary settle-as-hands-stand"));
    li.append(T.button("Void with refunds", async function () {
      if (await T.rule("VOID the match on " + named + "? Every ante and bought card is " +
                       "refunded; nobody wins.", match.match_id, "void", { reason: reason },
                       named + ": voided, everyone refunded")) {
        refresh();
      }
    }, "danger void-match"));
    return li;
  }

  async function refresh() {
    let alarm;
    try {
      alarm = (await T.call("GET", "/api/v1/feeds")).night_close;
    } catch (problem) {
      return; // the next poll tries again
    }
    const open = alarm ? alarm.matches : [];
    banner.hidden = !open.length;
    banner.dataset.state = open.length ? "alarm" : "clear";
    if (!open.length) { list.replaceChildren(); return; }
    title.textContent = "⚠ The night closed at " + alarm.close + " with " + open.length +
      (open.length === 1 ? " match" : " matches") + " not settled";
    // Each match as the desk names it (league and lanes), not by its id.
    const titleOf = {};
    try {
      (await T.call("GET", "/api/v1/matches")).matches.forEach(function (m) { titleOf[m.match_id] = m.title; });
    } catch (problem) { /* named by its status and pot alone until the next poll */ }
    list.replaceChildren(...open.map(function (match) {
      return row(alarm, match, titleOf[match.match_id] || "A match");
    }));
  }

  refresh();
  setInterval(refresh, 3000);
})();
