// Live win odds (docs/odds.md): kept per match, newest event first, and drawn as a small bar
// with the percentage beside each hand.  Used by the kiosk and the tablet.
(function () {
  "use strict";
  const byMatch = {};  // match_id -> odds {seq, iterations, exact, bowlers: {name: {win, ...}}}

  // How far along odds are: their event, then how many runs they come from (the result
  // itself beats any estimate).  Pushes and reads travel apart (a socket and HTTP), so a read
  // that started before a refinement may land after it, carrying the same event's first
  // estimate: the event alone cannot tell which is newer.
  function progress(odds) {
    return [odds.seq, odds.exact ? Infinity : (odds.iterations || 0)];
  }

  // True when ``next`` should replace ``known`` (none, or odds not as far along).
  function supersedes(known, next) {
    if (!next || typeof next.seq !== "number" || !next.bowlers) return false;
    if (!known) return true;
    const [seq, runs] = progress(known), [nextSeq, nextRuns] = progress(next);
    if (nextSeq !== seq) return nextSeq > seq;
    if (nextRuns !== runs) return nextRuns > runs;
    return JSON.stringify(known) !== JSON.stringify(next);
  }

  // Keep ``odds`` for ``matchId`` unless the odds already kept are further along; true when
  // they changed.
  function keep(matchId, odds) {
    if (!supersedes(byMatch[matchId], odds)) return false;
    byMatch[matchId] = odds;
    return true;
  }

  function percent(win) {
    const value = Math.round(win * 100);
    if (value === 0 && win > 0) return "<1%";
    if (value === 100 && win < 1) return ">99%";
    return value + "%";
  }

  // The odds of ``name`` in ``state`` as a node, or null when there are none to show.
  function node(state, name, tag) {
    const odds = byMatch[state.match_id];
    if (!odds || !odds.bowlers || !odds.bowlers[name]) return null;
    if (["playing", "ending", "settled"].indexOf(state.status) < 0) return null;
    const win = odds.bowlers[name].win;
    const box = document.createElement(tag || "div");
    box.className = "odds";
    box.dataset.win = String(win);
    box.dataset.seq = String(odds.seq);
    const bar = document.createElement("span");
    bar.className = "odds-bar";
    bar.setAttribute("aria-hidden", "true");
    const fill = document.createElement("span");
    fill.className = "odds-fill";
    fill.style.width = Math.round(win * 100) + "%";
    bar.append(fill);
    const words = document.createElement("span");
    words.className = "odds-text";
    words.textContent = percent(win) + (odds.exact ? " won" : " to win");
    box.append(bar, words);
    // The expected share of the pot in money (before the result; then it is the payout).
    const cents = odds.bowlers[name].expected_cents;
    if (typeof cents === "number") {
      const money = document.createElement("span");
      money.className = "odds-money";
      money.textContent = "$" + (cents / 100).toFixed(2);
      money.title = odds.exact ? "share of the pot" : "expected share of the pot";
      box.append(money);
    }
    return box;
  }

  window.AlleyOdds = { keep: keep, supersedes: supersedes, node: node, percent: percent };
})();
