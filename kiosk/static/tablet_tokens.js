// API tokens for a centre's own systems: the token itself is shown once, when made.
(function () {
  "use strict";
  const T = window.Tablet;
  const form = document.getElementById("new-token");
  const once = document.getElementById("token-once");
  const value = document.getElementById("token-value");
  const tbody = document.querySelector("#tokens tbody");

  async function load() {
    try {
      const reply = await T.call("GET", "/api/v1/tokens");
      tbody.replaceChildren(...(reply.tokens || []).map(function (token) {
        const row = T.el("tr");
        row.dataset.token = token.id;
        row.append(T.el("td", "", token.name), T.el("td", "", token.created_at || ""));
        const cell = T.el("td");
        cell.append(T.button("Revoke", async function () {
          if (!window.confirm("Revoke the token " + token.name + "?")) return;
          try {
            await T.call("DELETE", "/api/v1/tokens/" + encodeURIComponent(token.id));
            T.say("Token " + token.name + " revoked");
            load();
          } catch (problem) { T.say("Refused: " + problem.message, "refused"); }
        }));
        row.append(cell);
        return row;
      }));
    } catch (problem) { T.say("Cannot list tokens: " + problem.message, "refused"); }
  }

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
