// Seat requests on the dashboard: a name the scorer shows that is no one bowler of the league
// match on that lane.  The desk picks who it is; the held balls of that slot are then applied.
(function () {
  "use strict";
  const T = window.Tablet;
  const section = document.getElementById("seat-requests");
  if (!section) return;
  const list = document.getElementById("seat-request-list");
  const count = document.getElementById("seat-request-count");

  function item(request) {
    const li = T.el("li", "seat-request");
    li.dataset.request = request.id;
    li.append(T.el("p", "", "Lane " + request.lane + ", slot " + request.slot + " (match " +
                   request.match_id + "): the scorer shows “" + request.scorer_name + "”."));
    const label = T.el("label", "inline", "Who is it? ");
    const pick = T.el("select");
    request.choices.forEach(function (name) { pick.append(T.el("option", "", name)); });
    label.append(pick);
    li.append(label, " ", T.button("Seat them", async function () {
      try {
        const reply = await T.call("POST", "/api/v1/seat-requests/" + request.id + "/pick",
                                   { bowler: pick.value });
        T.say(reply.message);
        refresh();
      } catch (problem) {
        T.say("Refused: " + problem.message, "refused");
      }
    }, "primary"));
    return li;
  }

  async function refresh() {
    try {
      const reply = await T.call("GET", "/api/v1/seat-requests");
      list.replaceChildren(...reply.seat_requests.map(item));
      count.textContent = String(reply.seat_requests.length);
      section.hidden = !reply.seat_requests.length;
    } catch (problem) { /* the next refresh tries again */ }
  }

  refresh();
  window.setInterval(refresh, 5000);
})();
