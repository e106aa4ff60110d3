// A screen's read of its own state over HTTP (the kiosk's /api/v1/lanes/<pair>/screen, the
// phone's /api/v1/phone/me), beside its Socket.IO pushes: at once on opening and reconnecting,
// and while pushes come at most once per the delay it is given (throttled, never put off by
// the next push), so the service worker's offline copy stays near what is on screen.
(function () {
  "use strict";
  // The header the service worker puts on the answers it kept (shared_service_worker.js).
  const KEPT_COPY = "X-Alley-Poker-Kept-Copy";

  // read(delay): `answered(reply, keptCopy)` sees each reply first (false: stop there), then
  // `took(body)` gets a successful reply's JSON.  A failed read is left: the next change or
  // reconnection asks again.
  function create(url, options, answered, took) {
    let timer = null;
    return function read(delay) {
      if (delay && timer) return;  // a read is already due: it brings this change too
      clearTimeout(timer);
      timer = setTimeout(function () {
        timer = null;
        fetch(url, options)
          .then(function (reply) {
            if (answered(reply, reply.headers.has(KEPT_COPY)) === false) return null;
            return reply.ok ? reply.json() : null;
          })
          .then(function (body) { if (body) took(body); })
          .catch(function () { /* the next change or reconnection asks again */ });
      }, delay || 0);
    };
  }

  window.AlleyScreenRead = { create: create };
})();
