// A second verifier of a bracket night's export ("alley-poker-side-night-export"), run in the
// bowler's own browser beside `alley-poker verify` (docs/fairness.md, "Bracket nights"): it
// replays the night's side-game log and says what does not hold: the draw sealed before it
// was made and before any game was in, the revealed seed is the committed one (SHA-256),
// every bracket is exactly what that seed draws from the entries (the same DRBG as a match's
// deal, WebCrypto HMAC), every payment is what the games decide, and the money reconciles
// to the cent.  A night drawn but not yet revealed is "not yet provable", not a failure.
(function (root) {
  "use strict";
  const F = root.AlleyFairCrypto ||
    (typeof require === "function" && require("./verify_fair_crypto.js"));
  const R = root.AlleySideRules ||
    (typeof require === "function" && require("./verify_side_games_rules.js"));
  const FORMAT = "alley-poker-side-night-export";
  const VERSION = 1;
  const DRAW_USE = "bracket-draw";
  const KEYS = {
    side_night_opened: "league_id night_date games", side_game_set: "game settings",
    entry_recorded: "game bowler entries paid_cents", entry_withdrawn: "game bowler entries refund_cents",
    draw_committed: "scheme commitment salt", draw_made: "game brackets rolled_to rolled refunded",
    seed_revealed: "seed", score_recorded: "bowler game scratch handicap strikes absent",
    roll_off_recorded: "game bracket round match winner",
    bracket_paid: "game bracket payouts organiser_cents",
    pot_paid: "game payouts organiser_cents refunds as_they_stand",
    paid_result_changed: "game bracket before payouts organiser_cents refunds reason",
    paid_result_kept: "game bracket against reason",
  };

  function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function table(pairs) { return new Map(pairs.map(function (p) { return [p[0], p[1]]; })); }
  function sameTable(a, b) { return JSON.stringify(R.pairsOf(a)) === JSON.stringify(R.pairsOf(b)); }
  function sameResult(a, b) {
    return a !== null && b !== null && sameTable(a.payouts, b.payouts) &&
      a.organiser === b.organiser && sameTable(a.refunds, b.refunds);
  }
  function dollars(cents) { return "$" + (cents / 100).toFixed(2); }

  function shapeProblem(record) {
    if (!isObject(record) || !isObject(record.data)) return "not a side-game event";
    const keys = KEYS[record.type];
    if (!keys) return "unknown event type " + JSON.stringify(record.type);
    const want = keys.split(" ").concat(["actor"]);
    const have = Object.keys(record.data);
    const missing = want.filter(function (k) { return have.indexOf(k) < 0; });
    const extra = have.filter(function (k) { return want.indexOf(k) < 0; });
    if (missing.length || extra.length) {
      return record.type + " data keys wrong" + (missing.length ? "; missing " + missing.join(", ") : "") +
        (extra.length ? "; unexpected " + extra.join(", ") : "");
    }
    if (typeof record.night_id !== "string" || !Number.isSafeInteger(record.seq) ||
        typeof record.at !== "string" || !/^\d{4}-\d{2}-\d{2}T[^Z]*Z$/.test(record.at)) {
      return "night_id, seq or at is not what an event has";
    }
    return null;
  }

  // The night as the log has it so far (the fold of docs/league.md's events).
  function Night(nightId) {
    this.nightId = nightId; this.seq = 0; this.books = new Map();
    this.commitment = null; this.salt = null; this.scores = new Map(); this.rollOffs = new Map();
    this.paidIn = new Map(); this.refunded = new Map();
  }
  Night.prototype.bracketGames = function () {
    return Array.from(this.books.keys()).filter((g) => this.books.get(g).settings.kind === "bracket");
  };
  Night.prototype.result = function (game, bracket, asTheyStand) {
    const book = this.books.get(game);
    if (bracket === null) {
      const pot = R.potOutcome(book.settings, Array.from(book.entries.keys()), this.scores);
      return pot.finished || asTheyStand ? pot : null;
    }
    const payouts = R.decideBracket(bracket, book.drawn[bracket - 1], book.settings, this.scores,
                                    this.rollOffs, game);
    return payouts === null ? null : { payouts: payouts, organiser: book.settings.organiser_cents, refunds: new Map() };
  };
  Night.prototype.apply = function (type, d) {
    const book = d.game !== undefined ? this.books.get(d.game) : null;
    if (type === "side_game_set") {
      this.books.set(d.game, { settings: d.settings, entries: new Map(), drawn: null, paid: new Map() });
    } else if (type === "entry_recorded") {
      R.add(book.entries, d.bowler, d.entries); R.add(this.paidIn, d.bowler, d.paid_cents);
    } else if (type === "entry_withdrawn") {
      R.add(book.entries, d.bowler, -d.entries);
      if (!book.entries.get(d.bowler)) book.entries.delete(d.bowler);
      R.add(this.refunded, d.bowler, d.refund_cents);
    } else if (type === "draw_committed") {
      this.commitment = d.commitment; this.salt = d.salt;
    } else if (type === "draw_made") {
      book.drawn = d.brackets;
      d.rolled.forEach((p) => { R.add(this.books.get(d.rolled_to).entries, p[0], p[1]); });
      d.refunded.forEach((p) => { R.add(this.refunded, p[0], p[1] * book.settings.entry_cents); });
    } else if (type === "score_recorded") {
      this.scores.set(d.bowler + "/" + d.game, d);
    } else if (type === "roll_off_recorded") {
      this.rollOffs.set([d.game, d.bracket, d.round, d.match].join("/"), d.winner);
    } else if (type === "bracket_paid" || type === "pot_paid" || type === "paid_result_changed") {
      book.paid.set(type === "pot_paid" ? null : d.bracket,
                    { payouts: table(d.payouts), organiser: d.organiser_cents, refunds: table(d.refunds || []) });
    }
  };
  // entries = payouts + refunds + organiser's share + what is still in play.
  Night.prototype.money = function () {
    const won = new Map(), refunded = new Map(this.refunded);
    let organiser = 0, inPlay = 0;
    this.books.forEach(function (book) {
      book.paid.forEach(function (paid) {
        organiser += paid.organiser;
        paid.payouts.forEach(function (c, b) { R.add(won, b, c); });
        paid.refunds.forEach(function (c, b) { R.add(refunded, b, c); });
      });
      const fee = book.settings.entry_cents;
      const entered = R.total(Array.from(book.entries.values()));
      if (book.settings.kind !== "bracket") { if (!book.paid.has(null)) inPlay += fee * entered; }
      else if (book.drawn === null) inPlay += fee * entered;
      else {
        book.drawn.forEach(function (slots, i) {
          if (!book.paid.has(i + 1)) inPlay += fee * slots.filter(function (s) { return s !== null; }).length;
        });
      }
    });
    const sum = function (t) { return R.total(Array.from(t.values())); };
    return { entries: sum(this.paidIn), payouts: sum(won), refunds: sum(refunded),
             organiser: organiser, inPlay: inPlay };
  };

  // What the seed draws for `game` from the entries as they stand (docs/league.md).
  async function drawData(night, game, seedBytes) {
    const book = night.books.get(game), settings = book.settings;
    const drbg = await F.drbg(seedBytes, night.salt);
    const drawn = await R.drawBrackets(book.entries, settings.seven_bowler_brackets,
                                       drbg.stream(DRAW_USE, night.bracketGames().indexOf(game) + 1));
    const target = night.books.get(settings.rollover_to || "");
    const rolled = new Map(), refunded = new Map();
    R.pairsOf(drawn.unplaced).forEach(function (p) {
      const bowler = p[0], count = p[1];
      let room = 0;
      if (target && (target.settings.eligible === null || target.settings.eligible.indexOf(bowler) >= 0)) {
        room = Math.max(0, target.settings.entries_per_bowler - (target.entries.get(bowler) || 0));
      }
      if (Math.min(count, room)) rolled.set(bowler, Math.min(count, room));
      if (count - Math.min(count, room)) refunded.set(bowler, count - Math.min(count, room));
    });
    return { brackets: drawn.brackets, rolled_to: settings.rollover_to, rolled: R.pairsOf(rolled),
             refunded: R.pairsOf(refunded) };
  }

  async function revealedSeed(records, problems) {
    const committed = records.find(function (r) { return isObject(r) && r.type === "draw_committed"; });
    const revealed = records.find(function (r) { return isObject(r) && r.type === "seed_revealed"; });
    if (!revealed || !isObject(revealed.data)) return null;
    const seed = F.fromHex(revealed.data.seed);
    const where = "#" + revealed.seq + " seed_revealed: ";
    if (!seed || seed.length !== 32) { problems.push(where + "the seed is not 32 bytes of hex"); return null; }
    if (!committed || F.hex(await F.sha256(seed)) !== String(committed.data.commitment).toLowerCase()) {
      problems.push(where + "not the seed the draw was sealed with");
      return null;
    }
    return seed;
  }

  async function checkEvent(night, record, seed, found) {
    const d = record.data, where = "#" + record.seq + " " + record.type + ": ";
    if (record.type === "draw_committed") {
      if (night.commitment !== null) found.problems.push(where + "the draw was sealed a second time");
      if (night.scores.size) found.problems.push(where + "sealed after a game was in");
      if (d.scheme !== F.SCHEME) found.problems.push(where + "unknown scheme " + JSON.stringify(d.scheme));
      const salt = night.nightId + "/" + record.at.slice(0, 10);
      if (d.salt !== salt) found.problems.push(where + "salt " + JSON.stringify(d.salt) + " is not " + JSON.stringify(salt));
    } else if (record.type === "draw_made") {
      if (night.commitment === null) found.problems.push(where + "made before the draw was sealed");
      else if (seed === null) found.unproven.push(where + "the seed is not revealed yet");
      else {
        found.draws += 1;
        const expected = await drawData(night, d.game, seed);
        if (expected.brackets.length !== d.brackets.length) {
          found.problems.push(where + d.game + ": the seed draws " + expected.brackets.length +
                              " brackets, the log has " + d.brackets.length);
        } else {
          expected.brackets.forEach(function (slots, i) {
            if (JSON.stringify(slots) !== JSON.stringify(d.brackets[i])) {
              found.problems.push(where + d.game + ": bracket " + (i + 1) + " is not what the seed draws from the entries");
            }
          });
        }
        ["rolled_to", "rolled", "refunded"].forEach(function (key) {
          if (JSON.stringify(expected[key]) !== JSON.stringify(d[key])) {
            found.problems.push(where + d.game + ": " + key + " is not what the draw gives");
          }
        });
      }
    } else if (record.type === "entry_recorded" || record.type === "entry_withdrawn") {
      const isPot = night.books.get(d.game).settings.kind !== "bracket";
      if (isPot ? night.scores.size : night.commitment !== null) {
        found.problems.push(where + d.game + "'s entries were closed");
      }
    } else if (record.type === "bracket_paid" || record.type === "pot_paid" || record.type === "paid_result_changed") {
      found.payments += 1;
      const bracket = record.type === "pot_paid" ? null : d.bracket;
      const stand = (record.type === "pot_paid" && d.as_they_stand) ||
        (record.type === "paid_result_changed" && d.bracket === null);
      const now = night.result(d.game, bracket, stand);
      const recorded = { payouts: table(d.payouts), organiser: d.organiser_cents, refunds: table(d.refunds || []) };
      if (!sameResult(now, recorded)) found.problems.push(where + d.game + " did not pay what its games decide");
    }
  }

  // The verdict on one side night's export: {ok, nightId, problems, unproven, counts, text}.
  async function verifyExport(exported) {
    const found = { problems: [], unproven: [], draws: 0, payments: 0 };
    const nightId = isObject(exported) ? exported.night_id : null;
    let records = isObject(exported) ? exported.events : null;
    if (!isObject(exported) || exported.format !== FORMAT || exported.version !== VERSION) {
      found.problems.push('not a side night export (format must be "' + FORMAT + '", version ' + VERSION + ")");
      records = [];
    } else if (!Array.isArray(records)) {
      found.problems.push("events must be a list of records");
      records = [];
    } else if (!records.length) {
      found.problems.push("the log is empty");
    }
    const seed = await revealedSeed(records, found.problems);
    let night = null, money = null;
    for (const record of records) {
      const shape = shapeProblem(record);
      if (shape) { found.problems.push("#" + (record && record.seq) + ": " + shape); break; }
      if (night === null) {
        night = new Night(record.night_id);
        if (nightId !== record.night_id) found.problems.push("the export names night " + JSON.stringify(nightId) + ", its log " + JSON.stringify(record.night_id));
      }
      if (record.night_id !== night.nightId || record.seq !== night.seq + 1) {
        found.problems.push("#" + record.seq + " " + record.type + ": not the next event of night " + record.night_id);
        break;
      }
      try {
        await checkEvent(night, record, seed, found);
        night.apply(record.type, record.data);
        night.seq = record.seq;
      } catch (wrong) {
        found.problems.push("#" + record.seq + " " + record.type + ": does not fit the night as the log has it (" + wrong + ")");
        break;
      }
    }
    if (night !== null) {
      money = night.money();
      if (money.entries !== money.payouts + money.refunds + money.organiser + money.inPlay) {
        found.problems.push("the money does not reconcile: entries " + dollars(money.entries) + " are not payouts " +
                            dollars(money.payouts) + " + refunds " + dollars(money.refunds) + " + organiser " +
                            dollars(money.organiser) + " + in play " + dollars(money.inPlay));
      }
    }
    const where = "side games of night " + nightId;
    const ok = !found.problems.length && !found.unproven.length;
    const text = found.problems.length ? "FAILED: " + where + ": " + found.problems.join("; ")
      : found.unproven.length ? "NOT YET PROVABLE: " + where + ": " + found.unproven.join("; ")
      : "OK: " + where + ": " + records.length + " events, " + found.draws + " draws re-done from the revealed seed, " +
        found.payments + " payments as the games decide, the money reconciles to the cent";
    return { kind: "side-night", ok: ok, nightId: nightId, problems: found.problems, unproven: found.unproven,
             counts: { events: records.length, draws: found.draws, payments: found.payments },
             money: money, moneyLine: money ? moneyLine(money) : null, text: text };
  }

  function moneyLine(m) {
    return dollars(m.entries) + " of entries = " + dollars(m.payouts) + " paid out + " + dollars(m.refunds) +
      " refunded + " + dollars(m.organiser) + " to the organiser" + (m.inPlay ? " + " + dollars(m.inPlay) + " still in play" : "") + ".";
  }

  function isSideExport(value) { return isObject(value) && value.format === FORMAT; }

  const api = { FORMAT: FORMAT, verifyExport: verifyExport, isSideExport: isSideExport };
  root.AlleySideVerify = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof window !== "undefined" ? window : globalThis);
