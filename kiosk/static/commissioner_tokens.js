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

  // A table of the API's list: one row an item (its id on the row), its cells and a last cell
  // holding its Revoke (none for one already revoked).  A refusal is said; the table stays.
  async function list(tbody, url, plural, rowOf) {
    try {
      const reply = await T.call("GET", url);
      tbody.replaceChildren(...(reply[plural] || []).map(function (item) {
        const shown = rowOf(item);
        const row = T.el("tr");
        row.dataset[shown.kind] = item.id;
        const cell = T.el("td");
        if (shown.revoke) cell.append(shown.revoke);
        row.append(...shown.cells, cell);
        return row;
      }));
    } catch (problem) { T.say("Cannot list " + plural + ": " + problem.message, "refused"); }
  }

  function load() {
    return list(tbody, "/api/v1/tokens", "tokens", function (token) {
      return { kind: "token",
               cells: [T.el("td", "", token.name), T.el("td", "", when(token.created_at))],
               revoke: revokeButton("Revoke the token " + token.name + "?",
                                    "/api/v1/tokens/" + encodeURIComponent(token.id),
                                    "Token " + token.name + " revoked", load) };
    });
  }

  // Kiosks: paired by the code an unpaired kiosk shows; revoked here at once.
  const pairForm = document.getElementById("pair-kiosk");
  const kiosks = document.querySelector("#kiosks tbody");
  function loadKiosks() {
    return list(kiosks, "/api/v1/kiosks", "kiosks", function (kiosk) {
      return { kind: "kiosk",
               cells: [T.el("td", "", "Lanes " + kiosk.lanes),
                       T.el("td", "", kiosk.revoked_at ? "revoked " + when(kiosk.revoked_at)
                                                       : when(kiosk.paired_at))],
               revoke: kiosk.revoked_at ? null
                 : revokeButton("Revoke the kiosk of lanes " + kiosk.lanes + "?",
                                "/api/v1/kiosks/" + encodeURIComponent(kiosk.id),
                                "Kiosk of lanes " + kiosk.lanes + " revoked", loadKiosks) };
    });
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
