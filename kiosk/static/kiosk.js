// The lane-side kiosk: renders the public state pushed over Socket.IO.
// It never asks for anything a bowler must not see: the server sends only public state.
(function () {
  "use strict";
  const panels = document.getElementById("panels");
  const lanePair = panels.dataset.lanePair;
  const connection = document.getElementById("connection");
  const matchLine = document.getElementById("match-line");
  const pot = document.getElementById("pot");
  const fairDeal = document.getElementById("fair-deal");
  const banner = document.getElementById("banner");
  const fourColour = document.getElementById("four-colour");
  const pairing = document.getElementById("pairing");
  const pairingCode = document.getElementById("pairing-code");
  // The secret the commissioner's pairing made valid; kept by this browser for its lanes.
  const DEVICE_KEY = "alley-poker-kiosk-device:" + lanePair;
  let paired = false;

  const resultBox = document.getElementById("result");
  const matches = {};      // match_id -> public state
  const screens = {};      // match_id -> per bowler lane, who is up, running score (screen read)
  const changed = {};      // match_id -> when it last changed (a counter), to pick the shown one
  let changes = 0;

  // Cards, money and elements are drawn as on every screen (card_faces.js).
  const el = window.AlleyCards.el, money = window.AlleyCards.money;
  const cardFace = window.AlleyCards.cardFace, cardText = window.AlleyCards.cardText;
  const countdown = window.AlleyCards.countdown;

  // A bowler's answer, over the socket as that bowler; the ledger accepts it only while
  // the decision is theirs and open.  A refusal is announced; success re-renders the panel.
  function decide(matchId, bowler, kind, decisionId, answer) {
    socket.emit("decide", Object.assign({
      match_id: matchId, kind: kind, bowler: bowler, decision_id: decisionId,
    }, answer), function (reply) {
      if (reply && reply.error) showBanner("NOT TAKEN", "refused", reply.error.message);
      else if (reply && reply.awaiting) showBanner("ASK THE DESK", "waiting", reply.message);
    });
  }

  function choiceButton(text, className, onTap) {
    const button = el("button", "choice " + (className || ""), text);
    button.type = "button";
    button.addEventListener("click", onTap);
    return button;
  }

  function makeChoosable(card, label, onTap) {
    card.classList.add("choosable");
    card.setAttribute("role", "button");
    card.setAttribute("aria-label", label);
    card.tabIndex = 0;
    card.addEventListener("click", onTap);
    card.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); onTap(); }
    });
  }

  // The decision on a bowler's panel: a prompt, big touch buttons (or tappable cards), and
  // the deadline counting down.  Steals are taken by tapping a card on another panel, so
  // whom and what are one tap; those cards are marked once every panel is on screen.
  function decisionBox(state, bowler, decision, hand) {
    const matchId = state.match_id;
    const box = el("div", "decision");
    box.dataset.kind = decision.kind;
    const clock = el("span", "deadline", countdown(decision.deadline));
    clock.dataset.deadline = decision.deadline || "";
    clock.title = "time left to answer";
    const prompt = el("strong", "prompt");
    const buttons = el("div", "choices");
    const answer = function (kind, body) { decide(matchId, bowler, kind, decision.id, body); };
    if (decision.kind === "lose_card") {
      const guess = decision.guess;
      if (guess && !guess.outcome) {
        prompt.textContent = "GUESSED " + guess.side.toUpperCase() + " — watch the ball return";
      } else {
        prompt.textContent = "GUTTER — tap a card to lose it";
        // One tap waits a moment, with an Undo, before the card goes (kiosk_undo.js).
        window.AlleyKioskUndo.offerCards({
          key: matchId + "\u0000" + bowler + "\u0000" + decision.id, box: box, hand: hand,
          cardText: cardText, makeChoosable: makeChoosable, redraw: render,
          send: function (card) { answer("lose-card", { card: card }); } });
        box.dataset.choosing = "yes";  // the panel makes room for the cards (kiosk.css)
        if (decision.guess_allowed && !guess) {
          buttons.append(el("span", "guess-words",
                            "or guess which side the ball comes back on (right: you keep your cards)"));
          ["left", "right"].forEach(function (side) {
            buttons.append(choiceButton((side === "left" ? "◀ " : "") + side.toUpperCase() +
                                        (side === "right" ? " ▶" : ""), "side-" + side,
                                        function () { answer("guess", { side: side }); }));
          });
        }
      }
    } else if (decision.kind === "steal") {
      prompt.textContent = "STEAL — tap a card in another bowler's hand";
      box.dataset.steal = "1";
    } else if (decision.kind === "end_draw") {
      prompt.textContent = "Take the end-of-match draw?";
      buttons.append(choiceButton("YES — DRAW", "yes", function () { answer("end-draw", { accept: true }); }),
                     choiceButton("NO", "no", function () { answer("end-draw", { accept: false }); }));
    } else if (decision.kind === "buy") {
      const price = money(state.ante_cents);
      prompt.textContent = "Buy a card for " + price + "?";
      buttons.append(choiceButton("BUY — " + price, "yes", function () { answer("buy", { accept: true }); }),
                     choiceButton("NO", "no", function () { answer("buy", { accept: false }); }));
    } else {
      prompt.textContent = decision.kind;
    }
    box.append(prompt);
    if (buttons.children.length) box.append(buttons);
    box.append(clock);
    return box;
  }

  // After every panel is drawn: a pending steal makes the other bowlers' cards choosable.
  function offerSteals(state) {
    state.seat_order.forEach(function (thief) {
      const steal = state.bowlers[thief].pending.find(function (d) { return d.kind === "steal"; });
      if (!steal) return;
      Object.keys(steal.choices).forEach(function (victim) {
        const panel = panels.querySelector("section.bowler[data-bowler='" + CSS.escape(victim) + "']");
        if (!panel) return;
        panel.querySelectorAll(".card:not(.choosable)").forEach(function (card) {
          makeChoosable(card, thief + " steals " + card.getAttribute("aria-label"), function () {
            decide(state.match_id, thief, "steal", steal.id,
                   { from_bowler: victim, card: card.dataset.card });
          });
          card.classList.add("stealable");
        });
      });
    });
  }

  function bowlerPanel(state, name, place) {
    const b = state.bowlers[name];
    const at = (screens[state.match_id] || {})[name] || {};
    const panel = el("section", "bowler");
    panel.dataset.bowler = name;
    const head = el("header", "bowler-head");
    head.append(el("h2", "name", name));
    // Who is up: a word and an arrow beside the name, and a bright frame (not colour alone).
    if (at.up && state.status === "playing") {
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
    score.append(el("span", "frame", b.frame ? "Frame " + b.frame : (b.game ? "Game done" : "")),
                 el("span", "total", window.AlleyCards.totalWords(at)));
    // A league match with handicaps: the handicap and the handicapped total beside the
    // natural score ("187 · hdcp 31 → 218"); the natural score stays first and unchanged.
    if (typeof b.handicap === "number" && typeof at.score === "number") {
      const least = typeof at.score_at_least === "number" ? at.score_at_least : at.score;
      score.append(el("span", "handicap", "· hdcp " + b.handicap + " → " + (least + b.handicap) +
                      (least > at.score ? "+" : "")));
    }
    panel.append(score);
    panel.append(el("div", "scoresheet", b.scoresheet || "—"));
    const hand = el("div", "hand");
    hand.setAttribute("aria-label", name + "'s hand");
    b.hand.forEach(function (card) { hand.append(cardFace(card)); });
    if (!b.hand.length) hand.append(el("span", "empty", "no cards yet"));
    panel.append(hand);
    if (b.hole < 0) panel.append(el("div", "hole", "IN THE HOLE " + "−" + Math.abs(b.hole)));
    panel.append(el("div", "describe", b.describe));
    const odds = window.AlleyOdds.node(state, name);
    if (odds) panel.append(odds);
    if (b.next_strike_cards !== undefined && state.status === "playing") {
      panel.append(el("div", "streak", "next strike: " + b.next_strike_cards + " card" +
                      (b.next_strike_cards === 1 ? "" : "s")));
    }
    b.pending.forEach(function (decision) {
      panel.append(decisionBox(state, name, decision, hand));
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

  // The game and frame the lanes are in: the furthest-behind bowler still bowling.
  function whereAt(state) {
    let at = null;
    state.seat_order.forEach(function (name) {
      const b = state.bowlers[name];
      if (!b || !b.game || !b.frame) return;
      if (!at || b.game < at.game || (b.game === at.game && b.frame < at.frame)) at = b;
    });
    if (!at) {
      const first = state.bowlers[state.seat_order[0]];
      return first && first.game ? " · game " + first.game + " of " + state.games : "";
    }
    return " · game " + at.game + " of " + state.games + " · frame " + at.frame;
  }

  // The match on screen: one being bowled (the one that changed last); else the result
  // settled last, which stays until the next match starts; else one waiting to start.
  function shownMatch() {
    const ids = Object.keys(matches);
    const latest = function (wanted) {
      return ids.filter(function (id) { return wanted(matches[id].status); })
        .sort(function (a, b) { return changed[b] - changed[a]; })[0];
    };
    return latest(function (s) { return s === "playing" || s === "ending"; }) ||
      latest(function (s) { return s === "settled"; }) || latest(function () { return true; });
  }

  function paidIn(state) {
    return state.seat_order.reduce(function (sum, name) {
      return sum + (state.bowlers[name].paid_cents || 0);
    }, 0);
  }

  // The result, from the state itself (so a reload shows it too): who won, with which hand
  // and cards, how much each took, and how the pot was split.
  function showResult(state) {
    resultBox.replaceChildren();
    const winners = (state && state.winners) || [];
    resultBox.hidden = !winners.length;
    if (!winners.length) return;
    const potCents = paidIn(state);
    const shares = state.shares || {};
    resultBox.append(el("h2", "result-title",
                        state.status === "settled" ? "RESULT" : "RESULT — waiting for the desk"));
    const list = el("ul", "result-winners");
    winners.forEach(function (name) {
      const b = state.bowlers[name];
      const row = el("li", "result-winner");
      row.dataset.bowler = name;
      row.append(el("strong", "who", name), el("span", "amount", " wins " + money(shares[name] || 0)),
                 el("span", "with", " with " + b.describe + ": "));
      const cards = el("span", "result-cards");
      b.hand.forEach(function (card, index) {
        if (index) cards.append(" ");
        cards.append(cardText(card));
      });
      row.append(cards);
      list.append(row);
    });
    resultBox.append(list);
    const split = winners.map(function (name) { return name + " " + money(shares[name] || 0); });
    const given = winners.reduce(function (sum, name) { return sum + (shares[name] || 0); }, 0);
    if (potCents > given) split.push("house " + money(potCents - given) + " (odd cents)");
    resultBox.append(el("p", "result-pot", "Pot " + money(potCents) +
                        (winners.length > 1 ? " split: " : ": ") + split.join(" · ")));
  }

  // The commitment to the deal's seed before the first card; the seed once it is revealed
  // (docs/fairness.md): anyone can check every card with `alley-poker verify`.
  function showFairDeal(state) {
    const fair = state && state.fairness;
    fairDeal.hidden = !fair;
    if (!fair) return;
    // A small line at the foot of the screen, in words first: the code is for checking.
    fairDeal.textContent = fair.seed
      ? "Fair deal: the deal's secret is revealed, so anyone can check every card " +
        "(alley-poker verify) · seed revealed " + fair.seed + " (commitment " + fair.commitment + ")"
      : "Fair deal: the cards were sealed before the first ball and can be checked after " +
        "the match · seal " + fair.commitment;
    if (fair.seed && (state.status === "settled" || state.status === "void")) {
      const check = el("a", "check-match", "Check this match");  // /verify, in the bowler's browser
      check.href = "/verify?match=" + encodeURIComponent(state.match_id);
      fairDeal.append(" ", check);
    }
  }

  const STATUS_WORDS = { open: "waiting to start", playing: "playing",
                         ending: "showdown — waiting for the desk", settled: "settled", void: "void" };
  function draw() {
    panels.replaceChildren();
    const state = matches[shownMatch()];
    showResult(state);
    showFairDeal(state);
    if (!state) { matchLine.textContent = "Waiting for a match…"; pot.textContent = ""; return; }
    matchLine.textContent = (STATUS_WORDS[state.status] || state.status) + whereAt(state);
    // Settled: the pot is paid out ($0.00, as the phone says); the result box keeps its size.
    pot.textContent = state.status === "settled" ? "Pot " + money(state.pot_cents) + " · paid out"
      : "Pot " + money(state.winners && state.winners.length ? paidIn(state) : state.pot_cents);
    // The badges rank hands (not scores): "Best hand", "2nd-best hand", …
    const placeOf = {};
    const ordinal = ["Best hand", "2nd-best hand", "3rd-best hand"];
    (state.places || []).forEach(function (group, index) {
      group.forEach(function (name) { placeOf[name] = ordinal[index] || (index + 1) + "th-best hand"; });
    });
    if (state.places && state.places.length < 2) Object.keys(placeOf).forEach(function (k) { delete placeOf[k]; });
    state.seat_order.forEach(function (name) { panels.append(bowlerPanel(state, name, placeOf[name])); });
    offerSteals(state);
    layout();
    panels.querySelectorAll("section.bowler").forEach(function (panel) {
      markNewlyDealt(state.match_id, panel.dataset.bowler, panel.querySelector(".hand"));
    });
  }
  // Every change redraws the panels, but never under a bowler's finger (steady_taps.js).
  const render = window.AlleySteadyTaps.steady(panels, draw);
  window.addEventListener("resize", layout);
  // The moments and the result above the panels change their height: the cards refit.
  if (window.ResizeObserver) new ResizeObserver(function () { layout(); }).observe(panels);

  // Moments (a strike, a gutter, a steal…) in an area of their own above the panels, never
  // over a hand.  The latest is shown at once and stays a few seconds; the ones before it
  // move to a short list of recent moments, so a burst never queues stale banners.
  const BANNER_MS = 6000, RECENT_MAX = 4;
  const recent = document.getElementById("recent");
  let current = null, bannerTimer = null;
  function momentNodes(moment) {
    return [].concat(moment.text).map(function (part) {
      return typeof part === "string" ? document.createTextNode(part) : part.cloneNode(true);
    });
  }
  function remember(moment) {
    const item = el("li", "recent-moment");
    item.dataset.kind = moment.kind || "moment";
    item.append.apply(item, momentNodes(moment));
    if (moment.detail) item.append(" · " + moment.detail);
    recent.prepend(item);
    while (recent.children.length > RECENT_MAX) recent.lastElementChild.remove();
  }
  function showBanner(text, kind, detail) {
    if (current) remember(current);
    current = { text: text, kind: kind, detail: detail };
    banner.replaceChildren.apply(banner, momentNodes(current));
    if (detail) banner.append(el("small", "", detail));
    banner.dataset.kind = kind || "moment";
    banner.hidden = false;
    banner.classList.remove("pop"); void banner.offsetWidth; banner.classList.add("pop");
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(function () {
      if (current) remember(current);
      current = null;
      banner.hidden = true;
    }, BANNER_MS);
  }

  // A card named in an event, as a bowler reads it: a physical joker by its power now,
  // any other card with its suit's symbol (4♥, red suits in red).
  function cardWords(card, state) {
    const power = ((state && state.jokers) || {})[card];
    if (power) return power === "good" ? "GOOD JOKER" : "BAD JOKER";
    if (card === "GJ") return "GOOD JOKER";
    if (card === "BJ") return "BAD JOKER";
    return cardText(card);
  }

  function cardList(cards, state) {
    const parts = [];
    cards.forEach(function (card, index) {
      if (index) parts.push(index === cards.length - 1 ? " and " : ", ");
      parts.push(cardWords(card, state));
    });
    return parts;
  }

  // The empty-pile draw (from whoever holds the most cards) is no steal: one ball can bring
  // several, told as one moment per drawer and giver.
  function courtesyDraws(events, state) {
    const draws = {};
    events.forEach(function (event) {
      const d = event.data || {};
      if (event.type !== "card_taken" || d.via !== "courtesy") return;
      const key = d.bowler + "\u0000" + d.from_bowler;
      (draws[key] = draws[key] || { bowler: d.bowler, from: d.from_bowler, cards: [] }).cards.push(d.card);
    });
    return function tell(event) {  // at the first of a group's draws, in ledger order
      const d = event.data || {};
      const key = d.bowler + "\u0000" + d.from_bowler;
      const draw = draws[key];
      if (!draw) return;
      delete draws[key];
      showBanner(["PILE EMPTY — " + draw.bowler + " draws from " + draw.from + ": "]
                   .concat(cardList(draw.cards, state)), "courtesy",
                 draw.from + " held the most cards");
    };
  }

  function announce(events, state) {
    // A gutter ball says what it cost (the card that went back, or the hole) in its own
    // banner; the plain "loses a card" is only for a gutter still waiting on a choice.
    const gutterTold = new Set(events
      .filter(function (e) { return e.type === "card_returned" || e.type === "hole_deepened"; })
      .map(function (e) { return (e.data || {}).bowler; }));
    const tellCourtesy = courtesyDraws(events, state);
    // Cards that go back for another reason than a gutter ball (a Holland-daze, a bowler
    // removed, a review) are no gutter: a Holland-daze names them in its own moment.
    const dazed = {};
    events.forEach(function (e) {
      const d = e.data || {};
      if (e.type === "card_returned" && d.why === "holland_daze") {
        (dazed[d.bowler] = dazed[d.bowler] || []).push(d.card);
      }
    });
    events.forEach(function (event) {
      const d = event.data || {};
      if (event.type === "ball_recorded" && d.gutter_ball && gutterTold.has(d.bowler)) {
        return;
      } else if (event.type === "ball_recorded" && d.mark === "strike") {
        showBanner("STRIKE! +" + d.cards_due, "strike",
                   d.bowler + (d.bonus ? " · first strike of the game, +" + d.bonus + " more" : ""));
      } else if (event.type === "ball_recorded" && d.gutter_ball) {
        showBanner("GUTTER", "gutter", d.bowler + " loses a card");
      } else if (event.type === "ball_recorded" && d.split_pickup) {
        showBanner("SPLIT PICKED UP — " + d.bowler, "spare");
      } else if (event.type === "jokers_swapped") {
        showBanner("FREAKY FRIDAY — the jokers swap!", "freaky");
      } else if (event.type === "holland_daze") {
        const lost = dazed[d.bowler] || [];
        showBanner(["HOLLAND-DAZE — " + d.bowler].concat(
          lost.length ? [" · back to the pile: "].concat(cardList(lost, state)) : []), "daze");
      } else if (event.type === "hole_deepened") {
        showBanner(d.bowler + " is IN THE HOLE", "hole");
      } else if (event.type === "card_returned" &&
                 ["holland_daze", "bowler removed", "review"].indexOf(d.why) >= 0) {
        return;
      } else if (event.type === "card_returned") {
        showBanner(["GUTTER — " + d.bowler + "'s ", cardWords(d.card, state), " went back"], "gutter");
      } else if (event.type === "card_taken" && d.via === "courtesy") {
        tellCourtesy(event);
      } else if (event.type === "card_taken") {
        showBanner(["STEAL — " + d.bowler + " took ", cardWords(d.card, state),
                    " from " + d.from_bowler], "steal");
      } else if (event.type === "automatic_win") {
        showBanner("AUTOMATIC WIN — " + d.bowler, "winner");
      } else if (event.type === "showdown") {
        const hands = d.hands || {};
        const morgan = (d.winners || []).filter(function (w) { return (hands[w] || {}).morgan; });
        if (morgan.length) {
          showBanner("MORGAN MANEUVER — " + morgan.join(" & "), "winner",
                     "a lone joker, drawn and held: unbeatable");
        } else {
          showBanner("WINNER — " + (d.winners || []).join(" & "), "winner");
        }
      }
    });
  }

  // A "state" or "match_update" message; true when it changed what is shown.
  function take(message) {
    const outcome = window.AlleyMatchUpdates.apply(matches[message.match_id], message);
    if (outcome.resync) {  // a push was missed: the whole state comes with joining again
      join();
      return false;
    }
    if (outcome.stale) return false;  // an older copy arriving late
    matches[message.match_id] = outcome.state;
    changed[message.match_id] = ++changes;
    render();
    return true;
  }

  // Lanes, who is up and running scores are not in the pushed state: they come with the
  // lanes' screen read, asked for on every (re)connection and shortly after every change.
  // It also brings the match settled here last, whose lanes are free (a reload shows it).
  // Moments are told once each, in order, also those missed while the connection was down
  // (catch_up.js reads them back when a state runs ahead of the last one told).
  const moments = window.AlleyCatchUp.create("kiosk:" + lanePair, announce);
  let screenTimer = null;
  function refreshScreen(delay) {
    clearTimeout(screenTimer);
    screenTimer = setTimeout(function () {
      fetch("/api/v1/lanes/" + encodeURIComponent(lanePair) + "/screen",
            { headers: { Accept: "application/json" } })
        .then(function (reply) { return reply.ok ? reply.json() : null; })
        .then(function (screen) {
          if (!screen) return;
          const all = screen.matches.concat(screen.last_result ? [screen.last_result] : []);
          const before = JSON.stringify([screens, matches]);
          let oddsChanged = false;
          all.forEach(function (match) {
            screens[match.match_id] = match.bowlers;
            oddsChanged = window.AlleyOdds.keep(match.match_id, match.state.odds) || oddsChanged;
            const outcome = window.AlleyMatchUpdates.apply(matches[match.match_id],
                                                           { state: match.state });
            if (outcome.state) {
              if (!matches[match.match_id]) changed[match.match_id] = ++changes;
              matches[match.match_id] = outcome.state;
            }
          });
          // Only what changed.
          if (oddsChanged || JSON.stringify([screens, matches]) !== before) render();
          all.forEach(function (match) { moments.hear(match.match_id, [], matches[match.match_id]); });
        })
        .catch(function () { /* the next change or reconnection asks again */ });
    }, delay || 0);
  }

  function setConnection(state, text) {
    connection.dataset.state = state;
    connection.textContent = text;
  }

  // Reconnects forever: a kiosk outlives network blips and server restarts.
  const socket = io({ transports: ["websocket"], reconnectionDelayMax: 3000 });
  // Joining brings a full state per match; with this kiosk's device secret it also allows
  // the bowlers' answers.  An unpaired kiosk asks for pairing once and shows its code until
  // the commissioner enters it on the tablet.
  function join() {
    socket.emit("join", { lanes: lanePair, device_token: localStorage.getItem(DEVICE_KEY) },
                function (reply) {
      paired = Boolean(reply && reply.paired);
      pairing.hidden = paired;
      document.body.dataset.paired = paired ? "yes" : "no";
      if (!paired && !pairingCode.textContent) askForPairing();
    });
  }
  function askForPairing() {
    const known = localStorage.getItem(DEVICE_KEY + ":code");
    if (known && localStorage.getItem(DEVICE_KEY)) { pairingCode.textContent = known; return; }
    socket.emit("pair_request", { lanes: lanePair }, function (reply) {
      if (!reply || !reply.ok) return;
      localStorage.setItem(DEVICE_KEY, reply.device_token);
      localStorage.setItem(DEVICE_KEY + ":code", reply.code);
      pairingCode.textContent = reply.code;
    });
  }
  setInterval(function () { if (!paired && socket.connected) join(); }, 3000);
  socket.on("connect", function () {
    setConnection("live", "● Live");
    join();  // answered with a full state per match (once the kiosk is paired)
    refreshScreen(0);
  });
  refreshScreen(0);  // at once, connected or not: offline, the service worker's last copy
  socket.on("disconnect", function () { setConnection("down", "▲ Reconnecting…"); });
  socket.io.on("reconnect_attempt", function () { setConnection("down", "▲ Reconnecting…"); });
  socket.on("state", function (message) {
    take(message);
    moments.hear(message.match_id, [], matches[message.match_id]);
  });
  socket.on("match_update", function (message) {
    take(message);
    moments.hear(message.match_id, message.events || [], matches[message.match_id]);
    refreshScreen(120);
  });
  // The live odds follow each change a moment later (computed apart from the balls).
  socket.on("match_odds", function (message) {
    if (window.AlleyOdds.keep(message.match_id, message.odds) && matches[message.match_id]) render();
  });

  // For the bowler's phone code, shown on request (kiosk_phone_code.js).
  window.AlleyKiosk = { socket: socket, shown: function () { return matches[shownMatch()]; },
                        isPaired: function () { return paired; }, moments: moments };

  fourColour.addEventListener("change", function () {
    document.body.classList.toggle("four-colour", fourColour.checked);
  });
  setInterval(function () {
    document.querySelectorAll(".deadline").forEach(function (clock) {
      clock.textContent = countdown(clock.dataset.deadline);
    });
  }, 1000);
})();
