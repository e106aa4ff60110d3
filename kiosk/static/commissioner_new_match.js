// Create a match: bowlers in seat order, each mapped to a lane and its scoreboard slot.
(function () {
  "use strict";
  const T = window.Commissioner;
  const form = document.getElementById("new-match");
  const seats = document.getElementById("seats");
  const template = document.getElementById("seat-row");

  function renumber() {
    seats.querySelectorAll("tr.seat").forEach(function (row, index) {
      row.querySelector(".seat-number").textContent = String(index + 1);
    });
  }

  // Seats default to the next slot, alternating the pair's two lanes, until a lane or slot
  // is typed by hand.
  function placeSeats() {
    const lanes = (form.elements.lanes.value.match(/\d+/g) || ["1"]).map(Number);
    seats.querySelectorAll("tr.seat").forEach(function (row, index) {
      if (row.dataset.placed === "by-hand") return;
      row.querySelector("[name=lane]").value = lanes[index % lanes.length];
      row.querySelector("[name=slot]").value = Math.floor(index / lanes.length) + 1;
    });
  }

  function addSeat() {
    const row = template.content.firstElementChild.cloneNode(true);
    row.querySelector(".remove-seat").addEventListener("click", function () {
      row.remove();
      renumber();
      placeSeats();
    });
    row.querySelectorAll("[name=lane], [name=slot]").forEach(function (input) {
      input.addEventListener("input", function () { row.dataset.placed = "by-hand"; });
    });
    seats.append(row);
    renumber();
    placeSeats();
    return row;
  }

  form.elements.lanes.addEventListener("input", placeSeats);

  document.getElementById("add-seat").addEventListener("click", function () {
    addSeat().querySelector("[name=bowler]").focus();
  });
  addSeat();
  addSeat();

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    const slots = Array.from(seats.querySelectorAll("tr.seat"), function (row) {
      return { bowler: row.querySelector("[name=bowler]").value.trim(),
               lane: Number(row.querySelector("[name=lane]").value),
               slot: Number(row.querySelector("[name=slot]").value) };
    });
    const body = { match_id: form.elements.match_id.value.trim(), slots: slots,
                   seat_order: slots.map(function (s) { return s.bowler; }),
                   games: Number(form.elements.games.value) };
    // Only the rules changed from the house book travel with the match.
    const rules = {};
    form.querySelectorAll("input[name=rule]").forEach(function (box) {
      if (box.checked !== (box.dataset.house === "on")) rules[box.value] = box.checked;
    });
    if (Object.keys(rules).length) body.rules = rules;
    const ante = form.elements.ante.value.trim();
    if (ante) body.ante_cents = Math.round(Number(ante) * 100);
    try {
      await T.call("POST", "/api/v1/matches", body);
      T.say("Match " + body.match_id + " created; record each bowler's ante agreement, then start it.");
      window.location.href = "/commissioner#match-" + encodeURIComponent(body.match_id);
    } catch (problem) {
      // The message names the problem in the desk's words; the field it is about is marked
      // and focused rather than named by its API name.
      T.say("Refused: " + problem.message, "refused");
      form.querySelectorAll("[aria-invalid]").forEach(function (input) {
        input.removeAttribute("aria-invalid");
      });
      const where = String(problem.field || "").split(".");
      const names = { match_id: "match_id", games: "games", ante_cents: "ante" };
      let input = names[where[0]] ? form.elements[names[where[0]]] : null;
      if (where[0] === "slots" && where.length === 3) {
        const row = form.querySelectorAll("tr.seat")[Number(where[1])];
        input = row ? row.querySelector("[name=" + where[2] + "]") : null;
      }
      if (input && input.focus) { input.setAttribute("aria-invalid", "true"); input.focus(); }
    }
  });
})();
