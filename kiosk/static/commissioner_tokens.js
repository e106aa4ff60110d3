// API tokens for a centre's own systems: the token itself is shown once, when made.
(function () {
  "use strict";
  const T = window.Commissioner;
  const form = document.getElementById("new-token");
  const once = document.getElementById("token-once");
  const value = document.getElementById("token-value");
  const tbody = document.querySelector("#tokens tbody");

  // A stored time on the tablet's clock, as a person reads it (the API gives UTC).
  function when(iso) {
    return iso ? new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" })
               : "";
  }

  // A row's Revoke: asked first, then deleted at once; the list is read again.
  function revokeButton(question, url, said, reload) {
    return T.button("Revoke", async function () {
      if (!window.confirm(question)) return;
      try {
        await T.call("DELETE", url);
        T.say(said);
        reload();
      } catch (problem) { T.say("Refused: " + problem.message, "refused"); }
    });
  }

  async function load() {
    try {
      const reply = await T.call("GET", "/api/v1/tokens");
      tbody.replaceChildren(...(reply.tokens || []).map(function (token) {
        const row = T.el("tr");
        row.dataset.token = token.id;
        row.append(T.el("td", "", token.name), T.el("td", "", when(token.created_at)));
        const cell = T.el("td");
        cell.append(revokeButton("Revoke the token " + token.name + "?",
                                 "/api/v1/tokens/" + encodeURIComponent(token.id),
                                 "Token " + token.name + " revoked", load));
        row.append(cell);
        return row;
      }));
    } catch (problem) { T.say("Cannot list tokens: " + problem.message, "refused"); }
  }

  // Kiosks: paired by the code an unpaired kiosk shows; revoked here at once.
  const pairForm = document.getElementById("pair-kiosk");
  const kiosks = document.querySelector("#kiosks tbody");
  async function loadKiosks() {
    try {
      const reply = await T.call("GET", "/api/v1/kiosks");
      kiosks.replaceChildren(...(reply.kiosks || []).map(function (kiosk) {
        const row = T.el("tr");
        row.dataset.kiosk = kiosk.id;
        row.append(T.el("td", "", "Lanes " + kiosk.lanes),
                   T.el("td", "", kiosk.revoked_at ? "revoked " + when(kiosk.revoked_at)
                                                   : when(kiosk.paired_at)));
        const cell = T.el("td");
        if (!kiosk.revoked_at) {
          cell.append(revokeButton("Revoke the kiosk of lanes " + kiosk.lanes + "?",
                                   "/api/v1/kiosks/" + encodeURIComponent(kiosk.id),
                                   "Kiosk of lanes " + kiosk.lanes + " revoked", loadKiosks));
        }
        row.append(cell);
        return row;
      }));
    } catch (problem) { T.say("Cannot list kiosks: " + problem.message, "refused"); }
  }
  pairForm.addEventListener("submit", async function (event) {
    event.preventDefault();
    try {
      const paired = await T.call("POST", "/api/v1/kiosks/pair", { code: pairForm.elements.code.value.trim() });
      pairForm.reset();
      T.say("Kiosk of lanes " + paired.lanes + " paired");
      loadKiosks();
    } catch (problem) { T.say("Refused: " + problem.message, "refused"); }
  });
  loadKiosks();

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    try {
      const made = await T.call("POST", "/api/v1/tokens", { name: form.elements.name.value.trim() });
      value.textContent = made.token;
      once.hidden = false;
      form.reset();
      T.say("Token " + made.name + " created");
      load();
    } catch (problem) { T.say("Refused: " + problem.message, "refused"); }
  });
  load();
})();
