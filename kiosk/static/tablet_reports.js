// The night's settlement and the audit log, read from the API; both download as CSV.
(function () {
  "use strict";
  const T = window.Tablet;

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
    T.call("GET", "/api/v1/settlement").then(function (reply) {
      rows(tbody, reply.bowlers || [], function (b) {
        return [b.bowler, (b.matches || []).join(", "),
                T.money(b.paid_cents), T.money(b.won_cents), T.money(b.net_cents)];
      }, 5);
      // The night is over only when no match is left unsettled: name the ones that are.
      const unsettled = document.getElementById("unsettled");
      const open = reply.unsettled || [];
      unsettled.hidden = !open.length;
      unsettled.textContent = open.length ? "⚠ Not settled: " + open.map(function (m) {
        return m.match_id + " (" + m.status + ", pot " + T.money(m.pot_cents) + ")";
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
    }).catch(function (problem) { failed(tbody, 5, problem); });
  }

  const audit = document.getElementById("audit");
  if (audit) {
    const tbody = audit.querySelector("tbody");
    const filter = document.getElementById("audit-filter");
    const csv = document.getElementById("audit-csv");
    function load() {
      const params = new URLSearchParams();
      ["match_id", "actor", "type", "bowler"].forEach(function (key) {
        const value = filter.elements[key].value.trim();
        if (value) params.set(key, value);
      });
      const query = params.toString() ? "?" + params : "";
      csv.href = "/api/v1/audit.csv" + query;
      T.call("GET", "/api/v1/audit" + query).then(function (reply) {
        rows(tbody, reply.entries || [], function (e) {
          return [e.time, e.match_id, String(e.seq), e.type, e.actor, e.summary];
        }, 6);
      }).catch(function (problem) { failed(tbody, 6, problem); });
    }
    filter.addEventListener("submit", function (event) { event.preventDefault(); load(); });
    load();
  }
})();
