"""Serve the web app over a SQLite ledger in its own process (for restart tests).

``python -m tests.web.serve_app DATABASE PORT`` rebuilds the service from the ledger on disk
(lane assignments included) and serves until killed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from werkzeug.serving import make_server

from tests.conftest import centre_app
from tests.web.conftest import open_service


def main(database: str, port: str) -> None:
    service = open_service(Path(database))
    app = centre_app(service, secret_key="restart-test")
    server = make_server("127.0.0.1", int(port), app, threaded=True)
    print("serving", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(*sys.argv[1:3])
