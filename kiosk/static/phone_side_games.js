// The bowler's brackets and pots on their phone: in which brackets they are still alive and
// whom they face next ("you face Bob in game 2"), where they went out ("out in round 2"),
// what they won, their place in each pot.  Read from /api/v1/phone/side-games (this
// bowler's only); read again on each side_changed push (a game of the night finished, the
// desk paid) and on each reconnection.  Hidden on a night without side games for them.
(function () {
  "use strict";
  const S = window.AlleySide, el = S.el;
  const section = document.getElementById("side-games");
  const summary = document.getElementById("side-summary");
  const bracketList = document.getElementById("side-brackets");
  const potList = document.getElementById("side-pots");
  if (!section || !window.AlleyPhone) return;
  const socket = window.AlleyPhone.socket;
  const ROUND = ["", "round 1", "the semi-final", "the final"];

  function bracketLine(b) {
    const item = el("li", b.alive ? "alive" : "out");
    item.dataset.game = b.game;
    item.dataset.bracket = b.bracket;
    const title = el("strong", "", S.bracketName(b.game, b.bracket));
    let text;
    if (b.alive && b.next_game !== null && b.opponent) {
      text = "you face " + b.opponent + " in game " + b.next_game + " (" + ROUND[b.next_round] + ")";
      item.append(title, el("br"), el("span", "side-next", text));
      return item;
    }
    if (b.alive && b.next_game !== null) {
      text = "still alive: " + ROUND[b.next_round] + " in game " + b.next_game +
             ", against the winner of the other match";
    } else if (b.alive && b.finished) {
      text = "you won it" + (b.won_cents ? ": " + S.money(b.won_cents) : "");
    } else if (b.alive) {
      text = "still alive";
    } else {
      text = "out in " + ROUND[b.out_round || 1] + (b.won_cents ? " · won " + S.money(b.won_cents) : "");
    }
    if (b.won_cents) item.classList.add("won");
    item.append(title, el("br"), text);
    return item;
  }

  function potLine(p) {
    const item = el("li", p.won_cents ? "won" : "");
    item.dataset.game = p.game;
    item.append(el("strong", "", S.gameName(p.game, p.kind)), el("br"),
                p.won_cents ? "won " + S.money(p.won_cents)
                            : p.place ? S.ordinal(p.place) + " so far" : "no game in yet");
    return item;
  }

  function show(read) {
    const side = read && read.side_games;
    if (!side || (!side.brackets.length && !side.pots.length)) {
      section.hidden = true;    // nothing of theirs tonight (before the draw: no bracket yet)
      return;
    }
    section.hidden = false;
    const n = side.brackets.length;
    summary.textContent = !side.drawn ? "The brackets are drawn before the first ball." :
      n ? "Alive in " + side.alive_in + " of your " + n + " bracket" + (n === 1 ? "" : "s") : "";
    bracketList.replaceChildren.apply(bracketList, side.brackets.map(bracketLine));
    bracketList.hidden = !n;
    potList.replaceChildren.apply(potList, side.pots.map(potLine));
    potList.hidden = !side.pots.length;
  }

  let timer = null;
  function read(delay) {
    if (timer) return;
    timer = setTimeout(function () {
      timer = null;
      fetch("/api/v1/phone/side-games", { headers: { Accept: "application/json" },
                                          credentials: "same-origin" })
        .then(function (reply) { return reply.ok ? reply.json() : null; })
        .then(show)
        .catch(function () { /* the next push or reconnection asks again */ });
    }, delay);
  }
  socket.on("connect", function () { read(0); });
  socket.on("side_changed", function () { read(100); });
  read(0);
})();
