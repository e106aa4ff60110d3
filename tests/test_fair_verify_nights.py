"""``alley-poker verify`` (by re-execution) on whole nights stored on SQLite and PostgreSQL:
OK for every match of a demo night and of a league night; and a log edited in the database
so that it no longer rebuilds gives sentences, never a traceback, from ``verify``,
``export`` (which still writes the export for an outside check) and ``audit verify``."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from alley_poker.cli import main
from alley_poker.cli.demo_alley import run_demo
from alley_poker.cli.season_demo import run_season
from alley_poker.fairness.chain import GENESIS, link_hash
from alley_poker.store.event_store import EventStore
from alley_poker.store.schema import events
from alley_poker.verifier.verify import verify_export
from tests.store.conftest import (  # noqa: F401 (fixtures)
    new_postgresql_url,
    postgres_admin_engine,
    postgresql_url,
)


@pytest.fixture(scope="module")
def demo_night(tmp_path_factory):
    database = tmp_path_factory.mktemp("demo") / "demo.sqlite3"
    assert not run_demo(speed=0, seed=23, database=database, echo=lambda line: None).unsettled
    return f"sqlite:///{database}"


@pytest.fixture(scope="module")
def league_night(tmp_path_factory):
    database = tmp_path_factory.mktemp("league") / "league.sqlite3"
    # No seed: a seeded season deals from test generators so it repeats exactly, and such
    # matches commit to nothing; a real league night is dealt from sealed secrets.
    season = run_season(weeks=1, seed=None, database=database, echo=lambda line: None)
    assert season.nights and not season.unsettled
    return f"sqlite:///{database}"


def copy_night(source: str, target: str) -> list[str]:
    """Every match of the night at ``source``, appended as it is to the store at ``target``."""
    with EventStore.open(source) as old, EventStore.open(target) as new:
        matches = old.match_ids()
        for match_id in matches:
            new.append(match_id, old.load(match_id), 0)
    return matches


@pytest.fixture(params=["sqlite", "postgresql"])
def night_url(request, tmp_path):
    """An empty database on each back-end in turn."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'copy.sqlite3'}"
    return request.getfixturevalue("postgresql_url")


def run(*arguments: str):
    result = CliRunner().invoke(main, list(arguments))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"traceback from {arguments}: {result.exception!r}\n{result.output}")
    return result


def every_match_verifies(url: str, matches: list[str]) -> None:
    assert matches
    for match_id in matches:
        result = run("verify", match_id, "--database", url)
        assert result.exit_code == 0, result.output
        assert result.output.startswith(f"OK: match {match_id}: ")
        assert "every event from the inputs by the rules" in result.output


def test_every_match_of_a_demo_night_verifies(demo_night, night_url):
    every_match_verifies(night_url, copy_night(demo_night, night_url))


@pytest.mark.slow  # the league night takes ~15 s to bowl
def test_every_match_of_a_league_night_verifies(league_night, night_url):
    every_match_verifies(night_url, copy_night(league_night, night_url))


def rewrite(url: str, match_id: str, seq: int, change, *, rechain: bool = True,
            body=None) -> None:
    """Edit one stored event in the database and (as an insider would) re-seal the chain."""
    with EventStore.open(url) as store, store.engine.begin() as connection:
        where = sa.and_(events.c.match_id == match_id, events.c.centre == store.centre)
        rows = connection.execute(sa.select(events.c.seq, events.c.type, events.c.data)
                                  .where(where).order_by(events.c.seq)).all()
        previous = GENESIS
        for row in rows:
            stored = json.loads(json.dumps(row.data))
            if row.seq == seq:
                if body is None:
                    change(stored["data"])
                else:
                    stored = body
                connection.execute(sa.update(events).where(where, events.c.seq == seq)
                                   .values(data=stored))
            if rechain:
                record = {"match_id": match_id, "seq": row.seq, "type": row.type, **stored}
                digest = link_hash(previous, record)
                connection.execute(sa.update(events).where(where, events.c.seq == row.seq)
                                   .values(prev_hash=previous, hash=digest))
                previous = digest


def test_a_log_that_no_longer_rebuilds_is_named_not_a_traceback(demo_night, night_url, tmp_path):
    match_id = copy_night(demo_night, night_url)[0]
    with EventStore.open(night_url) as store:
        records = store.load(match_id)
    drawn = [r for r in records if r["type"] == "card_drawn"]
    target, held = drawn[len(drawn) // 2], drawn[0]["data"]["card"]  # a card already dealt
    rewrite(night_url, match_id, target["seq"], lambda data: data.update(card=held))

    verified = run("verify", match_id, "--database", night_url)
    assert verified.exit_code == 1
    assert verified.output.startswith(
        f"FAILED: match {match_id} event #{target['seq']} (card_drawn): ")

    exported = run("export", match_id, "--database", night_url, "-o", str(tmp_path / "x.json"))
    assert exported.exit_code == 0, exported.output
    export = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))
    assert export["events"][target["seq"] - 1]["data"]["card"] == held
    verdict = verify_export(export)
    assert (verdict.ok, verdict.seq) == (False, target["seq"])
    from_file = run("verify", str(tmp_path / "x.json"))
    assert from_file.output == verified.output

    audited = run("audit", "verify", "--database", night_url)
    assert audited.exit_code == 0 and "the chain holds" in audited.output  # re-sealed

    # Any card but the one stored (the deal is from sealed secrets, so it may be the AS,
    # and a "change" to the same card changes nothing: one run in 52 saw the chain hold).
    forged = "AS" if held != "AS" else "KH"
    rewrite(night_url, match_id, target["seq"], lambda data: data.update(card=forged),
            rechain=False)
    audited = run("audit", "verify", "--database", night_url)
    assert audited.exit_code == 1
    assert f"match {match_id}" in audited.output and f"#{target['seq']}" in audited.output


def test_a_stored_event_that_is_not_even_a_record_is_named(demo_night, night_url):
    match_id = copy_night(demo_night, night_url)[0]
    rewrite(night_url, match_id, 7, lambda data: data.clear())
    verified = run("verify", match_id, "--database", night_url)
    assert verified.exit_code == 1
    assert verified.output.startswith(f"FAILED: match {match_id} event #7 ")
    assert run("export", match_id, "--database", night_url).exit_code == 0
    assert run("audit", "verify", "--database", night_url).exit_code == 0


def test_a_stored_event_that_is_not_even_an_object_is_named(demo_night, night_url):
    match_id = copy_night(demo_night, night_url)[0]
    rewrite(night_url, match_id, 9, None, rechain=False, body=["not", "an", "event"])
    verified = run("verify", match_id, "--database", night_url)
    assert verified.exit_code == 1
    assert verified.output.startswith(f"FAILED: match {match_id} event #9 ")
    assert run("export", match_id, "--database", night_url).exit_code == 0
    audited = run("audit", "verify", "--database", night_url)
    assert audited.exit_code == 1 and f"#{9}" in audited.output
