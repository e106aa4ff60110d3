// Registers the service worker that keeps the kiosk's and the phone's shell and last reads
// (shared_service_worker.js, served at /service-worker.js so its scope covers /kiosk/ and /phone).
// Browsers allow service workers on https:// and on localhost only: on plain http across
// the centre's network the screens still keep their last state through a drop and catch up
// on return, but a reload during the drop shows the browser's own error page
// (docs/deployment.md).
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/service-worker.js", { scope: "/" })
    .then(function () { return navigator.serviceWorker.ready; })
    .then(function (registration) {
      // The worker keeps every script and style sheet this page uses, so a page that gains a
      // file is still whole when reloaded offline (a fixed list would silently fall behind).
      const uses = Array.from(document.querySelectorAll("script[src], link[rel=stylesheet][href]"))
        .map(function (element) { return element.src || element.href; })
        .filter(function (url) { return new URL(url).origin === location.origin; });
      if (registration.active) registration.active.postMessage({ keep: uses });
    })
    .catch(function () { /* no offline copy: the screen works as before */ });

  // The worker hears from the page's socket whether the server answers (shared_service_worker.js):
  // once the socket has lost it (the ping's silence shows a hung server within 8 s), a reload
  // is drawn from the kept copy at once instead of waiting for the network first.
  const connection = document.getElementById("connection");
  if (!connection || !window.MutationObserver) return;
  new MutationObserver(function () {
    const state = connection.dataset.state;
    const worker = navigator.serviceWorker.controller;
    if (worker && (state === "live" || state === "down")) worker.postMessage({ connection: state });
  }).observe(connection, { attributes: true, attributeFilter: ["data-state"] });
})();
