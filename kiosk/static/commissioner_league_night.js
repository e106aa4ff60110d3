// Tonight's check-in: tick who is here, then one button creates and starts every match of
// the night (POST /api/v1/leagues/<id>/nights); the page then links each match's kiosk.
(function () {
  "use strict";
  const T = window.Commissioner;
  const page = document.getElementById("night-page");
  if (!page) return;
  const form = document.getElementById("check-in");
  if (!form) return;  // tonight has started: no check-in to run
  const boxes = Array.from(form.querySelectorAll("input[name=bowler]"));
  const count = document.getElementById("checked-count");
  const problem = document.getElementById("night-problem");

  function counted() {
    count.textContent = String(boxes.filter(function (b) { return b.checked; }).length);
  }
  boxes.forEach(function (box) { box.addEventListener("change", counted); });
  document.getElementById("check-all").addEventListener("click", function () {
    boxes.forEach(function (box) { box.checked = true; });
    counted();
  });
  document.getElementById("check-none").addEventListener("click", function () {
    boxes.forEach(function (box) { box.checked = false; });
    counted();
  });

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    const checked = boxes.filter(function (b) { return b.checked; });
    if (!checked.length) {
      problem.hidden = false;
      problem.textContent = "✖ Tick who is here tonight first.";
      return;
    }
    const button = document.getElementById("start-night");
    button.disabled = true;
    try {
      const started = await T.call("POST", "/api/v1/leagues/" + encodeURIComponent(page.dataset.league) + "/nights", {
        night_date: form.elements.night_date.value || null,
        checked_in: checked.map(function (b) { return Number(b.value); }),
      });
      problem.hidden = true;
      const list = document.getElementById("night-matches");
      list.replaceChildren(...started.matches.map(function (m) {
        const item = T.el("li", "night-match");
        item.dataset.match = m.match_id;
        const kiosk = T.el("a", "", "kiosk for lanes " + m.lanes.join("-"));
        kiosk.href = m.kiosk;
        item.append(T.el("strong", "", "Lanes " + m.lanes.join("-")), ": " +
                    m.bowlers.join(", ") + " · ", kiosk);
        return item;
      }));
      const started_section = document.getElementById("night-started");
      started_section.hidden = false;
      T.say("Night " + started.night_id + " started: " + started.matches.length + " match" +
            (started.matches.length === 1 ? "" : "es") + " on the lanes");
      form.hidden = true;
    } catch (refused) {
      problem.hidden = false;
      problem.textContent = "✖ " + refused.message;
      button.disabled = false;
    }
  });
  counted();
})();
