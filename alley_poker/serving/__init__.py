"""Running the centre's server process: the layer beside ``web`` that serves it.

``web`` answers requests (the Flask app, its blueprints and Socket.IO); ``serving`` runs the
process that carries them: gunicorn embedded in ``serve`` and ``web``
(:mod:`~alley_poker.serving.production_server`), its worker reading each request whole
(:mod:`~alley_poker.serving.request_buffering`), the werkzeug server's read deadlines
(:mod:`~alley_poker.serving.http_timeouts`), the interpreter's pauses
(:mod:`~alley_poker.serving.process_tuning`) and the process's memory
(:mod:`~alley_poker.serving.memory_return`, :mod:`~alley_poker.serving.memory_report`).
The gunicorn internals it relies on are named in one place,
:mod:`~alley_poker.serving.gunicorn_internals`.  ``serving`` may import ``web``; ``web``
never imports ``serving`` (scripts/architecture.py).
"""
