// Seat requests on the dashboard: a name the scorer shows that is no one bowler of the league
// match on that lane.  The desk picks who it is; the held balls of that slot are then applied.
// A request whose match is over can only be dismissed (the page says so).
(function () {
  "use strict";
  const T = window.Commissioner;
  const section = document.getElementById("seat-requests");
  if (!section) return;
  const list = document.getElementById("seat-request-list");
  const count = document.getElementById("seat-request-count");
  const chosen = {};  // request id -> the bowler the desk picked (kept across refreshes)
  let shown = null;   // the requests as last drawn

  function item(request) {
    const li = T.el("li", "seat-request");
    li.dataset.request = request.id;
    const first = request.lane % 2 ? request.lane : request.lane - 1;
    li.append(T.el("p", "", "Lane " + request.lane + ", slot " + request.slot +
                   " (the match on lanes " + first + "-" + (first + 1) +
                   "): the scorer shows “" + request.scorer_name + "”."));
    const label = T.el("label", "inline", "Who is it? ");
    const pick = T.el("select");
    pick.name = "bowler";
    // No default: a picker that starts on the first bowler seats the wrong person with one
    // tap.  The desk must choose; "Seat them" waits for it.
    const none = T.el("option", "", "— choose who it is —");
    none.value = ""; none.disabled = true; none.selected = true;
    pick.append(none);
    request.choices.forEach(function (name) { pick.append(T.el("option", "", name)); });
    label.append(pick);
    const over = request.can_seat === false;
    if (over) {
      li.append(T.el("p", "seat-request-over", "This match is " +
                     (request.match_status === "void" ? "voided" : "settled") +
                     ": nobody can be seated in it now. Dismiss the request."));
      pick.disabled = true;
    }
    const seat = T.button("Seat them", answer("pick", function () {
      return { bowler: pick.value };
    }), over ? "seat-pick" : "primary seat-pick");
    if (request.choices.indexOf(chosen[request.id]) >= 0) pick.value = chosen[request.id];
    seat.disabled = over || !pick.value;
    pick.addEventListener("change", function () {
      chosen[request.id] = pick.value;
      seat.disabled = over || !pick.value;
    });
    // Dismiss closes the request without seating anyone (the slot's held balls stay held).
    li.append(label, " ", seat, " ",
              T.button("Dismiss", answer("dismiss", function () { return {}; }),
                       over ? "primary" : ""));
    return li;

    function answer(action, body) {
      return async function () {
        try {
          const reply = await T.call("POST", "/api/v1/seat-requests/" + request.id + "/" +
                                     action, body());
          T.say(reply.message);
          refresh();
        } catch (problem) {
          T.say("Refused: " + problem.message, "refused");
        }
      };
    }
  }

  async function refresh() {
    try {
      const reply = await T.call("GET", "/api/v1/seat-requests");
      // Redrawn only when the requests change: a picker open under the desk's finger stays.
      const seen = JSON.stringify(reply.seat_requests);
      if (seen === shown) return;
      shown = seen;
      list.replaceChildren(...reply.seat_requests.map(item));
      count.textContent = String(reply.seat_requests.length);
      section.hidden = !reply.seat_requests.length;
    } catch (problem) { /* the next refresh tries again */ }
  }

  refresh();
  window.setInterval(refresh, 5000);
})();
