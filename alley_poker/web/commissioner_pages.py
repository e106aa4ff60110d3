"""The commissioner's blueprint (``/commissioner``), its navigation, and its page frame.

The commissioner's views (the screens on the commissioner's tablet) live by concern, all on
this one blueprint (their endpoints, such as ``commissioner.league_night``, are what the pages
link to): the sign-in, the lanes and the commissioner's forms in
:mod:`~alley_poker.web.commissioner`, the league pages in
:mod:`~alley_poker.web.commissioner_league`, the match's story in
:mod:`~alley_poker.web.commissioner_story` and the first night's checklist in
:mod:`~alley_poker.web.first_night`. The app factory imports them and registers the blueprint.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template

from alley_poker.web.auth import is_commissioner

commissioner = Blueprint("commissioner", __name__, url_prefix="/commissioner")

#: The commissioner's pages: endpoint, title (the navigation bar, in this order).
PAGES = [("dashboard", "Lanes"), ("first_night", "First night"), ("new_match", "New match"),
         ("manual_entry", "Manual entry"),
         ("settlement", "Settlement"), ("leagues", "League"), ("odds_record_page", "Odds"),
         ("audit", "Audit log"),
         ("phones", "Phones"), ("tokens", "Kiosks & API tokens")]


def commissioner_page(template: str, **context: Any):
    """A signed-in page, or the sign-in form for anyone else."""
    if not is_commissioner():
        return render_template("commissioner_sign_in.html", problem=None)
    return render_template(template, pages=PAGES, **context)
