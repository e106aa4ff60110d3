// Moments told once each, in ledger order, across drops of the connection and reloads.
//
// A screen tells a match's moments (banners, a phone's list) from the events each push
// carries.  While the Wi-Fi is down, or the server restarts, pushes are missed; on return the
// screen gets the whole state, which carries no events.  This keeps, per match, the number
// of the last event told (in localStorage, so a reload keeps it too), and when the state
// runs ahead of it, reads the events missed from GET /api/v1/matches/<id>/events?since=<seq>
// and tells them in order before anything pushed later.  A pushed event at or before the
// last one told is never told again.
//
//   const moments = AlleyCatchUp.create("kiosk:1-2", function (events, state) { ... });
//   moments.hear(matchId, eventsPushed, stateNow);   // after every state taken
//   moments.log(matchId)                              // the event numbers told (this page)
(function () {
  "use strict";

  const PAGE = 1000;  // the events API's largest page

  function create(scope, tell) {
    const key = function (matchId) { return "alley-poker-told:" + scope + ":" + matchId; };
    const queues = {}, busy = {}, logs = {};

    function told(matchId) {
      const kept = Number(localStorage.getItem(key(matchId)));
      return Number.isFinite(kept) && localStorage.getItem(key(matchId)) !== null ? kept : null;
    }
    function keep(matchId, seq) {
      try { localStorage.setItem(key(matchId), String(seq)); } catch (full) { /* still told */ }
    }
    function say(matchId, events, state) {
      const last = told(matchId);
      const fresh = events.filter(function (e) { return last === null || e.seq > last; });
      if (!fresh.length) return;
      (logs[matchId] = logs[matchId] || []).push.apply(logs[matchId],
        fresh.map(function (e) { return e.seq; }));
      keep(matchId, fresh[fresh.length - 1].seq);
      tell(fresh, state);
    }

    // The events after `since` up to `upTo`, page by page; null when the read failed.
    function missed(matchId, since, upTo) {
      const found = [];
      function page(from) {
        return fetch("/api/v1/matches/" + encodeURIComponent(matchId) + "/events?since=" +
                     from + "&limit=" + PAGE, { headers: { Accept: "application/json" } })
          .then(function (reply) { return reply.ok ? reply.json() : Promise.reject(reply); })
          .then(function (read) {
            found.push.apply(found, read.events);
            if (read.events.length && read.next_since < upTo) return page(read.next_since);
            return found;
          });
      }
      return page(since).catch(function () { return null; });
    }

    function pump(matchId) {
      if (busy[matchId]) return;
      const queue = queues[matchId] || [];
      const next = queue.shift();
      if (!next) return;
      const last = told(matchId);
      const pushed = next.events;
      const upTo = Math.max(next.state ? next.state.seq : 0,
                            pushed.length ? pushed[pushed.length - 1].seq : 0);
      const first = pushed.find(function (e) { return last === null || e.seq > last; });
      if (last === null) {
        // The first time this screen sees the match: what came before is history, not news.
        keep(matchId, pushed.length ? Math.min(upTo, pushed[0].seq - 1) : upTo);
        say(matchId, pushed, next.state);
        pump(matchId);
      } else if (upTo <= last || (first && first.seq === last + 1)) {
        say(matchId, pushed, next.state);  // in step: nothing was missed
        pump(matchId);
      } else {
        busy[matchId] = true;  // later pushes wait until the missed events are told
        missed(matchId, last, upTo).then(function (events) {
          busy[matchId] = false;
          if (events === null) {  // the read failed: try again with the next state
            queue.unshift(next);
            setTimeout(function () { pump(matchId); }, 2000);
            return;
          }
          say(matchId, events.concat(pushed).sort(function (a, b) { return a.seq - b.seq; })
            .filter(function (e, i, all) { return !i || all[i - 1].seq !== e.seq; }), next.state);
          pump(matchId);
        });
      }
    }

    return {
      hear: function (matchId, events, state) {
        (queues[matchId] = queues[matchId] || []).push({ events: events || [], state: state });
        pump(matchId);
      },
      told: told,
      log: function (matchId) { return (logs[matchId] || []).slice(); }
    };
  }

  window.AlleyCatchUp = { create: create };
})();
