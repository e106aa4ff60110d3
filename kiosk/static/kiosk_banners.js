// The kiosk's moments (a strike, a gutter, a steal…), in an area of their own above the
// panels, never over a hand.  The latest is shown at once and stays a few seconds; the ones
// before it move to a short list of recent moments, so a burst never queues stale banners.
// ``announce`` tells a match's new events as moments (shared_catch_up.js hands them over once each,
// in order); ``show`` tells one moment of the kiosk's own (an answer the ledger refused).
(function () {
  "use strict";
  const el = window.AlleyCards.el, cardText = window.AlleyCards.cardText;
  const banner = document.getElementById("banner");
  const BANNER_MS = 6000, RECENT_MAX = 4;
  const recent = document.getElementById("recent");
  let current = null, bannerTimer = null;
  function momentNodes(moment) {
    return [].concat(moment.text).map(function (part) {
      return typeof part === "string" ? document.createTextNode(part) : part.cloneNode(true);
    });
  }
  function remember(moment) {
    const item = el("li", "recent-moment");
    item.dataset.kind = moment.kind || "moment";
    item.append.apply(item, momentNodes(moment));
    if (moment.detail) item.append(" · " + moment.detail);
    recent.prepend(item);
    while (recent.children.length > RECENT_MAX) recent.lastElementChild.remove();
  }
  function showBanner(text, kind, detail) {
    if (current) remember(current);
    current = { text: text, kind: kind, detail: detail };
    banner.replaceChildren.apply(banner, momentNodes(current));
    if (detail) banner.append(el("small", "", detail));
    banner.dataset.kind = kind || "moment";
    banner.hidden = false;
    banner.classList.remove("pop"); void banner.offsetWidth; banner.classList.add("pop");
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(function () {
      if (current) remember(current);
      current = null;
      banner.hidden = true;
    }, BANNER_MS);
  }

  // A card named in an event, as a bowler reads it: a physical joker by its power now,
  // any other card with its suit's symbol (4♥, red suits in red).
  function cardWords(card, state) {
    const power = ((state && state.jokers) || {})[card];
    if (power) return power === "good" ? "GOOD JOKER" : "BAD JOKER";
    if (card === "GJ") return "GOOD JOKER";
    if (card === "BJ") return "BAD JOKER";
    return cardText(card);
  }

  function cardList(cards, state) {
    const parts = [];
    cards.forEach(function (card, index) {
      if (index) parts.push(index === cards.length - 1 ? " and " : ", ");
      parts.push(cardWords(card, state));
    });
    return parts;
  }

  // The empty-pile draw (from whoever holds the most cards) is no steal: one ball can bring
  // several, told as one moment per drawer and giver.
  function courtesyDraws(events, state) {
    const draws = {};
    events.forEach(function (event) {
      const d = event.data || {};
      if (event.type !== "card_taken" || d.via !== "courtesy") return;
      const key = d.bowler + "\u0000" + d.from_bowler;
      (draws[key] = draws[key] || { bowler: d.bowler, from: d.from_bowler, cards: [] }).cards.push(d.card);
    });
    return function tell(event) {  // at the first of a group's draws, in ledger order
      const d = event.data || {};
      const key = d.bowler + "\u0000" + d.from_bowler;
      const draw = draws[key];
      if (!draw) return;
      delete draws[key];
      showBanner(["PILE EMPTY — " + draw.bowler + " draws from " + draw.from + ": "]
                   .concat(cardList(draw.cards, state)), "courtesy",
                 draw.from + " held the most cards");
    };
  }

  function announce(events, state) {
    // A gutter ball says what it cost (the card that went back, or the hole) in its own
    // banner; the plain "loses a card" is only for a gutter still waiting on a choice.
    const gutterTold = new Set(events
      .filter(function (e) { return e.type === "card_returned" || e.type === "hole_deepened"; })
      .map(function (e) { return (e.data || {}).bowler; }));
    const tellCourtesy = courtesyDraws(events, state);
    // Cards that go back for another reason than a gutter ball (a Holland-daze, a bowler
    // removed, a review) are no gutter: a Holland-daze names them in its own moment.
    const dazed = {};
    events.forEach(function (e) {
      const d = e.data || {};
      if (e.type === "card_returned" && d.why === "holland_daze") {
        (dazed[d.bowler] = dazed[d.bowler] || []).push(d.card);
      }
    });
    events.forEach(function (event) {
      const d = event.data || {};
      if (event.type === "ball_recorded" && d.gutter_ball && gutterTold.has(d.bowler)) {
        return;
      } else if (event.type === "ball_recorded" && d.mark === "strike") {
        showBanner("STRIKE! +" + d.cards_due, "strike",
                   d.bowler + (d.bonus ? " · first strike of the game, +" + d.bonus + " more" : ""));
      } else if (event.type === "ball_recorded" && d.gutter_ball) {
        showBanner("GUTTER", "gutter", d.bowler + " loses a card");
      } else if (event.type === "ball_recorded" && d.split_pickup) {
        showBanner("SPLIT PICKED UP — " + d.bowler, "spare");
      } else if (event.type === "jokers_swapped") {
        showBanner("FREAKY FRIDAY — the jokers swap!", "freaky");
      } else if (event.type === "holland_daze") {
        const lost = dazed[d.bowler] || [];
        showBanner(["HOLLAND-DAZE — " + d.bowler].concat(
          lost.length ? [" · back to the pile: "].concat(cardList(lost, state)) : []), "daze");
      } else if (event.type === "hole_deepened") {
        showBanner(d.bowler + " is IN THE HOLE", "hole");
      } else if (event.type === "card_returned" &&
                 ["holland_daze", "bowler removed", "review"].indexOf(d.why) >= 0) {
        return;
      } else if (event.type === "card_returned") {
        showBanner(["GUTTER — " + d.bowler + "'s ", cardWords(d.card, state), " went back"], "gutter");
      } else if (event.type === "card_taken" && d.via === "courtesy") {
        tellCourtesy(event);
      } else if (event.type === "card_taken") {
        showBanner(["STEAL — " + d.bowler + " took ", cardWords(d.card, state),
                    " from " + d.from_bowler], "steal");
      } else if (event.type === "automatic_win") {
        showBanner("AUTOMATIC WIN — " + d.bowler, "winner");
      } else if (event.type === "showdown") {
        const hands = d.hands || {};
        const morgan = (d.winners || []).filter(function (w) { return (hands[w] || {}).morgan; });
        if (morgan.length) {
          showBanner("MORGAN MANEUVER — " + morgan.join(" & "), "winner",
                     "a lone joker, drawn and held: unbeatable");
        } else {
          showBanner("WINNER — " + (d.winners || []).join(" & "), "winner");
        }
      }
    });
  }

  window.AlleyKioskBanners = { show: showBanner, announce: announce };
})();
