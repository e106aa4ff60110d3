// The commissioner's tablet, shared by every page: the JSON API with the session's CSRF
// token, a notice line, and small helpers.  Each page's own script uses window.Commissioner.
(function () {
  "use strict";
  const csrfToken = document.querySelector("meta[name=csrf-token]").content;
  const notice = document.getElementById("notice");

  // One call to the API (or the tablet's own JSON); resolves to the reply, or throws an
  // Error carrying the API's message and the field it names.
  async function call(method, path, body) {
    const options = { method: method, credentials: "same-origin",
                      headers: { "Accept": "application/json" } };
    if (method !== "GET") {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-CSRFToken"] = csrfToken;
      options.body = JSON.stringify(body || {});
    }
    const answer = await fetch(path, options);
    let reply = null;
    try { reply = await answer.json(); } catch (_) { reply = null; }
    if (!answer.ok) {
      const problem = new Error(reply && reply.error ? reply.error.message
                                                     : answer.status + " " + answer.statusText);
      problem.field = reply && reply.error ? reply.error.field : null;
      problem.status = answer.status;
      // A roster file's refusal lists each bad row ({line, reason}).
      problem.rows = reply && reply.error && reply.error.rows ? reply.error.rows : null;
      throw problem;
    }
    return reply;
  }

  function command(matchId, kind, body) {
    return call("POST", "/api/v1/matches/" + encodeURIComponent(matchId) + "/commands/" + kind,
                body);
  }

  // Shown in words; a refusal is marked with a sign as well as a colour.
  function say(text, kind) {
    notice.hidden = false;
    notice.dataset.kind = kind || "ok";
    notice.textContent = (kind === "refused" ? "✖ " : "✔ ") + text;
  }

  function money(cents) {
    const sign = cents < 0 ? "−" : "";
    cents = Math.abs(cents);
    return sign + "$" + Math.floor(cents / 100) + "." + String(cents % 100).padStart(2, "0");
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function button(text, onClick, className) {
    const node = el("button", className, text);
    node.type = "button";
    node.addEventListener("click", onClick);
    return node;
  }

  // Every ruling: one tap, then a confirm naming exactly what will happen.
  async function rule(question, matchId, kind, body, done) {
    if (!window.confirm(question)) return false;
    try {
      await command(matchId, kind, body);
      say(done);
      return true;
    } catch (problem) {
      say("Refused: " + problem.message, "refused");
      return false;
    }
  }

  function localTime(iso) {
    return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  }

  // Undo: ask the ledger what exactly would be taken back, name it in the confirm, and send
  // its id, so a tap never undoes something else that became last meanwhile.
  async function undoLast(matchId, reason) {
    let last;
    try {
      last = (await call("GET", "/api/v1/matches/" + encodeURIComponent(matchId) + "/undo"))
        .undoable;
    } catch (problem) {
      say("Refused: " + problem.message, "refused");
      return false;
    }
    if (!last) {
      say("Nothing to undo in this match: the desk has done nothing since that " +
          "can be taken back (the scorer's balls and the bowlers' own choices are never " +
          "undone).", "refused");
      return false;
    }
    const question = "Undo " + last.what + " at " + localTime(last.at) + "?\n" +
      last.undo.charAt(0).toUpperCase() + last.undo.slice(1) +
      (/[.!?]$/.test(last.undo) ? "" : ".") + "\nReason: " + reason;
    if (!window.confirm(question)) return false;
    try {
      await command(matchId, "undo-last", { action: last.action, reason: reason });
      say("Undone: " + last.what);
      return true;
    } catch (problem) {
      say("Not undone: " + problem.message, "refused");
      return false;
    }
  }

  // Each cell carries its column's title: on a phone a table reflows into one card per row
  // and the titles are shown beside the values (shared_base.css).
  function labelCells(row, titles) {
    Array.from(row.children).forEach(function (cell, index) { cell.dataset.label = titles[index]; });
  }

  // A page's print button (the night sheet, a match's story): wired here, as the pages'
  // Content-Security-Policy runs no inline onclick= handler (web.security_headers).
  document.querySelectorAll("button[data-print]").forEach(function (printer) {
    printer.addEventListener("click", function () { window.print(); });
  });

  window.Commissioner = { call: call, command: command, say: say, money: money, el: el,
                    button: button, rule: rule, undoLast: undoLast, labelCells: labelCells };
})();
