// The commissioner's tablet: rulings go to the JSON API with the session's CSRF token.
(function () {
  "use strict";
  const csrfToken = document.querySelector("meta[name=csrf-token]").content;

  async function command(matchId, kind, body) {
    const answer = await fetch("/api/v1/matches/" + encodeURIComponent(matchId) +
                               "/commands/" + kind, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
      body: JSON.stringify(body),
    });
    const reply = await answer.json();
    if (!answer.ok) throw new Error(reply.error ? reply.error.message : answer.statusText);
    return reply;
  }

  document.querySelectorAll("form.holland-daze").forEach(function (form) {
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      const bowler = form.elements.bowler.value;
      const result = form.querySelector(".result");
      if (!window.confirm("Rule a Holland-daze for " + bowler + "?")) return;
      try {
        await command(form.dataset.match, "holland-daze",
                      { bowler: bowler, reason: form.elements.reason.value });
        result.textContent = "Ruled: Holland-daze for " + bowler;
      } catch (problem) {
        result.textContent = "Refused: " + problem.message;
      }
    });
  });
})();
