// The tablet's feed health: one row per scoreboard feed (● OK / ▲ LATE / ■ DOWN, shape and
// word as well as colour), its last line, lines, rejected and conflicting lines, held balls
// and reconnects, read every few seconds.
(function () {
  "use strict";
  const T = window.Commissioner;
  const el = T.el;
  const feedRows = document.getElementById("feed-rows");
  const FEED_SHAPES = { green: ["●", "OK"], amber: ["▲", "LATE"], red: ["■", "DOWN"] };
  const FEED_COLUMNS = ["Feed", "Health", "Last line", "Lines", "Rejected", "Held", "Reconnects"];

  function feedCell(text) { return el("td", "", text === undefined || text === null ? "—" : String(text)); }

  async function refreshFeeds() {
    let feeds;
    try {
      feeds = (await T.call("GET", "/api/v1/feeds")).feeds;
    } catch (problem) {
      feedRows.replaceChildren(el("tr"));
      feedRows.firstChild.append(el("td", "", "Feed health is unavailable: " + problem.message));
      feedRows.firstChild.firstChild.colSpan = 7;
      return;
    }
    if (!feeds.length) return;
    feedRows.replaceChildren(...feeds.map(function (feed) {
      const row = el("tr", "feed");
      row.dataset.source = feed.source;
      row.dataset.state = feed.state;
      const [shape, word] = FEED_SHAPES[feed.state] || ["?", String(feed.state).toUpperCase()];
      const name = el("td", "", feed.source);
      if ((feed.lanes || []).length) name.append(el("small", "", " lanes " + feed.lanes.join(", ")));
      const health = el("td", "health");
      health.append(el("span", "feed-state", shape + " " + word));
      if (feed.seconds_silent) health.append(el("small", "", " silent " + feed.seconds_silent + " s"));
      // The last error only while the feed is not OK: a green feed has recovered from it.
      if (feed.last_error && feed.state !== "green") health.append(el("div", "feed-error", feed.last_error));
      // Connected and talking, but every line lately refused: say why.
      if (feed.refusing) health.append(el("div", "feed-error feed-refusing", feed.refusing));
      const rejected = feedCell(feed.rejected);
      if (feed.last_rejected) {
        rejected.append(el("div", "feed-error", "last: " + feed.last_rejected.reason));
        rejected.title = feed.last_rejected.line;
      }
      if (feed.conflicts) {
        // A number reused with other content: the scorer and the reader disagree on a line.
        const conflict = el("div", "feed-error feed-conflict",
                            feed.conflicts + " conflicting line" + (feed.conflicts === 1 ? "" : "s") +
                            (feed.last_conflict ? ": " + feed.last_conflict.reason : ""));
        if (feed.last_conflict) conflict.title = feed.last_conflict.line;
        rejected.append(conflict);
      }
      const held = feedCell(feed.held || 0);
      held.className = feed.held ? "held-cell warn" : "held-cell";
      if (feed.held) held.textContent = "held " + feed.held;
      row.append(name, health,
                 feedCell(feed.last_line_at ? new Date(feed.last_line_at).toLocaleTimeString() : "never"),
                 feedCell(feed.lines), rejected, held, feedCell(feed.reconnects));
      T.labelCells(row, FEED_COLUMNS);
      return row;
    }));
  }

  refreshFeeds();
  setInterval(refreshFeeds, 3000);
})();
