// The lane-side kiosk: renders the public state pushed over Socket.IO.
// It never asks for anything a bowler must not see: the server sends only public state.
// This file holds the screen as a whole: which match is shown, the top line, the result and
// the fair-deal line, the connection and pairing.  The bowler panels are kiosk_panels.js,
// the decisions on them kiosk_decisions.js, the moments kiosk_banners.js.
(function () {
  "use strict";
  const panels = document.getElementById("panels");
  const lanePair = panels.dataset.lanePair;
  const connection = document.getElementById("connection");
  const matchLine = document.getElementById("match-line");
  const pot = document.getElementById("pot");
  const fairDeal = document.getElementById("fair-deal");
  const fourColour = document.getElementById("four-colour");
  const pairing = document.getElementById("pairing");
  const pairingCode = document.getElementById("pairing-code");
  const pairingNote = document.getElementById("pairing-note");
  // The secret the commissioner's pairing made valid; kept by this browser for its lanes.
  const DEVICE_KEY = "alley-poker-kiosk-device:" + lanePair;
  let paired = false;

  const resultBox = document.getElementById("result");
  const matches = {};      // match_id -> public state
  const screens = {};      // match_id -> per bowler lane, who is up, running score (screen read)
  const changed = {};      // match_id -> when it last changed (a counter), to pick the shown one
  let changes = 0;

  // Cards, money and elements are drawn as on every screen (shared_card_faces.js).
  const el = window.AlleyCards.el, money = window.AlleyCards.money;
  const cardText = window.AlleyCards.cardText, countdown = window.AlleyCards.countdown;

  // A bowler's answer goes over this kiosk's socket as that bowler; the ledger accepts it
  // only while the decision is theirs and open.
  const decisions = window.AlleyKioskDecisions.create({
    emit: function (payload, reply) { socket.emit("decide", payload, reply); },
    redraw: function () { render(); }, panels: panels,
  });
  const screenPanels = window.AlleyKioskPanels.create(panels, decisions);

  // The game and frame the lanes are in: the furthest-behind bowler still bowling (one the
  // desk marked gone bowls no more: their last frame is not where the lanes are).
  function whereAt(state) {
    let at = null;
    state.seat_order.forEach(function (name) {
      const b = state.bowlers[name];
      if (!b || !b.game || !b.frame || b.gone) return;
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
    // A small line at the foot of the screen, in words: during play only that the cards are
    // sealed (the seal's 64 hex digits say nothing to the lanes; /verify and the tablet show
    // it); the codes, for checking, once the match is over and its seed revealed.
    fairDeal.textContent = fair.seed
      ? "Fair deal: the deal's secret is revealed, so anyone can check every card " +
        "(alley-poker verify) · seed revealed " + fair.seed + " (commitment " + fair.commitment + ")"
      : "Fair deal: the cards were sealed before the first ball and can be checked after " +
        "the match";
    if (fair.seed && (state.status === "settled" || state.status === "void")) {
      const check = el("a", "check-match", "Check this match");  // /verify, in the bowler's browser
      check.href = "/verify?match=" + encodeURIComponent(state.match_id);
      fairDeal.append(" ", check);
    }
  }

  const STATUS_WORDS = { open: "waiting to start", playing: "playing",
                         ending: "showdown — waiting for the desk", settled: "settled", void: "void" };
  function draw() {
    const state = matches[shownMatch()];
    showResult(state);
    showFairDeal(state);
    if (!state) {
      matchLine.textContent = "Waiting for a match…";
      pot.textContent = "";
      screenPanels.draw(null);
      return;
    }
    matchLine.textContent = (STATUS_WORDS[state.status] || state.status) + whereAt(state);
    // Settled: the pot is paid out ($0.00, as the phone says); the result box keeps its size.
    pot.textContent = state.status === "settled" ? "Pot " + money(state.pot_cents) + " · paid out"
      : "Pot " + money(state.winners && state.winners.length ? paidIn(state) : state.pot_cents);
    screenPanels.draw(state, screens[state.match_id]);
  }
  // Every change redraws the panels, but never under a bowler's finger (shared_steady_taps.js).
  const render = window.AlleySteadyTaps.steady(panels, draw);
  window.addEventListener("resize", screenPanels.layout);
  // The moments and the result above the panels change their height: the cards refit.
  if (window.ResizeObserver) new ResizeObserver(function () { screenPanels.layout(); }).observe(panels);

  // Lanes, who is up, running scores and balls held for the desk: each push carries them
  // for its own state ("screen"), so they follow every ball; kept with the seq they are of,
  // so a read answered late never puts older ones back.
  const screenSeq = {};    // match_id -> the seq of the state its screen facts are of
  function keepScreen(matchId, seq, screen) {
    if (!screen || (screenSeq[matchId] !== undefined && seq < screenSeq[matchId])) return false;
    screens[matchId] = screen;
    screenSeq[matchId] = seq;
    return true;
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
    keepScreen(message.match_id, outcome.state.seq, message.screen);
    changed[message.match_id] = ++changes;
    render();
    return true;
  }

  // The lanes' screen read, asked for on every (re)connection, brings the match settled
  // here last too, whose lanes are free (a reload shows it).  While pushes come it is asked
  // for again at most every READ_EVERY_MS (throttled, never put off by the next push): it
  // keeps the offline copy (shared_service_worker.js) near what is on screen.
  // Moments are told once each, in order, also those missed while the connection was down
  // (shared_catch_up.js reads them back when a state runs ahead of the last one told).
  const moments = window.AlleyCatchUp.create("kiosk:" + lanePair,
                                              window.AlleyKioskBanners.announce);
  const READ_EVERY_MS = 2000;
  const refreshScreen = window.AlleyScreenRead.create(
    "/api/v1/lanes/" + encodeURIComponent(lanePair) + "/screen",
    { headers: { Accept: "application/json" } },
    function (reply, keptCopy) {
      // The service worker's kept copy, the socket not connected (a reload while the
      // server is down): the screen shows its last state and is re-connecting.
      if (keptCopy && !socket.connected) setConnection("down", "▲ Reconnecting…");
      // A kept copy with the socket connected: the service worker still thought the server
      // silent (the read raced the "live" message to it), and what changed during the drop
      // (a match finished meanwhile) is not in the copy and no push will bring it.  By the
      // time this reply is here the worker has heard the server again: read once more.
      if (keptCopy && socket.connected) refreshScreen(1000);
    },
    function (screen) {
      const all = screen.matches.concat(screen.last_result ? [screen.last_result] : []);
      const before = JSON.stringify([screens, matches]);
      let oddsChanged = false;
      all.forEach(function (match) {
        oddsChanged = window.AlleyOdds.keep(match.match_id, match.state.odds) || oddsChanged;
        const outcome = window.AlleyMatchUpdates.apply(matches[match.match_id],
                                                       { state: match.state });
        if (outcome.state) {
          if (!matches[match.match_id]) changed[match.match_id] = ++changes;
          matches[match.match_id] = outcome.state;
          keepScreen(match.match_id, match.state.seq, match.bowlers);
        }
      });
      // Only what changed.
      if (oddsChanged || JSON.stringify([screens, matches]) !== before) render();
      all.forEach(function (match) { moments.hear(match.match_id, [], matches[match.match_id]); });
    });

  function setConnection(state, text) {
    connection.dataset.state = state;
    connection.textContent = text;
  }

  // The device secret also rides the socket's handshake, in a cookie sent to /socket.io/
  // only: the server keeps room for paired kiosks when others fill its connections
  // (web/socket_ceiling.py).
  function keepDeviceCookie(token) {
    if (!token) return;
    document.cookie = "alley_kiosk=" + encodeURIComponent(token) +
      "; path=/socket.io/; max-age=34560000; SameSite=Strict" +
      (location.protocol === "https:" ? "; Secure" : "");
  }
  keepDeviceCookie(localStorage.getItem(DEVICE_KEY));
  // Reconnects forever: a kiosk outlives network blips and server restarts, and a refused
  // connection (the server full) is tried again with the same back-off.
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
      // A code lives while its kiosk is connected (and a couple of minutes after): one the
      // server no longer has waiting is dropped, and the kiosk asks for a new one.
      if (!paired && reply && reply.waiting === false && !asking) {
        localStorage.removeItem(DEVICE_KEY + ":code");
        pairingCode.textContent = "";
      }
      if (!paired && !pairingCode.textContent) askForPairing();
    });
  }
  let asking = false;
  function askForPairing() {
    const known = localStorage.getItem(DEVICE_KEY + ":code");
    if (known && localStorage.getItem(DEVICE_KEY)) { pairingCode.textContent = known; return; }
    if (asking) return;
    asking = true;
    socket.emit("pair_request", { lanes: lanePair }, function (reply) {
      asking = false;
      // Refused (too many kiosks waiting): the note says why; the next join asks again.
      pairingNote.textContent = reply && !reply.ok && reply.error ? reply.error.message : "";
      if (!reply || !reply.ok) return;
      localStorage.setItem(DEVICE_KEY, reply.device_token);
      keepDeviceCookie(reply.device_token);
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
    refreshScreen(message.screen ? READ_EVERY_MS : 120);
  });
  // A ball held for the desk, or taken off its list: the bowlers' held counts.
  socket.on("match_screen", function (message) {
    if (matches[message.match_id] && keepScreen(message.match_id, message.seq, message.screen)) {
      render();
    }
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
