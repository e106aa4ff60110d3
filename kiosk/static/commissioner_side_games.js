// The desk's side games of one league night: open them, set bracket games and pots (the
// side games' refusals shown beside the field they name), record each bowler's entries and
// payment in a grid, the preview and the sealed draw, paid results the games changed (kept
// or taken, with a reason), the pots and the money.  The trees are commissioner_side_trees.js.
// Everything is read from and done through /api/v1/.../side-games; a side_changed push
// (a game finished on the lanes, another desk's entry) reads the night again.
(function () {
  "use strict";
  const T = window.Commissioner, S = window.AlleySide, el = S.el;
  const page = document.getElementById("side-page");
  if (!page) return;
  const base = "/api/v1/leagues/" + encodeURIComponent(page.dataset.league) + "/nights/" +
    encodeURIComponent(page.dataset.nightDate) + "/side-games";
  const closed = document.getElementById("side-closed");
  const opened = document.getElementById("side-open-night");
  const form = document.getElementById("side-settings");
  const live = document.getElementById("side-live");
  let night = null;        // the desk's whole night, as the API answered last

  // Names of the night's bowlers (the grid's rows, then every name the night mentions).
  const names = {};
  document.querySelectorAll("#side-grid-body tr[data-bowler]").forEach(function (row) {
    names[row.dataset.bowler] = row.dataset.name;
  });
  function nameOf(bowler) { return names[bowler] || "bowler " + bowler; }

  async function read() {
    try {
      show(await T.call("GET", base));
    } catch (problem) {
      if (problem.status === 404) { night = null; closed.hidden = false; opened.hidden = true; return; }
      T.say("The side games could not be read: " + problem.message, "refused");
    }
  }

  // One desk action: the night it answers is shown; a refusal is said (and returned).
  async function act(method, tail, body, done) {
    try {
      show(await T.call(method, base + tail, body));
      if (done) T.say(done);
      return null;
    } catch (problem) {
      T.say("Refused: " + problem.message, "refused");
      return problem;
    }
  }

  function show(view) {
    night = view;
    closed.hidden = true;
    opened.hidden = false;
    view.games.forEach(function (game) {
      game.entries.forEach(function (e) { if (e.name) names[e.bowler] = e.name; });
    });
    view.money.bowlers.forEach(function (b) { if (b.name) names[b.bowler] = b.name; });
    drawGrid(view);
    drawPreview(view);
    drawPending(view);
    window.AlleySideTrees.draw(document.getElementById("side-trees"), view, act, nameOf);
    drawPots(view);
    drawMoney(view);
  }

  document.getElementById("side-open").addEventListener("click", function () {
    act("POST", "", {}, "Side games open for " + page.dataset.nightDate);
  });

  // --- the settings form ----------------------------------------------------------------
  function kindShown() {
    const bracket = form.elements.kind.value === "bracket";
    form.querySelector("[data-for-kind=bracket]").hidden = !bracket;
    form.querySelector("[data-for-kind=pot]").hidden = bracket;
  }
  form.elements.kind.addEventListener("change", kindShown);

  function clearProblems() {
    form.querySelectorAll(".field-problem").forEach(function (p) { p.hidden = true; p.textContent = ""; });
    form.querySelectorAll("[aria-invalid]").forEach(function (i) { i.removeAttribute("aria-invalid"); });
    document.getElementById("settings-problem").hidden = true;
  }

  // A problem beside the field it names (the API's "bracket.entry_cents" is entry_cents).
  function fieldProblem(field, message) {
    const key = String(field || "").split(".").pop();
    const spot = document.getElementById("problem-" + key);
    if (!spot || spot.parentElement.closest("[hidden]")) {
      const general = document.getElementById("settings-problem");
      general.hidden = false;
      general.textContent = "✖ " + message;
      return;
    }
    spot.hidden = false;
    spot.textContent = "✖ " + message;
    const input = spot.parentElement.querySelector("input, select");
    if (input) input.setAttribute("aria-invalid", "true");
  }

  function numbers(text) {
    return String(text).split(/[\s,]+/).filter(Boolean).map(Number);
  }

  function settingsBody() {
    const f = form.elements, kind = f.kind.value;
    const body = { kind: kind, scoring: f.scoring.value, games: numbers(f.games.value) };
    const bad = {};
    body.entry_cents = S.cents(f.entry.value);
    if (body.entry_cents === null) bad.entry_cents = "the entry is an amount such as $5.00";
    if (body.games.some(function (g) { return !Number.isInteger(g); })) {
      bad.games = "the games are numbers such as 1, 2, 3";
    }
    if (kind === "bracket") {
      body.payouts_cents = f.payouts.value.split(",").map(S.cents);
      if (body.payouts_cents.some(function (c) { return c === null; })) {
        bad.payouts_cents = "the payouts are amounts such as $25.00, $10.00";
      }
      body.organiser_cents = f.organiser.value.trim() ? S.cents(f.organiser.value) : 0;
      if (body.organiser_cents === null) bad.organiser_cents = "the organiser's share is an amount such as $0.00";
      body.entries_per_bowler = Number(f.entries_per_bowler.value);
      body.tie_rule = f.tie_rule.value;
      body.seven_bowler_brackets = f.seven_bowler_brackets.checked;
    } else {
      body.places_percent = numbers(f.places.value);
      body.organiser_percent = Number(f.organiser_percent.value || 0);
      if (body.places_percent.some(function (p) { return !Number.isInteger(p); })) {
        bad.places_percent = "the places' shares are whole percents such as 70, 30";
      }
    }
    return { body: body, bad: bad };
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    clearProblems();
    const game = form.elements.game.value.trim().toLowerCase();
    const made = settingsBody();
    if (!game) made.bad.game = "name the side game, such as hdcp or high-game";
    if (Object.keys(made.bad).length) {
      Object.keys(made.bad).forEach(function (field) { fieldProblem(field, made.bad[field]); });
      return;
    }
    try {
      show(await T.call("PUT", base + "/games/" + encodeURIComponent(game), made.body));
      T.say("Saved " + S.gameName(game, made.body.kind));
    } catch (problem) {
      fieldProblem(problem.field, problem.message);
    }
  });
  kindShown();

  // --- the entry grid -------------------------------------------------------------------
  // What the desk typed and has not recorded yet, per bowler and game: a push that redraws
  // the grid (a game in, another desk's entry) must not wipe it.
  const typed = {};
  function typedKey(bowler, game) { return bowler + "|" + game; }
  function entriesOf(game, bowler) {
    const found = game.entries.find(function (e) { return String(e.bowler) === String(bowler); });
    return found ? found.entries : 0;
  }

  function isOpen(game, view) {
    return game.settings.kind === "bracket" ? !view.draw.sealed : !view.scores_in;
  }

  let gridDrawn = "";       // what the grid shows: drawn again only when that changes
  function drawGrid(view) {
    const shows = JSON.stringify([view.draw.sealed, view.scores_in > 0, view.games.map(function (g) {
      return [g.game, g.settings, g.entries];
    })]);
    if (shows === gridDrawn) return;
    gridDrawn = shows;
    const head = document.getElementById("side-grid-head");
    head.replaceChildren(el("th", "", "Bowler"));
    head.firstChild.scope = "col";
    view.games.forEach(function (game) {
      const th = el("th", "", S.gameName(game.game, game.settings.kind) + " · " +
                    S.money(game.settings.entry_cents) + (isOpen(game, view) ? "" : " · closed"));
      th.scope = "col";
      head.append(th);
    });
    const action = el("th", "", "Record");
    action.scope = "col";
    head.append(action);
    document.querySelectorAll("#side-grid-body tr[data-bowler]").forEach(function (row) {
      const bowler = row.dataset.bowler, name = row.dataset.name;
      row.replaceChildren(row.firstElementChild);
      let anyOpen = false;
      view.games.forEach(function (game) {
        const cell = el("td", "side-cell");
        cell.dataset.game = game.game;
        const have = entriesOf(game, bowler);
        const owned = el("span", "side-have", have ? have + " × " + S.money(game.settings.entry_cents) +
                         " = " + S.money(have * game.settings.entry_cents) + " paid" : "none");
        cell.append(owned);
        if (isOpen(game, view)) {
          anyOpen = true;
          const buy = el("input", "side-buy");
          buy.type = "number"; buy.min = "0"; buy.step = "1"; buy.value = "";
          buy.max = String(game.settings.kind === "bracket" ? game.settings.entries_per_bowler : 1);
          buy.setAttribute("aria-label", name + ": " + S.gameName(game.game, game.settings.kind) + " to buy");
          buy.placeholder = "buy";
          const paid = el("input", "side-paid");
          paid.inputMode = "decimal";
          paid.placeholder = "paid";
          paid.setAttribute("aria-label", name + ": paid for " + S.gameName(game.game, game.settings.kind));
          const key = typedKey(bowler, game.game);
          if (typed[key]) { buy.value = typed[key].buy; paid.value = typed[key].paid; }
          buy.addEventListener("input", function () {
            const n = Number(buy.value);
            paid.value = n > 0 ? S.money(n * game.settings.entry_cents) : "";
            typed[key] = { buy: buy.value, paid: paid.value };
          });
          paid.addEventListener("input", function () {
            typed[key] = { buy: buy.value, paid: paid.value };
          });
          cell.append(buy, paid);
          if (have) {
            cell.append(T.button("Take one back", function () {
              act("POST", "/withdrawals", { game: game.game, bowler: Number(bowler), entries: 1 },
                  "Took back one " + S.gameName(game.game, game.settings.kind) + " entry of " + name +
                  " (refund " + S.money(game.settings.entry_cents) + ")");
            }, "side-withdraw"));
          }
        }
        row.append(cell);
      });
      const record = el("td", "side-record");
      if (anyOpen) record.append(T.button("Record " + name, function () { recordRow(row); }, "side-record-button"));
      row.append(record);
      T.labelCells(row, Array.from(head.children).map(function (h) { return h.textContent; }));
    });
  }

  async function recordRow(row) {
    const name = row.dataset.name, bowler = Number(row.dataset.bowler);
    const wanted = Array.from(row.querySelectorAll("td.side-cell")).map(function (cell) {
      const buy = cell.querySelector(".side-buy"), paid = cell.querySelector(".side-paid");
      return buy && Number(buy.value) > 0 ? { game: cell.dataset.game, entries: Number(buy.value),
                                              buy: buy.value, paid: paid.value } : null;
    }).filter(Boolean);
    if (!wanted.length) { T.say("Type how many " + name + " buys first", "refused"); return; }
    const bad = wanted.find(function (w) { return S.cents(w.paid) === null; });
    if (bad) { T.say("Refused: what " + name + " paid is an amount such as $10.00", "refused"); return; }
    wanted.forEach(function (w) { delete typed[typedKey(bowler, w.game)]; });
    const done = [];
    for (let i = 0; i < wanted.length; i++) {
      const w = wanted[i];
      const refused = await act("POST", "/entries", { game: w.game, bowler: bowler,
                                                      entries: w.entries, paid_cents: S.cents(w.paid) });
      if (refused) {          // what was not recorded stays typed, to fix and record again
        wanted.slice(i).forEach(function (left) {
          typed[typedKey(bowler, left.game)] = { buy: left.buy, paid: left.paid };
        });
        if (night) { gridDrawn = ""; drawGrid(night); }
        return;
      }
      done.push(w.entries + " in " + S.gameName(w.game, kindOf(w.game)) + " (" + S.money(S.cents(w.paid)) + ")");
    }
    T.say("Recorded " + name + ": " + done.join(", "));
  }

  function kindOf(game) {
    const found = night && night.games.find(function (g) { return g.game === game; });
    return found ? found.settings.kind : "bracket";
  }

  // --- the preview and the draw ---------------------------------------------------------
  function drawPreview(view) {
    const box = document.getElementById("side-preview");
    const commitment = document.getElementById("side-commitment");
    const button = document.getElementById("side-draw");
    const brackets = view.games.filter(function (g) { return g.settings.kind === "bracket"; });
    box.replaceChildren();
    brackets.forEach(function (game) {
      const p = game.preview;
      if (!p) return;
      const sold = game.entries.reduce(function (n, e) { return n + e.entries; }, 0);
      const line = el("p", "side-preview-line");
      line.dataset.game = game.game;
      line.append(el("strong", "", S.gameName(game.game, "bracket") + ": "),
        sold + " entries: " + (p.brackets - p.sevens) + " filled bracket" + (p.brackets - p.sevens === 1 ? "" : "s") +
        ", " + p.sevens + " of seven with a bye, " + p.left_over + " left over (rolled over or refunded); " +
        (p.to_fill_next > 0 ? p.to_fill_next + " more entries would fill one more." : "one more is full."));
      box.append(line);
    });
    if (!brackets.length) box.append(el("p", "muted", "No bracket game set yet."));
    button.hidden = view.draw.sealed || !brackets.length;
    if (view.draw.sealed) {
      const at = view.draw.committed_at ? " at " + new Date(view.draw.committed_at)
        .toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "";
      commitment.textContent = "Sealed" + at +
        ": commitment " + view.draw.commitment + (view.draw.seed
          ? " · seed revealed: " + view.draw.seed + " (anyone can re-do the draw)"
          : " · the seed stays secret until the night closes");
    } else {
      commitment.textContent = "Not drawn yet: the draw is sealed before the night's first ball (at the latest, by that ball).";
    }
  }

  document.getElementById("side-draw").addEventListener("click", async function () {
    if (!window.confirm("Seal and make the draw now? Bracket entries close.")) return;
    const refused = await act("POST", "/draw", {}, "The draw is sealed and made");
    const problem = document.getElementById("draw-problem");
    problem.hidden = !refused;
    if (refused) problem.textContent = "✖ " + refused.message;
  });

  // --- paid results the games changed ---------------------------------------------------
  function payLine(result) {
    if (!result || !result.payouts.length) return "nothing";
    return result.payouts.slice().sort(function (a, b) { return b[1] - a[1]; })
      .map(function (p) { return nameOf(p[0]) + " " + S.money(p[1]); }).join(", ");
  }

  function drawPending(view) {
    const section = document.getElementById("side-pending-section");
    const list = document.getElementById("side-pending");
    section.hidden = !view.pending_changes.length;
    list.replaceChildren.apply(list, view.pending_changes.map(function (change, i) {
      const item = el("li", "side-change");
      item.dataset.game = change.game;
      if (change.bracket) item.dataset.bracket = change.bracket;
      const what = change.bracket ? S.bracketName(change.game, change.bracket)
                                  : S.gameName(change.game, kindOf(change.game));
      item.append(el("strong", "", what + ": "), "paid " + payLine(change.paid) + "; the games now say " +
                  payLine(change.now) + ".");
      const label = el("label", "", "Reason ");
      const reason = el("input");
      reason.name = "reason-" + i;
      label.append(reason);
      const answer = function (accept) {
        return function () {
          if (!reason.value.trim()) { T.say("Give the reason first", "refused"); reason.focus(); return; }
          const body = { game: change.game, accept: accept, reason: reason.value.trim() };
          if (change.bracket) body.bracket = change.bracket;
          act("POST", "/changes", body, accept ? "The new result stands: " + what
                                               : "The paid result stands: " + what);
        };
      };
      item.append(label, T.button("Pay the new result", answer(true), "primary"),
                  T.button("Keep the paid result", answer(false)));
      return item;
    }));
  }

  // --- the pots --------------------------------------------------------------------------
  function drawPots(view) {
    const box = document.getElementById("side-pots");
    const pots = view.games.filter(function (g) { return g.pot; });
    if (!pots.length) { box.replaceChildren(el("p", "muted", "No pots tonight.")); return; }
    box.replaceChildren.apply(box, pots.map(function (game) {
      const pot = game.pot, card = el("div", "side-pot");
      card.dataset.game = game.game;
      const total = game.entries.length * game.settings.entry_cents;
      card.append(el("h4", "", S.gameName(game.game, game.settings.kind) + " · " +
                     game.entries.length + " in, " + S.money(total) +
                     (pot.paid ? " · paid" : pot.finished ? " · finished" : "")));
      const list = el("ol", "side-standings");
      pot.standings.forEach(function (row) {
        const won = pot.payouts.find(function (p) { return p[0] === row.bowler; });
        list.append(el("li", "", row.name + ": " + row.number +
                       (game.settings.kind === "strikes" ? " strike" + (row.number === 1 ? "" : "s") : "") +
                       (won ? " · wins " + S.money(won[1]) : "")));
      });
      if (!pot.standings.length) list.append(el("li", "muted", "No game in yet."));
      card.append(list);
      if (pot.waiting_on.length) {
        card.append(el("p", "muted", "Waiting on " + pot.waiting_on.length + " game" +
                       (pot.waiting_on.length === 1 ? "" : "s") + "."));
      }
      if (!pot.paid) {
        card.append(T.button(pot.finished ? "Pay the pot" : "Pay the pot as it stands", function () {
          if (!pot.finished && !window.confirm("Pay " + game.game + " as it stands? Games are still to come.")) return;
          act("POST", "/payments", { game: game.game, as_they_stand: !pot.finished }, "Paid " + game.game);
        }));
      }
      return card;
    }));
  }

  // --- the money ---------------------------------------------------------------------------
  function drawMoney(view) {
    const m = view.money, box = document.getElementById("side-money");
    const sums = el("p", "side-sums" + (m.balanced ? "" : " unbalanced"));
    sums.append(el("strong", "", "Paid in " + S.money(m.entries_cents)), " = won " + S.money(m.payouts_cents) +
                " + refunded " + S.money(m.refunds_cents) + " + organiser's share " + S.money(m.organiser_cents) +
                " + in play " + S.money(m.in_play_cents) + (m.balanced ? " ✔ balanced to the cent" : " ✖ does not balance"));
    const table = el("table", "report side-money-table");
    const titles = ["Bowler", "Paid", "Won", "Refunded", "Net"];
    const head = el("tr");
    titles.forEach(function (t) { const th = el("th", "", t); th.scope = "col"; head.append(th); });
    table.append(el("thead"), el("tbody"));
    table.tHead.append(head);
    m.bowlers.forEach(function (b) {
      const row = el("tr");
      row.dataset.bowler = b.bowler;
      row.append(el("td", "", b.name), el("td", "", S.money(b.paid_cents)), el("td", "", S.money(b.won_cents)),
                 el("td", "", S.money(b.refunded_cents)), el("td", "", S.money(b.net_cents)));
      T.labelCells(row, titles);
      table.tBodies[0].append(row);
    });
    const scroll = el("div", "table-scroll");
    scroll.append(table);
    box.replaceChildren(sums, scroll);
  }

  // --- live --------------------------------------------------------------------------------
  let readTimer = null;
  function readSoon() {
    if (readTimer) return;
    readTimer = setTimeout(function () { readTimer = null; read(); }, 150);
  }
  const socket = io({ transports: ["websocket"], reconnectionDelayMax: 3000 });
  socket.on("connect", function () {
    socket.emit("side_join", { night_id: page.dataset.night }, function (reply) {
      const ok = reply && reply.ok;
      live.dataset.state = ok ? "live" : "down";
      live.textContent = ok ? "● Live" : "▲ Not following: " + (reply && reply.error ? reply.error.message : "no answer");
    });
    read();
  });
  socket.on("disconnect", function () { live.dataset.state = "down"; live.textContent = "▲ Reconnecting…"; });
  socket.on("side_changed", function (message) {
    if (message.night_id !== page.dataset.night) return;
    if (message.kind === "side_draw_refused") T.say("The draw was not sealed at the first ball: see the draw", "refused");
    readSoon();
  });
  read();
})();
