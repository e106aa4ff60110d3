// The league pages: make a league, change its settings, and keep its roster (add, edit,
// retire, re-activate, import a CSV file).  Everything goes through /api/v1/leagues; a
// refusal is shown in words next to the form, and a bad roster file lists every bad row.
(function () {
  "use strict";
  const T = window.Commissioner;

  function show(problemEl, text) {
    problemEl.hidden = !text;
    problemEl.textContent = text ? "✖ " + text : "";
  }

  function dollarsToCents(text) {
    const found = /^\s*(\d+)(?:\.(\d{1,2}))?\s*$/.exec(text);
    if (!found) return null;
    return Number(found[1]) * 100 + Number((found[2] || "0").padEnd(2, "0"));
  }

  // "1-2, 3-4" as [[1, 2], [3, 4]]; null when it does not read.
  function lanePairs(text) {
    const pairs = text.split(",").map(function (part) {
      const found = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(part);
      return found ? [Number(found[1]), Number(found[2])] : null;
    });
    return pairs.every(Boolean) ? pairs : null;
  }

  // The settings fields of a form as the API's body (what the API refuses, it names).
  function settings(form) {
    const body = {
      rule_book: form.elements.rule_book.value.trim(),
      ante_cents: dollarsToCents(form.elements.ante.value),
      weekday: Number(form.elements.weekday.value),
      start_time: form.elements.start_time.value.trim(),
      time_zone: form.elements.time_zone.value.trim(),
      lane_pairs: lanePairs(form.elements.lane_pairs.value),
      games: Number(form.elements.games.value),
      handicap_percent: Number(form.elements.handicap_percent.value),
      handicap_basis: Number(form.elements.handicap_basis.value),
      lowest_draw_by: form.elements.lowest_draw_by.value,
    };
    if (body.ante_cents === null) throw new Error("the ante is dollars and cents, such as 2.00");
    if (body.lane_pairs === null) throw new Error("lane pairs are written 1-2, 3-4");
    return body;
  }

  function fieldLabel(problem) {
    return problem.field ? " (" + problem.field.replace(/_/g, " ") + ")" : "";
  }

  // --- the leagues page: a new league ----------------------------------------------------
  const newLeague = document.getElementById("new-league");
  if (newLeague) {
    const problem = document.getElementById("new-league-problem");
    newLeague.addEventListener("submit", async function (event) {
      event.preventDefault();
      try {
        const body = Object.assign(settings(newLeague), {
          league_id: newLeague.elements.league_id.value.trim(),
          name: newLeague.elements.name.value.trim(),
        });
        const made = await T.call("POST", "/api/v1/leagues", body);
        window.location.assign("/commissioner/leagues/" + encodeURIComponent(made.league_id));
      } catch (refused) {
        show(problem, refused.message + fieldLabel(refused));
      }
    });
  }

  const page = document.getElementById("league-page");
  if (!page) return;
  const leagueId = page.dataset.league;
  const base = "/api/v1/leagues/" + encodeURIComponent(leagueId);

  // --- settings ----------------------------------------------------------------------------
  const settingsForm = document.getElementById("league-settings");
  settingsForm.addEventListener("submit", async function (event) {
    event.preventDefault();
    const problem = document.getElementById("settings-problem");
    try {
      const body = Object.assign(settings(settingsForm),
                                 { name: settingsForm.elements.name.value.trim() });
      await T.call("PUT", base, body);
      show(problem, "");
      T.say("Settings saved");
    } catch (refused) {
      show(problem, refused.message + fieldLabel(refused));
    }
  });

  // --- the roster --------------------------------------------------------------------------
  const roster = document.getElementById("roster");
  const tbody = roster.querySelector("tbody");
  const showRetired = document.getElementById("show-retired");

  function bowlerFields(form) {
    const average = form.elements.average.value.trim();
    const team = form.elements.team.value.trim();
    return { name: form.elements.name.value.trim(),
             scorer_name: form.elements.scorer_name.value.trim(),
             average: average === "" ? null : Number(average),
             handicap_basis: form.elements.handicap_basis.value,
             team: team === "" ? null : team };
  }

  function bowlerRow(b) {
    const row = T.el("tr", b.active ? "bowler-row" : "bowler-row retired");
    row.dataset.bowler = b.bowler_id;
    row.dataset.name = b.name;
    [b.name, b.scorer_name, b.average === null ? "—" : String(b.average), String(b.handicap),
     b.handicap_basis, b.team || "—", b.active ? "active" : "retired"].forEach(function (text) {
      row.append(T.el("td", "", text));
    });
    const actions = T.el("td", "actions");
    actions.append(T.button("Edit", function () { edit(row, b); }, "edit"));
    if (b.active) {
      actions.append(" ", T.button("Retire", function () { setActive(b, false); }, "danger retire"));
    } else {
      actions.append(" ", T.button("Re-activate", function () { setActive(b, true); }, "reactivate"));
    }
    row.append(actions);
    return row;
  }

  async function load() {
    try {
      const reply = await T.call("GET", base + "/bowlers?include_retired=" + showRetired.checked);
      if (!reply.bowlers.length) {
        const row = T.el("tr");
        const cell = T.el("td", "", "Nobody on the roster yet.");
        cell.colSpan = 8;
        row.append(cell);
        tbody.replaceChildren(row);
        return;
      }
      tbody.replaceChildren(...reply.bowlers.map(bowlerRow));
    } catch (problem) {
      T.say("The roster did not load: " + problem.message, "refused");
    }
  }

  async function setActive(b, active) {
    const question = active ? "Re-activate " + b.name + "? They can be checked in again."
      : "Retire " + b.name + "? They keep their history but cannot be checked in.";
    if (!window.confirm(question)) return;
    try {
      await T.call("PATCH", base + "/bowlers/" + b.bowler_id, { active: active });
      T.say(b.name + (active ? " is active again" : " is retired"));
      load();
    } catch (problem) {
      T.say("Refused: " + problem.message, "refused");
    }
  }

  function edit(row, b) {
    const editor = document.getElementById("edit-row").content.firstElementChild.cloneNode(true);
    const form = editor.querySelector("form");
    form.elements.name.value = b.name;
    form.elements.scorer_name.value = b.scorer_name;
    form.elements.average.value = b.average === null ? "" : b.average;
    form.elements.handicap_basis.value = b.handicap_basis;
    form.elements.team.value = b.team || "";
    form.querySelector(".cancel").addEventListener("click", function () { editor.remove(); });
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      try {
        await T.call("PATCH", base + "/bowlers/" + b.bowler_id, bowlerFields(form));
        T.say(b.name + " saved");
        load();
      } catch (problem) {
        show(form.querySelector(".problem"), problem.message + fieldLabel(problem));
      }
    });
    row.after(editor);
    form.elements.name.focus();
  }

  const add = document.getElementById("add-bowler");
  add.addEventListener("submit", async function (event) {
    event.preventDefault();
    const problem = document.getElementById("add-problem");
    try {
      const made = await T.call("POST", base + "/bowlers", bowlerFields(add));
      show(problem, "");
      add.reset();
      T.say(made.name + " is on the roster");
      load();
    } catch (refused) {
      show(problem, refused.message + fieldLabel(refused));
    }
  });

  // A roster file: every bad row is listed with its line number; nothing is imported then.
  const importForm = document.getElementById("import-roster");
  const problems = document.getElementById("import-problems");
  importForm.addEventListener("submit", async function (event) {
    event.preventDefault();
    const file = importForm.elements.file.files[0];
    const text = file ? await file.text() : importForm.elements.csv.value;
    problems.hidden = true;
    try {
      const reply = await T.call("POST", base + "/roster", { csv: text });
      importForm.reset();
      T.say(reply.imported + " bowler" + (reply.imported === 1 ? "" : "s") + " imported");
      load();
    } catch (refused) {
      const rows = refused.rows || [];
      document.getElementById("import-summary").textContent = rows.length
        ? "✖ Nothing was imported: " + rows.length + " bad row" + (rows.length === 1 ? "" : "s") + "."
        : "✖ Nothing was imported: " + refused.message;
      problems.querySelector("ul").replaceChildren(...rows.map(function (r) {
        const item = T.el("li", "bad-row", "Line " + r.line + ": " + r.reason);
        item.dataset.line = r.line;
        return item;
      }));
      problems.hidden = false;
    }
  });

  showRetired.addEventListener("change", load);
  load();
})();
