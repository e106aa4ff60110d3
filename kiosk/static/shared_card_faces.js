// Cards as every screen draws them (the kiosk, the bowler's phone): a face for the eye with
// the card's name for assistive technology, a card in words (4♥, red suits in red), money.
(function () {
  "use strict";
  const SUITS = { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] };
  const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
  const RANK_WORDS = { A: "Ace", K: "King", Q: "Queen", J: "Jack", T: "Ten" };

  function money(cents) {
    return "$" + Math.floor(cents / 100) + "." + String(cents % 100).padStart(2, "0");
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardFace(text) {
    const card = el("div", "card");
    card.dataset.card = text;
    if (text === "GJ" || text === "BJ") {
      const good = text === "GJ";
      card.classList.add("joker", good ? "good" : "bad");
      card.setAttribute("role", "img");
      card.setAttribute("aria-label", good ? "Good joker" : "Bad joker");
      const face = [el("span", "joker-mark"), el("span", "joker-word")];
      face[0].dataset.face = good ? "★" : "☠";
      face[1].dataset.face = good ? "GOOD JOKER" : "BAD JOKER";
      face.forEach(function (part) { part.setAttribute("aria-hidden", "true"); });
      card.append.apply(card, face);
      return card;
    }
    const rank = text.slice(0, -1), suit = text.slice(-1);
    const [symbol, suitName] = SUITS[suit] || ["?", "?"];
    const shown = RANKS[rank] || rank;
    card.classList.add("suit-" + suit);
    card.setAttribute("role", "img");
    card.setAttribute("aria-label", (RANK_WORDS[rank] || shown) + " of " + suitName);
    // The face is drawn for the eye (CSS content from data-face); assistive technology reads
    // the card's name, which for a card to tap begins with what to do ("Lose Ten of …").
    const face = [el("span", "corner top"), el("span", "pip"), el("span", "corner bottom")];
    face[0].dataset.face = face[2].dataset.face = shown + symbol;
    face[1].dataset.face = symbol;
    face.forEach(function (part) { part.setAttribute("aria-hidden", "true"); });
    card.append.apply(card, face);
    return card;
  }

  // A card as a person reads it, with its suit's symbol (4♥), red suits in red.
  function cardText(text) {
    const span = el("span", "card-text");
    if (text === "GJ" || text === "BJ") {
      span.textContent = text === "GJ" ? "good joker" : "bad joker";
      return span;
    }
    const rank = text.slice(0, -1), suit = text.slice(-1);
    span.textContent = (RANKS[rank] || rank) + ((SUITS[suit] || [suit])[0]);
    span.classList.add("suit-" + suit);
    return span;
  }

  // A card's name as a person says it: "Ten of hearts", "Good joker".
  function cardName(text) {
    if (text === "GJ") return "Good joker";
    if (text === "BJ") return "Bad joker";
    const rank = text.slice(0, -1), suit = text.slice(-1);
    return (RANK_WORDS[rank] || RANKS[rank] || rank) + " of " + (SUITS[suit] || ["?", "?"])[1];
  }

  // Time left to a deadline, m:ss (the screens tick it every second).
  function countdown(deadline) {
    if (!deadline) return "";
    const left = Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000));
    return Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
  }
  // A running total as a bowler reads it, from a lane screen's read of the bowler: the
  // pins counted so far, with "+" while a strike or spare still waits for its bonus balls
  // (X X is "Total 30+": at least 30, not 0).  "" when there is no score to show.
  function totalWords(seat) {
    if (!seat || typeof seat.score !== "number") return "";
    const least = typeof seat.score_at_least === "number" ? seat.score_at_least : seat.score;
    return "Total " + least + (least > seat.score ? "+" : "");
  }
  // A bowler's balls waiting on the desk's held-ball list (the screen read's ``held``).
  function heldWords(count) {
    return count === 1 ? "1 ball held for the desk" : count + " balls held for the desk";
  }
  // A bowler the desk marked not here (the public view's ``gone``; "removed" for one who
  // had not bowled and left the match refunded): they bowl no more, so never "up".
  function goneWords(gone) {
    if (gone === "removed") return "Not here — ante refunded";
    return gone === "folds" ? "Left — hand folded" : "Left — keeps the hand to the showdown";
  }
  window.AlleyCards = { el: el, money: money, cardFace: cardFace, cardText: cardText,
                        cardName: cardName, countdown: countdown, totalWords: totalWords,
                        heldWords: heldWords, goneWords: goneWords };
})();
