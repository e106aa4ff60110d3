// The desk's whole tree of every bracket: three rounds side by side, each match with its two
// bowlers, their counted scores on the round's game, the winner and how (score, bye, the
// next game's score, a roll-off); a tie the rule sends to a roll-off has the desk record its
// winner; a finished bracket is paid with one tap.  Drawn by commissioner_side_games.js.
(function () {
  "use strict";
  const S = window.AlleySide, el = S.el;
  const ROUNDS = ["Round 1", "Semi-final", "Final"];

  function side(match, index, nameOf) {
    const bowler = match.sides[index];
    const row = el("li", "side-bowler");
    if (bowler === null) {
      row.append(el("span", "side-name", match.round === 1 ? "bye" : "to come"));
      row.classList.add("empty");
      return row;
    }
    row.dataset.bowler = bowler;
    const score = match.scores ? match.scores[index] : null;
    row.append(el("span", "side-name", match.names[index] || nameOf(bowler)),
               el("span", "side-score", score === null ? "" : score < 0 ? "absent" : String(score)));
    if (match.winner === bowler) {
      row.classList.add("winner");
      row.append(el("span", "side-won", "✔ wins"));
    } else if (match.winner !== null) {
      row.classList.add("out");
    }
    return row;
  }

  function statusText(match) {
    if (match.status === "decided") return match.how ? "by " + match.how : "decided";
    if (match.status === "roll_off") return "tied: roll-off to record";
    if (match.status === "earlier") return "waits for the round before";
    return "waits for game " + match.game;
  }

  function rollOff(game, bracket, match, act, nameOf) {
    const box = el("div", "side-roll-off");
    const label = el("label", "", "Roll-off winner ");
    const pick = el("select");
    match.sides.forEach(function (bowler, i) {
      if (bowler === null) return;
      const option = el("option", "", match.names[i] || nameOf(bowler));
      option.value = bowler;
      pick.append(option);
    });
    label.append(pick);
    const record = el("button", "", "Record the roll-off");
    record.type = "button";
    record.addEventListener("click", function () {
      act("POST", "/roll-offs", { game: game.game, bracket: bracket.bracket, round: match.round,
                                  match: match.match, winner: Number(pick.value) },
          "Roll-off recorded: " + pick.selectedOptions[0].textContent + " goes on");
    });
    box.append(label, record);
    return box;
  }

  function tree(game, bracket, act, nameOf) {
    const card = el("article", "side-tree");
    card.dataset.game = game.game;
    card.dataset.bracket = bracket.bracket;
    const title = el("h5", "", S.bracketName(game.game, bracket.bracket) +
                     (bracket.size === 7 ? " (seven and a bye)" : "") +
                     (bracket.paid ? " · paid" : bracket.finished ? " · finished" : ""));
    card.append(title);
    const rounds = el("div", "side-rounds");
    [1, 2, 3].forEach(function (number) {
      const column = el("section", "side-round");
      column.setAttribute("aria-label", ROUNDS[number - 1] + " of bracket " + bracket.bracket);
      const matches = bracket.matches.filter(function (m) { return m.round === number; });
      column.append(el("h6", "", ROUNDS[number - 1] + (matches.length ? " · game " + matches[0].game : "")));
      matches.forEach(function (match) {
        const box = el("div", "side-match " + match.status);
        box.dataset.round = match.round;
        box.dataset.match = match.match;
        box.dataset.sides = match.sides.map(function (s) { return s === null ? "" : s; }).join(",");
        const pair = el("ul", "side-pair");
        pair.append(side(match, 0, nameOf), side(match, 1, nameOf));
        box.append(pair, el("p", "side-how", statusText(match)));
        if (match.status === "roll_off") box.append(rollOff(game, bracket, match, act, nameOf));
        column.append(box);
      });
      rounds.append(column);
    });
    card.append(rounds);
    if (bracket.payouts.length) {
      card.append(el("p", "side-payouts", (bracket.paid ? "Paid: " : "Pays: ") +
        bracket.payouts.slice().sort(function (a, b) { return b.cents - a.cents; }).map(function (p) { return p.name + " " + S.money(p.cents); }).join(", ")));
    }
    if (bracket.finished && !bracket.paid) {
      const pay = el("button", "primary", "Pay bracket " + bracket.bracket);
      pay.type = "button";
      pay.addEventListener("click", function () {
        act("POST", "/payments", { game: game.game, bracket: bracket.bracket },
            "Paid " + game.game + " bracket " + bracket.bracket);
      });
      card.append(pay);
    }
    return card;
  }

  function draw(box, view, act, nameOf) {
    const games = view.games.filter(function (g) { return g.brackets && g.brackets.length; });
    if (!games.length) {
      box.replaceChildren(el("p", "muted", view.draw.sealed ? "The draw made no bracket (every entry refunded)."
                                                         : "No brackets drawn yet."));
      return;
    }
    box.replaceChildren.apply(box, games.map(function (game) {
      const group = el("section", "side-bracket-game");
      group.dataset.game = game.game;
      group.append(el("h4", "", S.gameName(game.game, "bracket") + " · " + game.brackets.length +
                      " bracket" + (game.brackets.length === 1 ? "" : "s") + " · games " +
                      game.settings.games.join(", ") + " · " + game.settings.scoring));
      game.brackets.forEach(function (bracket) { group.append(tree(game, bracket, act, nameOf)); });
      return group;
    }));
  }

  window.AlleySideTrees = { draw: draw };
})();
