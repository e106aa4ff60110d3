// Bowlers' phone codes: show one (a new code each time), turn a link off, print the night's.
// A code's QR is drawn by the server; its token is never stored, so it is shown only now.
(function () {
  "use strict";
  const T = window.Commissioner;
  const area = document.getElementById("phone-matches");
  const sheet = document.getElementById("code-sheet");
  const sheetCodes = document.getElementById("sheet-codes");
  const LIVE = ["open", "playing", "ending"];
  const WORDS = { waiting: "code shown, not scanned", opened: "on a phone",
                  revoked: "turned off", expired: "night closed" };

  function until(iso) {
    return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  }

  function codeFigure(code) {
    const figure = T.el("figure", "phone-code");
    figure.dataset.bowler = code.link.bowler;
    figure.innerHTML = code.svg;  // the server's SVG: the bowler's name is escaped there
    const caption = T.el("figcaption");
    caption.append(T.el("strong", "", code.link.bowler),
                   T.el("span", "", (code.lanes.length ? " · Lane " + code.lanes.join(", ") : "") +
                        " · " + code.title + " · until " + until(code.link.expires_at)));
    figure.append(caption);
    return figure;
  }

  async function showCode(matchId, bowler, slot) {
    try {
      const code = await T.call("POST", "/api/v1/matches/" + encodeURIComponent(matchId) +
                                "/phone-links", { bowler: bowler });
      slot.replaceChildren(codeFigure(code));
      T.say("A new code for " + bowler + ": earlier codes not scanned no longer work");
      load();
    } catch (problem) { T.say("Refused: " + problem.message, "refused"); }
  }

  async function turnOff(links, bowler) {
    if (!window.confirm("Turn off " + bowler + "'s phone link? Their phone stops at once.")) return;
    try {
      for (const link of links) await T.call("DELETE", "/api/v1/phone-links/" + link.id);
      T.say(bowler + "'s phone link is off: show a new code for their new phone");
      load();
    } catch (problem) { T.say("Refused: " + problem.message, "refused"); }
  }

  async function matchTable(match) {
    const reply = await T.call("GET", "/api/v1/matches/" + encodeURIComponent(match.match_id) +
                               "/phone-links");
    const section = T.el("section", "phone-match");
    section.dataset.match = match.match_id;
    section.append(T.el("h3", "", match.title + " · " + match.bowlers.join(", ")));
    const table = T.el("table", "report");
    const head = T.el("thead"), row = T.el("tr");
    ["Bowler", "Phone", "", "Code"].forEach(function (text) { row.append(T.el("th", "", text)); });
    head.append(row);
    const body = T.el("tbody");
    match.bowlers.forEach(function (bowler) {
      const links = reply.links.filter(function (l) { return l.bowler === bowler; });
      const live = links.filter(function (l) { return l.status === "waiting" || l.status === "opened"; });
      const latest = links[links.length - 1];
      const tr = T.el("tr");
      tr.dataset.bowler = bowler;
      const slot = T.el("td", "code-slot");
      const actions = T.el("td");
      actions.append(T.button("Show code", function () { showCode(match.match_id, bowler, slot); }));
      if (live.length) actions.append(" ", T.button("Turn off", function () { turnOff(live, bowler); }));
      tr.append(T.el("td", "", bowler),
                T.el("td", "link-state", live.some(function (l) { return l.status === "opened"; })
                  ? WORDS.opened : latest ? WORDS[latest.status] : "no code yet"),
                actions, slot);
      body.append(tr);
    });
    table.append(head, body);
    section.append(table);
    return section;
  }

  async function load() {
    try {
      const reply = await T.call("GET", "/api/v1/matches");
      const live = reply.matches.filter(function (m) { return LIVE.indexOf(m.status) >= 0; });
      const shown = {};
      area.querySelectorAll("tr[data-bowler]").forEach(function (tr) {
        const slot = tr.querySelector(".code-slot");
        if (slot && slot.firstChild) shown[tr.closest("section").dataset.match + "/" + tr.dataset.bowler] = slot.firstChild;
      });
      const sections = await Promise.all(live.map(matchTable));
      sections.forEach(function (section) {  // a code just shown stays on screen
        section.querySelectorAll("tr[data-bowler]").forEach(function (tr) {
          const kept = shown[section.dataset.match + "/" + tr.dataset.bowler];
          if (kept) tr.querySelector(".code-slot").append(kept);
        });
      });
      area.replaceChildren(...(sections.length ? sections : [T.el("p", "", "No match in play.")]));
    } catch (problem) { T.say("Cannot list the phones: " + problem.message, "refused"); }
  }

  document.getElementById("print-sheet").addEventListener("click", async function () {
    if (!window.confirm("Print a new code for every bowler in play? Codes shown before and not " +
                        "scanned yet stop working.")) return;
    try {
      const reply = await T.call("POST", "/api/v1/phone-links/sheet");
      sheetCodes.replaceChildren(...reply.codes.map(codeFigure));
      sheet.hidden = false;
      load();
      window.print();
    } catch (problem) { T.say("Refused: " + problem.message, "refused"); }
  });
  load();
})();
