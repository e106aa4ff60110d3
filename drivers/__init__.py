"""Scoreboard adapters: they turn a lane scoring system's output into normalized lane events.

Adapters know nothing of the ledger; the alley service consumes the events they emit (and
decides which balls to deal: ``alley_poker.service.router``, keyed on the ledger's own record).

- :mod:`drivers.base` — the lane events (frozen dataclasses) and the dialect interface
- :mod:`drivers.dialects` — dialects by name: ``apf1`` (the reference protocol,
  ``docs/feed-protocol.md``), ``scoresheet``, ``pinsetter-csv`` (the worked example of
  ``docs/writing-a-dialect.md``)
- :mod:`drivers.serial_feed` — ``SerialFeed``: a pyserial URL read in a thread, with
  reconnects and health
- :mod:`drivers.http_feed` — ``HttpPollFeed``: a scorer's live-score page polled over HTTP
  (:mod:`drivers.dialects.live_board` decodes it, :mod:`drivers.snapshot_diff` turns
  successive pages into balls; ``docs/feeds.md``)
- :mod:`drivers.manual` — ``ManualEntry``: the same events from pin-diagram taps
- :mod:`drivers.simulator`, :mod:`drivers.feed_writer`, :mod:`drivers.board_server` — the
  scoreboard simulator behind ``alley-poker simulate``
  (lines to a serial URL, or a live-score page with ``--http PORT``)
"""
