// The kiosk's and the phone's offline copy (served as /service-worker.js, scope "/").
//
// Pages (/kiosk/<pair>, /phone), the static files they use and their last reads (the lanes'
// screen, the phone's own read) are fetched from the network first and kept; when the
// network or the server is down, the kept copy answers, so a kiosk reloaded during a Wi-Fi
// drop or a server restart shows its last screen (with "Reconnecting…"), never an error
// page.  Everything else (the tablet, Socket.IO, commands, the events a screen catches up
// with) goes to the network untouched.
//
// A server that hangs (stopped, or its machine frozen) refuses nothing: each request waits.
// So the worker remembers that the server is not answering (a request of its own timed out
// or failed, or a page's socket lost the server: shared_offline.js tells) and, until the server
// answers again, the kept copy answers at once while the network is still asked behind it.
// A reload during a hang then waits for one network attempt at most (NETWORK_MS), not one
// for the page, one for its files and one for its read (12.5 s in issue 38's probe).
// Answers from the kept copy carry KEPT_HEADER, so a page knows it shows a kept state.
"use strict";

// v2: the static files were renamed by the screen they serve (issue 39); activating v2 drops
// v1's copies under the old names.  v3: shared_screen_read.js joins the shell (issue 39).
const CACHE = "alley-poker-offline-v3";
const SHELL = [
  "/static/shared_base.css", "/static/shared_phone.css", "/static/favicon.svg",
  "/static/vendor/socket.io.min.js", "/static/shared_match_updates.js",
  "/static/shared_card_faces.js", "/static/shared_live_odds.js", "/static/shared_steady_taps.js",
  "/static/kiosk_undo.js", "/static/kiosk_banners.js", "/static/kiosk_decisions.js",
  "/static/kiosk_panels.js", "/static/kiosk.js", "/static/kiosk_phone_code.js",
  "/static/shared_glossary.js", "/static/phone.js", "/static/shared_catch_up.js",
  "/static/shared_offline.js", "/static/shared_side_games.css",
  "/static/shared_side_games_words.js", "/static/phone_side_games.js",
  "/static/kiosk_side_games.js", "/static/shared_screen_read.js",
];
// How long a page or a read waits for the network before the kept copy answers: a reload
// during a hang draws within NETWORK_MS and the page's own drawing, inside the 4 s promised
// (docs/deployment.md).  A page or read slower than that while the server runs is drawn
// from the kept copy, and the socket brings the rest (a state never goes back: seq).
const NETWORK_MS = 2000;
const KEPT_HEADER = "X-Alley-Poker-Kept-Copy";
// True from a failed or timed-out network attempt (or a page's word that its socket lost
// the server) until an answer from the server (or a page's word that its socket is live).
let serverSilent = false;

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    // One file missing must not stop the rest being kept.
    return Promise.all(SHELL.map(function (url) { return cache.add(url).catch(function () {}); }));
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name.startsWith("alley-poker-offline-") && name !== CACHE;
    }).map(function (name) { return caches.delete(name); }));
  }).then(keepOpenPages).then(function () { return self.clients.claim(); }));
});

// The pages open when the worker starts were loaded before it: keep a copy of them now, so
// a reload during the first drop already finds one.  (Before taking control: a copy taken
// after could land over a newer read the page made through the worker meanwhile.)
function keepOpenPages() {
  return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
    return caches.open(CACHE).then(function (cache) {
      const urls = [];
      windows.forEach(function (client) {
        const url = new URL(client.url);
        if (!kept(url)) return;
        urls.push(url.pathname);
        // And the page's first read, made before the worker was there.
        const pair = url.pathname.match(/^\/kiosk\/([^/]+)$/);
        if (pair) urls.push("/api/v1/lanes/" + pair[1] + "/screen");
        if (url.pathname === "/phone") urls.push("/api/v1/phone/me");
      });
      return Promise.all(urls.map(function (url) {
        return cache.add(url).catch(function () {});
      }));
    });
  });
}

function kept(url) {
  const path = url.pathname;
  return path.startsWith("/kiosk/") || path === "/phone" || path.startsWith("/static/") ||
    /^\/api\/v1\/lanes\/[^/]+\/screen$/.test(path) || path === "/api/v1/phone/me";
}

function offlinePage() {
  return new Response(
    "<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>" +
    "<title>Alley Poker</title><link rel=stylesheet href='/static/shared_base.css'>" +
    // Tried again every 5 s: a refresh, not a script (no inline script under the pages' CSP).
    "<meta http-equiv=refresh content=5>" +
    "<body class=kiosk><p class=connection data-state=down role=status>▲ Reconnecting…</p>",
    { headers: { "Content-Type": "text/html; charset=utf-8" } });
}

function fromNetwork(request) {
  const controller = new AbortController();
  const timer = setTimeout(function () { controller.abort(); }, NETWORK_MS);
  return fetch(request, { signal: controller.signal }).then(function (response) {
    serverSilent = false;
    return response;
  }, function (failure) {
    serverSilent = true;
    throw failure;
  }).finally(function () {
    clearTimeout(timer);
  });
}

// The kept copy of `request`, marked as such; undefined when none is kept.
function fromKeptCopy(request) {
  return caches.match(request).then(function (found) {
    if (!found) return undefined;
    const headers = new Headers(found.headers);
    headers.set(KEPT_HEADER, "yes");
    return new Response(found.body, { status: found.status, statusText: found.statusText,
                                      headers: headers });
  });
}

function withoutServer(request) {
  return fromKeptCopy(request).then(function (found) {
    if (found) return found;
    if (request.mode === "navigate") return offlinePage();
    return new Response("", { status: 503, statusText: "offline" });
  });
}

// A page names the static files it uses (shared_offline.js): each not kept yet is fetched and kept.
self.addEventListener("message", function (event) {
  const urls = ((event.data && event.data.keep) || []).filter(function (url) {
    const parsed = new URL(url, self.location.origin);
    return parsed.origin === self.location.origin && parsed.pathname.startsWith("/static/");
  });
  const connection = event.data && event.data.connection;
  if (connection) serverSilent = connection === "down";
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return Promise.all(urls.map(function (url) {
      return cache.match(url).then(function (found) {
        return found || cache.add(url).catch(function () {});
      });
    }));
  }));
});

self.addEventListener("fetch", function (event) {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || !kept(url)) return;
  const silent = serverSilent;
  let stored = Promise.resolve();
  const network = fromNetwork(request).then(function (response) {
    // Only good answers are kept: a 401 (a phone link that ended) or a 5xx is passed on.
    if (response.ok) {
      const copy = response.clone();
      stored = caches.open(CACHE).then(function (cache) { return cache.put(request, copy); });
    }
    return response;
  });
  // The network is asked either way: while the server is silent, to keep the copy fresh and
  // to notice it answering again.
  event.waitUntil(network.then(function () { return stored; }).catch(function () {}));
  if (!silent) {
    event.respondWith(network.catch(function () { return withoutServer(request); }));
    return;
  }
  event.respondWith(fromKeptCopy(request).then(function (found) {
    return found || network.catch(function () { return withoutServer(request); });
  }));
});
