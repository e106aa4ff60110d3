"""The screens' browser side (kiosk, commissioner, phone, verify), shipped as package data.

A Python package only so an installed Alley Poker carries its templates and static files
(with the vendored socket.io client) and finds them beside this file.
"""

from pathlib import Path

#: The folder holding ``templates/`` and ``static/``.
KIOSK_DIR = Path(__file__).resolve().parent
