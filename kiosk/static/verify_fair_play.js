// What the browser's verifier (verify_fair.js) can check of the play without the game's rules:
// each bowler's balls follow one another (frame by frame, ball by ball) and add up (the pins
// knocked down are the pins that were standing less those left), the cards and holes a ball
// brings are that ball's bowler's (`for_ball` names it), a hole is paid off only by a bowler
// in one, a decision is answered and closed for the bowler it was opened for, and the lowest
// series is the lowest.  Which ball earns how many cards, who wins: those are the rules, which
// `alley-poker verify` re-runs.
(function (root) {
  "use strict";

  function install(Walk, h) {
    const fail = h.fail;

    function games(walk, seq, who, game) {
      const list = walk.s.balls[who];
      if (!list || !Number.isSafeInteger(game) || game < 1 || game > list.length) {
        fail(seq, "game " + JSON.stringify(game) + " is not a game of " + who + "'s");
      }
      return list[game - 1];
    }

    // One ball after another: (frame, ball) follows the bowler's previous ball of the game;
    // the pins are at most those standing (all ten on a frame's first ball and after a
    // strike or spare in the tenth), all of them exactly when the ball is marked a strike (a
    // full rack) or a spare, none on a gutter ball, and the pins still standing (when the
    // scorer says which) are the rest.  Returns the ball as kept: with the pins it faced.
    // A gutter ball, as the house's `gutter_detection` says (`by`): the scorer's flag, a full
    // rack knocked down not at all, or the flag where the scorer sent one and else the full
    // rack; a foul never is.  It costs the bowler a card, so a log that hides one is refused.
    function gutterBall(by, ball, fullRack) {
      if (ball.foul) return false;
      const inferred = fullRack && ball.pins === 0;
      if (by === "flag_only") return !!ball.gutter;
      if (by === "full_rack") return inferred;
      return ball.gutter !== null && ball.gutter !== undefined ? !!ball.gutter : inferred;
    }

    function follows(seq, who, before, ball, by) {
      const f = ball.frame, b = ball.ball, where = who + "'s ball in frame " + f + ", ball " + b;
      const next = before ? (f === before.frame && b === before.ball + 1) ||
        (f === before.frame + 1 && b === 1) : (f === 1 && b === 1);
      if (!Number.isSafeInteger(f) || f > 10 || !next) {
        fail(seq, where + " does not follow their " +
             (before ? "frame " + before.frame + ", ball " + before.ball : "first frame"));
      }
      const left = before && f === before.frame ? before.up - before.pins : 0;
      const fresh = left <= 0, up = fresh ? 10 : left;
      const all = ball.pins === up;
      if (!Number.isSafeInteger(ball.pins) || ball.pins < 0 || ball.pins > up ||
          (!ball.foul && ((ball.mark === "strike") !== (all && fresh) ||
                          (ball.mark === "spare") !== (all && !fresh))) ||
          (ball.gutter_ball && ball.pins !== 0) ||
          (Array.isArray(ball.standing) && !ball.foul && ball.standing.length !== up - ball.pins)) {
        fail(seq, where + " is recorded as " + ball.pins + " pins" + (ball.mark ? " (" + ball.mark + ")" : "") +
             " with " + up + " standing before it");
      }
      if (!!ball.gutter_ball !== gutterBall(by, ball, fresh)) {
        fail(seq, where + (ball.gutter_ball ? " is recorded as a gutter ball, which the house's rule (" + by +
             ") does not make it" : " is a gutter ball by the house's rule (" + by + "), but is recorded as none"));
      }
      return { frame: f, ball: b, pins: ball.pins, up: up, reading: reading(ball) };
    }

    // What the scorer read of a ball (a correction changes it for exactly one ball).
    function reading(ball) {
      return JSON.stringify([ball.pins, ball.standing, ball.foul, ball.gutter, ball.split]);
    }

    Walk.prototype.ball_recorded = function (e, d, seq) {
      const who = this.seated(seq, d.bowler), list = games(this, seq, who, d.game);
      // The streak a ball starts from is the one the bowler's last ball left (a new game
      // starts afresh unless the house lets streaks span games).
      const last = this.s.streak[who] === undefined ? null : this.s.streak[who];
      const fresh = !list.length && d.game > 1 && !this.spans;
      if (JSON.stringify(d.streak_before) !== JSON.stringify(last) && !(fresh && d.streak_before === null)) {
        fail(seq, who + "'s ball starts from a streak of " + JSON.stringify(d.streak_before) +
             ", but their last ball left " + JSON.stringify(last));
      }
      this.s.streak[who] = d.streak_after;
      list.push(follows(seq, who, list[list.length - 1], d, this.gutterBy));
      this.ballNow = { bowler: who, game: d.game, index: list.length - 1 };
    };

    Walk.prototype.ball_corrected = function (e, d, seq) {
      const who = this.seated(seq, d.bowler), list = games(this, seq, who, d.game);
      if (!Array.isArray(d.balls) || !d.balls.length || d.balls.length !== list.length) {
        fail(seq, "the correction does not keep " + who + "'s " + list.length + " balls of game " + d.game);
      }
      const kept = [], by = this.gutterBy;
      d.balls.forEach(function (ball, i) { kept.push(follows(seq, who, i ? kept[i - 1] : null, ball, by)); });
      const changed = kept.filter(function (ball, i) { return ball.reading !== list[i].reading; });
      // (None when the scorer re-sent the reading it corrects to: the rules take it unchanged.)
      if (changed.length > 1) {
        fail(seq, "a correction changes at most one ball's reading, but this one changes " + changed.length +
             " of " + who + "'s balls in game " + d.game);
      }
      this.s.balls[who][d.game - 1] = kept;
      if (d.streak_after !== "unchanged") this.s.streak[who] = d.streak_after;
      this.corrected = { bowler: who, game: d.game, action: d.action };
    };

    // An event a ball caused (`for_ball` = [game, index of the bowler's ball in it]): that ball
    // exists, and in the action that recorded it, it is that ball and that bowler.
    Walk.prototype.causedBy = function (seq, d) {
      const now = this.ballNow, named = d.for_ball !== null && d.for_ball !== undefined;
      if (now && d.bowler !== now.bowler && (named || CAUSED.indexOf(this.kind) >= 0)) {
        fail(seq, "the ball just recorded is " + now.bowler + "'s, but this names " + d.bowler);
      }
      if (!named) return;
      const fb = d.for_ball;
      if (!Array.isArray(fb) || fb.length !== 2 || !Number.isSafeInteger(fb[1]) ||
          games(this, seq, this.seated(seq, d.bowler), fb[0]).length <= fb[1] ||
          (now && (fb[0] !== now.game || fb[1] !== now.index))) {
        fail(seq, "it names " + d.bowler + "'s ball " + JSON.stringify(fb) + ", which is not the ball that caused it");
      }
    };
    // Events of a ball's own action that belong to that ball's bowler even without `for_ball`.
    const CAUSED = ["hole_deepened", "card_returned", "lose_card", "steal"];

    // A correction raises its review items on the corrected bowler's game.
    // A bowler the desk marked not here: removed (bowler_removed follows with the refund), or
    // gone after bowling, keeping or folding the hand (the card_returned events say which cards).
    Walk.prototype.bowler_gone = function (e, d, seq) {
      const b = this.seated(seq, d.bowler);
      if (this.s.gone.indexOf(b) >= 0) fail(seq, b + " is marked gone twice");
      if (["removed", "keeps_hand", "folds"].indexOf(d.outcome) < 0) {
        fail(seq, b + " is marked gone with no outcome the rules know (" + JSON.stringify(d.outcome) + ")");
      }
      if (d.outcome !== "removed") this.s.gone.push(b);
    };
    Walk.prototype.review_raised = function (e, d, seq) {
      const c = this.corrected;
      if (c && c.action === d.action && (d.bowler !== c.bowler || d.game !== c.game)) {
        fail(seq, "the review is raised on " + d.bowler + "'s game " + d.game + ", but the correction was to " +
             c.bowler + "'s game " + c.game);
      }
    };

    // A hole is a card owed: paid off only by a bowler who owes one.
    Walk.prototype.hole_deepened = function (e, d, seq) {
      this.kind = "hole_deepened"; this.causedBy(seq, d);
      const who = this.seated(seq, d.bowler);
      this.s.holes[who] = (this.s.holes[who] || 0) + 1;
    };
    Walk.prototype.hole_paid_off = function (e, d, seq) {
      this.kind = null; this.causedBy(seq, d);
      const who = this.seated(seq, d.bowler);
      if (!(this.s.holes[who] > 0)) fail(seq, who + " is recorded paying off a hole, but is not in the hole");
      this.s.holes[who] -= 1;
    };
    // The card a decision moved is the card it closes on: a lost card is the one returned, a
    // stolen card the one taken.  Named where `alley-poker verify` names it: at the card's own
    // event when the rules chose it (the decision expired: `movedByRules`, looking ahead to
    // the close), else at the close (the card the bowler moved is their choice, and the close
    // must record it: `closesOnMoved`, looking back), so the events between come first.
    function moved(x) {
      const d = x.data;
      if (x.type === "card_returned" && d.why === "lose_card") return { bowler: d.bowler, card: d.card };
      if (x.type === "card_taken" && d.via === "steal") return { bowler: d.bowler, card: d.card, from: d.from_bowler };
      return null;
    }
    // A choice names a joker as the bowler saw it, by its power then (GJ, BJ).
    function agree(choice, m, powers) {
      const shown = powers[m.card] === undefined ? m.card : powers[m.card] === "good" ? "GJ" : "BJ";
      const same = function (card) { return card === m.card || card === shown; };
      return m.from === undefined ? same(choice)
        : h.isObject(choice) && same(choice.card) && choice.from === m.from;
    }
    function disagreement(choice, m) {
      return "the decision closes on " + JSON.stringify(choice) + ", but " + m.bowler +
        (m.from === undefined ? " returned " + m.card : " took " + m.card + " from " + m.from);
    }
    function closing(x) {
      return x.type === "decision_closed" && ["chosen", "expired"].indexOf(x.data.outcome) >= 0;
    }
    Walk.prototype.movedByRules = function (e, seq) {
      const m = moved(e), events = this.exp.events;
      if (!m || e.data.command !== "ExpireDecision") return;
      for (let i = seq; i < events.length && events[i].data.action === e.data.action; i++) {
        const x = events[i];
        if (closing(x) && x.data.bowler === m.bowler) {
          if (!agree(x.data.choice, m, this.s.powers)) fail(seq, disagreement(x.data.choice, m));
          return;
        }
      }
    };
    Walk.prototype.closesOnMoved = function (e, d, seq) {
      if (!closing(e) || d.command === "ExpireDecision") return;
      const events = this.exp.events;
      for (let i = seq - 2; i >= 0 && events[i].data.action === d.action; i--) {
        const m = moved(events[i]);
        if (m && m.bowler === d.bowler) {
          if (!agree(d.choice, m, this.s.powers)) fail(seq, disagreement(d.choice, m));
          return;
        }
      }
    };
    // A gutter ball takes the good joker, else the bad one; a bowler holding neither chooses
    // (a lose-card decision, whose card is returned as "lose_card").
    Walk.prototype.jokerFirst = function (seq, d, hand) {
      const powers = this.s.powers;
      const joker = ["good", "bad"].map(function (power) {
        return hand.filter(function (card) { return powers[card] === power; })[0];
      }).filter(Boolean)[0];
      if (d.card !== joker) {
        fail(seq, d.bowler + " is recorded losing " + d.card + " to a gutter ball, but the rules take " +
             (joker ? "the " + powers[joker] + " joker, " + joker : "no card without their choice"));
      }
    };
    Walk.prototype.holland_daze = function (e, d, seq) {
      const hand = this.s.hands[this.seated(seq, d.bowler)];
      if (hand.length) fail(seq, d.bowler + " is Holland-dazed still holding " + hand.join(" "));
      this.s.streak[d.bowler] = null;
      this.s.holes[d.bowler] = 0;  // a Holland-daze fills the hole
    };
    Walk.prototype.draw_skipped = function (e, d, seq) { this.kind = null; this.causedBy(seq, d); };

    Walk.prototype.decision_opened = function (e, d, seq) {
      const who = this.seated(seq, d.bowler);
      if (typeof d.id !== "string" || this.s.decisions[d.id] !== undefined) fail(seq, "decision " + d.id + " is opened twice");
      this.kind = d.kind; this.causedBy(seq, d);
      if (d.kind === "end_draw" && this.s.lowest.indexOf(who) < 0) {
        fail(seq, "the end draw is offered to " + who + ", who does not have the lowest series");
      }
      this.s.decisions[d.id] = who;
      // Offers of one kind made at once (the buys, the end draws) go round the seats in order.
      const seat = this.s.bowlers.indexOf(who), last = this.lastOffer;
      if (last && last.seq === seq - 1 && last.action === d.action && last.kind === d.kind &&
          seat < last.seat) {
        fail(seq, "offers made at once are made in seat order, but " + who + "'s comes after " +
             last.who + "'s");
      }
      this.lastOffer = { seq: seq, action: d.action, kind: d.kind, seat: seat, who: who };
    };
    function answered(close) {
      return function (e, d, seq) {
        const owner = this.s.decisions[d.decision_id];
        if (owner === undefined) fail(seq, "decision " + d.decision_id + " is not open");
        if (d.bowler !== owner) fail(seq, "decision " + d.decision_id + " is " + owner + "'s, but this names " + d.bowler);
        if (close) this.closesOnMoved(e, d, seq);
        if (close) delete this.s.decisions[d.decision_id];
        if (close && this.buyer && this.buyer.action === d.action && this.buyer.bowler !== owner) {
          fail(this.buyer.seq, this.buyer.bowler + " is recorded buying, but the buy was " + owner + "'s to decide");
        }
        if (close) this.buyer = null;
      };
    }
    Walk.prototype.guess_made = answered(false);
    Walk.prototype.guess_resolved = answered(false);
    Walk.prototype.guess_voided = answered(false);
    Walk.prototype.decision_closed = answered(true);

    // Ten-pin scoring, the running total through the last frame that is complete with its
    // bonus balls (a match settled early): a strike scores 10 and the next two balls, a spare
    // 10 and the next ball, the tenth frame the pins of its two or three balls.
    function score(balls) {
      let total = 0;
      for (let i = 0; i < balls.length;) {
        const first = balls[i], tenth = first.frame >= 10;
        const strike = first.pins === first.up;
        const second = balls[i + 1], spare = !strike && second && second.frame === first.frame && second.pins === second.up;
        const size = tenth ? (strike || spare ? 3 : 2) : (strike ? 1 : 2);
        const needs = tenth ? size : (strike ? 3 : (spare ? 3 : 2));
        if (i + needs > balls.length) break;
        for (let k = 0; k < needs; k++) total += balls[i + k].pins;
        i += size;
      }
      return total;
    }

    Walk.prototype.match_ending = function (e, d, seq) {
      const series = d.series, s = this.s;
      if (!h.isObject(series) || !h.sameSet(Object.keys(series), s.bowlers)) {
        fail(seq, "the series do not name exactly the bowlers");
      }
      const walk = this;
      s.bowlers.forEach(function (b) {
        const scratch = s.balls[b].reduce(function (sum, game) { return sum + score(game); }, 0);
        const handicap = (walk.handicaps[b] || 0) * s.balls[b].length;  // a league's handicap
        if (series[b] !== scratch && series[b] !== scratch + handicap) {
          fail(seq, b + "'s series is recorded as " + series[b] + ", but their balls score " + scratch);
        }
      });
      // The lowest is judged among the bowlers still bowling (one who left is not offered it).
      const judged = s.bowlers.filter(function (b) { return s.gone.indexOf(b) < 0; });
      const least = Math.min.apply(null, judged.map(function (b) { return series[b]; }));
      const lowest = judged.filter(function (b) { return series[b] === least; });
      // Empty when no end draw is offered (a match settled as the hands stand).
      if (!Array.isArray(d.lowest) || (d.lowest.length && !h.sameList(d.lowest, lowest))) {  // in seat order
        fail(seq, "the lowest series is " + lowest.join(" & ") + "'s (" + least + "), not " + JSON.stringify(d.lowest));
      }
      s.lowest = d.lowest.slice();
    };
  }

  // A version 2 export lists each action's input (docs/fairness.md section 6): one per action,
  // in log order, each with the command, actor and moment of the action's first event.  (Its
  // params are the command's fields, which only the rules read back from the events.)
  function checkInputs(exp, fail) {
    if (exp.version !== 2) return;
    const starts = exp.events.filter(function (e) { return e.data.action === e.seq; });
    const inputs = exp.inputs;
    if (!Array.isArray(inputs)) fail(null, "a version 2 export without its inputs");
    starts.forEach(function (e, i) {
      const input = inputs[i];
      if (!input || input.action !== e.seq || input.command !== e.data.command ||
          input.actor !== e.data.actor || input.at !== e.at) {
        fail(e.seq, "the export's inputs do not list this action (" + e.data.command + " by " +
             e.data.actor + " at " + e.at + ") as its events record it");
      }
    });
    if (inputs.length !== starts.length) fail(null, "the export lists " + inputs.length + " inputs for " + starts.length + " actions");
  }

  root.AlleyFairPlay = { install: install, checkInputs: checkInputs };
  if (typeof module === "object" && module.exports) module.exports = root.AlleyFairPlay;
})(typeof window !== "undefined" ? window : globalThis);
