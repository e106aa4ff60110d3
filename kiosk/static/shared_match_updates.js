// Keeps a screen's copy of each match's public state from the server's pushes.
// "state" messages carry the whole state; "match_update" messages carry the events and
// either the whole state or a patch of the state the server pushed before (base_seq).
// A patch applies only to that very state: anything else means a push was missed, and
// the screen must ask for the whole state again (it joins again).
(function () {
  "use strict";

  function patched(known, message) {
    const patch = message.patch || {};
    const view = Object.assign({}, known, patch);
    view.bowlers = Object.assign({}, known.bowlers, patch.bowlers || {});
    delete view.bowlers_removed;
    (patch.bowlers_removed || []).forEach(function (name) { delete view.bowlers[name]; });
    return view;
  }

  // What a message does to the state held (`known`, or undefined):
  // {state} to take, {stale: true} to ignore (older than what is held), {resync: true}.
  function apply(known, message) {
    if (message.state) {
      return known && known.seq > message.state.seq ? { stale: true } : { state: message.state };
    }
    if (known && known.seq >= message.seq) return { stale: true };
    if (!known || known.seq !== message.base_seq) return { resync: true };
    return { state: patched(known, message) };
  }

  window.AlleyMatchUpdates = { apply: apply };
})();
