// /verify: load a match export (by match id from the server, or pasted, dropped or picked as a
// file) and check it with AlleyFairVerify in this browser; show progress and a plain verdict.
(function () {
  "use strict";
  const V = window.AlleyFairVerify;
  const Side = window.AlleySideVerify;
  const byNight = document.getElementById("by-night");
  const nightInput = document.getElementById("night-id");
  const byId = document.getElementById("by-id");
  const matchInput = document.getElementById("match-id");
  const headInput = document.getElementById("printed-head");
  const text = document.getElementById("export-text");
  const file = document.getElementById("export-file");
  const pasted = document.getElementById("check-pasted");
  const paste = document.querySelector(".verify-paste");
  const progress = document.getElementById("verify-progress");
  const status = document.getElementById("verify-status");
  const verdictLine = document.getElementById("verdict");
  const details = document.getElementById("verify-details");
  const buttons = [document.getElementById("load-match"), document.getElementById("load-night"), pasted];
  let busy = false;

  function money(cents) { return "$" + (cents / 100).toFixed(2); }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  function clear() {
    verdictLine.hidden = true;
    verdictLine.dataset.verdict = "";
    details.replaceChildren();
  }

  function say(words) { status.textContent = words; }

  function listDetails(lines) {
    lines.forEach(function (line) {
      if (!line) return;
      const item = document.createElement("li");
      item.textContent = line;
      details.append(item);
    });
  }

  // What each of a night's events is, in words (verify_side_games.js names them by their key).
  const NIGHT_EVENTS = {
    side_night_opened: "the night opened", side_game_set: "a side game set", entry_recorded: "an entry",
    entry_withdrawn: "an entry withdrawn", draw_committed: "the draw sealed", draw_made: "the draw",
    seed_revealed: "the seed revealed", score_recorded: "a game's score", roll_off_recorded: "a roll-off",
    bracket_paid: "a bracket paid", pot_paid: "a pot paid", paid_result_changed: "a paid result changed",
    paid_result_kept: "a paid result kept",
  };
  function inWords(problem) {
    return problem.replace(/^#(\d+) (\w+): /, function (all, seq, type) {
      return "event #" + seq + " (" + (NIGHT_EVENTS[type] || "an event") + "): ";
    });
  }

  // A bracket night's verdict (verify_side_games.js): every problem named, not only the first.
  function showSide(verdict) {
    progress.hidden = true;
    verdictLine.hidden = false;
    verdictLine.dataset.verdict = verdict.ok ? "ok" : verdict.problems.length ? "failed" : "unproven";
    verdictLine.dataset.seq = "";
    const night = verdict.nightId ? "Bracket night " + verdict.nightId : "This export";
    const c = verdict.counts;
    if (verdict.ok) {
      verdictLine.textContent = "OK: " + night + " is a fair draw, paid as its games decide.";
      listDetails([
        "The seed matches the commitment sealed before the first ball.",
        plural(c.draws, "draw") + " re-done here from the revealed seed: every bracket is what it draws from the entries.",
        plural(c.payments, "payment") + " (brackets and pots), each what the games decide.",
        verdict.moneyLine,
        c.events + " events checked.",
      ]);
    } else if (verdict.problems.length) {
      verdictLine.textContent = "FAILED: " + night + ": " + inWords(verdict.problems[0]) + ".";
      listDetails(verdict.problems.slice(1).map(inWords));
    } else {
      verdictLine.textContent = "NOT YET PROVABLE: " + night + ": " + verdict.unproven.map(inWords).join("; ") +
        ". The seed is revealed at the night's close.";
    }
    say("Checked " + plural(c.events, "event") + ".");
  }

  // A pasted export: a bracket night's goes to verify_side_games.js, a match's to verify_fair.js.
  function verifyAny(content, options) {
    let parsed = null;
    try { parsed = JSON.parse(content); } catch (error) { parsed = null; }
    if (Side.isSideExport(parsed)) return Side.verifyExport(parsed);
    return V.verifyText(content, options);
  }

  function show(verdict) {
    if (verdict.kind === "side-night") { showSide(verdict); return; }
    progress.hidden = true;
    verdictLine.hidden = false;
    verdictLine.dataset.verdict = verdict.ok ? "ok" : "failed";
    verdictLine.dataset.seq = verdict.seq === null || verdict.seq === undefined ? "" : String(verdict.seq);
    const match = verdict.matchId ? "Match " + verdict.matchId : "This export";
    if (verdict.ok) {
      verdictLine.textContent = "OK: " + match + " is a fair deal. Every card follows from the revealed seed, and the record is intact.";
      const c = verdict.counts;
      [
        "The seed matches the commitment " + verdict.commitment + " shown before the first card.",
        "The first deck and " + plural(c.reshuffles, "reshuffle") + " follow from the seed.",
        plural(c.draws, "card") + " drawn, each the top of the pile" +
          (c.courtesy ? "; " + plural(c.courtesy, "courtesy draw") + " as the seed picks" : "") + ".",
        c.undoOrders ? plural(c.undoOrders, "undo") + " put back exactly the cards dealt before." : null,
        money(c.paidIn) + " paid in (antes and buys), " + money(c.paidOut) + " paid out or refunded.",
        verdict.events + " events, chain head " + verdict.chainHead +
          (headInput.value.trim() ? " — the same as the night sheet's." : " (compare it with the night sheet)."),
      ].forEach(function (line) {
        if (!line) return;
        const item = document.createElement("li");
        item.textContent = line;
        details.append(item);
      });
      say("Checked " + verdict.events + " events.");
    } else {
      verdictLine.textContent = "FAILED: " + match + (verdict.seq ? ", event #" + verdict.seq : "") + ": " + verdict.problem +
        (/[.!?]$/.test(verdict.problem) ? "" : ".");  // a problem ending on "Ray, Jr." has its stop
      say("The check stopped at the first thing that disagrees.");
    }
  }

  async function check(run) {
    if (busy) return;
    busy = true;
    buttons.forEach(function (b) { b.disabled = true; });
    clear();
    progress.hidden = false;
    progress.value = 0;
    const options = {
      printedHead: headInput.value,
      onProgress: function (done, total) {
        progress.max = total; progress.value = done;
        say("Checking event " + done + " of " + total + "…");
      },
    };
    try {
      const verdict = await run(options);
      if (verdict) show(verdict);
      else progress.hidden = true;
    } finally {
      busy = false;
      buttons.forEach(function (b) { b.disabled = false; });
    }
  }

  // An export from the server: its body, or null once the reason is said.  `kind` is "match"
  // or "bracket night", `early` says why a 409 is early.
  async function fetchExport(url, kind, id, early) {
    const what = kind + " " + id, noun = kind.split(" ").pop();
    say("Loading " + what + "…");
    let reply;
    try {
      reply = await fetch(url);
    } catch (error) {
      say("No connection: the " + noun + " could not be loaded. Paste or drop its export below instead; that needs no connection.");
      return null;
    }
    let body = null;
    try { body = await reply.json(); } catch (error) { body = null; }
    if (!reply.ok) {
      const why = body && body.error && body.error.message;
      say(reply.status === 404 ? "There is no " + what + "." :
          reply.status === 409 ? what.charAt(0).toUpperCase() + what.slice(1) + " " + early :
          "The " + noun + " could not be loaded" + (why ? ": " + why : "") + ".");
      return null;
    }
    text.value = JSON.stringify(body, null, 1);
    return body;
  }

  async function load(options) {
    const id = matchInput.value.trim();
    if (!id) { say("Type the match's name first (it is on the kiosk and the night sheet)."); return null; }
    const body = await fetchExport("/api/v1/matches/" + encodeURIComponent(id) + "/export", "match", id,
                                   "is not finished yet: it can be checked once it is settled or voided.");
    return body && V.verifyExport(body, options);
  }

  async function loadNight() {
    const id = nightInput.value.trim();
    if (!id) { say("Type the night's name first (it is on the night sheet, e.g. tue-2026-11-24)."); return null; }
    const body = await fetchExport("/api/v1/side-nights/" + encodeURIComponent(id) + "/export", "bracket night", id,
                                   "is not closed yet: its draw can be checked once the seed is revealed at the night's close.");
    return body && Side.verifyExport(body);
  }

  byNight.addEventListener("submit", function (event) {
    event.preventDefault();
    check(loadNight);
  });
  byId.addEventListener("submit", function (event) {
    event.preventDefault();
    check(load);
  });
  pasted.addEventListener("click", function () {
    if (!text.value.trim()) { say("Paste a match export first, or drop its file here."); return; }
    check(function (options) { return verifyAny(text.value, options); });
  });

  function readFile(chosen) {
    if (!chosen) return;
    chosen.text().then(function (content) {
      text.value = content;
      check(function (options) { return verifyAny(content, options); });
    }, function () { say("That file could not be read."); });
  }
  file.addEventListener("change", function () { readFile(file.files[0]); });
  paste.addEventListener("dragover", function (event) { event.preventDefault(); paste.classList.add("dragging"); });
  paste.addEventListener("dragleave", function () { paste.classList.remove("dragging"); });
  paste.addEventListener("drop", function (event) {
    event.preventDefault();
    paste.classList.remove("dragging");
    readFile(event.dataTransfer.files[0]);
  });

  if (!window.crypto || !window.crypto.subtle) {
    say("This browser cannot check matches here: it offers no WebCrypto (open this page over https or on the centre's network address).");
    buttons.forEach(function (b) { b.disabled = true; });
  } else if (matchInput.value.trim()) {
    check(load);
  } else if (nightInput.value.trim()) {
    check(loadNight);
  }
})();
