// The rules a bracket night's export is checked against (docs/league.md "Side games",
// docs/fairness.md "Bracket nights"): the draw from the fair deal's DRBG ("bracket-draw"),
// a bracket's rounds decided from the games, the pots on a number, and prizes to the cent.
// verify_side_games.js replays a night's log with these.  Bowlers are roster ids (numbers); a table
// keyed by bowler is a Map, written out as [[bowler, value], ...] sorted by bowler.
(function (root) {
  "use strict";
  const BRACKET_SIZE = 8;
  const ROUNDS = 3;

  function byNumber(a, b) { return a - b; }
  function total(values) { return values.reduce(function (s, v) { return s + v; }, 0); }
  function pairsOf(table) {
    return Array.from(table.entries()).sort(function (a, b) { return a[0] - b[0]; });
  }
  function add(table, bowler, cents) { table.set(bowler, (table.get(bowler) || 0) + cents); }
  function matchUp(a, b) { return Math.min(a, b) + "," + Math.max(a, b); }

  // ---------------------------------------------------------------- the draw
  // How many brackets the entries fill: the n placing the most entries (fewer on a tie).
  function bracketCount(counts, seven) {
    const smallest = seven ? BRACKET_SIZE - 1 : BRACKET_SIZE;
    const entries = Array.from(counts.values());
    let best = 0, bestPlaced = 0;
    for (let n = 1; n <= Math.floor(total(entries) / smallest); n++) {
      const placeable = total(entries.map(function (k) { return Math.min(k, n); }));
      if (placeable < smallest * n) continue;
      const placed = Math.min(placeable, BRACKET_SIZE * n);
      if (placed > bestPlaced) { best = n; bestPlaced = placed; }
    }
    return best;
  }

  // Fisher-Yates from the last position down, as the deal's shuffle.
  async function shuffled(stream, items) {
    const order = items.slice();
    for (let i = order.length - 1; i >= 1; i--) {
      const j = await stream.below(i + 1);
      const t = order[i]; order[i] = order[j]; order[j] = t;
    }
    return order;
  }

  // Every way to pair seats 0..size-1: the lowest free seat with each later one in turn.
  function pairings(size) {
    function pairUp(free) {
      if (!free.length) return [[]];
      const out = [];
      const first = free[0], rest = free.slice(1);
      rest.forEach(function (partner, index) {
        const left = rest.slice(0, index).concat(rest.slice(index + 1));
        pairUp(left).forEach(function (tail) { out.push([[first, partner]].concat(tail)); });
      });
      return out;
    }
    const seats = [];
    for (let i = 0; i < size; i++) seats.push(i);
    return pairUp(seats);
  }
  const PAIRINGS = pairings(BRACKET_SIZE);

  function realPairs(pairs) {
    return pairs.filter(function (p) { return p[0] !== null && p[1] !== null; })
      .map(function (p) { return matchUp(p[0], p[1]); });
  }

  // A drawn pairing of the shuffled seats among those repeating the fewest match-ups.
  async function pairing(stream, seats, met) {
    const scored = PAIRINGS.map(function (way) {
      const pairs = way.map(function (p) { return [seats[p[0]], seats[p[1]]]; });
      return { repeats: realPairs(pairs).filter(function (k) { return met.has(k); }).length, pairs: pairs };
    });
    const fewest = Math.min.apply(null, scored.map(function (s) { return s.repeats; }));
    const kept = scored.filter(function (s) { return s.repeats === fewest; });
    const chosen = kept[await stream.below(kept.length)].pairs;
    return [].concat.apply([], chosen);
  }

  // The brackets `entries` (Map bowler -> entries) fill, drawn from `stream`.
  async function drawBrackets(entries, seven, stream) {
    const counts = new Map(pairsOf(entries).filter(function (p) { return p[1] > 0; }));
    const n = bracketCount(counts, seven);
    const unplaced = new Map();
    counts.forEach(function (k, bowler) { if (k > n) unplaced.set(bowler, k - n); });
    if (n === 0) return { brackets: [], unplaced: counts };
    const order = await shuffled(stream, Array.from(counts.keys()).sort(byNumber));
    const tokens = [];
    order.forEach(function (bowler) {
      for (let i = 0; i < Math.min(counts.get(bowler), n); i++) tokens.push(bowler);
    });
    const over = tokens.length - Math.min(tokens.length, BRACKET_SIZE * n);
    for (let i = 0; i < over; i++) {
      const dropped = tokens.splice(await stream.below(tokens.length), 1)[0];
      add(unplaced, dropped, 1);
    }
    const members = [];
    for (let i = 0; i < n; i++) members.push([]);
    tokens.forEach(function (bowler, j) { members[j % n].push(bowler); });
    const met = new Set();
    const brackets = [];
    for (const bowlers of members) {
      const seats = (await shuffled(stream, bowlers.slice().sort(byNumber)));
      while (seats.length < BRACKET_SIZE) seats.push(null);
      const slots = await pairing(stream, seats, met);
      const firstRound = [];
      for (let i = 0; i < BRACKET_SIZE; i += 2) firstRound.push([slots[i], slots[i + 1]]);
      realPairs(firstRound).forEach(function (k) { met.add(k); });
      brackets.push(slots);
    }
    return { brackets: brackets, unplaced: unplaced };
  }

  // ---------------------------------------------------------------- rounds
  function counted(score, scoring) {
    if (score.absent) return -1;
    return score.scratch + (scoring === "handicap" ? score.handicap : 0);
  }

  function prizes(settings, size) {
    const short = (BRACKET_SIZE - size) * settings.entry_cents;
    return [settings.payouts_cents[0] - short].concat(settings.payouts_cents.slice(1));
  }

  // The bowlers who share a prize, the odd cents one each from the lowest id.
  function splitCents(cents, bowlers) {
    const sharers = Array.from(new Set(bowlers)).sort(byNumber);
    const each = Math.floor(cents / sharers.length), odd = cents % sharers.length;
    return new Map(sharers.map(function (b, place) { return [b, each + (place < odd ? 1 : 0)]; }));
  }

  function decideMatch(round, sides, settings, scores, rollOff) {
    const game = settings.games[round - 1];
    const a = sides[0], b = sides[1];
    if (a === null || b === null) return { sides: sides, status: "decided", winner: a === null ? b : a, how: "bye" };
    const breakers = settings.tie_rule === "roll_off" ? [] : settings.games.slice(round);
    const order = [game].concat(breakers);
    for (let i = 0; i < order.length; i++) {
      const sa = scores.get(a + "/" + order[i]), sb = scores.get(b + "/" + order[i]);
      if (!sa || !sb) return { sides: sides, status: "scores", winner: null };
      const pa = counted(sa, settings.scoring), pb = counted(sb, settings.scoring);
      if (pa !== pb) return { sides: sides, status: "decided", winner: pa > pb ? a : b, how: i ? "next game" : "score" };
    }
    if (settings.tie_rule === "split" && round === ROUNDS) return { sides: sides, status: "decided", winner: null, how: "split" };
    if (rollOff === a || rollOff === b) return { sides: sides, status: "decided", winner: rollOff, how: "roll-off" };
    return { sides: sides, status: "roll_off", winner: null };
  }

  // A bracket as the games stand: its final and what it pays once decided (null before).
  function decideBracket(number, slots, settings, scores, rollOffs, game) {
    let sides = slots.slice(), known = sides.map(function () { return true; });
    let final = null;
    for (let round = 1; round <= ROUNDS; round++) {
      const winners = [], winnersKnown = [];
      for (let index = 0; index < sides.length / 2; index++) {
        const pair = [sides[2 * index], sides[2 * index + 1]];
        const match = known[2 * index] && known[2 * index + 1]
          ? decideMatch(round, pair, settings, scores, rollOffs.get([game, number, round, index].join("/")))
          : { sides: pair, status: "earlier", winner: null };
        winners.push(match.winner);
        winnersKnown.push(match.status === "decided");
        final = match;
      }
      sides = winners; known = winnersKnown;
    }
    if (final.status !== "decided") return null;
    const size = slots.filter(function (s) { return s !== null; }).length;
    const prize = prizes(settings, size);
    if (final.how === "split") {
      return splitCents(total(prize), final.sides.filter(function (s) { return s !== null; }));
    }
    const paid = new Map([[final.winner, prize[0]]]);
    const loser = final.winner === final.sides[0] ? final.sides[1] : final.sides[0];
    if (prize.length > 1 && loser !== null) paid.set(loser, prize[1]);
    return new Map(pairsOf(paid));
  }

  // ---------------------------------------------------------------- pots
  function payPlaces(ranking, places) {
    if (!ranking.length) return new Map();
    const paid = places.slice(0, ranking.length);
    paid[0] += total(places.slice(ranking.length));
    const won = new Map(), byScore = new Map();
    ranking.forEach(function (r) {
      if (!byScore.has(r[1])) byScore.set(r[1], []);
      byScore.get(r[1]).push(r[0]);
    });
    let place = 0;
    Array.from(byScore.keys()).sort(function (x, y) { return y - x; }).forEach(function (score) {
      const tied = byScore.get(score);
      const shared = total(paid.slice(place, place + tied.length));
      if (shared) splitCents(shared, tied).forEach(function (cents, b) { add(won, b, cents); });
      place += tied.length;
    });
    return new Map(pairsOf(won));
  }

  function potNumber(settings, bowler, scores) {
    const games = settings.games.map(function (g) { return scores.get(bowler + "/" + g); })
      .filter(function (s) { return s; });
    if (settings.kind === "strikes") return total(games.map(function (s) { return s.strikes; }));
    const pins = games.filter(function (s) { return !s.absent; })
      .map(function (s) { return counted(s, settings.scoring); });
    if (settings.kind === "high_game") return pins.length ? Math.max.apply(null, pins) : 0;
    return total(pins);
  }

  // A pot as the games stand: {finished, payouts, organiser, refunds} (Maps by bowler).
  function potOutcome(settings, entrants, scores) {
    const people = Array.from(new Set(entrants)).sort(byNumber);
    const finished = people.every(function (b) {
      return settings.games.every(function (g) { return scores.has(b + "/" + g); });
    });
    const standings = people.map(function (b) { return [b, potNumber(settings, b, scores)]; })
      .sort(function (x, y) { return y[1] - x[1] || x[0] - y[0]; });
    const pot = settings.entry_cents * people.length;
    const organiser = Math.floor(pot * settings.organiser_percent / 100);
    const prize = pot - organiser;
    const outcome = { finished: finished, payouts: new Map(), organiser: organiser, refunds: new Map() };
    if (!people.length) { outcome.organiser = 0; return outcome; }
    if (settings.kind === "strikes") {
      const strikes = total(standings.map(function (s) { return s[1]; }));
      if (!strikes) {
        outcome.organiser = 0;
        people.forEach(function (b) { outcome.refunds.set(b, settings.entry_cents); });
        return outcome;
      }
      const paid = new Map();
      standings.forEach(function (s) { if (s[1]) paid.set(s[0], Math.floor(prize * s[1] / strikes)); });
      const odd = prize - total(Array.from(paid.values()));
      standings.slice(0, odd).forEach(function (s) { add(paid, s[0], 1); });
      outcome.payouts = new Map(pairsOf(paid));
      return outcome;
    }
    const places = settings.places_percent.map(function (p) { return Math.floor(prize * p / 100); });
    places[0] += prize - total(places);
    outcome.payouts = payPlaces(standings, places);
    return outcome;
  }

  const api = { BRACKET_SIZE: BRACKET_SIZE, drawBrackets: drawBrackets, decideBracket: decideBracket,
                potOutcome: potOutcome, pairsOf: pairsOf, add: add, total: total, byNumber: byNumber };
  root.AlleySideRules = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof window !== "undefined" ? window : globalThis);
