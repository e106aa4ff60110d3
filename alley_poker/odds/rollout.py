"""The cards of a run: what the ledger's handlers do with a run's balls, on plain lists.

:func:`play_cards` takes a run's events (every seat's script, sorted: the order the balls
are bowled) and plays the card rules the ledger plays for them
(:mod:`alley_poker.ledger.play`, ``dealing``, ``losing``, ``deciding``, ``endgame``), with
the automatic choice at every decision, as the scheduler takes it when a deadline passes:

- the decisions already open when the run starts go first, oldest first (a card loss gives
  up the automatic card, or deepens the hole when the hand is empty; a steal and a buy lapse;
  an end-of-match draw draws unless the hand is unbeatable);
- each event: the cards its mark earns, then the first strike bonus of its game, each a
  draw (a card of the hole paid off first; else a card from the pile, an armed joker
  swapping the powers; else the courtesy draw from the bowler holding the most); then a
  gutter ball's card loss (the good joker, else the bad one, else the automatic card, else
  one deeper in the hole; a card lost goes back into the pile, a joker armed);
- once every game is bowled, the lowest series (scratch, or handicapped by the rule book)
  is offered the draw, taken unless the hand is unbeatable; buys lapse (declined);
- the showdown: the best hands (the Morgan Maneuver unbeatable) share the pot.

The draw pile is a list of the hidden cards: every reshuffle the ledger makes is uniform,
so a draw is a uniform pick from what is left, not a read of an order.  ``pick(n)`` makes
every random choice (an index below ``n``), so :mod:`alley_poker.odds.exact` can enumerate
them all.
"""

from __future__ import annotations

from collections.abc import Callable

from alley_poker.hand_keys import UNBEATABLE_KEY
from alley_poker.odds.compact import (
    END_DRAW,
    JOKER_A,
    JOKER_B,
    LOSE_CARD,
    HandJudge,
    Start,
)


def play_cards(start: Start, judge: HandJudge, events: list[int], series: list[int],
               pick: Callable[[int], int]) -> list[int]:
    """One run's card play to the showdown: the winning seats, in seat order."""
    rules = start.rules
    seats = len(start.bowlers)
    pile = list(start.pile)
    hands = [list(hand) for hand in start.hands]
    hole = list(start.hole)
    acquired = list(start.acquired)
    first_drawn = list(start.first_drawn)
    armed = set(start.armed)
    good = start.good
    freaky = rules.freaky_friday
    courtesy = rules.empty_pile == "courtesy_shuffle"

    def draw(seat: int, count: int = 1) -> None:
        """``count`` draws in turn (one call for a mark's cards)."""
        nonlocal good
        hand = hands[seat]
        size = len(pile)
        if not armed and size >= count and hole[seat] >= 0:
            # The common case, as the loop below plays it (the same picks, in turn): every
            # card from the pile, and no armed joker to watch for.
            for _ in range(count):
                index = pick(size)
                size -= 1
                hand.append(pile[index])
                pile[index] = pile[size]
                pile.pop()
            if acquired[seat] == 0:
                first_drawn[seat] = hand[-count]
            acquired[seat] += count
            return
        for _ in range(count):
            if hole[seat] < 0:
                hole[seat] += 1
                continue
            if pile:
                index = pick(len(pile))
                card = pile[index]
                pile[index] = pile[-1]
                pile.pop()
                if armed and card in armed:
                    # Drawing an armed joker swaps the powers and disarms every armed joker.
                    good = JOKER_B if good == JOKER_A else JOKER_A
                    armed.clear()
            else:
                # The pile stays empty for this call's draws, and a draw that takes nothing
                # changes nothing: when one is skipped, so is every one after it.
                if not courtesy:
                    break
                lengths = list(map(len, hands))
                most = max(lengths)
                if not most or (lengths[seat] == most and lengths.count(most) == 1):
                    break  # nobody else holds a card, or the drawer alone holds the most
                candidates = [other for other in range(seats)
                              if other != seat and lengths[other] == most]
                victim = (candidates[0] if len(candidates) == 1
                          else candidates[pick(len(candidates))])
                card = hands[victim].pop(pick(most))
                if acquired[seat] == 0:
                    first_drawn[seat] = -1  # a card taken is no Morgan Maneuver
                acquired[seat] += 1
                hand.append(card)
                continue
            if acquired[seat] == 0:
                first_drawn[seat] = card
            acquired[seat] += 1
            hand.append(card)

    def give_back(seat: int, card: int) -> None:
        hands[seat].remove(card)
        pile.append(card)
        if freaky and card >= JOKER_A:
            armed.add(card)

    def automatic_loss(seat: int) -> None:
        if hands[seat]:
            give_back(seat, judge.automatic_loss(hands[seat], good))
        else:
            hole[seat] -= 1

    def end_draw(seat: int) -> None:
        if judge.value(hands[seat], good, acquired[seat], first_drawn[seat]) \
                != UNBEATABLE_KEY:
            draw(seat)

    for kind, seat in start.decisions:
        if kind == LOSE_CARD:
            automatic_loss(seat)
        elif kind == END_DRAW:
            end_draw(seat)
        # a steal lapses and a buy is declined: nothing moves

    bonus = rules.first_strike_bonus
    first_strike = set(start.first_strike)
    for event in events:
        seat = (event >> 8) & 15
        if event & 60:
            draw(seat, (event >> 2) & 15)
        if event & 2 and bonus:
            game = event >> 16
            if game not in first_strike:
                first_strike.add(game)
                draw(seat, bonus)
        if event & 1:
            hand = hands[seat]
            bad = JOKER_B if good == JOKER_A else JOKER_A
            if good in hand:
                give_back(seat, good)
            elif bad in hand:
                give_back(seat, bad)
            else:
                automatic_loss(seat)

    if start.playing and rules.lowest_score_draw:
        judged = [total + extra for total, extra in zip(series, start.handicap_series,
                                                        strict=True)]
        low = min(judged)
        for seat in range(seats):
            if judged[seat] == low:
                end_draw(seat)
    values = [judge.value(hands[seat], good, acquired[seat], first_drawn[seat])
              for seat in range(seats)]
    best = max(values)
    return [seat for seat in range(seats) if values[seat] == best]


def shares(start: Start, winners: list[int]) -> dict[int, int]:
    """The showdown's cents per winning seat (odd cents to the first seated, or the
    house), as :func:`alley_poker.ledger.endgame.split_pot` splits the pot."""
    share, odd = divmod(start.pot_cents, len(winners))
    cents = dict.fromkeys(winners, share)
    if odd and start.odd_to_first:
        cents[winners[0]] += odd
    return cents


__all__ = ["play_cards", "shares"]
