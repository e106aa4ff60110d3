// A card thrown away by one tap waits a moment before it goes: "Losing 7♣ — Undo" for a few
// seconds on the bowler's decision, then the answer is sent.  Undo (or tapping the same
// card again) keeps the card.  The wait lives here, apart from the panels: a redraw while it
// runs (another bowler's ball) shows the same bar again, with the time that is left.
(function () {
  "use strict";
  const WINDOW_MS = 3000;
  const held = {};   // key (match, bowler, decision) -> { card, until, timer }

  function cancel(key) {
    const wait = held[key];
    if (!wait) return;
    clearTimeout(wait.timer);
    delete held[key];
  }

  // Hold ``send`` for the window; ``redraw`` shows the bar (and its end).
  function hold(key, card, send, redraw) {
    cancel(key);
    held[key] = { card: card, until: Date.now() + WINDOW_MS, timer: setTimeout(function () {
      delete held[key];
      send();
      redraw();
    }, WINDOW_MS) };
    redraw();
  }

  function waiting(key) { return held[key] || null; }

  // The bar: what is about to go, the seconds left, and the Undo button.
  function bar(key, cardText, redraw) {
    const wait = held[key];
    if (!wait) return null;
    const box = document.createElement("div");
    box.className = "undo-bar";
    box.setAttribute("role", "status");
    // A bar that empties over the time left (CSS), so the wait is seen from the settee.
    box.style.setProperty("--undo-left", Math.max(0, wait.until - Date.now()) + "ms");
    const words = document.createElement("span");
    words.className = "undo-words";
    words.append("Losing ", cardText(wait.card), " — ");
    const undo = document.createElement("button");
    undo.type = "button";
    undo.className = "choice no undo";
    undo.textContent = "Undo";
    undo.addEventListener("click", function () { cancel(key); redraw(); });
    box.append(words, undo);
    return box;
  }

  // The hand's cards made choosable, each tap held for the window; the bar and the card
  // about to go are shown while it runs.  ``o``: key, box (the decision), hand, cardText,
  // makeChoosable, send(card), redraw.
  function offerCards(o) {
    const wait = waiting(o.key);
    if (wait) {
      o.box.append(bar(o.key, o.cardText, o.redraw));
      o.hand.querySelectorAll(".card[data-card='" + CSS.escape(wait.card) + "']")
        .forEach(function (card) { card.classList.add("losing"); });
    }
    o.hand.querySelectorAll(".card").forEach(function (card) {
      const face = card.dataset.card;
      o.makeChoosable(card, "Lose " + card.getAttribute("aria-label"), function () {
        const now = waiting(o.key);
        if (now && now.card === face) { cancel(o.key); o.redraw(); return; }  // keep it
        hold(o.key, face, function () { o.send(face); }, o.redraw);
      });
    });
  }

  // How many answers are waiting to be sent (0 once each was sent or undone).
  function pending() { return Object.keys(held).length; }

  window.AlleyKioskUndo = { hold: hold, cancel: cancel, waiting: waiting, bar: bar,
                            offerCards: offerCards, pending: pending, WINDOW_MS: WINDOW_MS };
})();
