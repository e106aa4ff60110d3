// A bowler's pending decision on the tablet, for the desk to resolve for them: what is
// asked, its deadline counting down, and one button per answer (each with a confirm).
(function () {
  "use strict";
  const T = window.Commissioner;
  const el = T.el, button = T.button;
  const cardWords = window.AlleyResult.cardWords;
  const DECISION_WORDS = { lose_card: "lose a card", steal: "steal a card",
                           end_draw: "end-of-match draw", buy: "buy a card" };

  function countdown(deadline) {
    if (!deadline) return "no deadline";
    const left = Math.max(0, Math.round((Date.parse(deadline) - Date.now()) / 1000));
    return Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + " left";
  }

  function decisionControls(matchId, name, decision) {
    const box = el("div", "decision-row");
    box.dataset.bowler = name;
    box.dataset.kind = decision.kind;
    box.dataset.decision = decision.id;  // two alike decisions never share a drawn row
    const what = DECISION_WORDS[decision.kind] || decision.kind;
    const head = el("span", "decision-what", name + ": " + what +
                    (decision.reason ? " (" + decision.reason + ")" : ""));
    const clock = el("span", "deadline", countdown(decision.deadline));
    clock.dataset.deadline = decision.deadline || "";
    box.append(head, clock);
    const id = decision.id;
    const forWhom = " for " + name + "?";
    function decide(kind, body, question, done) {
      return button(question, function () {
        T.rule(question + forWhom, matchId, kind,
               Object.assign({ bowler: name, decision_id: id }, body), done);
      });
    }
    if (decision.kind === "lose_card") {
      const guess = decision.guess;
      if (guess && !guess.outcome) {
        box.append(el("span", "", "guessed " + guess.side.toUpperCase() + "; the ball came back:"));
        ["left", "right"].forEach(function (side) {
          box.append(decide("guess-outcome", { side: side }, "Ball came back " + side.toUpperCase(),
                            "Ball-return outcome recorded for " + name));
        });
      } else {
        if (decision.guess_allowed && !guess) {
          ["left", "right"].forEach(function (side) {
            box.append(decide("guess", { side: side }, "Guess " + side.toUpperCase(),
                              "Guess recorded for " + name));
          });
        }
        decision.choices.forEach(function (face) {
          box.append(decide("lose-card", { card: face }, "Lose " + cardWords(face),
                            name + " lost " + cardWords(face)));
        });
      }
    } else if (decision.kind === "steal") {
      Object.keys(decision.choices).forEach(function (victim) {
        decision.choices[victim].forEach(function (face) {
          box.append(decide("steal", { from_bowler: victim, card: face },
                            "Take " + cardWords(face) + " from " + victim,
                            name + " took " + cardWords(face)));
        });
      });
    } else if (decision.kind === "end_draw" || decision.kind === "buy") {
      const kind = decision.kind === "buy" ? "buy" : "end-draw";
      const yes = decision.kind === "buy" ? "Buy a card" : "Take the draw";
      box.append(decide(kind, { accept: true }, yes, yes + " — done for " + name),
                 decide(kind, { accept: false }, "Decline", "Declined for " + name));
    }
    return box;
  }

  // The end of a match in one step: decline the end draw (then the buys) for every bowler
  // who has not answered, instead of one Decline per bowler while everyone waits.
  const FOR_EVERYONE = [
    { kind: "end_draw", what: "the end-of-match draw", done: "End draw declined for " },
    { kind: "buy", what: "the buys", done: "Buys declined for " },
  ];

  function declineForEveryone(matchId, state) {
    const box = el("div", "decline-everyone");
    FOR_EVERYONE.forEach(function (offer) {
      const waiting = state.seat_order.filter(function (name) {
        return state.bowlers[name].pending.some(function (d) { return d.kind === offer.kind; });
      });
      if (!waiting.length) return;
      const label = "Decline " + offer.what + " for everyone who has not answered (" +
                    waiting.join(", ") + ")";
      const tap = button(label, function () {
        T.rule(label + "?", matchId, "decline-for-everyone", { kind: offer.kind },
               offer.done + waiting.join(", "));
      }, "decline-for-everyone");
      tap.dataset.kind = offer.kind;
      box.append(tap);
    });
    return box.children.length ? box : null;
  }

  setInterval(function () {
    document.querySelectorAll(".deadline").forEach(function (clock) {
      if (clock.dataset.deadline) clock.textContent = countdown(clock.dataset.deadline);
    });
  }, 1000);

  window.CommissionerDecisions = { row: decisionControls, forEveryone: declineForEveryone };
})();
