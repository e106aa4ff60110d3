// The bowler's moments on their phone (what happened to their hand, newest first), rebuilt
// from the match's log when the page opens or reloads (the public events read), then kept up
// by the live events.  Each event counts once, by its place in the log (seq): one read both
// from the log and live is told once, and the list is always in the log's order.
(function () {
  "use strict";
  const SHOWN = 8;

  function create(options) {
    const list = options.list, bowler = options.bowler, C = options.cards;
    const told = new Map();   // seq -> the lines it tells (none for an event about others)

    // A sentence's full stop, unless it ends on one already (a name like "Ray, Jr.").
    function ended(text) { return /[.!?]$/.test(text) ? text : text + "."; }

    function linesOf(event) {
      const d = event.data || {};
      const card = d.card ? C.cardName(d.card) : "";
      const lines = [];
      if (event.type === "jokers_swapped") lines.push("Freaky Friday: the jokers swapped.");
      if (event.type === "showdown") lines.push("Showdown: " + (d.winners || []).join(" & ") + " won.");
      if (d.from_bowler === bowler && event.type === "card_taken" && d.bowler !== bowler) {
        lines.push(d.bowler + " took your " + card + ".");
      }
      if (d.bowler !== bowler) return lines;
      if (event.type === "ball_recorded" && d.mark === "strike") lines.push("Strike!");
      else if (event.type === "ball_recorded" && d.gutter_ball) lines.push("Gutter ball.");
      else if (event.type === "card_drawn") lines.push("You drew the " + card + ".");
      else if (event.type === "card_returned") lines.push("Your " + card + " went back to the pile.");
      else if (event.type === "card_taken") lines.push(ended("You took the " + card + " from " + d.from_bowler));
      else if (event.type === "hole_deepened") lines.push("You are in the hole.");
      else if (event.type === "hole_paid_off") lines.push("A card paid off your hole.");
      else if (event.type === "guess_resolved") {
        lines.push("Your guess was " + (d.correct ? "right: you keep your cards." : "wrong."));
      } else if (event.type === "buy_paid") lines.push("You bought a card for " + C.money(d.cents) + ".");
      return lines;
    }

    function draw() {
      const lines = [];
      Array.from(told.keys()).sort(function (a, b) { return b - a; }).forEach(function (seq) {
        told.get(seq).slice().reverse().forEach(function (text) { lines.push([seq, text]); });
      });
      if (!lines.length) {
        list.replaceChildren(C.el("li", "none", "Nothing yet tonight."));
        return;
      }
      list.replaceChildren.apply(list, lines.slice(0, SHOWN).map(function (line) {
        const item = C.el("li", "", line[1]);
        item.dataset.seq = String(line[0]);
        return item;
      }));
    }

    // Events from the log or a push, in any order; each seq once.
    function take(events) {
      let changed = false;
      (events || []).forEach(function (event) {
        if (typeof event.seq !== "number" || told.has(event.seq)) return;
        const lines = linesOf(event);
        told.set(event.seq, lines);
        if (lines.length) changed = true;
      });
      if (changed) draw();
    }

    // The whole log, a page at a time.
    async function load() {
      let since = 0;
      for (;;) {
        const reply = await fetch("/api/v1/matches/" + encodeURIComponent(options.matchId) +
                                  "/events?limit=1000&since=" + since,
                                  { headers: { Accept: "application/json" } });
        if (!reply.ok) return;
        const page = await reply.json();
        take(page.events);
        if (!page.events.length || page.next_since === since) break;
        since = page.next_since;
      }
      list.dataset.loaded = "yes";
    }

    return { take: take, load: load };
  }

  window.AlleyPhoneMoments = { create: create };
})();
