"""Serve the web app over a SQLite ledger in its own process (for restart tests).

``python -m tests.web.serve_app DATABASE PORT`` rebuilds the service from the ledger on disk,
puts match ``m1`` back on lanes 1-2 (lane assignments live in memory) and serves until killed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from werkzeug.serving import make_server

from alley_poker.web import create_app
from tests.web.conftest import open_service


def main(database: str, port: str) -> None:
    service = open_service(Path(database))
    service.lanes.assign("m1", {(1, 1): "Ann", (2, 1): "Bob"})
    app = create_app({"SECRET_KEY": "restart-test"}, service=service)
    server = make_server("127.0.0.1", int(port), app, threaded=True)
    print("serving", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(*sys.argv[1:3])
