// A match's showdown in words, for the desk that confirms it: who won, with which hand and
// cards, how much each takes, and how the pot splits (odd cents to the house).  Read from
// the public state alone (winners, shares, each bowler's hand and what they paid), so the
// tablet's match card, its confirm question and the settlement page all say the same.
(function () {
  "use strict";
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

  function money(cents) {
    return "$" + Math.floor(cents / 100) + "." + String(cents % 100).padStart(2, "0");
  }

  function cardWords(card) {
    if (card === "GJ") return "good joker";
    if (card === "BJ") return "bad joker";
    const rank = card.slice(0, -1), suit = card.slice(-1);
    return (rank === "T" ? "10" : rank) + (SUITS[suit] || suit);
  }

  function paidIn(state) {
    return state.seat_order.reduce(function (sum, name) {
      return sum + ((state.bowlers[name] || {}).paid_cents || 0);
    }, 0);
  }

  // null while there is no showdown yet; else the winners and the split.
  function summary(state) {
    const names = (state && state.winners) || [];
    if (!names.length) return null;
    const shares = state.shares || {};
    const winners = names.map(function (name) {
      const b = state.bowlers[name] || { hand: [], describe: "" };
      return { name: name, cents: shares[name] || 0, describe: b.describe,
               cards: (b.hand || []).map(cardWords) };
    });
    const potCents = paidIn(state);
    const given = winners.reduce(function (sum, w) { return sum + w.cents; }, 0);
    const split = winners.map(function (w) { return w.name + " " + money(w.cents); });
    if (potCents > given) split.push("house " + money(potCents - given) + " (odd cents)");
    return { winners: winners, potCents: potCents, houseCents: Math.max(0, potCents - given),
             split: "Pot " + money(potCents) + (winners.length > 1 ? " split: " : ": ") +
                    split.join(" · ") };
  }

  // One line per winner: "Ann wins $1.00 with Pair of kings: K♠ K♥".
  function winnerLine(w) {
    return w.name + " wins " + money(w.cents) + " with " + w.describe +
      (w.cards.length ? ": " + w.cards.join(" ") : "");
  }

  // The question the desk answers before the money moves; ``where`` names the lanes.
  function confirmQuestion(state, where) {
    const shown = summary(state);
    const on = where ? " on " + where : "";
    if (!shown) {
      return "Confirm the result" + on + "?\nThere is no showdown yet: the match is " +
        (state ? state.status : "not loaded") + ".";
    }
    return "Confirm this result" + on + " and pay it out?\n" +
      shown.winners.map(winnerLine).join("\n") + "\n" + shown.split;
  }

  // The showdown as a block for a page: a title, one line per winner, the split.
  function node(state, title) {
    const shown = summary(state);
    if (!shown) return null;
    const box = document.createElement("div");
    box.className = "showdown";
    const head = document.createElement("h4");
    head.textContent = title;
    const list = document.createElement("ul");
    shown.winners.forEach(function (w) {
      const item = document.createElement("li");
      item.className = "showdown-winner";
      item.dataset.bowler = w.name;
      const who = document.createElement("strong");
      who.textContent = w.name;
      const amount = document.createElement("span");
      amount.className = "amount";
      amount.textContent = " wins " + money(w.cents);
      item.append(who, amount, " with " + w.describe + (w.cards.length ? ": " + w.cards.join(" ") : ""));
      list.append(item);
    });
    const split = document.createElement("p");
    split.className = "showdown-split";
    split.textContent = shown.split;
    box.append(head, list, split);
    return box;
  }

  window.AlleyResult = { summary: summary, confirmQuestion: confirmQuestion, node: node,
                         winnerLine: winnerLine, money: money, cardWords: cardWords };
})();
