"""The hand evaluator against treys and phevaluator, in one process, on the same hands.

Run from the repository root::

    python -m benchmarks.evaluator            # a readable table
    python -m benchmarks.evaluator --json     # one JSON object (issue 7 §1)
    python -m benchmarks.evaluator --quick    # a few seconds, for CI's smoke tier
    python -m benchmarks.evaluator --seed 7   # other random hands

What is measured:

- **joker-free 5- and 7-card hands** through all three evaluators: the same random hands
  (drawn from a ``random.Random(seed)``), timed in rounds; each round times every library
  on the whole batch, the order of the libraries rotating from round to round, so drift in
  a shared machine's speed hits all alike.  Hands/second is the batch over the median
  round's time.  ``ratio_*`` is ours over treys.
- **hands holding jokers, 5 to 15 cards** (``ours_joker_hps``): ours alone (the others have
  no jokers).  Mostly one good joker (as in play), some with the bad one only, some with both.
- **joker-free hands of 10 to 15 cards** (``ours_long_hps``): ours alone (the others take
  at most 7 cards).

How each is called (the way its documentation shows for speed; converting cards to each
library's own form happens before the clock starts, for everyone):

- ours: ``alley_poker.hands.evaluate(cards)`` on a list of :class:`alley_poker.cards.Card`
  objects built beforehand, the public API as the ledger calls it.
- treys: ``Evaluator().evaluate(hand, board)`` (one ``Evaluator``, built before) with the
  first two cards as the hand and the rest as the board, all ``treys.Card.new("Ah")`` ints
  converted beforehand.
- phevaluator: ``phevaluator.evaluate_cards(*cards)`` with its own card ids
  (``rank * 4 + suit``, as its ``Card`` documents) converted beforehand.

Every run checks that the three **agree on the order** of all the joker-free hands, 5- and
7-card together: sorted by our value, treys' and phevaluator's ranks (lower is better) must
fall strictly where ours rises and stay equal where ours ties; then every pair of hands is
ordered alike.  The answers are collected in a pass of their own, after the timed rounds
(the timed loops drop them, for every library alike).  ``agree`` is true only when they
did; a benchmark of a wrong answer is worthless, so the exit status is 1 when they did not.

Time is CPU time of this process (``time.process_time``), so a busy shared machine taking
the CPU away mid-round does not count against whoever was running.

Our evaluator keeps a cache of values by rank pattern (bounded; see
:mod:`alley_poker.hand_keys`) that a long-running service fills as it goes.  The first round
of 7-card hands meets it cold, so the first round's figure is also given
(``ours_7card_first_round_hps``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

try:
    from phevaluator import evaluate_cards as phevaluator_evaluate
    from treys import Card as TreysCard
    from treys import Evaluator as TreysEvaluator
except ImportError as missing:  # the peers are the 'bench' extra, not a service dependency
    sys.exit(f"benchmarks.evaluator needs treys and phevaluator ({missing}): "
             "pip install -e '.[bench]'")

from alley_poker.cards import STANDARD_CARDS, Card
from alley_poker.hands import evaluate

#: treys' evaluator, built once (building it builds its lookup tables).
TREYS = TreysEvaluator()
GOOD_JOKER = Card.joker_with_power("good")
BAD_JOKER = Card.joker_with_power("bad")

#: Batch sizes and rounds: (5-card, 7-card, joker, long) hands per batch, rounds.
FULL_RUN = {"five": 100_000, "seven": 50_000, "joker": 50_000, "long": 20_000, "rounds": 9}
QUICK_RUN = {"five": 10_000, "seven": 5_000, "joker": 5_000, "long": 2_000, "rounds": 3}


# -- the hands ------------------------------------------------------------------------------


def joker_free_hands(rng: random.Random, count: int, sizes: Sequence[int]) -> list[list[Card]]:
    """``count`` random hands of distinct standard cards, each of a size drawn from ``sizes``."""
    return [rng.sample(STANDARD_CARDS, rng.choice(sizes)) for _ in range(count)]


def joker_hands(rng: random.Random, count: int) -> list[list[Card]]:
    """``count`` random hands of 5 to 15 cards holding a joker: 80% the good joker alone (as
    in play), 10% the bad joker alone, 10% both (unbeatable)."""
    hands = []
    for _ in range(count):
        roll = rng.random()
        jokers = [GOOD_JOKER] if roll < 0.8 else [BAD_JOKER] if roll < 0.9 else [
            GOOD_JOKER, BAD_JOKER]
        hand = rng.sample(STANDARD_CARDS, rng.randint(5, 15) - len(jokers)) + jokers
        rng.shuffle(hand)
        hands.append(hand)
    return hands


def treys_form(hands: list[list[Card]]) -> list[tuple[list[int], list[int]]]:
    """(hand, board) pairs of treys card ints: the first two cards, then the rest."""
    def convert(cards: list[Card]) -> list[int]:
        return [TreysCard.new(str(card)[0] + str(card)[1].lower()) for card in cards]
    return [(convert(cards[:2]), convert(cards[2:])) for cards in hands]


def phevaluator_form(hands: list[list[Card]]) -> list[tuple[int, ...]]:
    """phevaluator card ids, ``rank * 4 + suit`` (2 = 0 .. ace = 12; clubs, diamonds, hearts,
    spades), as phevaluator.Card documents them."""
    return [tuple((card.rank - 2) * 4 + "CDHS".index(card.suit) for card in cards)
            for cards in hands]


# -- the runners ---------------------------------------------------------------------------
# Timed loops call the evaluator once per hand and drop the answer, the same loop for every
# library (keeping 200,000 answers would time the garbage collector, not the evaluator: our
# values are objects, theirs bare ints).  The answers are collected in an untimed pass.


def time_ours(hands: list[list[Card]]) -> None:
    judge = evaluate
    for cards in hands:
        judge(cards)


def time_treys(hands: list[tuple[list[int], list[int]]]) -> None:
    judge = TREYS.evaluate
    for hand, board in hands:
        judge(hand, board)


def time_phevaluator(hands: list[tuple[int, ...]]) -> None:
    judge = phevaluator_evaluate
    for cards in hands:
        judge(*cards)


def timed(runner: Callable[[list], None], batch: list) -> float:
    """CPU seconds taken by ``runner(batch)``: process time, not wall time, so that other
    work on a shared machine preempting this process is not counted against whoever was
    running (interleaving the rounds evens out the rest)."""
    start = time.process_time()
    runner(batch)
    return time.process_time() - start


def race(entrants: dict[str, tuple[Callable[[list], None], list]], rounds: int
         ) -> dict[str, list[float]]:
    """Time every entrant on its batch, ``rounds`` times, the order rotating each round;
    the seconds of each round per entrant."""
    seconds: dict[str, list[float]] = {name: [] for name in entrants}
    names = list(entrants)
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            runner, batch = entrants[name]
            seconds[name].append(timed(runner, batch))
    return seconds


def hands_per_second(hand_count: int, seconds: list[float]) -> float:
    """Hands per second in the median round: a round another process disturbed (the
    machine is shared) moves the median far less than the mean."""
    return hand_count / statistics.median(seconds)


# -- agreement -------------------------------------------------------------------------------


def orders_agree(ours: Sequence[int], theirs: Sequence[int]) -> bool:
    """Whether ``theirs`` (lower is better) orders every pair of hands as ``ours`` (higher is
    better) does: better, worse or tied alike.

    Sorting by ours and checking neighbours is enough: agreement on every neighbouring pair
    of a sorted total preorder is agreement on every pair.

    >>> orders_agree([10, 30, 20, 20], [9, 1, 5, 5]), orders_agree([10, 20], [3, 3])
    (True, False)
    """
    order = sorted(range(len(ours)), key=ours.__getitem__)
    for low, high in itertools.pairwise(order):
        if ours[low] == ours[high]:
            if theirs[low] != theirs[high]:
                return False
        elif theirs[low] <= theirs[high]:
            return False
    return True


# -- the run ---------------------------------------------------------------------------------


def machine() -> str:
    """The CPU model and core count, for the record."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def run(seed: int, sizes: dict[str, int]) -> dict:
    rng = random.Random(seed)
    five = joker_free_hands(rng, sizes["five"], (5,))
    seven = joker_free_hands(rng, sizes["seven"], (7,))
    with_jokers = joker_hands(rng, sizes["joker"])
    long_hands = joker_free_hands(rng, sizes["long"], range(10, 16))
    rounds = sizes["rounds"]
    figures: dict = {}
    keys: dict[str, list[int]] = {"ours": [], "treys": [], "phevaluator": []}
    for label, batch in (("5card", five), ("7card", seven)):
        as_treys, as_phevaluator = treys_form(batch), phevaluator_form(batch)
        seconds = race({
            "ours": (time_ours, batch),
            "treys": (time_treys, as_treys),
            "phevaluator": (time_phevaluator, as_phevaluator),
        }, rounds)
        for name, taken in seconds.items():
            figures[f"{name}_{label}_hps"] = round(hands_per_second(len(batch), taken))
        figures[f"ratio_{label}"] = round(
            figures[f"ours_{label}_hps"] / figures[f"treys_{label}_hps"], 2)
        figures[f"ours_{label}_first_round_hps"] = round(len(batch) / seconds["ours"][0])
        # The answers, untimed: each library on the same hands.
        keys["ours"] += [evaluate(cards).key for cards in batch]
        keys["treys"] += [TREYS.evaluate(hand, board) for hand, board in as_treys]
        keys["phevaluator"] += [phevaluator_evaluate(*cards) for cards in as_phevaluator]
    for label, batch in (("joker", with_jokers), ("long", long_hands)):
        seconds = race({"ours": (time_ours, batch)}, rounds)
        figures[f"ours_{label}_hps"] = round(hands_per_second(len(batch), seconds["ours"]))
    treys_agrees = orders_agree(keys["ours"], keys["treys"])
    phevaluator_agrees = orders_agree(keys["ours"], keys["phevaluator"])
    return {
        **figures,
        "agree": treys_agrees and phevaluator_agrees,
        "agree_treys": treys_agrees,
        "agree_phevaluator": phevaluator_agrees,
        "hands_compared": len(keys["ours"]),
        "seed": seed,
        "rounds": rounds,
        "statistic": "median round, CPU time",
        "hands_per_batch": {name: count for name, count in sizes.items() if name != "rounds"},
        "python": platform.python_version(),
        "machine": machine(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def table(result: dict) -> str:
    """The figures as a readable table."""
    lines = [f"{'hands':<28}{'ours':>12}{'treys':>12}{'phevaluator':>13}{'ours/treys':>12}"]
    for label, title in (("5card", "5 cards, no joker"), ("7card", "7 cards, no joker")):
        lines.append(
            f"{title:<28}{result[f'ours_{label}_hps']:>12,}{result[f'treys_{label}_hps']:>12,}"
            f"{result[f'phevaluator_{label}_hps']:>13,}{result[f'ratio_{label}']:>11}x")
    lines.append(f"{'5-15 cards with a joker':<28}{result['ours_joker_hps']:>12,}")
    lines.append(f"{'10-15 cards, no joker':<28}{result['ours_long_hps']:>12,}")
    lines.append("(hands per second)")
    lines.append(f"7 cards, ours in the first round (cold cache): "
                 f"{result['ours_7card_first_round_hps']:,}/s")
    lines.append(f"orders agree on {result['hands_compared']:,} hands: {result['agree']} "
                 f"(treys {result['agree_treys']}, phevaluator {result['agree_phevaluator']})")
    lines.append(f"seed {result['seed']}, {result['rounds']} rounds, "
                 f"Python {result['python']}, {result['machine']}, {result['date']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.evaluator",
        description="Our hand evaluator against treys and phevaluator on the same hands.")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="a run of a few seconds")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the random hands")
    args = parser.parse_args(argv)
    result = run(args.seed, QUICK_RUN if args.quick else FULL_RUN)
    print(json.dumps(result) if args.json else table(result))
    return 0 if result["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
