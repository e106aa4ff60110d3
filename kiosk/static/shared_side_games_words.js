// The side games (brackets, pots) in words, shared by the desk, the phone and the kiosk:
// a side game's name, a pot's kind, a round, money in dollars.  No screen shows an id or
// "cents": these turn the API's values into what a person reads.
(function () {
  "use strict";
  const POTS = { high_game: "high game", high_series: "high series", strikes: "strike pot" };

  // Money and elements as the page's own script draws them (the tablet's commissioner.js,
  // the kiosk's and the phone's shared_card_faces.js).
  const shared = window.Commissioner || window.AlleyCards;
  const money = shared.money, el = shared.el;

  // "$5", "5.00", "$ 12.5" -> 500, 500, 1250; anything else -> null.
  function cents(text) {
    const found = /^\s*\$?\s*(\d{1,7})(?:\.(\d{1,2}))?\s*$/.exec(String(text));
    if (!found) return null;
    return Number(found[1]) * 100 + Number((found[2] || "0").padEnd(2, "0"));
  }

  function kindName(kind) { return kind === "bracket" ? "brackets" : (POTS[kind] || kind); }

  // A side game's name as the desk called it, with what it is: "hdcp brackets",
  // "high game" (for "high-game").
  function gameName(game, kind) {
    const name = game.replace(/-/g, " "), what = kindName(kind);
    return name.indexOf(what.split(" ")[0]) >= 0 ? name : name + " " + what;
  }

  // One bracket of a bracket game: "hdcp bracket 3".
  function bracketName(game, number) { return game.replace(/-/g, " ") + " bracket " + number; }

  function ordinal(n) { return n + (n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"); }

  window.AlleySide = { money: money, cents: cents, kindName: kindName, gameName: gameName,
                       bracketName: bracketName, el: el, ordinal: ordinal };
})();
