// The bowler's phone: their own hand and decision first, the match board as the kiosk shows
// it, live over Socket.IO in the bowler's room.  The page acts only through its session
// cookie (set when the code was opened): the server answers for this bowler only.  When the
// centre shows live odds (docs/odds.md) the bowler's own chance and expected share come under
// their hand and the others' chances on the board; otherwise nothing of the odds shows.
(function () {
  "use strict";
  const C = window.AlleyCards;
  const me = document.getElementById("me");
  const bowler = me.dataset.bowler, matchId = me.dataset.match;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const connection = document.getElementById("connection");
  const hand = document.getElementById("my-hand");
  const describe = document.getElementById("my-describe");
  const hole = document.getElementById("my-hole");
  const myScore = document.getElementById("my-score");
  const decisionBox = document.getElementById("decision");
  const prompt = document.getElementById("decision-prompt");
  const choices = document.getElementById("decision-choices");
  const deadline = document.getElementById("decision-deadline");
  const statusLine = document.getElementById("decision-status");
  const moments = document.getElementById("moments");
  const board = document.getElementById("board");
  const boardLine = document.getElementById("board-line");
  const confirmBuy = document.getElementById("confirm-buy");
  const myOdds = document.getElementById("my-odds");
  const oddsRecordLink = document.getElementById("odds-record-link");  // the centre's record
  let state = null;          // the match's public state
  let odds = null;           // its latest live odds (none unless the centre shows them)
  let seats = {};            // bowler -> lane, up, running score (the lane screen's read)
  let shownDecision = "";    // the decision on screen (id and choices), kept while unchanged
  let sending = false;

  function requestId() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  // One answer: one request id, however often it is sent (a retry after a dropped
  // connection is the same request; the server acts on it once).
  function send(kind, answer, decisionId) {
    if (sending) return;
    sending = true;
    choices.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    hand.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    statusLine.textContent = "Sending…";
    const body = JSON.stringify(Object.assign({ kind: kind, request_id: requestId(),
                                                decision_id: decisionId }, answer));
    function attempt(left) {
      return fetch("/api/v1/phone/decisions", {
        method: "POST", body: body, credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      }).catch(function (lost) {
        if (left > 0) return new Promise(function (done) { setTimeout(done, 800); })
          .then(function () { return attempt(left - 1); });
        throw lost;
      });
    }
    attempt(3).then(function (reply) {
      if (reply.status === 401) { location.reload(); return null; }
      return reply.json().then(function (answer) {
        statusLine.textContent = answer.ok ? "Taken." : "Not taken: " + answer.error.message;
      });
    }).catch(function () {
      statusLine.textContent = "No connection: nothing was sent twice. Try again.";
    }).finally(function () {
      sending = false;
      shownDecision = "";
      render();
    });
  }

  function button(text, className, onTap) {
    const b = C.el("button", "choice " + (className || ""), text);
    b.type = "button";
    b.addEventListener("click", onTap);
    return b;
  }

  function cardButton(card, label, onTap) {
    const b = C.el("button", "card-choice");
    b.type = "button";
    b.setAttribute("aria-label", label);
    const face = C.cardFace(card);
    face.removeAttribute("role");
    face.setAttribute("aria-hidden", "true");
    b.append(face);
    b.addEventListener("click", onTap);
    return b;
  }

  function askToBuy(price, decisionId) {
    document.getElementById("confirm-text").textContent =
      "A card from the pile for " + price + ", paid into the pot.";
    const yes = document.getElementById("confirm-yes");
    yes.textContent = "Buy for " + price;
    yes.onclick = function () { confirmBuy.close(); send("buy", { accept: true }, decisionId); };
    document.getElementById("confirm-no").onclick = function () { confirmBuy.close(); };
    confirmBuy.showModal();
  }

  // The bowler's own open decision, with its answers and the deadline counting down.
  function renderDecision(mine) {
    const decision = mine.pending[0];
    if (!decision) {
      decisionBox.hidden = true;
      shownDecision = "";
      return false;
    }
    const key = JSON.stringify(decision) + (sending ? "…" : "");
    decisionBox.hidden = false;
    deadline.dataset.deadline = decision.deadline || "";
    deadline.textContent = C.countdown(decision.deadline);
    if (key === shownDecision) return true;
    shownDecision = key;
    choices.replaceChildren();
    const id = decision.id;
    if (decision.kind === "lose_card") {
      const guess = decision.guess;
      if (guess && !guess.outcome) {
        // The bowler enters where the ball came back (docs/rules.md): right keeps the cards.
        prompt.textContent = "You guessed " + guess.side.toUpperCase() + ": watch the ball " +
          "return. Which side did it come back on?";
        choices.append(button("◀ CAME BACK LEFT", "came-left", function () {
          send("guess-outcome", { side: "left" }, id);
        }), button("CAME BACK RIGHT ▶", "came-right", function () {
          send("guess-outcome", { side: "right" }, id);
        }));
      } else {
        prompt.textContent = "Gutter ball: tap the card to lose.";
        hand.replaceChildren.apply(hand, mine.hand.map(function (card) {
          return cardButton(card, "Lose the " + C.cardName(card), function () {
            send("lose-card", { card: card }, id);
          });
        }));
        if (decision.guess_allowed && !guess) {
          prompt.textContent = "Gutter ball: tap the card to lose, or guess which side the " +
            "ball comes back on (right: you keep your cards).";
          choices.append(button("◀ LEFT", "side-left", function () { send("guess", { side: "left" }, id); }),
                         button("RIGHT ▶", "side-right", function () { send("guess", { side: "right" }, id); }));
        }
      }
    } else if (decision.kind === "steal") {
      prompt.textContent = "Split picked up: choose a card to steal.";
      Object.keys(decision.choices).forEach(function (victim) {
        decision.choices[victim].forEach(function (card) {
          choices.append(cardButton(card, "Steal the " + C.cardName(card) + " from " + victim,
                                    function () { send("steal", { from_bowler: victim, card: card }, id); }));
        });
      });
    } else if (decision.kind === "end_draw") {
      prompt.textContent = "Take the end-of-match draw?";
      choices.append(button("YES — DRAW", "yes", function () { send("end-draw", { accept: true }, id); }),
                     button("NO", "no", function () { send("end-draw", { accept: false }, id); }));
    } else if (decision.kind === "buy") {
      const price = C.money(state.ante_cents);
      prompt.textContent = "Buy a card for " + price + "?";
      choices.append(button("BUY — " + price, "yes", function () { askToBuy(price, id); }),
                     button("NO", "no", function () { send("buy", { accept: false }, id); }));
    } else {
      prompt.textContent = decision.kind;
    }
    return true;
  }

  function renderMine(mine) {
    const seat = seats[bowler] || {};
    const parts = [];
    if (seat.lane) parts.push("Lane " + seat.lane);
    if (mine.frame && !mine.gone) parts.push("Frame " + mine.frame);
    if (typeof seat.score === "number") parts.push(C.totalWords(seat));
    if (mine.gone) parts.push(C.goneWords(mine.gone));  // bowls no more: never up
    else if (seat.up && state.status === "playing") parts.push("▶ YOU'RE UP");
    if (seat.held) parts.push(C.heldWords(seat.held));
    myScore.textContent = parts.join(" · ");
    myScore.dataset.held = String(seat.held || 0);
    myScore.dataset.gone = mine.gone || "";
    const choosing = renderDecision(mine) && hand.querySelector("button");
    if (!choosing) {
      hand.replaceChildren.apply(hand, mine.hand.length ? mine.hand.map(C.cardFace)
                                                        : [C.el("span", "empty", "no cards yet")]);
    }
    describe.textContent = mine.describe;
    hole.hidden = !(mine.hole < 0);
    hole.textContent = mine.hole < 0 ? "IN THE HOLE −" + Math.abs(mine.hole) : "";
  }

  // The odds come a moment after the change they are for, and a read may bring older ones
  // than a push already did: keep the furthest along.  True when they changed.
  function keepOdds(next) {
    if (!window.AlleyOdds.supersedes(odds, next)) return false;
    odds = next;
    return true;
  }

  // ``name``'s odds while the match is played and once it is settled; null otherwise.
  function oddsOf(name) {
    if (!odds || !odds.bowlers[name]) return null;
    if (["playing", "ending", "settled"].indexOf(state.status) < 0) return null;
    return odds.bowlers[name];
  }

  // Once the result is known the odds are exactly it: 1 won, 0 lost, a share of a tie.
  function result(win) { return win >= 1 ? "won" : (win <= 0 ? "lost" : "split"); }

  function chance(of) {
    return odds.exact ? result(of.win) : window.AlleyOdds.percent(of.win) + " to win";
  }

  function renderMyOdds() {
    const mine = oddsOf(bowler);
    myOdds.hidden = !mine;
    if (oddsRecordLink) oddsRecordLink.hidden = !mine;  // (a page cached before it had one)
    if (!mine) return;
    const outcome = result(mine.win);
    let words = chance(mine) + " · expect " + C.money(mine.expected_cents);
    if (odds.exact) {
      words = outcome[0].toUpperCase() + outcome.slice(1) +
        (outcome === "lost" ? "" : " · " + C.money(mine.expected_cents) + " to you");
    }
    myOdds.dataset.seq = String(odds.seq);
    myOdds.dataset.win = String(mine.win);
    myOdds.querySelector(".odds-fill").style.width = Math.round(mine.win * 100) + "%";
    myOdds.querySelector(".odds-text").textContent = words;
  }

  function renderBoard() {
    const pot = C.money(state.pot_cents);
    boardLine.textContent = "Pot " + pot + " · " + state.status +
      ((state.winners || []).length ? " · won by " + state.winners.join(" & ") : "");
    board.replaceChildren.apply(board, state.seat_order.map(function (name) {
      const b = state.bowlers[name], seat = seats[name] || {};
      const item = C.el("li", "board-bowler" + (name === bowler ? " is-me" : ""));
      const head = C.el("p", "board-head");
      head.append(C.el("strong", "", name + (name === bowler ? " (you)" : "")));
      if (seat.lane) head.append(" · Lane " + seat.lane);
      if (typeof seat.score === "number") head.append(" · " + C.totalWords(seat));
      if (b.gone) head.append(C.el("span", "gone-note", " · " + C.goneWords(b.gone)));
      else if (seat.up && state.status === "playing") head.append(C.el("span", "up", " ▶ UP"));
      if (seat.held) head.append(C.el("span", "held-note", " · " + C.heldWords(seat.held)));
      const theirs = name === bowler ? null : oddsOf(name);
      if (theirs) {
        const line = C.el("span", "board-odds", " · " + chance(theirs));
        line.dataset.seq = String(odds.seq);
        line.dataset.win = String(theirs.win);
        head.append(line);
      }
      const cards = C.el("p", "board-cards");
      b.hand.forEach(function (card, i) { if (i) cards.append(" "); cards.append(C.cardText(card)); });
      if (!b.hand.length) cards.append("no cards");
      item.append(head, cards, C.el("p", "board-describe", b.describe +
                  (b.hole < 0 ? " · in the hole −" + Math.abs(b.hole) : "") +
                  (b.pending.length && name !== bowler ? " · deciding…" : "")));
      return item;
    }));
  }

  // The desk took this bowler out of the match before they bowled (a no-show): everything
  // they paid came back, and the match goes on without them.
  function renderRemoved() {
    myScore.textContent = C.goneWords("removed");
    myScore.dataset.gone = "removed";
    myScore.dataset.held = "0";
    decisionBox.hidden = true;
    shownDecision = "";
    hand.replaceChildren(C.el("span", "empty", "no cards"));
    describe.textContent = "You are not in this match any more.";
    hole.hidden = true;
    myOdds.hidden = true;
  }

  function render() {
    if (!state) return;
    // shared_story.js listens (it offers the story once the match is over).
    document.dispatchEvent(new CustomEvent("alley:match-status", { detail: state.status }));
    if (!state.bowlers[bowler]) {
      if (state.status === "new" || state.status === "open") return;
      renderRemoved();
      renderBoard();
      renderCheckLink();
      return;
    }
    renderMine(state.bowlers[bowler]);
    renderMyOdds();
    renderBoard();
    renderCheckLink();
  }

  // Once the match is settled or void, anyone can check every card of it (/verify).
  function renderCheckLink() {
    let link = document.getElementById("check-match");
    const done = state.status === "settled" || state.status === "void";
    if (!link && done) {
      link = C.el("a", "check-match", "Check this match");
      link.id = "check-match";
      link.href = "/verify?match=" + encodeURIComponent(matchId);
      boardLine.after(link);
    }
    if (link) link.hidden = !done;
  }

  // The bowler's moments, rebuilt from the match's log on every open (phone_moments.js).
  const myMoments = window.AlleyPhoneMoments.create({ list: moments, bowler: bowler,
                                                      matchId: matchId, cards: C });
  function remember(events) { myMoments.take(events); }

  // Lanes, who is up, running scores and balls held for the desk come with each push
  // ("screen", for that very state) and with the phone's read; the newest state's are kept.
  let seatsSeq = -1;
  function keepSeats(seq, screen) {
    if (!screen || seq < seatsSeq) return false;
    seats = screen;
    seatsSeq = seq;
    return true;
  }

  function take(message) {
    if (message.match_id !== matchId) return false;
    const outcome = window.AlleyMatchUpdates.apply(state || undefined, message);
    if (outcome.resync) { join(); return false; }
    if (outcome.stale) return false;
    state = outcome.state;
    keepSeats(state.seq, message.screen);
    render();
    return true;
  }

  // The phone's read (the kiosk's screen read): on opening, reconnecting and waking; while
  // pushes come, at most every READ_EVERY_MS (throttled), for the offline copy.
  const READ_EVERY_MS = 2000;
  const refresh = window.AlleyScreenRead.create(
    "/api/v1/phone/me", { headers: { Accept: "application/json" }, credentials: "same-origin" },
    function (reply, keptCopy) {
      if (reply.status === 401) { location.reload(); return false; }
      // The service worker's kept copy, the socket not connected (a reload while the
      // server is down): the phone shows its last state and is re-connecting.
      if (keptCopy && !socket.connected) setConnection("down", "▲ Reconnecting…");
      // A kept copy with the socket connected: the service worker still thought the server
      // silent (the read raced the "live" message to it), and what changed during the drop
      // (a match finished meanwhile) is not in the copy and no push will bring it.  By the
      // time this reply is here the worker has heard the server again: read once more.
      if (keptCopy && socket.connected) refresh(1000);
    },
    function (read) {
      if (!read.screen) return;
      keepOdds(read.screen.state.odds);
      take({ match_id: matchId, state: read.screen.state, screen: read.screen.bowlers });
      render();
    });

  const socket = io({ transports: ["websocket"], reconnectionDelayMax: 3000 });
  function join() {
    socket.emit("phone_join", {}, function (reply) {
      if (reply && reply.error) location.reload();  // the link ended: the page says why
    });
  }
  function setConnection(to, text) { connection.dataset.state = to; connection.textContent = text; }
  socket.on("connect", function () {
    setConnection("live", "● Live"); join(); refresh(0);
    myMoments.load().catch(function () { /* the next connection reads the log again */ });
  });
  socket.on("disconnect", function () { setConnection("down", "▲ Reconnecting…"); });
  socket.io.on("reconnect_attempt", function () { setConnection("down", "▲ Reconnecting…"); });
  refresh(0);  // at once, connected or not: offline, the service worker's last copy
  // Moments told once each, in order, also those missed while the connection was down.
  const toldOnce = window.AlleyCatchUp.create("phone:" + matchId + ":" + bowler, remember);
  window.AlleyPhone = { moments: toldOnce, socket: socket };  // socket: phone_side_games.js
  socket.on("state", function (message) {
    take(message);
    if (message.match_id === matchId) toldOnce.hear(matchId, [], state);
  });
  socket.on("match_update", function (message) {
    take(message);
    if (message.match_id === matchId) toldOnce.hear(matchId, message.events || [], state);
    refresh(message.screen ? READ_EVERY_MS : 120);
  });
  // A ball held for the desk, or taken off its list: the bowlers' held counts.
  socket.on("match_screen", function (message) {
    if (message.match_id === matchId && state && keepSeats(message.seq, message.screen)) render();
  });
  // The odds follow each change a moment later (computed apart from the balls).
  socket.on("match_odds", function (message) {
    if (message.match_id === matchId && keepOdds(message.odds)) render();
  });
  // A phone that slept missed pushes: it asks for the whole state when it wakes.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && socket.connected) { join(); refresh(0); }
  });
  setInterval(function () { deadline.textContent = C.countdown(deadline.dataset.deadline); }, 1000);
})();
