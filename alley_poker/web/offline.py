"""The kiosk's and the phone's service worker, served from the site's root.

A service worker controls only the pages under the path it is served from, so
``kiosk/static/shared_service_worker.js`` is served as ``/service-worker.js`` (scope ``/``): one
worker covers the kiosk (``/kiosk/<pair>``) and the phone (``/phone``, reached through
``/p/<token>``).  It must never be kept stale by the browser's HTTP cache, or a fixed worker
would wait a day to reach the kiosks.  What it keeps and why: docs/deployment.md
("Kiosks on a flaky Wi-Fi").
"""

from __future__ import annotations

from flask import Blueprint, current_app, send_from_directory

offline = Blueprint("offline", __name__)


@offline.get("/service-worker.js")
def service_worker():
    answer = send_from_directory(current_app.static_folder or "", "shared_service_worker.js",
                                 mimetype="text/javascript", max_age=0)
    answer.headers["Cache-Control"] = "no-cache"
    answer.headers["Service-Worker-Allowed"] = "/"
    return answer
