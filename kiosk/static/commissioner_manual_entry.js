// Manual entry for a lane without a feed: tap the pins left standing; the server says how
// many fell and whether the leave is a split (the bowling rules live there, not here).
(function () {
  "use strict";
  const T = window.Commissioner;
  const matchSelect = document.getElementById("entry-match");
  const bowlerSelect = document.getElementById("entry-bowler");
  const where = document.getElementById("entry-where");
  const leave = document.getElementById("leave");
  const splitFlag = document.getElementById("split");
  const entries = document.getElementById("entries");
  const pins = Array.from(document.querySelectorAll("#pin-deck .pin"));

  let board = {};       // match_id -> board.json entry
  let before = [];      // the pins the next ball faces
  let judged = null;    // the server's reading of the diagram as it stands now
  let judging = Promise.resolve();  // the reading asked for last
  let asked = 0;        // readings asked for: an older answer arriving late is not used
  let shownBall = "";   // which ball the diagram is for
  let entered = 0;      // entries made on this page
  // One ball on its way at a time: the second tap of a double tap came back as a second ball
  // (a gutter twice is two legal balls) or as a red "Refused" (Enter re-sent the reading of
  // the ball just entered), so taps while a ball is on its way are dropped.
  let sending = false;
  const entryButtons = document.querySelector(".entry-buttons");

  function standing() {
    return pins.filter(function (p) { return p.getAttribute("aria-pressed") === "true"; })
      .map(function (p) { return Number(p.dataset.pin); });
  }

  // Every change of the diagram asks the server again; until its answer comes, no reading
  // stands (Enter waits for it), so a quick tap never enters the previous ball's pins.
  function judge() {
    judging = readDiagram();
    return judging;
  }

  async function readDiagram() {
    const mine = ++asked;
    judged = null;
    const at = current();
    const params = new URLSearchParams({ before: before.join("-") || "none",
                                         standing: standing().join("-") || "none" });
    // Only the first ball at a fresh rack leaves a split: after a first-ball gutter ten pins
    // still stand, but a 7-10 left by the second ball is an open frame, not a split.
    if (at && at.frame) params.set("full_rack", String(Boolean(at.full_rack)));
    try {
      const reading = await T.call("GET", "/commissioner/pins.json?" + params);
      if (mine !== asked) return;
      judged = reading;
      leave.textContent = "Standing: " + judged.leave + " · " + judged.pins + " down";
      splitFlag.dataset.split = String(judged.split);
      splitFlag.textContent = judged.split ? "⚡ SPLIT (" + judged.leave + ")" : "Not a split";
    } catch (problem) {
      if (mine !== asked) return;
      leave.textContent = "✖ " + problem.message;
    }
  }

  // Pins already down before this ball cannot be tapped.
  function resetDeck() {
    pins.forEach(function (pin) {
      const up = before.includes(Number(pin.dataset.pin));
      pin.disabled = !up;
      pin.setAttribute("aria-pressed", "false");
      pin.classList.toggle("down-before", !up);
    });
    judge();
  }

  pins.forEach(function (pin) {
    pin.addEventListener("click", function () {
      pin.setAttribute("aria-pressed", pin.getAttribute("aria-pressed") === "true" ? "false" : "true");
      judge();
    });
  });

  function current() {
    const match = board[matchSelect.value];
    return match ? match.bowlers[bowlerSelect.value] : null;
  }

  function showWhere() {
    const at = current();
    if (!at || !at.frame) {
      before = [];
      where.textContent = at ? bowlerSelect.value + " has no ball to bowl now." : "Choose a match and a bowler.";
    } else {
      before = at.standing;
      where.textContent = bowlerSelect.value + " · lane " + (at.lane || "?") + " · game " + at.game +
        ", frame " + at.frame + ", ball " + at.ball + " · facing " + at.standing.length +
        (at.standing.length === 1 ? " pin" : " pins");
    }
    // A new ball (another bowler, or balls recorded since) starts from a clean diagram; a
    // refresh during the same ball keeps the taps made so far.
    const ball = [matchSelect.value, bowlerSelect.value, at && at.frame, at && at.ball,
                  at && at.game, before.join("-"), entered].join("|");
    if (ball !== shownBall) resetDeck();
    shownBall = ball;
  }

  async function load(keepChoice) {
    const chosenMatch = keepChoice ? matchSelect.value : (matchSelect.dataset.chosen || matchSelect.value);
    const chosenBowler = bowlerSelect.value;
    const reply = await T.call("GET", "/commissioner/board.json");
    board = {};
    reply.matches.forEach(function (m) { board[m.match_id] = m; });
    const playing = reply.matches.filter(function (m) { return m.status === "playing"; });
    matchSelect.replaceChildren(...playing.map(function (m) {
      // The match as the desk names it (its league and lanes, its bowlers), not its id.
      const option = T.el("option", "", m.title + " · " + Object.keys(m.bowlers).join(", "));
      option.value = m.match_id;
      return option;
    }));
    if (board[chosenMatch]) matchSelect.value = chosenMatch;
    fillBowlers(chosenBowler);
  }

  // The bowler who is up is chosen unless another was chosen by hand.
  function fillBowlers(chosen) {
    const match = board[matchSelect.value];
    const names = match ? Object.keys(match.bowlers) : [];
    bowlerSelect.replaceChildren(...names.map(function (name) {
      return T.el("option", "", name + (match.bowlers[name].up ? "" : ""));
    }));
    bowlerSelect.querySelectorAll("option").forEach(function (o, i) { o.value = names[i]; });
    const up = names.find(function (n) { return match.bowlers[n].up; });
    if (chosen && names.includes(chosen)) bowlerSelect.value = chosen;
    else if (up) bowlerSelect.value = up;
    showWhere();
  }

  // After a completed frame the scorer moves on to the next bowler in bowling order: the one
  // furthest behind (game, frame; one mid-frame first), between equals the next seat after
  // the bowler just entered.
  function nextInOrder(match, after) {
    const names = Object.keys(match.bowlers);
    const from = names.indexOf(after);
    const waiting = names.filter(function (n) { return match.bowlers[n].frame; });
    function key(n) {
      const b = match.bowlers[n];
      return [b.game, b.frame, b.ball === 1 ? 1 : 0,
              (names.indexOf(n) - from - 1 + names.length) % names.length];
    }
    waiting.sort(function (a, b) {
      const ka = key(a), kb = key(b);
      for (let i = 0; i < ka.length; i += 1) if (ka[i] !== kb[i]) return ka[i] - kb[i];
      return 0;
    });
    return waiting.length ? waiting[0] : after;
  }

  matchSelect.addEventListener("change", function () { fillBowlers(null); });
  bowlerSelect.addEventListener("change", showWhere);

  async function enter(body, words) {
    if (sending) return;
    const matchId = matchSelect.value, bowler = bowlerSelect.value;
    if (!matchId || !bowler) { T.say("Choose a match and a bowler first.", "refused"); return; }
    body = Object.assign({ bowler: bowler }, body);
    const was = current();
    sending = true;
    entryButtons.setAttribute("aria-busy", "true");
    try {
      const reply = await T.command(matchId, "record-ball", body);
      const item = T.el("li", "entry", bowler + ": " + words);
      item.dataset.match = matchId;
      item.dataset.bowler = bowler;
      item.dataset.seq = reply.seq;
      entries.prepend(item);
      entered += 1;
      T.say("Entered for " + bowler + ": " + words);
      await load(true);
      const now = current();
      const frameDone = matchSelect.value === matchId && bowlerSelect.value === bowler &&
        (!now || !now.frame || !was || now.frame !== was.frame || now.game !== was.game);
      if (frameDone) {
        bowlerSelect.value = nextInOrder(board[matchId], bowler);
        showWhere();
      }
    } catch (problem) {
      T.say("Refused: " + problem.message, "refused");
    } finally {
      sending = false;
      entryButtons.removeAttribute("aria-busy");
    }
  }

  document.getElementById("enter-ball").addEventListener("click", async function () {
    if (sending) return;
    // The reading of the diagram as it is now, even if a tap asked again while we waited.
    for (let waited = null; waited !== judging;) {
      waited = judging;
      await waited;
    }
    if (!judged) { T.say("The pin diagram does not add up yet.", "refused"); return; }
    // The split flag is the server's reading of the pins left (at a full rack only).
    enter({ pins: judged.pins, standing: judged.standing, split: judged.split },
          judged.pins + " down, standing " + judged.leave + (judged.split ? " (SPLIT)" : ""));
  });
  document.getElementById("enter-gutter").addEventListener("click", function () {
    enter({ pins: 0, standing: before, gutter: true }, "gutter ball");
  });
  document.getElementById("enter-foul").addEventListener("click", function () {
    enter({ pins: 0, standing: before, foul: true }, "foul");
  });
  document.getElementById("undo-entry").addEventListener("click", async function () {
    const matchId = matchSelect.value;
    const done = await T.undoLast(matchId, "manual entry corrected on the tablet");
    if (done) {
      const last = entries.querySelector("li.entry[data-match='" + CSS.escape(matchId) +
                                         "']:not(.undone)");
      if (last) last.classList.add("undone");
      await load(true);
      // Back to the bowler whose ball was taken back, to enter it again.
      if (last && board[matchId] && board[matchId].bowlers[last.dataset.bowler]) {
        bowlerSelect.value = last.dataset.bowler;
        showWhere();
      }
    }
  });

  // A correction of a ball already recorded: the ledger re-deals and raises a review item
  // when the cards dealt no longer match the marks.
  const correction = document.getElementById("correct-ball");
  correction.addEventListener("submit", async function (event) {
    event.preventDefault();
    const f = correction.elements;
    const matchId = matchSelect.value, bowler = bowlerSelect.value;
    const body = { bowler: bowler, game: Number(f.game.value), frame: Number(f.frame.value),
                   ball: Number(f.ball.value), pins: Number(f.pins.value), foul: f.foul.checked,
                   reason: f.reason.value.trim() };
    const leave = f.standing.value.trim();
    if (leave) body.standing = (leave.match(/\d+/g) || []).map(Number);
    const what = bowler + "'s game " + body.game + ", frame " + body.frame + ", ball " + body.ball;
    const done = await T.rule("Correct " + what + " to " + body.pins + " down?\nReason: " + body.reason,
                              matchId, "correct-ball", body, "Corrected " + what);
    if (done) { correction.reset(); await load(true); }
  });

  // Another tablet or a feed may record balls meanwhile: keep where the bowler is current.
  setInterval(function () { load(true).catch(function () {}); }, 5000);
  load(false).catch(function (problem) { T.say("Cannot read the lanes: " + problem.message, "refused"); });
})();
