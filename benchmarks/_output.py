"""How a benchmark prints its figures: one JSON object (``--json``) or aligned lines."""

from __future__ import annotations

import json
from typing import Any


def print_result(result: dict[str, Any], *, as_json: bool) -> None:
    """Print ``result`` as one JSON line, or as ``key: value`` lines for a person."""
    if as_json:
        print(json.dumps(result))
        return
    width = max(map(len, result), default=0)
    for key, value in result.items():
        print(f"{key:>{width}}: {value}")
