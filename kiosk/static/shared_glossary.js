// The game's words in plain words, one tap away wherever a bowler looks (the kiosk and the
// phone): a "What do the words mean?" button opens a small dialog; Close, Escape or a tap
// outside shuts it.  The page needs a <button data-glossary-open> and this script.
(function () {
  "use strict";
  const WORDS = [
    ["Cards for marks", "A strike earns 2 cards, a spare 1. Marks in a row earn one card " +
      "more each, up to 3 a mark. The first strike of each game earns 1 more."],
    ["The jokers", "One joker is good (it helps your hand) and one is bad (it hurts it). " +
      "A gutter ball takes a joker first. When a joker that went back to the pile is drawn " +
      "again, the two swap: the good one turns bad and the bad one good (Freaky Friday)."],
    ["The hole", "A gutter ball with no card to lose puts you in the hole (−1, −2 …). " +
      "Each card you earn later fills the hole first instead of coming to your hand."],
    ["The guess", "After a gutter ball you may guess which side the ball comes back on " +
      "(left or right) instead of picking a card. Right: you keep your cards. Wrong: you " +
      "pick the card to lose."],
    ["Steals", "Picking up a split earns a steal: take any one card from another bowler's " +
      "hand."],
    ["Best hand", "The badges rank the poker hands now: \"Best hand\" would win the pot if " +
      "the match ended now; \"2nd-best hand\" comes next."],
    ["The end of the match", "Each bowler may take one more card from the pile, then buy " +
      "one for the ante. The best poker hand wins the pot; a tie splits it."],
  ];

  function build() {
    const dialog = document.createElement("dialog");
    dialog.className = "glossary";
    dialog.id = "glossary";
    dialog.setAttribute("aria-labelledby", "glossary-title");
    const title = document.createElement("h2");
    title.id = "glossary-title";
    title.textContent = "The words of the game";
    const list = document.createElement("dl");
    WORDS.forEach(function (pair) {
      const term = document.createElement("dt");
      term.textContent = pair[0];
      const meaning = document.createElement("dd");
      meaning.textContent = pair[1];
      list.append(term, meaning);
    });
    const close = document.createElement("button");
    close.type = "button";
    close.className = "choice no glossary-close";
    close.textContent = "Close";
    close.addEventListener("click", function () { dialog.close(); });
    dialog.addEventListener("click", function (event) {
      if (event.target === dialog) dialog.close();   // a tap on the backdrop
    });
    dialog.append(title, list, close);
    document.body.append(dialog);
    return dialog;
  }

  let dialog = null;
  document.querySelectorAll("[data-glossary-open]").forEach(function (opener) {
    opener.addEventListener("click", function () {
      dialog = dialog || build();
      dialog.showModal();
    });
  });
})();
