// The kiosk's "still alive" list: between games, who on these lanes is still alive in which
// brackets (from the public /api/v1/lanes/<pair>/side-games: seat names, no money).  During
// a game it is hidden, out of the way of the hands: it shows only while nobody on the lanes
// has a ball in the game they are on (before the first ball, between games, after the
// match).  Read again on each side_changed push (a game finished) and on reconnection.
(function () {
  "use strict";
  const S = window.AlleySide, el = S.el;
  const box = document.getElementById("still-alive");
  const list = document.getElementById("still-alive-list");
  const kiosk = window.AlleyKiosk;
  if (!box || !kiosk) return;
  const lanePair = document.getElementById("panels").dataset.lanePair;
  let alive = [];          // the last read: [{name, brackets: [{game, bracket}]}]

  // Nobody mid-game: every bowler still bowling is at frame 1 of a game with no ball in it.
  function betweenGames() {
    const state = kiosk.shown();
    if (!state || state.status !== "playing") return true;
    return state.seat_order.every(function (name) {
      const b = state.bowlers[name];
      return !b || b.gone || !b.game || (b.frame === 1 && !b.scoresheet);
    });
  }

  function show() {
    box.hidden = !alive.length || !betweenGames();
    if (box.hidden) return;
    list.replaceChildren.apply(list, alive.map(function (row) {
      const item = el("li");
      item.dataset.name = row.name;
      item.append(el("strong", "", row.name), ": " + row.brackets.map(function (b) {
        return S.bracketName(b.game, b.bracket);
      }).join(", "));
      return item;
    }));
  }

  let timer = null;
  function read(delay) {
    if (timer) return;
    timer = setTimeout(function () {
      timer = null;
      fetch("/api/v1/lanes/" + encodeURIComponent(lanePair) + "/side-games",
            { headers: { Accept: "application/json" } })
        .then(function (reply) { return reply.ok ? reply.json() : null; })
        .then(function (read) {
          if (!read) return;
          alive = read.drawn ? read.alive : [];
          show();
        })
        .catch(function () { /* the next push or reconnection asks again */ });
    }, delay);
  }
  const socket = kiosk.socket;
  socket.on("connect", function () { read(0); });
  socket.on("side_changed", function () { read(100); });
  // A ball starts or ends a game: the list goes or comes (kiosk.js has taken the change).
  ["state", "match_update"].forEach(function (kind) {
    socket.on(kind, function () { setTimeout(show, 0); });
  });
  read(0);
})();
