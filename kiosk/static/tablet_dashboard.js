// The tablet's dashboard: every match on every lane, live (Socket.IO match rooms), feed
// health, and every commissioner power as one tap plus a confirm.
(function () {
  "use strict";
  const T = window.Tablet;
  const el = T.el, button = T.button;
  const list = document.getElementById("matches");
  const feedRows = document.getElementById("feed-rows");
  const liveState = document.getElementById("live-state");

  const states = {};   // match_id -> public state (from the socket or the API)
  const boards = {};   // match_id -> lanes, who is up, next ball (board.json)
  const cards = {};    // match_id -> { root, live, controls }
  const joined = new Set();

  const DECISION_WORDS = { lose_card: "lose a card", steal: "steal a card",
                           end_draw: "end-of-match draw", buy: "buy a card" };
  const FEED_SHAPES = { green: ["●", "OK"], amber: ["▲", "LATE"], red: ["■", "DOWN"] };

  const BOWLER_COLUMNS = ["Bowler", "Lane", "Next ball", "Marks", "Hand", "Best hand", "Decisions"];
  const FEED_COLUMNS = ["Feed", "Health", "Last line", "Lines", "Rejected", "Held", "Reconnects"];

  // Each cell carries its column's title: on a phone the table reflows into one card per
  // row and the titles are shown beside the values (kiosk.css).
  function labelCells(row, titles) {
    Array.from(row.children).forEach(function (cell, index) { cell.dataset.label = titles[index]; });
  }

  function countdown(deadline) {
    if (!deadline) return "no deadline";
    const left = Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000));
    return Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + " left";
  }

  // --- one match ---------------------------------------------------------------------------
  function reasonOf(card) {
    return card.controls.querySelector("input[name=reason]").value.trim();
  }

  function needsReason(card) {
    const reason = reasonOf(card);
    if (!reason) {
      T.say("Give a reason first: it goes into the audit log.", "refused");
      card.controls.querySelector("input[name=reason]").focus();
    }
    return reason;
  }

  function bowlerOf(card) {
    return card.controls.querySelector("select[name=bowler]").value;
  }

  // The powers, each one tap plus a confirm; the reason field is shared by them.  The
  // destructive ones (they take something back or away) sit apart, styled as danger, and
  // their confirm says what will be lost, so a slip of the finger is caught by the words.
  const POWERS = [
    ["holland-daze", "Holland-daze", true, "Rule a Holland-daze for "],
    ["confirm-result", "Confirm result", false, "Confirm the result of match "],
  ];
  const DANGER_POWERS = [
    ["void-guess", "Void guess", true, "Void the ball-return guess of ",
     "The guess is cancelled and cannot be made again: the bowler must choose a card to lose."],
    ["undo-last", "Undo last action", false, "", ""],
    ["undo-result", "Undo result", false, "Undo the result of match ",
     "The winners' payouts are taken back into the pot and the match goes back to its end."],
    ["remove-bowler", "Remove bowler", true, "Remove ",
     "Their cards go back to the pile and everything they paid is refunded."],
    ["void", "Void match", false, "VOID match ",
     "The match is cancelled for good: every cent paid is refunded and nobody wins."],
  ];

  function powerButton(matchId, card, power, className) {
    const [kind, title, forBowler, question, consequence] = power;
    const tap = button(title, async function () {
      const why = needsReason(card);
      if (!why) return;
      const bowler = bowlerOf(card);
      const body = forBowler ? { bowler: bowler, reason: why } : { reason: why };
      const whom = forBowler ? bowler : matchId;
      // Confirming a result names the winners, their hands, each amount and the split.
      const lanes = ((boards[matchId] || {}).lanes || []).join("-");
      const asked = kind === "confirm-result"
        ? window.AlleyResult.confirmQuestion(states[matchId], lanes && "lanes " + lanes)
        : question + whom + "?";
      const done = kind === "undo-last" ? await T.undoLast(matchId, why)
        : await T.rule(asked + "\n" + (consequence ? consequence + "\n" : "") +
                       "Reason: " + why, matchId, kind, body,
                       title + (forBowler ? " for " + bowler : "") + " — done");
      // A reason belongs to one ruling: the next one needs its own.
      if (done) card.controls.querySelector("input[name=reason]").value = "";
    }, className);
    tap.dataset.power = kind;
    return tap;
  }

  function buildControls(matchId, card) {
    const controls = el("div", "powers");
    const bowlerLabel = el("label", "", "Bowler ");
    bowlerLabel.append(el("select"));
    bowlerLabel.lastChild.name = "bowler";
    const reasonLabel = el("label", "", "Reason ");
    const reason = el("input");
    reason.name = "reason"; reason.maxLength = 500; reason.placeholder = "why (for the audit log)";
    reasonLabel.append(reason);
    controls.append(bowlerLabel, reasonLabel);
    const buttons = el("div", "power-buttons");
    POWERS.forEach(function (power) { buttons.append(powerButton(matchId, card, power, "power")); });
    const danger = el("div", "power-buttons danger-zone");
    danger.append(el("span", "danger-label", "⚠ Takes back or removes:"));
    DANGER_POWERS.forEach(function (power) {
      danger.append(powerButton(matchId, card, power, "power danger"));
    });
    controls.append(buttons, danger);
    controls.append(buildReassign(matchId, card));
    return controls;
  }

  function buildReassign(matchId, card) {
    const box = el("details", "reassign");
    box.append(el("summary", "", "Move bowlers to other lane slots"));
    const rows = el("div", "reassign-rows");
    box.append(rows);
    box.addEventListener("toggle", function () {
      if (!box.open) return;
      rows.replaceChildren();
      // Every bowler of the match, those without a slot yet (just added) too.
      const slots = ((boards[matchId] || {}).slots || []).slice();
      ((states[matchId] || {}).seat_order || []).forEach(function (name) {
        if (!slots.some(function (s) { return s.bowler === name; })) {
          slots.push({ bowler: name, lane: "", slot: "" });
        }
      });
      slots.forEach(function (slot) {
        const row = el("div", "reassign-row");
        row.dataset.bowler = slot.bowler;
        row.append(el("span", "", slot.bowler));
        ["lane", "slot"].forEach(function (key) {
          const label = el("label", "", key === "lane" ? " lane " : " slot ");
          const input = el("input");
          input.type = "number"; input.min = 1; input.name = key; input.value = slot[key];
          label.append(input);
          row.append(label);
        });
        rows.append(row);
      });
      rows.append(button("Move bowlers", async function () {
        const why = needsReason(card);
        if (!why) return;
        const slots = Array.from(rows.querySelectorAll(".reassign-row"), function (row) {
          return { bowler: row.dataset.bowler,
                   lane: Number(row.querySelector("[name=lane]").value),
                   slot: Number(row.querySelector("[name=slot]").value) };
        });
        if (!window.confirm("Move the bowlers of match " + matchId + "?\nReason: " + why)) return;
        try {
          await T.call("PUT", "/api/v1/matches/" + encodeURIComponent(matchId) + "/lanes",
                       { slots: slots, reason: why });
          T.say("Bowlers moved in match " + matchId);
          refreshBoard();
        } catch (problem) { T.say("Refused: " + problem.message, "refused"); }
      }, "primary"));
    });
    return box;
  }

  function cardFor(matchId) {
    if (cards[matchId]) return cards[matchId];
    const old = list.querySelector("article.match-card[data-match='" + CSS.escape(matchId) + "']");
    if (old) old.remove();
    const empty = list.querySelector(".empty");
    if (empty) empty.remove();
    const root = el("article", "match-card");
    root.dataset.match = matchId;
    const live = el("div", "live");
    const card = { root: root, live: live, controls: null, bowlers: "" };
    card.controls = buildControls(matchId, card);
    root.append(live, card.controls);
    list.append(root);
    cards[matchId] = card;
    return card;
  }

  // A hand as a person reads it: 4♥ (red suits in red), the jokers in words.
  const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  function cardWords(c) {
    if (c === "GJ" || c === "BJ") return c === "GJ" ? "good joker" : "bad joker";
    const rank = c.slice(0, -1), suit = c.slice(-1);
    return (rank === "T" ? "10" : rank) + (SUIT_SYMBOLS[suit] || suit);
  }
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

  function decisionControls(matchId, name, decision) {
    const box = el("div", "decision-row");
    box.dataset.bowler = name;
    box.dataset.kind = decision.kind;
    const what = DECISION_WORDS[decision.kind] || decision.kind;
    const head = el("span", "decision-what", name + ": " + what +
                    (decision.reason ? " (" + decision.reason + ")" : ""));
    const clock = el("span", "deadline", countdown(decision.deadline));
    clock.dataset.deadline = decision.deadline || "";
    box.append(head, clock);
    const id = decision.id;
    const forWhom = " for " + name + "?";
    function decide(kind, body, question, done) {
      return button(question, function () {
        T.rule(question + forWhom, matchId, kind,
               Object.assign({ bowler: name, decision_id: id }, body), done);
      });
    }
    if (decision.kind === "lose_card") {
      const guess = decision.guess;
      if (guess && !guess.outcome) {
        box.append(el("span", "", "guessed " + guess.side.toUpperCase() + "; the ball came back:"));
        ["left", "right"].forEach(function (side) {
          box.append(decide("guess-outcome", { side: side }, "Ball came back " + side.toUpperCase(),
                            "Ball-return outcome recorded for " + name));
        });
      } else {
        if (decision.guess_allowed && !guess) {
          ["left", "right"].forEach(function (side) {
            box.append(decide("guess", { side: side }, "Guess " + side.toUpperCase(),
                              "Guess recorded for " + name));
          });
        }
        decision.choices.forEach(function (face) {
          box.append(decide("lose-card", { card: face }, "Lose " + cardWords(face),
                            name + " lost " + cardWords(face)));
        });
      }
    } else if (decision.kind === "steal") {
      Object.keys(decision.choices).forEach(function (victim) {
        decision.choices[victim].forEach(function (face) {
          box.append(decide("steal", { from_bowler: victim, card: face },
                            "Take " + cardWords(face) + " from " + victim,
                            name + " took " + cardWords(face)));
        });
      });
    } else if (decision.kind === "end_draw" || decision.kind === "buy") {
      const kind = decision.kind === "buy" ? "buy" : "end-draw";
      const yes = decision.kind === "buy" ? "Buy a card" : "Take the draw";
      box.append(decide(kind, { accept: true }, yes, yes + " — done for " + name),
                 decide(kind, { accept: false }, "Decline", "Declined for " + name));
    }
    return box;
  }

  // The hand in words, and the bowler's live odds beside it when the centre shows them.
  function describeCell(state, name, words) {
    const cell = el("td", "", words);
    const odds = window.AlleyOdds.node(state, name, "span");
    if (odds) cell.append(" ", odds);
    return cell;
  }

  // Every change redraws the match's live part, but never under the desk's pointer: a
  // button replaced between press and release takes no click (steady_taps.js).
  function renderMatch(matchId) {
    if (!states[matchId]) return;
    const card = cardFor(matchId);
    if (!card.redraw) {
      card.redraw = window.AlleySteadyTaps.steady(card.root, function () { drawMatch(matchId); });
    }
    card.redraw();
  }

  function drawMatch(matchId) {
    const state = states[matchId];
    if (!state) return;
    const board = boards[matchId] || { lanes: [], bowlers: {}, up: {} };
    const card = cardFor(matchId);
    card.root.dataset.status = state.status;
    const live = el("div", "live");
    const lanes = board.lanes.length ? "lanes " + board.lanes.join("-") : "no lanes";
    live.append(el("h3", "", "Match " + matchId + " · " + lanes + " · " + state.status +
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
      row.append(who, el("td", "", at.lane || "—"),
                 el("td", "", at.frame ? "game " + at.game + ", frame " + at.frame + ", ball " + at.ball : "—"),
                 el("td", "marks", b.scoresheet || "—"),
                 handCell(b.hand, b.hole),
                 describeCell(state, name, b.describe),
                 el("td", "", b.pending.length ? b.pending.length + " open" : "—"));
      labelCells(row, BOWLER_COLUMNS);
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
        if (!why || !name) return;
        T.rule("Add " + name + " to match " + matchId + "?\nReason: " + why, matchId, "add-bowler",
               { bowler: name, reason: why }, name + " added to match " + matchId);
      }, "add-bowler"));
      consent.append(button("Start match", function () {
        T.rule("Start match " + matchId + "?", matchId, "start", {}, "Match " + matchId + " started");
      }, "primary start"));
      live.append(consent);
    }

    const pending = el("div", "pending");
    state.seat_order.forEach(function (name) {
      state.bowlers[name].pending.forEach(function (decision) {
        pending.append(decisionControls(matchId, name, decision));
      });
    });
    if (pending.children.length) {
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
    live.append(Object.assign(el("a", "manual-link", "Manual entry for this match"),
                              { href: "/commissioner/manual-entry?match_id=" + encodeURIComponent(matchId) }));
    card.live.replaceWith(live);
    card.live = live;

    const names = state.seat_order.join("\u0000");
    if (names !== card.bowlers) {
      const select = card.controls.querySelector("select[name=bowler]");
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
          states[match.match_id] = await T.call("GET", "/api/v1/matches/" + encodeURIComponent(match.match_id));
          window.AlleyOdds.keep(match.match_id, states[match.match_id].odds);
        }
        joinRoom(match.match_id);
      }
      await refreshBoard();
    } catch (problem) { /* the next poll tries again */ }
  }

  function feedCell(text) { return el("td", "", text === undefined || text === null ? "—" : String(text)); }

  async function refreshFeeds() {
    let feeds;
    try {
      feeds = (await T.call("GET", "/api/v1/feeds")).feeds;
    } catch (problem) {
      feedRows.replaceChildren(el("tr"));
      feedRows.firstChild.append(el("td", "", "Feed health is unavailable: " + problem.message));
      feedRows.firstChild.firstChild.colSpan = 7;
      return;
    }
    if (!feeds.length) return;
    feedRows.replaceChildren(...feeds.map(function (feed) {
      const row = el("tr", "feed");
      row.dataset.source = feed.source;
      row.dataset.state = feed.state;
      const [shape, word] = FEED_SHAPES[feed.state] || ["?", String(feed.state).toUpperCase()];
      const name = el("td", "", feed.source);
      if ((feed.lanes || []).length) name.append(el("small", "", " lanes " + feed.lanes.join(", ")));
      const health = el("td", "health");
      health.append(el("span", "feed-state", shape + " " + word));
      if (feed.seconds_silent) health.append(el("small", "", " silent " + feed.seconds_silent + " s"));
      // The last error only while the feed is not OK: a green feed has recovered from it.
      if (feed.last_error && feed.state !== "green") health.append(el("div", "feed-error", feed.last_error));
      const rejected = feedCell(feed.rejected);
      if (feed.last_rejected) {
        rejected.append(el("div", "feed-error", "last: " + feed.last_rejected.reason));
        rejected.title = feed.last_rejected.line;
      }
      if (feed.conflicts) {
        // A number reused with other content: the scorer and the reader disagree on a line.
        const conflict = el("div", "feed-error feed-conflict",
                            feed.conflicts + " conflicting line" + (feed.conflicts === 1 ? "" : "s") +
                            (feed.last_conflict ? ": " + feed.last_conflict.reason : ""));
        if (feed.last_conflict) conflict.title = feed.last_conflict.line;
        rejected.append(conflict);
      }
      const held = feedCell(feed.held || 0);
      held.className = feed.held ? "held-cell warn" : "held-cell";
      if (feed.held) held.textContent = "held " + feed.held;
      row.append(name, health,
                 feedCell(feed.last_line_at ? new Date(feed.last_line_at).toLocaleTimeString() : "never"),
                 feedCell(feed.lines), rejected, held, feedCell(feed.reconnects));
      labelCells(row, FEED_COLUMNS);
      return row;
    }));
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
  refreshFeeds();
  setInterval(refreshMatches, 5000);
  setInterval(refreshFeeds, 3000);
  setInterval(function () {
    document.querySelectorAll(".deadline").forEach(function (clock) {
      if (clock.dataset.deadline) clock.textContent = countdown(clock.dataset.deadline);
    });
  }, 1000);
})();
