"""The odds' record (service/odds_record, docs/odds.md "The record, shown"): the centre's own
reliability chart and Brier score from its settled matches, the same figures `alley-poker
odds calibrate` reports on them, worked out again only once a match has settled and it is
due, and saying so when there are too few matches to judge."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from alley_poker.cli import main
from alley_poker.odds.calibration import Prediction, Report, held_out_predictions
from alley_poker.odds.correction import corrected, rolling_corrections
from alley_poker.service.odds_history import played_matches
from alley_poker.service.odds_record import MIN_BIN, MIN_MATCHES, OddsRecord, OddsRecordSource
from alley_poker.store.event_store import EventStore
from benchmarks._generated_centre import generated_matches
from tests.odds.test_odds_history import _stored


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _worked_out(source: OddsRecordSource) -> dict:
    first = source.current()
    assert source.wait(30)
    return source.current() if first["state"] == "working" else first


def test_the_record_is_what_odds_calibrate_reports_on_the_same_matches(tmp_path):
    url = f"sqlite:///{tmp_path / 'centre.sqlite3'}"
    matches = generated_matches(seed=3, nights=2, bowlers=6)
    _stored(url, matches)
    with EventStore.open(url) as store:
        record = _worked_out(OddsRecordSource(store, iterations=20, processes=0))
    result = CliRunner().invoke(main, ["odds", "calibrate", "--database", url,
                                       "--iterations", "20", "--json"])
    assert result.exit_code == 0, result.output
    calibrated = json.loads(result.output[result.output.index("{"):])

    assert record["state"] == "ready" and calibrated["knowledge"] == "earlier-nights"
    assert (record["matches"], record["predictions"]) == (calibrated["matches"],
                                                          calibrated["predictions"])
    assert record["matches"] == record["settled_matches"] == len(matches)
    # The command's predictions (earlier nights known), corrected night by night as the
    # live odds correct them: the record's figures.
    with EventStore.open(url) as store:
        predictions = held_out_predictions(played_matches(store), iterations=20, rolling=True)
    assert Report.of(predictions).brier == pytest.approx(calibrated["brier"], abs=1e-12)
    shown = Report.of(corrected(predictions, rolling_corrections(predictions)))
    assert record["brier"] == pytest.approx(shown.brier, abs=5e-5)
    assert record["naive_brier"] == pytest.approx(calibrated["naive_brier"], abs=5e-5)
    assert [(b["low"], b["count"]) for b in record["bins"]] == [
        (b.low, b.count) for b in shown.bins]
    for bin_shown, bin_made in zip(record["bins"], shown.bins, strict=True):
        assert bin_shown["observed"] == pytest.approx(bin_made.observed, abs=5e-5)
        assert bin_shown["predicted"] == pytest.approx(bin_made.predicted, abs=5e-5)
        assert bin_shown["interval"] == pytest.approx(list(bin_made.interval), abs=5e-5)
    # Two matches are far too few: the record says so rather than being read.
    assert record["enough"] is False and record["min_matches"] == MIN_MATCHES


def _predictions(matches: int, per_match: int, chance: float) -> list[Prediction]:
    return [Prediction(f"m{m}", f"g1f{p}", "A", chance, 1.0 if (m + p) % 5 else 0.0, 2)
            for m in range(matches) for p in range(per_match)]


def test_the_record_is_judged_from_enough_matches_and_a_bin_that_can_be_read():
    enough = OddsRecord.of(Report.of(_predictions(MIN_MATCHES, 1, 0.75)), settled=MIN_MATCHES)
    assert enough.enough and enough.as_json()["bins"][0]["readable"]
    # One match short: not judged, however many predictions.
    short = OddsRecord.of(Report.of(_predictions(MIN_MATCHES - 1, 4, 0.75)),
                          settled=MIN_MATCHES - 1)
    assert not short.enough
    # Enough matches, but their predictions spread so thin that no tenth can be read.
    spread = [replace(p, predicted=(i % 10) / 10 + 0.05)
              for i, p in enumerate(_predictions(MIN_MATCHES * 3, 1, 0.5))]
    thin = OddsRecord.of(Report.of(spread), settled=MIN_MATCHES * 3)
    assert all(b.count < MIN_BIN for b in thin.report.bins) and not thin.enough
    assert not any(b["readable"] for b in thin.as_json()["bins"])


def test_the_record_is_worked_out_again_once_due_and_only_if_a_match_has_settled(tmp_path):
    url = f"sqlite:///{tmp_path / 'centre.sqlite3'}"
    matches = generated_matches(seed=3, nights=3, bowlers=6)
    first_nights = [m for m in matches if m.date != matches[-1].date]
    clock = Clock()
    _stored(url, first_nights)
    with EventStore.open(url) as store:
        source = OddsRecordSource(store, iterations=20, processes=0, refresh_seconds=600,
                                  clock=clock)
        assert source.current() == {"state": "working"}
        assert source.wait(30)
        first = source.current()
        assert first["matches"] == len(first_nights)
        # Not due yet: the same record, nothing replayed, even with a match settled since.
        _stored(url, [m for m in matches if m not in first_nights])
        clock.now = 599
        source.current()
        assert source.wait(5)
        assert source.current() == first
        # Due and a match has settled: worked out again, on every match.
        clock.now = 600
        source.current()
        assert source.wait(30)
        second = source.current()
        assert second["matches"] == len(matches) > first["matches"]
        assert second["computed_at"] > first["computed_at"]
        # Due again but nothing settled since: the record stands as it was.
        clock.now = 1200
        source.current()
        assert source.wait(30)
        assert source.current() == second


def test_a_centre_without_settled_matches_has_a_record_of_nothing(tmp_path):
    with EventStore.open(f"sqlite:///{tmp_path / 'empty.sqlite3'}") as store:
        record = _worked_out(OddsRecordSource(store, iterations=20, processes=0))
    assert (record["state"], record["enough"], record["matches"], record["bins"]) == (
        "ready", False, 0, [])


def test_the_record_rests_on_the_latest_matches_of_a_centre_with_many(tmp_path):
    url = f"sqlite:///{tmp_path / 'centre.sqlite3'}"
    matches = generated_matches(seed=3, nights=3, bowlers=6)
    _stored(url, matches)
    with EventStore.open(url) as store:
        record = _worked_out(OddsRecordSource(store, iterations=20, processes=0,
                                              max_matches=1))
    assert len(matches) > 1
    assert (record["matches"], record["settled_matches"]) == (1, len(matches))
