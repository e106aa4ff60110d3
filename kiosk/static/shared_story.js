// The match's story (GET /api/v1/matches/<id>/story) on the bowler's phone: once the match is
// settled or void, a button shows every moment in plain words, the bowler's own highlighted
// ("mine"), with a switch to show only theirs.  On the tablet's settlement page it lists a
// link to the story page of every finished match.  The story itself is written by the
// server (alley_poker/ledger/story.py): this script only lays it out.
(function () {
  "use strict";
  const FINISHED = ["settled", "void"];
  // Elements and money as every screen writes them (shared_card_faces.js, loaded before this).
  const el = window.AlleyCards.el, money = window.AlleyCards.money;

  // One moment: where, then the sentence; the showdown's hands as a small table.
  function entryItem(e, me) {
    const item = el("li", "story-entry kind-" + e.kind + (e.undone ? " undone" : ""));
    item.dataset.seq = e.seq;
    item.dataset.bowlers = e.bowlers.join(" ");
    if (me && e.bowlers.indexOf(me) >= 0) item.classList.add("mine");
    item.append(el("span", "story-when", e.when));
    const text = el("p", "story-text");
    if (e.undone) text.append(el("span", "story-note", "Undone later by the desk: "));
    text.append(e.text);
    item.append(text);
    if (e.hands) {
      const wrap = el("div", "table-scroll");
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", "The hands at the showdown");
      wrap.tabIndex = 0;
      const table = el("table", "report story-hands");
      const head = el("tr");
      ["Bowler", "Hand", "Cards that make it", "Won"].forEach(function (t) { head.append(el("th", "", t)); });
      table.append(el("thead"));
      table.tHead.append(head);
      const body = el("tbody");
      e.hands.forEach(function (h) {
        const row = el("tr", h.won_cents ? "winner" : "");
        row.dataset.bowler = h.bowler;
        row.append(el("td", "", (h.won_cents ? "★ " : "") + h.bowler), el("td", "", h.describe),
                   el("td", "cards", (h.best.join(", ") || "—")), el("td", "", money(h.won_cents)));
        body.append(row);
      });
      table.append(body);
      wrap.append(table);
      item.append(wrap);
    }
    return item;
  }

  function render(list, story, me, onlyMine) {
    const entries = story.entries.filter(function (e) {
      return !onlyMine || e.bowlers.indexOf(me) >= 0;
    });
    list.replaceChildren.apply(list, entries.map(function (e) { return entryItem(e, me); }));
  }

  function read(matchId) {
    return fetch("/api/v1/matches/" + encodeURIComponent(matchId) + "/story", {
      credentials: "same-origin", headers: { Accept: "application/json" },
    }).then(function (reply) {
      return reply.json().then(function (body) {
        if (!reply.ok) throw new Error((body.error && body.error.message) || "the story could not be read");
        return body;
      });
    });
  }

  // The phone: shown once phone.js says the match is finished ("alley:match-status").
  const section = document.getElementById("story");
  const me = document.getElementById("me");
  if (section && me) {
    const bowler = me.dataset.bowler, matchId = me.dataset.match;
    const show = document.getElementById("story-show");
    const list = document.getElementById("story-list");
    const only = document.getElementById("story-mine");
    const status = document.getElementById("story-status");
    let story = null;
    const paint = function () { if (story) render(list, story, bowler, only.checked); };
    document.addEventListener("alley:match-status", function (event) {
      section.hidden = FINISHED.indexOf(event.detail) < 0;
    });
    show.addEventListener("click", function () {
      const open = show.getAttribute("aria-expanded") === "true";
      show.setAttribute("aria-expanded", String(!open));
      show.textContent = open ? "Show the match's story" : "Hide the story";
      list.hidden = open;
      only.parentElement.hidden = open;
      if (open || story) return;
      status.textContent = "Reading the story…";
      read(matchId).then(function (body) {
        story = body;
        status.textContent = "";
        paint();
      }).catch(function (problem) { status.textContent = "✖ " + problem.message; });
    });
    only.addEventListener("change", paint);
  }

  // The tablet's settlement page: a link to the story of each finished match.
  const links = document.getElementById("story-links");
  if (links) {
    fetch("/api/v1/matches", { credentials: "same-origin" }).then(function (r) { return r.json(); })
      .then(function (reply) {
        const done = (reply.matches || []).filter(function (m) { return FINISHED.indexOf(m.status) >= 0; });
        if (!done.length) { links.replaceChildren(el("li", "muted", "No match is settled yet.")); return; }
        links.replaceChildren.apply(links, done.map(function (m) {
          const item = el("li");
          const link = el("a", "", m.title + " (" + m.bowlers.join(", ") + ", " + m.status + ")");
          link.href = "/commissioner/matches/" + encodeURIComponent(m.match_id) + "/story";
          item.append(link);
          return item;
        }));
      }).catch(function () { links.replaceChildren(el("li", "", "✖ The matches could not be read.")); });
  }
})();
