// /verify: load a match export (by match id from the server, or pasted, dropped or picked as a
// file) and check it with AlleyFairVerify in this browser; show progress and a plain verdict.
(function () {
  "use strict";
  const V = window.AlleyFairVerify;
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
  const buttons = [document.getElementById("load-match"), pasted];
  let busy = false;

  function money(cents) { return "$" + (cents / 100).toFixed(2); }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  function clear() {
    verdictLine.hidden = true;
    verdictLine.dataset.verdict = "";
    details.replaceChildren();
  }

  function say(words) { status.textContent = words; }

  function show(verdict) {
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

  async function load(options) {
    const id = matchInput.value.trim();
    if (!id) { say("Type the match's name first (it is on the kiosk and the night sheet)."); return null; }
    say("Loading match " + id + "…");
    let reply;
    try {
      reply = await fetch("/api/v1/matches/" + encodeURIComponent(id) + "/export");
    } catch (error) {
      say("No connection: the match could not be loaded. Paste or drop its export below instead; that needs no connection.");
      return null;
    }
    let body = null;
    try { body = await reply.json(); } catch (error) { body = null; }
    if (!reply.ok) {
      const why = body && body.error && body.error.message;
      say(reply.status === 404 ? "There is no match " + id + "." :
          reply.status === 409 ? "Match " + id + " is not finished yet: it can be checked once it is settled or voided." :
          "The match could not be loaded" + (why ? ": " + why : "") + ".");
      return null;
    }
    text.value = JSON.stringify(body, null, 1);
    return V.verifyExport(body, options);
  }

  byId.addEventListener("submit", function (event) {
    event.preventDefault();
    check(load);
  });
  pasted.addEventListener("click", function () {
    if (!text.value.trim()) { say("Paste a match export first, or drop its file here."); return; }
    check(function (options) { return V.verifyText(text.value, options); });
  });

  function readFile(chosen) {
    if (!chosen) return;
    chosen.text().then(function (content) {
      text.value = content;
      check(function (options) { return V.verifyText(content, options); });
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
  }
})();
