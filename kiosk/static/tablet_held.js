// The tablet's held balls: feed balls the ledger has not taken (a gap, a disagreement, no
// match on the lane).  Each shows its line and reason, with the desk's three ways forward.
(function () {
  "use strict";
  const T = window.Tablet, el = T.el;
  const list = document.getElementById("held-list");
  const count = document.getElementById("held-count");

  function describe(item) {
    return "Lane " + item.lane + " slot " + item.slot +
      (item.bowler ? " (" + item.bowler + ", match " + item.match_id + ")" : "") +
      ": game " + item.game + " frame " + item.frame + " ball " + item.ball + ", " +
      item.pins + " pin" + (item.pins === 1 ? "" : "s");
  }

  async function act(path, body, done) {
    try {
      const answer = await T.call("POST", path, body);
      T.say(done + ": " + answer.message);
    } catch (problem) {
      T.say("Not done: " + problem.message, "refused");
    }
    await refresh();
  }

  function row(item) {
    const li = el("li", "held-item");
    li.dataset.held = item.id;
    li.append(el("strong", "", describe(item)), el("div", "held-reason", item.reason),
              el("code", "held-line", item.line));
    const actions = el("div", "held-actions");
    actions.append(T.button("Apply", function () {
      act("/api/v1/held/" + item.id + "/apply", {}, "Apply");
    }, "held-apply"));
    if (item.bowler) {
      actions.append(T.button("Re-sync " + item.bowler, function () {
        act("/api/v1/matches/" + encodeURIComponent(item.match_id) + "/resync",
            { bowler: item.bowler }, "Re-sync " + item.bowler);
      }, "held-resync"));
    }
    actions.append(T.button("Discard…", function () {
      const reason = window.prompt("Discard this ball for good? It will never deal.\n" +
                                   describe(item) + "\nReason (for the audit trail):");
      if (reason === null) return;
      if (!reason.trim()) { T.say("A discard needs a reason.", "refused"); return; }
      act("/api/v1/held/" + item.id + "/discard", { reason: reason.trim() }, "Discarded");
    }, "danger held-discard"));
    li.append(actions);
    return li;
  }

  async function refresh() {
    let held;
    try {
      held = (await T.call("GET", "/api/v1/held")).held;
    } catch (problem) {
      return; // the next poll tries again
    }
    count.textContent = String(held.length);
    count.dataset.state = held.length ? "amber" : "green";
    list.replaceChildren(...(held.length ? held.map(row)
                                          : [el("li", "empty", "No held balls.")]));
  }

  refresh();
  setInterval(refresh, 3000);
})();
