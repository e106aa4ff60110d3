"""The commissioner's tablet: PIN sign-in (rate-limited by the app factory) and the dashboard."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template, request, url_for

from alley_poker.web.api import alley, known_match_ids, match_summary
from alley_poker.web.auth import (
    commissioner_required,
    is_commissioner,
    pin_matches,
    sign_in,
    sign_out,
)

commissioner = Blueprint("commissioner", __name__, url_prefix="/commissioner")


@commissioner.get("")
def dashboard():
    if not is_commissioner():
        return render_template("commissioner_sign_in.html", problem=None)
    service = alley()
    matches = [match_summary(service, match_id) for match_id in known_match_ids(service)]
    return render_template("commissioner_dashboard.html", matches=matches)


@commissioner.post("/sign-in")
def sign_in_with_pin():
    pin = request.form.get("pin", "")
    if not pin_matches(current_app.config.get("COMMISSIONER_PIN_HASH"), pin):
        return render_template("commissioner_sign_in.html",
                               problem="That PIN is not right."), 401
    sign_in()
    return redirect(url_for("commissioner.dashboard"))


@commissioner.post("/sign-out")
@commissioner_required
def sign_out_of_tablet():
    sign_out()
    return redirect(url_for("commissioner.dashboard"))
