// Registers the service worker that keeps the kiosk's and the phone's shell and last reads
// (service_worker.js, served at /service-worker.js so its scope covers /kiosk/ and /phone).
// Browsers allow service workers on https:// and on localhost only: on plain http across
// the centre's network the screens still keep their last state through a drop and catch up
// on return, but a reload during the drop shows the browser's own error page
// (docs/deployment.md).
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/service-worker.js", { scope: "/" })
    .catch(function () { /* no offline copy: the screen works as before */ });
})();
