// The night's settlement and the audit log, read from the API; both download as CSV.
(function () {
  "use strict";
  const T = window.Commissioner;

  function rows(tbody, items, cells, columns) {
    if (!items.length) {
      const row = T.el("tr");
      const cell = T.el("td", "", "Nothing yet.");
      cell.colSpan = columns;
      row.append(cell);
      tbody.replaceChildren(row);
      return;
    }
    tbody.replaceChildren(...items.map(function (item) {
      const row = T.el("tr");
      cells(item).forEach(function (text) { row.append(T.el("td", "", text)); });
      return row;
    }));
  }

  function failed(tbody, columns, problem) {
    rows(tbody, [problem], function () { return ["✖ " + problem.message]; }, columns);
  }

  const settlement = document.getElementById("settlement");
  if (settlement) {
    const tbody = settlement.querySelector("tbody");
    // The matches as the desk names them (league and lanes): the ids stay in the CSV.
    Promise.all([T.call("GET", "/api/v1/settlement"), T.call("GET", "/api/v1/matches")])
      .then(function (replies) {
      const reply = replies[0], titleOf = {};
      replies[1].matches.forEach(function (m) { titleOf[m.match_id] = m.title; });
      const named = function (id) { return titleOf[id] || "a match"; };
      rows(tbody, reply.bowlers || [], function (b) {
        return [b.bowler, (b.matches || []).map(named).join("; "),
                T.money(b.paid_cents), T.money(b.won_cents), T.money(b.net_cents)];
      }, 5);
      // The night is over only when no match is left unsettled: name the ones that are.
      const unsettled = document.getElementById("unsettled");
      const open = reply.unsettled || [];
      unsettled.hidden = !open.length;
      unsettled.textContent = open.length ? "⚠ Not settled: " + open.map(function (m) {
        return named(m.match_id) + " (" + m.status + ", pot " + T.money(m.pot_cents) + ")";
      }).join(", ") : "";
      const totals = reply.totals;
      if (totals && (reply.bowlers || []).length) {
        const row = T.el("tr", "totals");
        row.append(T.el("th", "", "All bowlers"), T.el("td", "", totals.complete ? "all settled"
                                                           : "⚠ " + T.money(totals.held_cents) + " still in play"),
                   T.el("td", "", T.money(totals.paid_cents)), T.el("td", "", T.money(totals.won_cents)),
                   T.el("td", "", T.money(totals.won_cents - totals.paid_cents)));
        tbody.append(row);
      }
      const deals = document.getElementById("fair-deals");
      if (deals) {
        rows(deals.querySelector("tbody"), reply.fair_deals || [], function (m) {
          return [m.match_id, m.status, m.commitment || "(dealt before fair dealing)",
                  m.seed || (m.commitment ? "revealed at settlement" : "—"), m.chain_head || "—"];
        }, 5);
        (reply.fair_deals || []).forEach(function (m, i) {  // finished: checkable at /verify
          const row = deals.querySelector("tbody").rows[i];
          if (!m.seed || !row) return;
          const check = T.el("a", "check-match", "Check this match");
          check.href = "/verify?match=" + encodeURIComponent(m.match_id);
          row.cells[0].append(" ", check);
        });
      }
    }).catch(function (problem) { failed(tbody, 5, problem); });
  }

  // The audit log, newest first, a page at a time (the cursor is the last entry's id).
  const audit = document.getElementById("audit");
  if (audit) {
    const PAGE = 50;
    const tbody = audit.querySelector("tbody");
    const filter = document.getElementById("audit-filter");
    const csv = document.getElementById("audit-csv");
    const older = document.getElementById("audit-older");
    const zone = document.getElementById("audit-zone");
    let cursor = null;

    // The entry's time as the centre's clock showed it: read from the text the server wrote
    // in the centre's zone, never converted to the tablet's own zone.
    function when(localIso) {
      const [day, time] = localIso.split("T");
      const date = new Date(day + "T00:00:00Z").toLocaleDateString(
        "en-GB", { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" });
      return date + " " + time.slice(0, 8);
    }

    function who(actor) {
      const [kind, name] = actor.split(/:(.*)/s);
      if (kind === "bowler") return name;
      if (kind === "commissioner") return "desk (" + name + ")";
      if (kind === "feed") return "scorer (" + name + ")";
      return actor || "—";
    }

    function filters() {
      const params = new URLSearchParams();
      ["match_id", "actor", "type", "bowler"].forEach(function (key) {
        const value = filter.elements[key].value.trim();
        if (value) params.set(key, value);
      });
      return params;
    }

    function entryRow(e) {
      const row = T.el("tr", "audit-entry");
      row.dataset.id = e.id;
      row.title = e.type + ": " + e.summary;
      row.append(T.el("td", "when", when(e.local_time)), T.el("td", "", e.match_id),
                 T.el("td", "", who(e.actor)), T.el("td", "what", e.description));
      return row;
    }

    async function load(more) {
      const params = filters();
      csv.href = "/api/v1/audit.csv" + (params.toString() ? "?" + params : "");
      params.set("order", "newest");
      params.set("limit", String(PAGE));
      if (more && cursor) params.set("before", String(cursor));
      try {
        const reply = await T.call("GET", "/api/v1/audit?" + params);
        zone.textContent = reply.time_zone;
        if (!more) tbody.replaceChildren();
        if (!more && !reply.entries.length) rows(tbody, [], null, 4);
        reply.entries.forEach(function (e) { tbody.append(entryRow(e)); });
        cursor = reply.next_before;
        older.hidden = !cursor;
      } catch (problem) { failed(tbody, 4, problem); }
    }

    // What was done with held balls (their own log, not a match's): one line per command.
    const heldTable = document.getElementById("audit-held");
    async function loadHeld() {
      if (!heldTable) return;
      const body = heldTable.querySelector("tbody");
      const match = filter.elements.match_id.value.trim();
      try {
        const reply = await T.call("GET", "/api/v1/audit/held" +
                                   (match ? "?match_id=" + encodeURIComponent(match) : ""));
        rows(body, reply.lines, function (line) {
          return [when(line.local_time), who(line.actor), line.description];
        }, 3);
        Array.from(body.rows).forEach(function (row, i) {
          if (reply.lines[i]) row.dataset.count = String(reply.lines[i].count);
        });
      } catch (problem) { failed(body, 3, problem); }
    }

    async function loadMatches() {
      try {
        const reply = await T.call("GET", "/api/v1/matches");
        const select = filter.elements.match_id;
        reply.matches.forEach(function (match) {
          select.append(T.el("option", "", match.match_id));
        });
      } catch (problem) { /* the match box stays at "every match" */ }
    }

    filter.addEventListener("submit", function (event) { event.preventDefault(); load(false); loadHeld(); });
    filter.elements.match_id.addEventListener("change", function () { load(false); loadHeld(); });
    older.addEventListener("click", function () { load(true); });
    loadMatches();
    load(false);
    loadHeld();
  }
})();
