"""``pinsetter-csv``: the worked example of docs/writing-a-dialect.md, a whole dialect.

A scorer that writes one line per ball, ``lane,bowler,game,frame,ball,pins``::

    7,2,1,4,1,9

>>> dialect = PinsetterCsv(source="back-room")
>>> dialect.parse(b"7,2,1,1,1,9\\r\\n")[0].describe()
'lane 7 bowler 2 game 1 frame 1 ball 1: 9 pins'
>>> dialect.parse(b"7,2,1,1,2,5")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
drivers.base.FeedLineRejected: frame 1 has only 1 pin standing; 5 cannot fall: ...
"""

from drivers.base import BallRecorded, FeedLineRejected, LaneEvent
from drivers.dialects.registry import register_dialect
from drivers.lanegame import GameBook


@register_dialect
class PinsetterCsv:
    name = "pinsetter-csv"  # what alley.toml's dialect = "..." says

    def __init__(self, source: str = "feed"):
        self.source = source  # the feed's name; every event carries it
        self.games = GameBook()  # checks each ball against the game so far

    def parse(self, line: bytes) -> list[LaneEvent]:
        fields = line.strip().split(b",")
        if len(fields) != 6 or not all(f.isdigit() and len(f) <= 3 for f in fields):
            raise FeedLineRejected("expected lane,bowler,game,frame,ball,pins", line)
        lane, bowler, game, frame, ball, pins = map(int, fields)
        if min(lane, bowler, game, frame, ball) < 1 or frame > 10 or ball > 3:
            raise FeedLineRejected("lane, bowler, game from 1; frame 1-10; ball 1-3", line)
        event = BallRecorded(lane=lane, bowler=bowler, game=game, frame=frame,
                             ball=ball, pins=pins, source=self.source)
        try:
            return [self.games.record(event)]  # also refuses pins > 10
        except ValueError as exc:  # impossible, or a repeat of a recorded ball
            raise FeedLineRejected(str(exc), line) from None
