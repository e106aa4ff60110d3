// The tablet's dashboard: every match on every lane, live (Socket.IO match rooms), each on
// a card of its own: bowlers, hands, the showdown, ante agreements and start, review items.
// Tonight's live matches come first, by lanes; settled and voided ones are folded away
// ("Settled tonight", "Settled earlier") without the live powers: taking a settled match
// back is a deliberate step inside its own card (commissioner_powers.js, settledControls).
// The card's powers are commissioner_powers.js, its pending decisions
// commissioner_decisions.js; feed health is commissioner_feeds.js.
(function () {
  "use strict";
  const T = window.Commissioner;
  const el = T.el, button = T.button;
  const list = document.getElementById("matches");
  const FINISHED = ["settled", "void"];
  const settledTonight = document.getElementById("settled-tonight");
  const settledEarlier = document.getElementById("settled-earlier");
  const liveState = document.getElementById("live-state");

  const states = {};   // match_id -> public state (from the socket or the API)
  const boards = {};   // match_id -> lanes, who is up, next ball (board.json)
  const cards = {};    // match_id -> { root, live, controls }
  const joined = new Set();

  const BOWLER_COLUMNS = ["Bowler", "Lane", "Next ball", "Marks", "Hand", "Best hand", "Decisions"];

  // What the match card's powers know of the match (commissioner_powers.js).
  const lanesBoard = { board: function (matchId) { return boards[matchId]; },
                       state: function (matchId) { return states[matchId]; },
                       refreshBoard: function () { return refreshBoard(); } };
  const needsReason = window.CommissionerPowers.needsReason;
  const cardWords = window.AlleyResult.cardWords;

  function cardFor(matchId) {
    if (cards[matchId]) return cards[matchId];
    const old = document.querySelector("article.match-card[data-match='" + CSS.escape(matchId) + "']");
    if (old) old.remove();
    const root = el("article", "match-card");
    root.dataset.match = matchId;
    const live = el("div", "live");
    const card = { root: root, live: live, controls: el("div"), bowlers: "", kind: null };
    root.append(live, card.controls);
    list.append(root);
    cards[matchId] = card;
    return card;
  }

  // The card's powers follow its status: the live ones while the match is in play, the
  // settled match's deliberate "take back" step once it is over (none for a voided one).
  function fitControls(matchId, card, status) {
    const kind = FINISHED.indexOf(status) < 0 ? "live" : status;
    if (card.kind === kind) return;
    const controls = kind === "live" ? window.CommissionerPowers.controls(matchId, card, lanesBoard)
      : kind === "settled" ? window.CommissionerPowers.settledControls(matchId, card, lanesBoard)
      : el("div", "powers-none");
    card.controls.replaceWith(controls);
    card.controls = controls;
    card.kind = kind;
    card.bowlers = "";
  }

  // Each card in its group, the groups' cards by lanes; a folded group says how many it has.
  function placeCard(matchId, card, status) {
    const board = boards[matchId] || {};
    const finished = FINISHED.indexOf(status) >= 0;
    const home = !finished ? list
      : (board.tonight === false ? settledEarlier : settledTonight).querySelector(".match-list");
    const lanes = (board.lanes || []).length ? board.lanes[0] : 999999;
    card.root.dataset.order = (finished && board.tonight === false
      ? String(99999999 - Number((board.night || "0").replace(/-/g, ""))) : "") +
      String(lanes).padStart(6, "0") + " " + matchId;
    if (card.root.parentNode !== home ||
        (card.root.previousElementSibling &&
         card.root.previousElementSibling.dataset.order > card.root.dataset.order)) {
      const after = Array.from(home.querySelectorAll(":scope > article.match-card"))
        .find(function (other) { return other !== card.root &&
                                        other.dataset.order > card.root.dataset.order; });
      home.insertBefore(card.root, after || null);
    }
    const empty = list.querySelector(":scope > .empty");
    if (empty) empty.hidden = !!list.querySelector(":scope > article.match-card");
    [settledTonight, settledEarlier].forEach(function (fold) {
      const n = fold.querySelectorAll("article.match-card").length;
      fold.querySelector(".settled-count").textContent = String(n);
      fold.hidden = !n;
    });
  }

  // A hand as a person reads it: 4♥ (red suits in red), the jokers in words.
  function handCell(cards, hole) {
    const cell = el("td", "hand");
    if (!cards.length) cell.textContent = "—";
    cards.forEach(function (c, i) {
      if (i) cell.append(" ");
      if (c === "GJ" || c === "BJ") {
        cell.append(el("span", "joker-text", c === "GJ" ? "★GOOD JOKER" : "☠BAD JOKER"));
        return;
      }
      cell.append(el("span", "card-text suit-" + c.slice(-1), cardWords(c)));
    });
    if (hole < 0) cell.append("  (hole −" + Math.abs(hole) + ")");
    return cell;
  }

  // The hand in words, and the bowler's live odds beside it when the centre shows them.
  function describeCell(state, name, words) {
    const cell = el("td", "", words);
    const odds = window.AlleyOdds.node(state, name, "span");
    if (odds) cell.append(" ", odds);
    return cell;
  }

  // Every change redraws the match's live part, but never under the desk's pointer: a
  // button replaced between press and release takes no click (shared_steady_taps.js).
  function renderMatch(matchId) {
    if (!states[matchId]) return;
    const card = cardFor(matchId);
    if (!card.redraw) {
      card.redraw = window.AlleySteadyTaps.steady(card.root, function () { drawMatch(matchId); });
    }
    card.redraw();
  }

  // Every push redraws a card's live part; what the desk was typing there (a newcomer's
  // name) must survive the redraw, focus and all, or the next tap sends an empty field.
  function keepTyping(old, fresh) {
    old.querySelectorAll("input[name]").forEach(function (input) {
      const twin = fresh.querySelector("input[name='" + input.name + "']");
      if (!twin) return;
      if (input.value && !twin.value) twin.value = input.value;
      if (document.activeElement === input) twin.focus();
    });
  }

  function drawMatch(matchId) {
    const state = states[matchId];
    if (!state) return;
    const board = boards[matchId] || { lanes: [], bowlers: {}, up: {} };
    const card = cardFor(matchId);
    card.root.dataset.status = state.status;
    fitControls(matchId, card, state.status);
    placeCard(matchId, card, state.status);
    const live = el("div", "live");
    const lanes = board.lanes.length ? "lanes " + board.lanes.join("-") : "no lanes";
    const where = board.title || lanes;  // the match as the desk names it, never its id
    live.append(el("h3", "", where + " · " + state.status +
                   " · " + state.games + " game" + (state.games === 1 ? "" : "s") +
                   " · pot " + T.money(state.pot_cents) + " · ante " + T.money(state.ante_cents)));
    if (state.fairness) {
      live.append(el("p", "fair-deal", state.fairness.seed
        ? "Seed revealed: " + state.fairness.seed + " (commitment " + state.fairness.commitment + ")"
        : "Deal commitment: " + state.fairness.commitment));
      if (state.fairness.seed && (state.status === "settled" || state.status === "void")) {
        const check = el("a", "check-match", "Check this match");
        check.href = "/verify?match=" + encodeURIComponent(matchId);
        live.lastElementChild.append(" ", check);
      }
    }
    const table = el("table", "bowlers");
    const head = el("tr");
    BOWLER_COLUMNS.forEach(function (title) { head.append(el("th", "", title)); });
    table.append(head);
    state.seat_order.forEach(function (name) {
      const b = state.bowlers[name];
      const at = board.bowlers[name] || {};
      const row = el("tr", "bowler-row");
      row.dataset.bowler = name;
      const who = el("td", "name", name);
      if (at.up) { who.append(el("span", "up", " ▶ UP")); row.classList.add("is-up"); }
      if (b.gone) {  // the desk marked them not here after they had bowled
        who.append(el("span", "gone", b.gone === "folds" ? " · left, hand folded"
                                                         : " · left, keeps the hand"));
        row.classList.add("is-gone");
      }
      row.append(who, el("td", "", at.lane || "—"),
                 el("td", "", at.frame ? "game " + at.game + ", frame " + at.frame + ", ball " + at.ball : "—"),
                 el("td", "marks", b.scoresheet || "—"),
                 handCell(b.hand, b.hole),
                 describeCell(state, name, b.describe),
                 el("td", "", b.pending.length ? b.pending.length + " open" : "—"));
      T.labelCells(row, BOWLER_COLUMNS);
      table.append(row);
    });
    live.append(table);
    // The showdown the desk is asked to confirm, in full, before it confirms.
    const showdown = window.AlleyResult.node(state, state.status === "ending"
      ? "Showdown — waiting for your confirmation" : "Result");
    if (showdown) live.append(showdown);

    if (state.status === "open") {
      const consent = el("div", "consents");
      consent.append(el("span", "", "Ante agreement (" + T.money(state.ante_cents) + " each): "));
      const agreed = new Set(board.consents || []);
      state.seat_order.forEach(function (name) {
        const tap = button((agreed.has(name) ? "✔ " : "") + name + " agrees", function () {
          T.rule(name + " agrees to the " + T.money(state.ante_cents) + " ante?", matchId,
                 "consent", { bowler: name }, name + "'s ante agreement recorded");
        }, "consent");
        tap.dataset.bowler = name;
        consent.append(tap);
      });
      const newcomer = el("input", "new-bowler");
      newcomer.name = "new_bowler"; newcomer.maxLength = 60; newcomer.placeholder = "new bowler";
      newcomer.setAttribute("aria-label", "New bowler's name");
      consent.append(newcomer, button("Add bowler", function () {
        const why = needsReason(card);
        const name = newcomer.value.trim();
        if (!why) return;
        if (!name) {
          T.say("Type the new bowler's name first.", "refused");
          newcomer.focus();
          return;
        }
        T.rule("Add " + name + " to the match on " + where + "?\nReason: " + why, matchId,
               "add-bowler", { bowler: name, reason: why }, name + " added to the match on " + where);
      }, "add-bowler"));
      consent.append(button("Start match", function () {
        T.rule("Start the match on " + where + "?", matchId, "start", {}, "The match on " + where + " started");
      }, "primary start"));
      live.append(consent);
    }

    const pending = el("div", "pending");
    state.seat_order.forEach(function (name) {
      state.bowlers[name].pending.forEach(function (decision) {
        pending.append(window.CommissionerDecisions.row(matchId, name, decision));
      });
    });
    if (pending.children.length) {
      const everyone = window.CommissionerDecisions.forEveryone(matchId, state);
      if (everyone) pending.prepend(everyone);
      live.append(el("h4", "", "Pending decisions"), pending);
    }
    if ((state.reviews || []).length) {
      const reviews = el("div", "reviews");
      state.reviews.forEach(function (review) {
        const row = el("div", "review-row");
        row.dataset.review = review.id;
        row.append(el("span", "", "⚠ " + review.bowler + ", game " + review.game + ": " +
                      review.description));
        ["apply", "dismiss"].forEach(function (verb) {
          row.append(button(verb === "apply" ? "Apply" : "Dismiss", function () {
            const why = needsReason(card);
            if (!why) return;
            T.rule((verb === "apply" ? "Apply" : "Dismiss") + " review " + review.id + "?\nReason: " + why,
                   matchId, verb + "-review", { review_id: review.id, reason: why },
                   "Review " + review.id + (verb === "apply" ? " applied" : " dismissed"));
          }));
        });
        reviews.append(row);
      });
      live.append(el("h4", "", "Review items"), reviews);
    }
    if (FINISHED.indexOf(state.status) < 0) {
      live.append(Object.assign(el("a", "manual-link", "Manual entry for this match"),
                                { href: "/commissioner/manual-entry?match_id=" + encodeURIComponent(matchId) }));
    }
    // A redraw that would draw the same thing keeps what is drawn: the 5-second poll and every
    // push would otherwise replace each button under the desk's pointer, and a press or a hover
    // landing on the detached copy does nothing (CI's "Lose 10♦" hover timed out so, loaded).
    if (live.outerHTML !== card.live.outerHTML) {
      keepTyping(card.live, live);
      card.live.replaceWith(live);
      card.live = live;
    }

    const names = state.seat_order.join("\u0000");
    const select = card.controls.querySelector("select[name=bowler]");
    if (select && names !== card.bowlers) {
      select.replaceChildren(...state.seat_order.map(function (name) { return el("option", "", name); }));
      card.bowlers = names;
    }
  }

  // --- data --------------------------------------------------------------------------------
  async function refreshBoard() {
    try {
      const reply = await T.call("GET", "/commissioner/board.json");
      reply.matches.forEach(function (board) { boards[board.match_id] = board; });
      Object.keys(states).forEach(renderMatch);
    } catch (problem) { /* the next poll tries again */ }
  }

  async function refreshMatches() {
    try {
      const reply = await T.call("GET", "/api/v1/matches");
      for (const match of reply.matches) {
        if (!states[match.match_id]) {
          const fetched = await T.call("GET", "/api/v1/matches/" + encodeURIComponent(match.match_id));
          // Two reads can be in flight (the page's first and the socket's connect) and a push
          // can come between: the newest state wins, never the read that answered last (an
          // older one left the desk without a decision until the next ball).
          const known = states[match.match_id];
          if (!known || known.seq < fetched.seq) {
            states[match.match_id] = fetched;
            window.AlleyOdds.keep(match.match_id, fetched.odds);
          }
        }
        joinRoom(match.match_id);
      }
      await refreshBoard();
    } catch (problem) { /* the next poll tries again */ }
  }

  // --- live --------------------------------------------------------------------------------
  const socket = io({ transports: ["websocket"], reconnectionDelayMax: 3000 });
  function joinRoom(matchId) {
    if (joined.has(matchId) || !socket.connected) return;
    joined.add(matchId);
    socket.emit("join", { match_id: matchId });
  }
  function take(message) {
    const matchId = message.match_id;
    const outcome = window.AlleyMatchUpdates.apply(states[matchId], message);
    if (outcome.resync) {  // a push was missed: the whole state comes with joining again
      joined.delete(matchId);
      joinRoom(matchId);
      return;
    }
    if (outcome.stale) return;
    states[matchId] = outcome.state;
    renderMatch(matchId);
  }
  socket.on("connect", function () {
    liveState.dataset.state = "live";
    liveState.textContent = "● live";
    joined.clear();
    refreshMatches();
  });
  socket.on("disconnect", function () {
    liveState.dataset.state = "down";
    liveState.textContent = "▲ reconnecting…";
  });
  socket.on("state", take);
  socket.on("match_update", function (message) {
    take(message);
    refreshBoard();  // who is up and the next ball follow every ball
  });
  socket.on("match_odds", function (message) {
    if (window.AlleyOdds.keep(message.match_id, message.odds)) renderMatch(message.match_id);
  });

  refreshMatches();
  setInterval(refreshMatches, 5000);
})();
