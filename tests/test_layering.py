"""The house's layers hold: no module imports a layer above its own, and no import cycle.

The layers and the checks are ``scripts/architecture.py`` (read by ``docs/architecture.md``);
these tests run them on the real tree, show that they catch an upward import and a cycle
added to a copy of it, and that the committed picture is what the imports give today.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_architecture():
    spec = importlib.util.spec_from_file_location("architecture",
                                                  ROOT / "scripts" / "architecture.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("architecture", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


architecture = _load_architecture()


def test_every_module_has_a_layer_no_arrow_points_up_and_there_is_no_cycle():
    assert architecture.problems() == []


def test_the_graph_sees_the_imports_a_module_makes():
    """A sanity check of the reading: imports at the top, inside a function and relative."""
    graph = architecture.import_graph()
    imported = {each.imported for each in graph["alley_poker.serving.centre_servers"]}
    assert {"alley_poker.centre", "alley_poker.web"} <= imported
    assert "alley_poker.service.redis_bus" in {each.imported for each in
                                               graph["alley_poker.centre"]}  # in a function
    assert "drivers.simulate_command" in {each.imported for each in
                                          graph["alley_poker.cli.simulate"]}  # in a function
    assert architecture.layer_of("alley_poker.ledger.fold") == "ledger"
    assert architecture.layer_of("alley_poker.fairness.deal") == "core"
    assert architecture.layer_of("alley_poker.verifier.verify") == "domain"
    assert architecture.layer_of("drivers.base") == "drivers"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the packages the graph is read from, to break on purpose."""
    for package in architecture.PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("node_modules", "__pycache__", "static",
                                                      "templates"))
    return tmp_path  # it holds, as the tree does (the first test)


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


@pytest.mark.parametrize(("module", "function", "problem"), [
    # An upward import, named with the line of the import (the function's second).
    ("alley_poker/ledger/rules.py",
     ["def _shortcut():",
      "    from alley_poker.web.plain_words import subject",
      "    return subject"],
     "upward: alley_poker.ledger.rules imports alley_poker.web.plain_words (line {2}) "
     "(ledger -> web)"),
    # A web module that builds a store, named with the line that builds it (the third).
    ("alley_poker/web/tokens.py",
     ["def _own_tokens(engine):",
      "    from alley_poker.store.api_tokens import ApiTokenStore",
      "    return ApiTokenStore(engine, centre='x')"],
     "built outside alley_poker.centre: alley_poker.web.tokens builds ApiTokenStore "
     "(line {3})"),
], ids=["an-upward-import", "a-web-module-that-builds-a-store"])
def test_a_problem_is_named_with_its_line(tree: Path, module: str, function: list[str],
                                          problem: str):
    path = tree / module
    lines = len(path.read_text(encoding="utf-8").splitlines())
    _append(path, "\n\n" + "".join(f"{line}\n" for line in function))
    # Two blank lines, then the function: its line n is the file's line lines + 2 + n.
    assert architecture.problems(tree) == [
        problem.format(*(lines + 2 + n for n in range(len(function) + 1)))]


def test_the_core_importing_an_adapter_is_caught_too(tree: Path):
    _append(tree / "alley_poker" / "bowling" / "pins.py", "\nfrom drivers import base  # noqa\n")
    found = architecture.problems(tree)
    assert len(found) == 1 and found[0].startswith(
        "upward: alley_poker.bowling.pins imports drivers.base") and "(core -> drivers)" in found[0]


def test_a_cycle_within_a_layer_is_named(tree: Path):
    # Both in the web layer (league_schemas imports queries): not upward, but a circle.
    _append(tree / "alley_poker" / "web" / "queries.py",
            "\nfrom alley_poker.web import league_schemas  # noqa\n")
    assert architecture.problems(tree) == [
        "cycle: alley_poker.web.league_schemas <-> alley_poker.web.queries"]


def test_a_new_module_at_the_package_top_must_be_given_a_layer(tree: Path):
    (tree / "alley_poker" / "helpers.py").write_text('"""Loose."""\n', encoding="utf-8")
    assert architecture.problems(tree) == ["no layer for alley_poker.helpers"]


def test_a_framework_in_the_plain_core_is_named(tree: Path):
    _append(tree / "alley_poker" / "bowling" / "pins.py", "\nimport sqlalchemy  # noqa\n")
    found = architecture.problems(tree)
    assert len(found) == 1 and found[0].startswith(
        "framework in a plain layer: alley_poker.bowling.pins imports sqlalchemy")


def test_a_command_line_in_the_domain_is_named(tree: Path):
    # click belongs to alley_poker/cli/: a domain module that prints through it is refused.
    _append(tree / "alley_poker" / "scenario" / "output.py", "\nimport click  # noqa\n")
    found = architecture.problems(tree)
    assert len(found) == 1 and found[0].startswith(
        "framework in a plain layer: alley_poker.scenario.output imports click")


def test_a_command_that_opens_the_service_or_the_odds_itself_is_named(tree: Path):
    serve = tree / "alley_poker" / "cli" / "serve.py"
    _append(serve, "\n\ndef _shortcut(url, bus):\n"
                   "    from alley_poker.service import open_service\n"
                   "    from alley_poker.service import live_odds\n"
                   "    return open_service(url), live_odds.LiveOdds(bus)\n")
    found = architecture.problems(tree)
    assert [each.split(" (line")[0] for each in found] == [
        "built outside alley_poker.centre: alley_poker.cli.serve builds open_service",
        "built outside alley_poker.centre: alley_poker.cli.serve builds LiveOdds"]


def test_the_committed_picture_is_what_the_imports_give():
    page = architecture.PAGE.read_text(encoding="utf-8")
    assert architecture.drawn_page(page, architecture.import_graph()) == page, (
        "the picture in docs/architecture.md is stale: run python scripts/architecture.py")


def test_the_picture_changes_when_an_import_across_layers_does(tree: Path):
    before = architecture.picture(architecture.import_graph(tree))
    _append(tree / "alley_poker" / "centre.py", "\nfrom alley_poker.league import roster  # noqa\n")
    after = architecture.picture(architecture.import_graph(tree))
    assert "centre --> domain" not in before and "centre --> domain" in after
