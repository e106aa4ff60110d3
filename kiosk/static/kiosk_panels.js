// The kiosk's bowler panels: one per bowler of the match on screen (name, who is up, lane,
// score, balls held for the desk, scoresheet, hand, odds, pending decisions), laid out so every panel and every card
// stays on screen.  The kiosk (kiosk.js) makes one with ``create(panelsElement, decisions)``
// and calls ``draw(state, screen)`` on every change, ``screen`` being the lanes' screen read
// for the match (each bowler's lane, who is up, running score, balls held for the desk).
(function () {
  "use strict";
  const el = window.AlleyCards.el, money = window.AlleyCards.money;
  const cardFace = window.AlleyCards.cardFace;

  function create(panels, decisions) {
    function bowlerPanel(state, name, place, at) {
      const b = state.bowlers[name];
      const panel = el("section", "bowler");
      panel.dataset.bowler = name;
      const head = el("header", "bowler-head");
      head.append(el("h2", "name", name));
      // Who is up: a word and an arrow beside the name, and a bright frame (not colour alone).
      if (at.up && state.status === "playing" && !b.gone) {
        panel.classList.add("is-up");
        head.append(el("span", "up", "▶ UP"));
      }
      if (at.lane) head.append(el("span", "lane", "Lane " + at.lane));
      if (place) head.append(el("span", "place", place));
      const won = (state.shares || {})[name];
      if ((state.winners || []).indexOf(name) >= 0) {
        panel.classList.add("winner");
        head.append(el("span", "won", "WON " + money(won || 0)));
      }
      panel.append(head);
      const score = el("div", "score");
      // A bowler who left bowls no more: no frame they would seem to be still to bowl.
      const where = b.gone ? "" : (b.frame ? "Frame " + b.frame : (b.game ? "Game done" : ""));
      score.append(el("span", "frame", where),
                   el("span", "total", window.AlleyCards.totalWords(at)));
      // A league match with handicaps: the handicap and the handicapped total beside the
      // natural score ("187 · hdcp 31 → 218"); the natural score stays first and unchanged.
      if (typeof b.handicap === "number" && typeof at.score === "number") {
        const least = typeof at.score_at_least === "number" ? at.score_at_least : at.score;
        score.append(el("span", "handicap", "· hdcp " + b.handicap + " → " + (least + b.handicap) +
                        (least > at.score ? "+" : "")));
      }
      panel.append(score);
      if (b.gone) {
        panel.classList.add("is-gone");
        panel.append(el("div", "gone-note", window.AlleyCards.goneWords(b.gone)));
      }
      // Balls the scorer sent that wait on the desk: said, so a zero is not taken for a score.
      if (at.held) panel.append(el("div", "held-note", window.AlleyCards.heldWords(at.held)));
      panel.append(el("div", "scoresheet", b.scoresheet || "—"));
      const hand = el("div", "hand");
      hand.setAttribute("aria-label", name + "'s hand");
      b.hand.forEach(function (card) { hand.append(cardFace(card)); });
      if (!b.hand.length) hand.append(el("span", "empty", b.gone ? "no cards" : "no cards yet"));
      panel.append(hand);
      if (b.hole < 0) panel.append(el("div", "hole", "IN THE HOLE " + "−" + Math.abs(b.hole)));
      panel.append(el("div", "describe", b.describe));
      const odds = window.AlleyOdds.node(state, name);
      if (odds) panel.append(odds);
      if (b.next_strike_cards !== undefined && state.status === "playing" && !b.gone) {
        panel.append(el("div", "streak", "next strike: " + b.next_strike_cards + " card" +
                        (b.next_strike_cards === 1 ? "" : "s")));
      }
      b.pending.forEach(function (decision) {
        panel.append(decisions.box(state, name, decision, hand));
      });
      if (panel.querySelector(".decision[data-choosing=yes]")) panel.classList.add("choosing");
      return panel;
    }

    // Columns x rows for n panels on a landscape screen (swapped on a portrait one): every
    // panel stays on screen, as wide as it can be while leaving its cards room to be read.
    const GRIDS = [[1, 1], [1, 1], [2, 1], [3, 1], [2, 2], [3, 2], [3, 2], [4, 2], [4, 2],
                   [3, 3], [4, 3], [4, 3], [4, 3]];
    function gridFor(count) {
      const [cols, rows] = GRIDS[Math.min(count, GRIDS.length - 1)] ||
        [Math.ceil(Math.sqrt(count)), Math.ceil(count / Math.ceil(Math.sqrt(count)))];
      return window.innerHeight > window.innerWidth ? [rows, cols] : [cols, rows];
    }

    // The largest card (width; height is 1.4x) for which the whole hand fits its box, trying
    // every number of rows.  Cards scale down rather than overflow.
    const CARD_MAX_PX = 220;
    function fitCards(hand) {
      const count = hand.querySelectorAll(".card").length;
      if (!count) return;
      const width = hand.clientWidth, height = hand.clientHeight;
      const gap = Math.max(3, Math.round(Math.min(width, height) * 0.03));
      let best = 0;
      for (let rows = 1; rows <= count; rows++) {
        const cols = Math.ceil(count / rows);
        const byWidth = (width - gap * (cols - 1)) / cols;
        const byHeight = (height - gap * (rows - 1)) / rows / 1.4;
        best = Math.max(best, Math.min(byWidth, byHeight));
      }
      // 2px of slack so rounding never wraps a card onto a row that has no room.
      hand.style.setProperty("--card-w", Math.max(8, Math.min(CARD_MAX_PX, Math.floor(best) - 2)) + "px");
      hand.style.setProperty("--card-gap", gap + "px");
    }

    function layout() {
      const count = panels.children.length;
      const [cols, rows] = gridFor(Math.max(count, 1));
      panels.style.setProperty("--cols", cols);
      panels.style.setProperty("--rows", rows);
      panels.querySelectorAll(".hand").forEach(fitCards);
    }

    // Cards on screen per match and bowler, so only a newly dealt card animates: a card
    // re-rendered because someone else bowled stays still, at full opacity.
    const shownCards = {};
    function markNewlyDealt(matchId, name, hand) {
      const key = matchId + "\u0000" + name;
      const before = shownCards[key];
      const remaining = (before || []).slice();
      hand.querySelectorAll(".card").forEach(function (card) {
        const at = remaining.indexOf(card.dataset.card);
        if (at >= 0) { remaining.splice(at, 1); return; }
        if (before === undefined) return;  // first sight (page load, reconnect): no deal shown
        card.classList.add("dealt");
        card.addEventListener("animationend", function () { card.classList.remove("dealt"); },
                              { once: true });
      });
      shownCards[key] = Array.from(hand.querySelectorAll(".card"), function (c) { return c.dataset.card; });
    }

    // The badges rank hands (not scores): "Best hand", "2nd-best hand", …
    function places(state) {
      const placeOf = {};
      const ordinal = ["Best hand", "2nd-best hand", "3rd-best hand"];
      (state.places || []).forEach(function (group, index) {
        group.forEach(function (name) { placeOf[name] = ordinal[index] || (index + 1) + "th-best hand"; });
      });
      return state.places && state.places.length < 2 ? {} : placeOf;
    }

    function draw(state, screen) {
      panels.replaceChildren();
      if (!state) return;
      const placeOf = places(state);
      state.seat_order.forEach(function (name) {
        panels.append(bowlerPanel(state, name, placeOf[name], (screen || {})[name] || {}));
      });
      decisions.offerSteals(state);
      layout();
      panels.querySelectorAll("section.bowler").forEach(function (panel) {
        markNewlyDealt(state.match_id, panel.dataset.bowler, panel.querySelector(".hand"));
      });
    }

    return { draw: draw, layout: layout };
  }

  window.AlleyKioskPanels = { create: create };
})();
