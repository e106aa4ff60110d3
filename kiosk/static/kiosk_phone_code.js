// The kiosk shows a bowler's phone code only when asked: the bowler taps "Phone code", then
// their name; the code (a new one each time) stays a minute.  Only a paired kiosk may ask.
(function () {
  "use strict";
  const K = window.AlleyKiosk, C = window.AlleyCards;
  const overlay = document.getElementById("phone-code");
  const body = document.getElementById("phone-code-body");
  const title = document.getElementById("phone-code-title");
  const SHOWN_MS = 60000;
  let timer = null;

  function hide() { clearTimeout(timer); overlay.hidden = true; body.replaceChildren(); }

  function choice(text, onTap) {
    const button = C.el("button", "choice", text);
    button.type = "button";
    button.addEventListener("click", onTap);
    return button;
  }

  function show(matchId, bowler) {
    body.replaceChildren(C.el("p", "", "Making " + bowler + "'s code…"));
    K.socket.emit("phone_code", { match_id: matchId, bowler: bowler }, function (reply) {
      if (!reply || reply.error) {
        body.replaceChildren(C.el("p", "", "No code: " + (reply ? reply.error.message : "no answer")));
        return;
      }
      title.textContent = bowler + "'s phone code";
      const figure = C.el("figure", "phone-code");
      figure.innerHTML = reply.svg;  // the server's SVG: the bowler's name is escaped there
      figure.append(C.el("figcaption", "", "Scan it with your phone's camera. It hides in a minute."));
      body.replaceChildren(figure);
      clearTimeout(timer);
      timer = setTimeout(hide, SHOWN_MS);
    });
  }

  document.getElementById("phone-code-button").addEventListener("click", function () {
    const state = K.shown();
    title.textContent = "Your phone code";
    overlay.hidden = false;
    if (!K.isPaired()) {
      body.replaceChildren(C.el("p", "", "This kiosk is not paired yet: ask the desk for your code."));
    } else if (!state || ["open", "playing", "ending"].indexOf(state.status) < 0) {
      body.replaceChildren(C.el("p", "", "No match in play on these lanes."));
    } else {
      const names = C.el("div", "choices");
      state.seat_order.forEach(function (name) {
        names.append(choice(name, function () { show(state.match_id, name); }));
      });
      body.replaceChildren(C.el("p", "", "Who are you?"), names);
    }
    document.getElementById("phone-code-close").focus();
  });
  document.getElementById("phone-code-close").addEventListener("click", hide);
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") hide(); });
})();
