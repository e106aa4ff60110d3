// A match card's powers on the tablet: each one tap plus a confirm, with a reason for the
// audit log shared by them (Holland-daze, confirm result, void guess, undo last action,
// undo result, remove bowler, bowler not here, settle as the hands stand, void), and
// moving bowlers to other lane slots.  The dashboard (commissioner_dashboard.js) builds them
// with ``controls(matchId, card, lanesBoard)``, where ``lanesBoard`` says what it knows of the
// match: ``board(matchId)``, ``state(matchId)`` and
// ``refreshBoard()``.
(function () {
  "use strict";
  const T = window.Commissioner;
  const el = T.el, button = T.button;

  function reasonOf(card) {
    return card.controls.querySelector("input[name=reason]").value.trim();
  }

  function needsReason(card) {
    const reason = reasonOf(card);
    if (!reason) {
      T.say("Give a reason first: it goes into the audit log.", "refused");
      card.controls.querySelector("input[name=reason]").focus();
    }
    return reason;
  }

  function bowlerOf(card) {
    return card.controls.querySelector("select[name=bowler]").value;
  }

  // The powers, each one tap plus a confirm; the reason field is shared by them.  The
  // destructive ones (they take something back or away) sit apart, styled as danger, and
  // their confirm says what will be lost, so a slip of the finger is caught by the words.
  const POWERS = [
    ["holland-daze", "Holland-daze", true, "Rule a Holland-daze for "],
    ["confirm-result", "Confirm result", false, "Confirm the result of match "],
  ];
  const DANGER_POWERS = [
    ["void-guess", "Void guess", true, "Void the ball-return guess of ",
     "The guess is cancelled and cannot be made again: the bowler must choose a card to lose."],
    ["undo-last", "Undo last action", false, "", ""],
    ["undo-result", "Undo result", false, "Undo the result of match ",
     "The winners' payouts are taken back into the pot and the match goes back to its end."],
    ["remove-bowler", "Remove bowler", true, "Remove ",
     "Their cards go back to the pile and everything they paid is refunded."],
    // At any time: a no-show, or someone who went home.
    ["bowler-gone", "Bowler not here", true, "Mark as not here: ",
     "If they have not bowled yet, they leave the match and their ante is refunded. " +
     "If they have bowled, they bowl no more: they keep their hand to the showdown or fold " +
     "it, as the league's house rules say. This cannot be undone."],
    ["settle-as-hands-stand", "Settle now as the hands stand", false,
     "Settle now, as the hands stand: match ",
     "The match ends now: no more balls, every open choice is closed, no end draw and no " +
     "buys. The best hand as it stands takes the pot."],
    ["void", "Void match", false, "VOID match ",
     "The match is cancelled for good: every cent paid is refunded and nobody wins."],
  ];

  function powerButton(matchId, card, power, className, lanesBoard) {
    const [kind, title, forBowler, question, consequence] = power;
    const tap = button(title, async function () {
      const why = needsReason(card);
      if (!why) return;
      const bowler = forBowler ? bowlerOf(card) : null;
      const body = forBowler ? { bowler: bowler, reason: why } : { reason: why };
      const whom = forBowler ? bowler : matchId;
      // Confirming a result names the winners, their hands, each amount and the split.
      const lanes = ((lanesBoard.board(matchId) || {}).lanes || []).join("-");
      const asked = kind === "confirm-result"
        ? window.AlleyResult.confirmQuestion(lanesBoard.state(matchId), lanes && "lanes " + lanes)
        : question + whom + "?";
      const done = kind === "undo-last" ? await T.undoLast(matchId, why)
        : await T.rule(asked + "\n" + (consequence ? consequence + "\n" : "") +
                       "Reason: " + why, matchId, kind, body,
                       title + (forBowler ? " for " + bowler : "") + " — done");
      // A reason belongs to one ruling: the next one needs its own.
      // (The card's powers may have changed meanwhile: a settled match taken back.)
      const reasonField = card.controls.querySelector("input[name=reason]");
      if (done && reasonField) reasonField.value = "";
    }, className);
    tap.dataset.power = kind;
    return tap;
  }

  function buildControls(matchId, card, lanesBoard) {
    const controls = el("div", "powers");
    const bowlerLabel = el("label", "", "Bowler ");
    bowlerLabel.append(el("select"));
    bowlerLabel.lastChild.name = "bowler";
    const reasonLabel = el("label", "", "Reason ");
    const reason = el("input");
    reason.name = "reason"; reason.maxLength = 500; reason.placeholder = "why (for the audit log)";
    reasonLabel.append(reason);
    controls.append(bowlerLabel, reasonLabel);
    const buttons = el("div", "power-buttons");
    POWERS.forEach(function (power) {
      buttons.append(powerButton(matchId, card, power, "power", lanesBoard));
    });
    const danger = el("div", "power-buttons danger-zone");
    danger.append(el("span", "danger-label", "⚠ Takes back or removes:"));
    DANGER_POWERS.forEach(function (power) {
      danger.append(powerButton(matchId, card, power, "power danger", lanesBoard));
    });
    controls.append(buttons, danger);
    controls.append(buildReassign(matchId, card, lanesBoard));
    return controls;
  }

  function buildReassign(matchId, card, lanesBoard) {
    const box = el("details", "reassign");
    box.append(el("summary", "", "Move bowlers to other lane slots"));
    const rows = el("div", "reassign-rows");
    box.append(rows);
    box.addEventListener("toggle", function () {
      if (!box.open) return;
      rows.replaceChildren();
      // Every bowler of the match, those without a slot yet (just added) too.
      const slots = ((lanesBoard.board(matchId) || {}).slots || []).slice();
      ((lanesBoard.state(matchId) || {}).seat_order || []).forEach(function (name) {
        if (!slots.some(function (s) { return s.bowler === name; })) {
          slots.push({ bowler: name, lane: "", slot: "" });
        }
      });
      slots.forEach(function (slot) {
        const row = el("div", "reassign-row");
        row.dataset.bowler = slot.bowler;
        row.append(el("span", "", slot.bowler));
        ["lane", "slot"].forEach(function (key) {
          const label = el("label", "", key === "lane" ? " lane " : " slot ");
          const input = el("input");
          input.type = "number"; input.min = 1; input.name = key; input.value = slot[key];
          label.append(input);
          row.append(label);
        });
        rows.append(row);
      });
      rows.append(button("Move bowlers", async function () {
        const why = needsReason(card);
        if (!why) return;
        const slots = Array.from(rows.querySelectorAll(".reassign-row"), function (row) {
          return { bowler: row.dataset.bowler,
                   lane: Number(row.querySelector("[name=lane]").value),
                   slot: Number(row.querySelector("[name=slot]").value) };
        });
        if (!window.confirm("Move the bowlers of this match?\nReason: " + why)) return;
        try {
          await T.call("PUT", "/api/v1/matches/" + encodeURIComponent(matchId) + "/lanes",
                       { slots: slots, reason: why });
          T.say("Bowlers moved: " + slots.map(function (s) {
            return s.bowler + " to lane " + s.lane; }).join(", "));
          lanesBoard.refreshBoard();
        } catch (problem) { T.say("Refused: " + problem.message, "refused"); }
      }, "primary"));
    });
    return box;
  }

  // A settled match keeps no buttons on its card: taking it back is a deliberate step —
  // open this, give a reason, confirm.  Its result undone, it is back among the live
  // matches at its end, where it can be confirmed again or voided with refunds (the ledger
  // voids no settled match).
  const SETTLED_POWERS = DANGER_POWERS.filter(function (power) {
    return power[0] === "undo-result";
  });

  function settledControls(matchId, card, lanesBoard) {
    const box = el("details", "settled-actions");
    box.append(el("summary", "", "Take back this settled match…"));
    box.append(el("p", "hint", "Only to put right a match settled by mistake: undo its " +
                  "result, and the payouts go back into the pot; the match returns to the " +
                  "live matches at its end, to be confirmed again or voided with refunds."));
    const reasonLabel = el("label", "", "Reason ");
    const reason = el("input");
    reason.name = "reason"; reason.maxLength = 500; reason.placeholder = "why (for the audit log)";
    reasonLabel.append(reason);
    const danger = el("div", "power-buttons danger-zone");
    SETTLED_POWERS.forEach(function (power) {
      danger.append(powerButton(matchId, card, power, "power danger", lanesBoard));
    });
    box.append(reasonLabel, danger);
    return box;
  }

  window.CommissionerPowers = { controls: buildControls, settledControls: settledControls,
                          needsReason: needsReason };
})();
