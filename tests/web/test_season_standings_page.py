"""The season demo's standings are the tablet's: the same figures on the page as printed."""

from __future__ import annotations

import re

import pytest

from alley_poker.cli.demo_alley import DEMO_PIN
from alley_poker.cli.season_demo import LEAGUE_ID, run_season


def dollars(text: str) -> int:
    """Cents from a page's money, "$4.00" or "−$4.00" (a real minus sign)."""
    sign = -1 if text.strip()[0] in "−-" else 1
    whole, cents = re.search(r"(\d+)\.(\d\d)", text).groups()
    return sign * (int(whole) * 100 + int(cents))


@pytest.mark.slow
def test_the_tablet_shows_the_season_demos_standings(browser, tmp_path):
    printed: list[str] = []
    seen: dict[str, object] = {}

    def look_at_the_tablet() -> None:
        url = next(line.split(": ", 1)[1].split(" ")[0] for line in printed
                   if line.startswith("the tablet's standings:"))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(10_000)
        page.goto(url)
        page.fill("#pin", DEMO_PIN)
        page.click("button[type=submit]")
        page.goto(url)
        rows = page.locator("#standings tbody tr")
        rows.first.wait_for()
        seen["rows"] = [(int(rows.nth(i).get_attribute("data-bowler")),
                         dollars(rows.nth(i).locator("td.net").inner_text()),
                         int(rows.nth(i).locator("td.won").inner_text()))
                        for i in range(rows.count())]
        seen["reconcile"] = page.inner_text("#reconcile")

    result = run_season(weeks=2, seed=8, database=tmp_path / "season.sqlite3",
                        echo=printed.append, port=0, linger=look_at_the_tablet)

    assert seen["rows"] == [(row.bowler_id, row.net_cents, row.matches_won)
                            for row in result.standings]
    assert len(seen["rows"]) == 12 and result.reconciles
    assert "the money reconciles to $0.00" in seen["reconcile"]
    assert any(f"leagues/{LEAGUE_ID}/standings" in line for line in printed)
