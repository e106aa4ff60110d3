// The settlement page's results waiting for the desk: every match at its showdown ("ending"),
// with its winners, their hands, each amount and the pot's split, and a confirm that names
// them all again.  The night's totals above only count a result once it is confirmed.
(function () {
  "use strict";
  const T = window.Commissioner;
  const section = document.getElementById("showdowns");
  const list = document.getElementById("showdown-list");
  if (!section || !list) return;

  function matchBlock(state, match) {
    const block = T.el("article", "match-card showdown-match");
    block.dataset.match = state.match_id;
    const where = match.lanes.length ? "lanes " + match.lanes.join("-") : "";
    const title = window.AlleyResult.node(state, match.title);
    if (title) block.append(title);
    const reason = T.el("input");
    reason.name = "reason"; reason.maxLength = 500; reason.placeholder = "why (for the audit log)";
    const label = T.el("label", "", "Reason ");
    label.append(reason);
    block.append(label, T.button("Confirm result", async function () {
      const why = reason.value.trim();
      if (!why) { T.say("Give a reason first: it goes into the audit log.", "refused"); reason.focus(); return; }
      const question = window.AlleyResult.confirmQuestion(state, where) + "\nReason: " + why;
      if (await T.rule(question, state.match_id, "confirm-result", { reason: why },
                       "Result confirmed: " + window.AlleyResult.summary(state).split)) {
        location.reload();  // the totals now count it
      }
    }, "primary confirm-result"));
    return block;
  }

  async function load() {
    try {
      const reply = await T.call("GET", "/api/v1/matches");
      const listed = {};  // its title ("Tuesday Night Poker · lanes 3-4") and lanes, by id
      reply.matches.forEach(function (m) { listed[m.match_id] = m; });
      const ending = reply.matches.filter(function (m) { return m.status === "ending"; });
      const states = await Promise.all(ending.map(function (m) {
        return T.call("GET", "/api/v1/matches/" + encodeURIComponent(m.match_id));
      }));
      const blocks = states.filter(function (s) { return window.AlleyResult.summary(s); })
        .map(function (s) { return matchBlock(s, listed[s.match_id]); });
      list.replaceChildren.apply(list, blocks);
      section.hidden = !blocks.length;
    } catch (problem) { /* the rest of the page still shows the night */ }
  }
  load();
})();
