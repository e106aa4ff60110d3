"""``/verify``: the bowler's own check of a settled match, in their browser.

The page is static: ``kiosk/static/verify_fair.js`` (with ``verify_fair_crypto.js``) checks a match
export with WebCrypto, written from docs/fairness.md alone, a second verifier beside
``alley-poker verify``.  It loads the export from ``GET /api/v1/matches/<id>/export`` (public
once the match is settled or void) or from a pasted or dropped file; once the page is loaded it
needs no network for a pasted export.  ``?match=ID`` fills in (and loads) a match id, which is
how the phone, the kiosk and the tablet link here.  A bracket night's export (its side games,
``kiosk/static/verify_side_games.js``) is checked the same way: ``?night=ID`` loads it from
``GET /api/v1/side-nights/<id>/export`` (public once the night's seed is revealed), or it is
pasted.

>>> from flask import Flask
>>> app = Flask(__name__); app.register_blueprint(verify_page)
>>> sorted(str(rule) for rule in app.url_map.iter_rules() if "verify" in str(rule))
['/verify']
"""

from __future__ import annotations

from flask import Blueprint, render_template, request

verify_page = Blueprint("verify_page", __name__)

#: The longest match id the page will prefill (ids are short: "lanes-1-2", "m1").
LONGEST_ID = 200


@verify_page.get("/verify")
def check_a_match():
    match_id = (request.args.get("match") or "").strip()[:LONGEST_ID]
    night_id = (request.args.get("night") or "").strip()[:LONGEST_ID]
    return render_template("verify.html", match_id=match_id, night_id=night_id)
