// The tablet's held balls: feed balls the ledger has not taken (a gap, a disagreement, no
// match on the lane), grouped by feed and lane.  Each has the desk's three ways forward
// (apply, re-sync the bowler, discard); many can be chosen — one by one, a whole lane, a
// whole feed, all — and discarded with one reason as one command (all of them, or none).
// A person reads this list: no raw feed line and no match id, only lane, bowler and ball.
(function () {
  "use strict";
  const T = window.Commissioner, el = T.el;
  const list = document.getElementById("held-list");
  const count = document.getElementById("held-count");
  const tools = document.getElementById("held-bulk");
  const reason = document.getElementById("held-reason");
  const discardChosen = document.getElementById("held-discard-chosen");
  const progress = document.getElementById("held-progress");
  const chooseAll = document.getElementById("held-choose-all");
  const chooseFeeds = document.getElementById("held-choose-feeds");

  const chosen = new Set();   // the ids of the held balls the desk has ticked
  let held = [];              // the open held balls as last read
  let feeds = [];             // the feeds and their lanes, to choose a whole feed
  let shown = null;           // what the list was last drawn from
  let busy = false;           // a bulk discard is on its way
  const openLanes = new Set(); // the lanes whose balls the desk has unfolded
  const FOLD_OVER = 3;         // a lane with more held balls than this starts folded

  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  function describe(item) {
    return (item.bowler ? item.bowler + ": " : "Slot " + item.slot + " (nobody seated): ") +
      "game " + item.game + ", frame " + item.frame + ", ball " + item.ball + ", " +
      plural(item.pins, "pin");
  }

  async function act(path, body, done) {
    try {
      const answer = await T.call("POST", path, body);
      T.say(done + ": " + answer.message);
    } catch (problem) {
      T.say("Not done: " + problem.message, "refused");
    }
    await refresh();
  }

  function row(item) {
    const li = el("li", "held-item");
    li.dataset.held = item.id;
    const tick = el("input", "held-choose");
    tick.type = "checkbox";
    tick.checked = chosen.has(item.id);
    tick.setAttribute("aria-label", "Choose lane " + item.lane + ", " + describe(item));
    tick.addEventListener("change", function () {
      if (tick.checked) chosen.add(item.id); else chosen.delete(item.id);
      showChosen();
    });
    const what = el("label", "held-what");
    what.append(tick, " ", el("strong", "", describe(item)));
    li.append(what, el("div", "held-reason", item.reason));
    const actions = el("div", "held-actions");
    actions.append(T.button("Apply", function () {
      act("/api/v1/held/" + item.id + "/apply", {}, "Apply");
    }, "held-apply"));
    if (item.bowler) {
      actions.append(T.button("Re-sync " + item.bowler, function () {
        act("/api/v1/matches/" + encodeURIComponent(item.match_id) + "/resync",
            { bowler: item.bowler }, "Re-sync " + item.bowler);
      }, "held-resync"));
    }
    actions.append(T.button("Discard…", function () {
      const why = window.prompt("Discard this ball for good? It will never deal.\nLane " +
                                item.lane + ", " + describe(item) +
                                "\nReason (for the audit trail):");
      if (why === null) return;
      if (!why.trim()) { T.say("A discard needs a reason.", "refused"); return; }
      act("/api/v1/held/" + item.id + "/discard", { reason: why.trim() }, "Discarded");
    }, "danger held-discard"));
    li.append(actions);
    return li;
  }

  function choose(items, on) {
    items.forEach(function (item) { if (on) chosen.add(item.id); else chosen.delete(item.id); });
    list.querySelectorAll("li.held-item").forEach(function (li) {
      li.querySelector("input.held-choose").checked = chosen.has(Number(li.dataset.held));
    });
    showChosen();
  }

  function allChosen(items) {
    return items.length > 0 && items.every(function (item) { return chosen.has(item.id); });
  }

  // A button that ticks every ball of a group, or unticks them when all are ticked.
  function groupButton(words, items, className) {
    const tap = T.button("", function () { choose(items, !allChosen(items)); }, className);
    tap.dataset.count = items.length;
    tap.refresh = function () {
      tap.textContent = (allChosen(items) ? "Unchoose " : "Choose ") + words + " (" +
        items.length + ")";
    };
    tap.refresh();
    return tap;
  }

  function lanesOfFeed(feed) {
    return (feed.lanes || []).filter(function (lane) {
      return held.some(function (item) { return item.lane === lane; });
    });
  }

  function draw() {
    const byLane = new Map();
    held.forEach(function (item) {
      if (!byLane.has(item.lane)) byLane.set(item.lane, []);
      byLane.get(item.lane).push(item);
    });
    const groups = Array.from(byLane.keys()).sort(function (a, b) { return a - b; })
      .map(function (lane) {
        const items = byLane.get(lane);
        const group = el("li", "held-lane");
        group.dataset.lane = lane;
        const head = el("div", "held-lane-head");
        head.append(el("h3", "", "Lane " + lane + " — " + plural(items.length, "held ball")),
                    groupButton("all of lane " + lane, items, "held-choose-lane"));
        const rows = el("ul", "held-list");
        rows.append(...items.map(row));
        // A lane with many held balls is one line until the desk opens it: a night's
        // hundred held balls must not push the live matches off the page.
        const fold = el("details", "held-lane-balls");
        fold.open = items.length <= FOLD_OVER || openLanes.has(lane);
        const summary = el("summary", "", "Each ball of lane " + lane + " (" + items.length + ")");
        // Only the desk's own opening is remembered: a click on the summary (the key that
        // opens it clicks it too), before the fold turns.  The "toggle" event also fires for
        // the state a fold is drawn in, so a lane drawn open while it held three balls was
        // kept open when it held thirteen.
        summary.addEventListener("click", function () {
          if (fold.open) openLanes.delete(lane); else openLanes.add(lane);
        });
        fold.append(summary, rows);
        group.append(head, fold);
        return group;
      });
    list.replaceChildren(...(groups.length ? groups : [el("li", "empty", "No held balls.")]));
    chooseFeeds.replaceChildren(...feeds.filter(function (feed) {
      return lanesOfFeed(feed).length;
    }).map(function (feed) {
      const lanes = lanesOfFeed(feed);
      const items = held.filter(function (item) { return lanes.indexOf(item.lane) >= 0; });
      const tap = groupButton("all from feed " + feed.source, items, "held-choose-feed");
      tap.dataset.feed = feed.source;
      return tap;
    }));
    const everything = groupButton("all", held, "held-choose-all");
    chooseAll.replaceChildren(everything);
    tools.hidden = !held.length;
    showChosen();
  }

  function showChosen() {
    document.querySelectorAll("#held button[data-count]").forEach(function (tap) {
      if (tap.refresh) tap.refresh();
    });
    discardChosen.textContent = chosen.size
      ? "Discard the " + plural(chosen.size, "chosen ball") + "…" : "Discard the chosen balls…";
    discardChosen.disabled = busy || !chosen.size;
  }

  discardChosen.addEventListener("click", async function () {
    const ids = Array.from(chosen).sort(function (a, b) { return a - b; });
    const why = reason.value.trim();
    if (!ids.length) return;
    if (!why) {
      T.say("Give a reason for discarding them first: it goes into the audit trail.",
            "refused");
      reason.focus();
      return;
    }
    if (!window.confirm("Discard " + plural(ids.length, "held ball") + " for good? " +
                        "None of them will ever deal.\nReason: " + why)) return;
    busy = true;
    showChosen();
    progress.textContent = "Discarding " + plural(ids.length, "held ball") + "…";
    try {
      const answer = await T.call("POST", "/api/v1/held/discard", { ids: ids, reason: why });
      progress.textContent = answer.message + ".";
      T.say(answer.message);
      ids.forEach(function (id) { chosen.delete(id); });
      reason.value = "";
    } catch (problem) {
      progress.textContent = "Nothing was discarded: " + problem.message;
      T.say("Not done: " + problem.message, "refused");
    }
    busy = false;
    await refresh();
  });

  async function refresh() {
    let reply, feedReply;
    try {
      reply = await T.call("GET", "/api/v1/held");
      feedReply = await T.call("GET", "/api/v1/feeds");
    } catch (problem) {
      return; // the next poll tries again
    }
    held = reply.held;
    feeds = feedReply.feeds || [];
    // A ball no longer held can no longer be chosen.
    const open = new Set(held.map(function (item) { return item.id; }));
    Array.from(chosen).forEach(function (id) { if (!open.has(id)) chosen.delete(id); });
    count.textContent = String(held.length);
    count.dataset.state = held.length ? "amber" : "green";
    // Redrawn only when the list changes: a box under the desk's finger stays where it is.
    const seen = JSON.stringify([held, feeds.map(function (f) { return [f.source, f.lanes]; })]);
    if (seen !== shown) {
      shown = seen;
      draw();
    } else {
      showChosen();
    }
  }

  refresh();
  setInterval(refresh, 3000);
})();
