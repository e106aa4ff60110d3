// A second, independent verifier of a match export (docs/fairness.md), run in the bowler's own
// browser.  It is written from the specification, not from the Python verifier: it checks the
// export's shape, the commitment, the seed, every shuffle and draw (the first deck, reshuffles,
// courtesy draws, each card drawn is the top of the pile), where every card goes (the pile and
// every hand, event by event), the undo's re-ordering rule, the money (antes and buys in,
// payouts and refunds out), and the hash chain up to its head.  It stops at the first event
// that disagrees and says which and why.  It cannot re-run the game's rules (which ball earns
// which card, who wins a showdown): `alley-poker verify` does that on the server.
(function (root) {
  "use strict";
  const F = root.AlleyFairCrypto ||
    (typeof require === "function" && require("./verify_fair_crypto.js"));
  const Play = root.AlleyFairPlay ||
    (typeof require === "function" && require("./verify_fair_play.js"));
  const FORMAT = "alley-poker-match-export";
  // Version 2 adds the match's inputs (docs/fairness.md section 6); this verifier reads events.
  const VERSIONS = [1, 2];
  const JOKERS = ["JOKER-A", "JOKER-B"];
  const DECK = (function () {
    const cards = [];
    "23456789TJQKA".split("").forEach(function (r) { "CDHS".split("").forEach(function (s) { cards.push(r + s); }); });
    return cards.concat(JOKERS);
  })();
  const COMMON = ["actor", "command", "action"];  // and each type's own keys (section 6):
  const KEYS = {
    match_created: "bowlers games ante_cents rules test_mode", consent_recorded: "bowler ante_cents",
    match_started: "pile powers antes", bowler_added: "bowler ante_paid",
    bowler_removed: "bowler refund_cents", bowler_gone: "bowler outcome reason",
    deal_committed: "scheme commitment salt",
    seed_revealed: "seed", pile_shuffled: "order why", pile_stacked: "order",
    card_drawn: "bowler card reason for_ball", card_taken: "bowler from_bowler card via reason for_ball",
    card_returned: "bowler card why", jokers_swapped: "trigger disarmed powers",
    draw_skipped: "bowler reason why for_ball", hole_deepened: "bowler why",
    hole_paid_off: "bowler reason for_ball",
    ball_recorded: "bowler game frame ball pins standing foul gutter split mark gutter_ball " +
      "split_pickup cards_due bonus completes_game streak_before streak_after",
    ball_corrected: "bowler game balls streak_after reason", holland_daze: "bowler reason",
    decision_opened: "id bowler kind deadline choices reason guess_allowed",
    guess_made: "decision_id bowler side", guess_resolved: "decision_id bowler side correct",
    guess_voided: "decision_id bowler reason", decision_closed: "decision_id bowler outcome choice",
    review_raised: "id bowler game description difference remedy", review_closed: "id outcome reason",
    match_ending: "series lowest", end_phase: "stage", buy_paid: "bowler cents",
    automatic_win: "bowler card", showdown: "winners shares hands", payout: "bowler cents",
    match_settled: "reason", result_undone: "reversed reason", match_voided: "refunds reason",
    action_undone: "undone_from undone_to restored reason",
  };
  const OPTIONAL = { match_created: ["league", "handicaps"], decision_closed: ["reason"] };

  function Disagreement(seq, problem) { this.seq = seq; this.problem = problem; }
  function fail(seq, problem) { throw new Disagreement(seq, problem); }
  function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function isCount(v) { return Number.isSafeInteger(v) && v >= 0; }
  function sameList(a, b) { return a.length === b.length && a.every(function (x, i) { return x === b[i]; }); }
  function sameSet(a, b) { return sameList(F.canonicalOrder(a), F.canonicalOrder(b)); }
  function remove(list, item) { list.splice(list.indexOf(item), 1); }
  function sum(table) { return Object.keys(table).reduce(function (s, k) { return s + table[k]; }, 0); }
  function utcDate(at) {
    const when = new Date(at);
    return isNaN(when.getTime()) ? null : when.toISOString().slice(0, 10);
  }

  function checkShape(record, index, matchId) {
    const seq = index + 1;
    if (!isObject(record)) fail(seq, "not a ledger event (an event must be an object)");
    ["match_id", "seq", "type", "at", "data"].forEach(function (key) {
      if (!(key in record)) fail(seq, "not a ledger event (it lacks " + key + ")");
    });
    if (typeof record.match_id !== "string" || !Number.isSafeInteger(record.seq)) {
      fail(seq, "not a ledger event (match_id must be text and seq a whole number)");
    }
    if (!Object.prototype.hasOwnProperty.call(KEYS, record.type)) {
      fail(seq, "not a ledger event (unknown event type " + JSON.stringify(record.type) + ")");
    }
    if (!isObject(record.data)) fail(seq, "not a ledger event (its data must be an object)");
    const expected = KEYS[record.type].split(" ").concat(COMMON);
    const allowed = expected.concat(OPTIONAL[record.type] || []);
    const keys = Object.keys(record.data);
    const lacking = expected.filter(function (k) { return keys.indexOf(k) < 0; });
    const extra = keys.filter(function (k) { return allowed.indexOf(k) < 0; });
    if (lacking.length || extra.length) {
      fail(seq, "not a ledger event (" + record.type + " data keys wrong" +
           (extra.length ? "; unexpected " + extra.join(", ") : "") +
           (lacking.length ? "; missing " + lacking.join(", ") : "") + ")");
    }
    if (typeof record.at !== "string" || !/(Z|[+-]\d\d:\d\d)$/.test(record.at) || !utcDate(record.at)) {
      fail(seq, "not a ledger event (bad timestamp " + JSON.stringify(record.at) + ")");
    }
    if (record.match_id !== matchId) fail(record.seq, "the event belongs to match " + record.match_id);
    if (record.seq !== seq) fail(record.seq, "event " + record.seq + " is not the match's event #" + seq);
    if (!Number.isSafeInteger(record.data.action) || record.data.action < 1 || record.data.action > seq) {
      fail(seq, "its action (" + JSON.stringify(record.data.action) + ") is not an earlier event");
    }
  }

  function emptyState() {  // the parts of the match this verifier follows (an undo restores)
    return { status: "new", bowlers: [], hands: {}, pile: [], powers: {}, armed: [], paid: {},
             won: {}, pot: 0, freaky: false, shares: null, paidOut: {}, fairness: null,
             balls: {}, decisions: {}, lowest: [], consents: [], streak: {}, gone: [], holes: {} };
  }
  function snapshot(s) {
    const hands = {};
    Object.keys(s.hands).forEach(function (b) { hands[b] = s.hands[b].slice(); });
    return { status: s.status, bowlers: s.bowlers.slice(), hands: hands, pile: s.pile.slice(),
             powers: Object.assign({}, s.powers), armed: s.armed.slice(),
             paid: Object.assign({}, s.paid), won: Object.assign({}, s.won), pot: s.pot,
             balls: Object.keys(s.balls).reduce(function (out, b) {
               out[b] = s.balls[b].map(function (game) { return game.slice(); }); return out;
             }, {}),
             decisions: Object.assign({}, s.decisions), lowest: s.lowest.slice(), consents: s.consents.slice(),
             streak: Object.assign({}, s.streak), gone: s.gone.slice(), holes: Object.assign({}, s.holes) };
  }

  function Walk(exp, seed) {
    this.exp = exp;
    this.seedHex = seed;
    this.s = emptyState();
    this.before = {};   // seq of each command's first event -> the state before it
    this.undo = null;   // the re-orderings the undo being re-applied may make
    this.counts = { reshuffles: 0, draws: 0, courtesy: 0, undoOrders: 0, paidIn: 0, paidOut: 0 };
  }

  Walk.prototype.seated = function (seq, who) {
    if (this.s.bowlers.indexOf(who) < 0) fail(seq, JSON.stringify(who) + " is not seated in the match");
    return who;
  };
  Walk.prototype.dealt = function (seq) {
    if (this.s.status !== "playing" && this.s.status !== "ending") {
      fail(seq, "cards move while the match is " + this.s.status);
    }
  };
  Walk.prototype.seat = function (seq, who) {
    if (typeof who !== "string" || this.s.bowlers.indexOf(who) >= 0) {
      fail(seq, JSON.stringify(who) + " cannot be seated (already seated, or not a name)");
    }
    this.s.bowlers.push(who); this.s.hands[who] = []; this.s.paid[who] = 0; this.s.won[who] = 0;
    this.s.balls[who] = Array.from({ length: this.games }, function () { return []; });
  };
  Walk.prototype.pay = function (seq, who, cents, what) {
    if (!isCount(cents)) fail(seq, what + " of " + JSON.stringify(cents) + " cents is not a sum of money");
    this.s.paid[who] += cents; this.s.pot += cents; this.counts.paidIn += cents;
  };
  Walk.prototype.take = function (seq, who, cents, what) {
    if (!isCount(cents)) fail(seq, what + " of " + JSON.stringify(cents) + " cents is not a sum of money");
    if (cents > this.s.pot) fail(seq, what + " of " + cents + " cents, but the pot holds " + this.s.pot);
    this.s.pot -= cents; this.counts.paidOut += cents;
  };
  Walk.prototype.holds = function (seq, who, card) {
    const hand = this.s.hands[this.seated(seq, who)];
    if (hand.indexOf(card) < 0) fail(seq, who + " is recorded giving up " + card + ", but holds " + (hand.join(" ") || "no cards"));
    return hand;
  };

  Walk.prototype.event = async function (e) {
    const s = this.s, d = e.data, seq = e.seq;
    if (d.action === seq) { this.before[seq] = snapshot(s); this.ballNow = null; }
    else if (this.before[d.action] === undefined) fail(seq, "its action #" + d.action + " does not start a command");
    if (this.undo && d.action !== this.undo.action) this.undo = null;
    if (this.armedDrawn && e.type !== "jokers_swapped") {
      fail(seq, "the armed " + this.armedDrawn + " was drawn, but the jokers' swap does not follow at once");
    }
    const handler = this[e.type];
    if (handler) await handler.call(this, e, d, seq);
    else if (s.status === "new" && e.type !== "deal_committed") fail(seq, e.type + " before the match is created");
  };

  Walk.prototype.match_created = function (e, d, seq) {
    if (this.s.status !== "new") fail(seq, "the match is created twice");
    if (!Array.isArray(d.bowlers)) fail(seq, "the bowlers are not a list");
    this.games = Number.isSafeInteger(d.games) && d.games > 0 && d.games < 100 ? d.games : fail(seq, "the number of games is not a number");
    d.bowlers.forEach(this.seat.bind(this, seq));
    this.s.freaky = !!(isObject(d.rules) && d.rules.freaky_friday);
    this.goodJoker = isObject(d.rules) ? d.rules.good_joker : undefined;
    this.ante = d.ante_cents;
    this.handicaps = isObject(d.handicaps) ? d.handicaps : {};
    this.spans = !!(isObject(d.rules) && d.rules.streak_spans_games);
    this.gutterBy = isObject(d.rules) && d.rules.gutter_detection || "flag_or_full_rack";
    this.s.status = "open";
    this.created = e.at;
  };
  Walk.prototype.deal_committed = function (e, d, seq) {
    if (this.s.fairness) fail(seq, "the deal is committed twice");
    this.s.fairness = d;
  };
  Walk.prototype.consent_recorded = function (e, d, seq) {
    this.seated(seq, d.bowler);
    if (this.s.consents.indexOf(d.bowler) >= 0) fail(seq, d.bowler + " agrees to the ante twice");
    this.s.consents.push(d.bowler);
    if (d.ante_cents !== this.ante) fail(seq, d.bowler + " agrees to an ante of " + d.ante_cents + " cents, but the match's ante is " + this.ante);
  };
  Walk.prototype.match_started = async function (e, d, seq) {
    if (this.s.status !== "open") fail(seq, "the match starts while it is " + this.s.status);
    await this.sameOrder(seq, "the first deck", d.pile, await this.drbg.stream("deck", seq).shuffle(DECK));
    if (!isObject(d.powers) || !sameSet(Object.keys(d.powers), JOKERS) ||
        !sameSet([d.powers["JOKER-A"], d.powers["JOKER-B"]], ["good", "bad"])) {
      fail(seq, "the jokers' powers are not one good and one bad");
    }
    if (this.goodJoker !== undefined && d.powers[this.goodJoker] !== "good") {
      fail(seq, "the house rules make " + this.goodJoker + " the good joker, but the deal says otherwise");
    }
    if (!isObject(d.antes) || !sameSet(Object.keys(d.antes), this.s.consents)) {
      fail(seq, "the antes are not those of the bowlers who agreed to them (" + this.s.consents.join(", ") + ")");
    }
    Object.keys(d.antes).forEach(function (b) {
      if (d.antes[b] !== this.ante) fail(seq, b + "'s ante is " + d.antes[b] + " cents, but the match's ante is " + this.ante);
      this.pay(seq, this.seated(seq, b), d.antes[b], "an ante");
    }, this);
    this.s.pile = d.pile.slice(); this.s.powers = Object.assign({}, d.powers); this.s.status = "playing";
  };
  Walk.prototype.bowler_added = function (e, d, seq) {
    this.seat(seq, d.bowler); this.pay(seq, d.bowler, d.ante_paid, "the ante");
  };
  Walk.prototype.bowler_removed = function (e, d, seq) {
    const s = this.s, b = this.seated(seq, d.bowler);
    if (s.hands[b].length) fail(seq, b + " leaves still holding " + s.hands[b].join(" "));
    if (d.refund_cents !== s.paid[b] - s.won[b]) {
      fail(seq, b + " is refunded " + d.refund_cents + " cents, but paid in " + (s.paid[b] - s.won[b]) + " net");
    }
    this.take(seq, b, d.refund_cents, "a refund");
    remove(s.bowlers, b); delete s.hands[b]; delete s.paid[b]; delete s.won[b]; delete s.balls[b];
    delete s.holes[b];
    if (s.consents.indexOf(b) >= 0) remove(s.consents, b);
  };
  Walk.prototype.pile_stacked = function (e, d, seq) {
    fail(seq, "the pile was stacked by hand (a test-mode facility): this deal is not from the seed");
  };
  Walk.prototype.pile_shuffled = async function (e, d, seq) {
    const s = this.s;
    this.dealt(seq);
    if (!Array.isArray(d.order) || !sameSet(d.order, s.pile)) {
      fail(seq, "the re-ordered pile is not the cards that were in the pile");
    }
    if (typeof d.why === "string" && d.why.indexOf("undo:") === 0) {
      this.undoOrder(seq, d.order);
      this.counts.undoOrders++;
    } else {
      await this.sameOrder(seq, "the reshuffled pile", d.order, await this.drbg.stream("reshuffle", seq).shuffle(s.pile));
      this.counts.reshuffles++;
    }
    s.pile = d.order.slice();
  };
  // docs/fairness.md 5.4: before each later action is re-applied, the cards it had been dealt
  // that are still in the pile go back on top, in the order dealt; the rest keeps its order.
  Walk.prototype.undoOrder = function (seq, order) {
    const undo = this.undo, pile = this.s.pile;
    if (!undo) fail(seq, "a re-ordering of the pile that no undo made");
    while (undo.next < undo.later.length) {
      const wanted = undo.later[undo.next++].filter(function (card) { return pile.indexOf(card) >= 0; });
      if (!wanted.length || sameList(pile.slice(0, wanted.length), wanted)) continue;
      const expected = wanted.concat(pile.filter(function (card) { return wanted.indexOf(card) < 0; }));
      if (sameList(order, expected)) return;
      fail(seq, "the undo's re-ordering puts " + order.slice(0, wanted.length).join(" ") +
           " on top; the cards dealt before were " + wanted.join(" "));
    }
    fail(seq, "the undo re-orders the pile, but no later action had been dealt cards still in it");
  };
  Walk.prototype.card_drawn = function (e, d, seq) {
    const s = this.s;
    this.dealt(seq); this.seated(seq, d.bowler);
    this.kind = null; this.causedBy(seq, d);
    const top = s.pile.length ? s.pile[0] : "nothing";
    if (d.card !== top) fail(seq, d.bowler + " is recorded drawing " + d.card + ", but the top of the pile was " + top);
    s.pile.shift(); s.hands[d.bowler].push(d.card); this.counts.draws++;
    if (s.armed.indexOf(d.card) >= 0) this.armedDrawn = d.card;
  };
  Walk.prototype.card_taken = async function (e, d, seq) {
    const s = this.s;
    this.dealt(seq); this.seated(seq, d.bowler);
    if (d.bowler === d.from_bowler) fail(seq, d.bowler + " takes a card from themself");
    this.kind = null; this.causedBy(seq, d);
    this.holds(seq, d.from_bowler, d.card);
    if (d.via === "courtesy") {
      if (s.pile.length) fail(seq, "a courtesy draw while the pile still holds cards");
      const most = Math.max.apply(null, s.bowlers.map(function (b) { return s.hands[b].length; }));
      const candidates = s.bowlers.filter(function (b) { return b !== d.bowler && most > 0 && s.hands[b].length === most; });
      if (!candidates.length) fail(seq, "a courtesy draw where the rules allow none");
      const stream = this.drbg.stream("courtesy", seq);
      const victim = candidates.length === 1 ? candidates[0] : await stream.pick(candidates);
      const card = await stream.pick(s.hands[victim]);
      if (victim !== d.from_bowler || card !== d.card) {
        fail(seq, "the courtesy draw took " + d.card + " from " + d.from_bowler + "; the seed takes " + card + " from " + victim);
      }
      this.counts.courtesy++;
    }
    this.movedByRules(e, seq);
    remove(s.hands[d.from_bowler], d.card); s.hands[d.bowler].push(d.card);
  };
  Walk.prototype.card_returned = function (e, d, seq) {
    this.dealt(seq);
    this.kind = "card_returned"; this.causedBy(seq, { bowler: d.bowler, for_ball: null });
    const hand = this.holds(seq, d.bowler, d.card);
    if (d.why === "gutter") this.jokerFirst(seq, d, hand);
    remove(hand, d.card);
    this.movedByRules(e, seq);
    this.s.pile.push(d.card);
    if (JOKERS.indexOf(d.card) >= 0 && this.s.freaky && this.s.armed.indexOf(d.card) < 0) this.s.armed.push(d.card);
  };
  Walk.prototype.jokers_swapped = function (e, d, seq) {
    const s = this.s, p = d.powers;
    if (!isObject(p) || Object.keys(p).length !== 2 || p["JOKER-A"] !== s.powers["JOKER-B"] ||
        p["JOKER-B"] !== s.powers["JOKER-A"]) {
      fail(seq, "the jokers' swap does not swap their powers (they were good " +
           (s.powers["JOKER-A"] === "good" ? "JOKER-A" : "JOKER-B") + ")");
    }
    if (!this.armedDrawn) fail(seq, "the jokers swap, but no armed joker was drawn just before");
    if (d.trigger !== this.armedDrawn) fail(seq, "the swap names " + d.trigger + " as its trigger, but " + this.armedDrawn + " was drawn");
    if (!Array.isArray(d.disarmed) || !sameList(d.disarmed, F.canonicalOrder(s.armed))) {
      fail(seq, "the swap disarms " + JSON.stringify(d.disarmed) + ", but the armed jokers were " + F.canonicalOrder(s.armed).join(" "));
    }
    s.powers = Object.assign({}, p);
    s.armed = [];
    this.armedDrawn = null;
  };
  Walk.prototype.buy_paid = function (e, d, seq) {
    this.pay(seq, this.seated(seq, d.bowler), d.cents, "a buy");
    this.buyer = { bowler: d.bowler, action: d.action, seq: seq };
  };
  Walk.prototype.showdown = function (e, d, seq) {
    const s = this.s;
    if (!Array.isArray(d.winners) || !d.winners.length || !isObject(d.shares) ||
        !sameSet(Object.keys(d.shares), d.winners)) {
      fail(seq, "the showdown's winners and shares do not name the same bowlers");
    }
    d.winners.forEach(this.seated.bind(this, seq));
    const total = sum(d.shares);
    if (d.winners.some(function (w) { return !isCount(d.shares[w]); }) || total > s.pot ||
        s.pot - total >= d.winners.length) {
      fail(seq, "the shares (" + total + " cents) are not the pot of " + s.pot + " cents split among the winners");
    }
    const good = s.powers["JOKER-A"] === "good" ? "JOKER-A" : "JOKER-B";
    const bad = good === "JOKER-A" ? "JOKER-B" : "JOKER-A";
    Object.keys(isObject(d.hands) ? d.hands : {}).forEach(function (b) {
      const shown = (isObject(d.hands[b]) && Array.isArray(d.hands[b].hand) ? d.hands[b].hand : [])
        .map(function (c) { return c === "GJ" ? good : (c === "BJ" ? bad : c); });
      if (!sameSet(shown, this.s.hands[this.seated(seq, b)])) {
        fail(seq, "the showdown shows " + b + " holding " + shown.join(" ") + ", but " + b + " held " +
             (s.hands[b].join(" ") || "no cards"));
      }
    }, this);
    s.shares = Object.assign({}, d.shares); s.paidOut = {};
  };
  Walk.prototype.payout = function (e, d, seq) {
    const s = this.s, b = this.seated(seq, d.bowler);
    if (!s.shares || s.shares[b] !== d.cents || s.paidOut[b]) {
      fail(seq, b + " is paid " + d.cents + " cents, but the showdown's share is " + (s.shares && s.shares[b] !== undefined ? s.shares[b] + " cents" : "nothing") + (s.paidOut[b] ? " (already paid)" : ""));
    }
    this.take(seq, b, d.cents, "a payout");
    s.won[b] += d.cents; s.paidOut[b] = true;
  };
  Walk.prototype.match_settled = function (e, d, seq) {
    const s = this.s;
    const unpaid = Object.keys(s.shares || {}).filter(function (b) { return !s.paidOut[b]; });
    if (!s.shares || unpaid.length) fail(seq, "the match is settled without paying " + (unpaid.join(", ") || "a showdown"));
    s.status = "settled";
  };
  Walk.prototype.result_undone = function (e, d, seq) {
    const s = this.s;
    if (!isObject(d.reversed) || !sameSet(Object.keys(d.reversed), Object.keys(s.paidOut))) {
      fail(seq, "the undone result does not take back exactly the payouts made");
    }
    Object.keys(d.reversed).forEach(function (b) {
      if (d.reversed[b] !== s.shares[b]) fail(seq, b + "'s payout taken back is " + d.reversed[b] + " cents, not the " + s.shares[b] + " paid");
      s.won[b] -= d.reversed[b]; s.pot += d.reversed[b];
    });
    s.status = "ending"; s.shares = null; s.paidOut = {};
  };
  Walk.prototype.match_voided = function (e, d, seq) {
    const s = this.s;
    if (!isObject(d.refunds)) fail(seq, "the refunds are not a table");
    Object.keys(d.refunds).forEach(function (b) {
      this.take(seq, this.seated(seq, b), d.refunds[b], "a refund");
      s.paid[b] -= d.refunds[b];
      if (s.paid[b] < s.won[b]) fail(seq, b + " is refunded more than they paid in");
    }, this);
    s.decisions = {};
    if (s.pot) fail(seq, "the void leaves " + s.pot + " cents in the pot (every ante and buy goes back)");
    s.status = "void";
  };
  Walk.prototype.seed_revealed = function (e, d, seq) {
    if (d.seed !== this.seedHex) fail(seq, "the seed revealed here differs from the export's");
  };
  Walk.prototype.action_undone = function (e, d, seq) {
    const before = this.before[d.undone_from];
    if (!Number.isSafeInteger(d.undone_from) || !before || !(d.undone_to >= d.undone_from) || d.undone_to >= seq) {
      fail(seq, "the undo names no earlier action (#" + d.undone_from + " to #" + d.undone_to + ")");
    }
    const r = d.restored, events = this.exp.events;
    const same = isObject(r) && r.status === before.status && sameList(r.bowlers || [], before.bowlers) &&
      sameList(r.pile || [], before.pile) && sameSet(r.armed || [], before.armed) &&
      r.pot_cents === before.pot && ["hands", "powers", "paid", "won"].every(function (k) {
        return isObject(r[k]) && F.canonicalJson(r[k]) === F.canonicalJson(before[k]);
      });
    if (!same) fail(seq, "the undo restores a match that is not the one before action #" + d.undone_from);
    this.s = Object.assign(this.s, snapshot(before));
    // The actions after the undone one, each with the cards it drew, in order (section 5.4).
    const later = [], byAction = {};
    for (let i = d.undone_to; i < seq - 1; i++) {
      const x = events[i];
      if (byAction[x.data.action] === undefined) { byAction[x.data.action] = later.length; later.push([]); }
      const drawn = later[byAction[x.data.action]];
      if (x.type === "card_drawn" && drawn.indexOf(x.data.card) < 0) drawn.push(x.data.card);
    }
    this.undo = { action: seq, later: later, next: 0 };
  };

  Walk.prototype.sameOrder = async function (seq, what, recorded, derived) {
    if (!Array.isArray(recorded)) fail(seq, what + " is not a list of cards");
    if (sameList(recorded, derived)) return;
    let i = 0;
    while (i < recorded.length && i < derived.length && recorded[i] === derived[i]) i++;
    fail(seq, what + " has " + (i < recorded.length ? recorded[i] : "nothing") + " at position " + (i + 1) +
         "; the seed puts " + (i < derived.length ? derived[i] : "nothing") + " there");
  };

  Walk.prototype.end = function () {
    const s = this.s, last = this.exp.events.length;
    if (s.status === "settled" && !s.shares) fail(last, "the match ends settled with no showdown");
    if (s.pot !== sum(s.paid) - sum(s.won) || s.pot < 0) fail(last, "the money does not add up");
  };

  // The verdict on one export: {ok, matchId, seq, problem, events, chainHead, text}.
  // options.onProgress(done, total) is told as events are checked; options.printedHead (hex)
  // is compared with the chain head computed from the events.
  async function verifyExport(exp, options) {
    const opts = options || {};
    const verdict = { ok: false, matchId: null, seq: null, problem: null, events: 0, chainHead: null };
    try {
      if (!isObject(exp) || exp.format !== FORMAT || VERSIONS.indexOf(exp.version) < 0) {
        fail(null, 'not a match export (format must be "' + FORMAT + '", version 1 or 2)');
      }
      verdict.matchId = exp.match_id;
      const events = exp.events;
      if (!Array.isArray(events) || !events.length) fail(null, "the export carries no events");
      events.forEach(function (record, index) { checkShape(record, index, exp.match_id); });
      Play.checkInputs(exp, fail);
      const committed = events.find(function (x) { return x.type === "deal_committed"; });
      if (!committed) fail(null, "the match committed to no seed (dealt before fair dealing or by a test source): it cannot be verified");
      const firstCard = events.find(function (x) { return x.type === "match_started" || x.type === "card_drawn"; });
      if (firstCard && firstCard.seq < committed.seq) fail(committed.seq, "the commitment came after the first card");
      const c = committed.data;
      if (c.scheme !== F.SCHEME) fail(committed.seq, "the deal follows scheme " + JSON.stringify(c.scheme) + ", not " + F.SCHEME);
      const created = events[0].type === "match_created" ? utcDate(events[0].at) : null;
      if (c.salt !== exp.match_id + "/" + created) {
        fail(committed.seq, "the salt " + JSON.stringify(c.salt) + " is not the match id and the day it was created (" + exp.match_id + "/" + created + ")");
      }
      const revealed = events.find(function (x) { return x.type === "seed_revealed"; });
      const fair = isObject(exp.fairness) ? exp.fairness : {};
      const seedHex = fair.seed || (revealed && revealed.data.seed);
      if (!seedHex) fail(null, "the seed is not revealed yet (it is revealed when the match settles or is voided)");
      const seed = F.fromHex(seedHex);
      if (!seed) fail(null, "the revealed seed " + JSON.stringify(seedHex) + " is not hex");
      if (revealed && revealed.data.seed !== seedHex) fail(null, "the export's seed differs from the one revealed in the log");
      if (seed.length !== 32 || F.hex(await F.sha256(seed)) !== c.commitment) {
        fail(committed.seq, "the revealed seed does not match the commitment " + c.commitment);
      }
      const walk = new Walk(exp, seedHex);
      walk.drbg = await F.drbg(seed, c.salt);
      let prev = F.GENESIS;
      for (let i = 0; i < events.length; i++) {
        await walk.event(events[i]);
        prev = await F.linkHash(prev, events[i]);
        if (opts.onProgress && (i % 25 === 24 || i === events.length - 1)) opts.onProgress(i + 1, events.length);
      }
      walk.end();
      verdict.events = events.length;
      verdict.counts = walk.counts;
      verdict.commitment = c.commitment;
      verdict.status = walk.s.status;
      verdict.chainHead = prev;
      if (exp.chain_head !== undefined && exp.chain_head !== null && exp.chain_head !== prev) {
        fail(null, "the events hash to chain head " + prev + ", but the export states " + exp.chain_head);
      }
      const printed = (opts.printedHead || "").trim().toLowerCase();
      if (printed && printed !== prev) {
        fail(null, "the events hash to chain head " + prev + ", but the head printed on the night sheet is " + printed);
      }
      verdict.ok = true;
    } catch (error) {
      if (!(error instanceof Disagreement)) {
        error = new Disagreement(null, "the export could not be read (" + (error && error.message) + ")");
      }
      verdict.seq = error.seq; verdict.problem = error.problem;
    }
    verdict.text = verdict.ok
      ? "OK: match " + verdict.matchId + ": " + verdict.events + " events, every card follows from the revealed seed; chain head " + verdict.chainHead
      : "FAILED: match " + verdict.matchId + (verdict.seq !== null ? " event #" + verdict.seq : "") + ": " + verdict.problem;
    return verdict;
  }

  // Verify JSON text (pasted or dropped): a clear sentence when it is not JSON at all.
  async function verifyText(text, options) {
    let exp;
    try { exp = JSON.parse(text); } catch (error) {
      return { ok: false, matchId: null, seq: null, problem: "this is not JSON (" + error.message + ")",
               text: "FAILED: this is not a match export: it is not JSON (" + error.message + ")" };
    }
    return verifyExport(exp, options);
  }

  Play.install(Walk, { fail: fail, isObject: isObject, sameSet: sameSet, sameList: sameList });

  const api = { verifyExport: verifyExport, verifyText: verifyText, DECK: DECK };
  root.AlleyFairVerify = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof window !== "undefined" ? window : globalThis);
