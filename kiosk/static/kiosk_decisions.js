// A bowler's pending decision on their kiosk panel, and the answer sent as that bowler.
// The kiosk (kiosk.js) makes one with ``create({emit, redraw, panels})``: ``emit(payload,
// reply)`` sends a "decide" over its socket, ``redraw()`` redraws the panels, ``panels`` is
// the element they are drawn in (a steal is taken by tapping a card on another panel).
(function () {
  "use strict";
  const el = window.AlleyCards.el, money = window.AlleyCards.money;
  const cardText = window.AlleyCards.cardText, countdown = window.AlleyCards.countdown;
  const banners = window.AlleyKioskBanners;

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

  function create(options) {
    const panels = options.panels;

    // A bowler's answer, over the socket as that bowler; the ledger accepts it only while
    // the decision is theirs and open.  A refusal is announced; success re-renders the panel.
    function decide(matchId, bowler, kind, decisionId, answer) {
      options.emit(Object.assign({
        match_id: matchId, kind: kind, bowler: bowler, decision_id: decisionId,
      }, answer), function (reply) {
        if (reply && reply.error) banners.show("NOT TAKEN", "refused", reply.error.message);
        else if (reply && reply.awaiting) banners.show("ASK THE DESK", "waiting", reply.message);
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
          // The bowler enters where the ball came back (docs/rules.md); right keeps the cards.
          prompt.textContent = "GUESSED " + guess.side.toUpperCase() +
            " — watch the ball return: which side did it come back on?";
          ["left", "right"].forEach(function (side) {
            buttons.append(choiceButton((side === "left" ? "◀ " : "") + "CAME BACK " +
                                        side.toUpperCase() + (side === "right" ? " ▶" : ""),
                                        "came-" + side,
                                        function () { answer("guess-outcome", { side: side }); }));
          });
        } else {
          prompt.textContent = "GUTTER — tap a card to lose it";
          // One tap waits a moment, with an Undo, before the card goes (kiosk_undo.js).
          window.AlleyKioskUndo.offerCards({
            key: matchId + "\u0000" + bowler + "\u0000" + decision.id, box: box, hand: hand,
            cardText: cardText, makeChoosable: makeChoosable, redraw: options.redraw,
            send: function (card) { answer("lose-card", { card: card }); } });
          box.dataset.choosing = "yes";  // the panel makes room for the cards (shared_base.css)
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

    return { box: decisionBox, offerSteals: offerSteals };
  }

  window.AlleyKioskDecisions = { create: create };
})();
