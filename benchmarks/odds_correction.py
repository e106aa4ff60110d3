"""The self-correcting odds, judged out of sample: a generated centre's matches predicted
night by night from the earlier nights only (as the live odds know them), each night
corrected by the correction its earlier nights fit, and the reliability table printed
before and after (docs/odds.md, "Self-correcting odds").

    python -m benchmarks.odds_correction --generator second --seed 7 --nights 80
    python -m benchmarks.odds_correction --generator heavy --seed 7 --nights 80

``--generator second`` is the second generator (pin-by-pin deflection bowlers, which the
model is never fitted to); ``heavy`` the same bowlers with a heavier spread between bowlers
and from game to game than the model assumes (benchmarks/_heavy_spread_centre.py).
``--save FILE`` keeps the predictions (JSON), ``--load FILE`` reads them back instead of
predicting again (the correction is cheap; the predictions are not).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict

from alley_poker.odds.calibration import Prediction, held_out_predictions
from alley_poker.odds.correction import PRIOR_MATCHES, Correction, before_and_after, corrected
from benchmarks._generated_centre import generated_matches, population
from benchmarks._heavy_spread_centre import heavy_population

GENERATORS = {"second": population, "heavy": heavy_population}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generator", choices=sorted(GENERATORS), default="second")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--nights", type=int, default=80)
    parser.add_argument("--bowlers", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--learn-nights", type=int, default=8)
    parser.add_argument("--prior-matches", type=float, default=PRIOR_MATCHES)
    parser.add_argument("--save", default=None)
    parser.add_argument("--load", default=None)
    parser.add_argument("--sharpen", type=float, default=1.0,
                        help="Raise every prediction to this power (renormalised): a model "
                             "that overrates its favourites, for the correction to undo.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    started = time.monotonic()
    if args.load:
        with open(args.load) as file:
            predictions = [Prediction(**row) for row in json.load(file)]
    else:
        matches = generated_matches(seed=args.seed, nights=args.nights, bowlers=args.bowlers,
                                    population=GENERATORS[args.generator])
        print(f"{len(matches)} matches of the {args.generator} generator (seed {args.seed}, "
              f"{args.nights} nights, {args.bowlers} regulars), {args.iterations} runs a "
              f"prediction, each night from the earlier nights only", file=sys.stderr)
        predictions = held_out_predictions(
            matches, iterations=args.iterations, processes=args.processes, rolling=True,
            progress=lambda done, total: print(f"  night {done}/{total}", file=sys.stderr)
            if done % 10 == 0 or done == total else None)
        if args.save:
            with open(args.save, "w") as file:
                json.dump([asdict(p) for p in predictions], file)
    if args.sharpen != 1.0:
        predictions = corrected(predictions, {p.date: Correction(args.sharpen)
                                              for p in predictions})
    result = before_and_after(predictions, learn_nights=args.learn_nights,
                              prior_matches=args.prior_matches)
    if result is None:
        print(f"no night has {args.learn_nights} nights before it", file=sys.stderr)
        return 1
    if args.json:
        json.dump(result.as_json(), sys.stdout, indent=1)
        print()
    else:
        print(result.markdown())
    print(f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
