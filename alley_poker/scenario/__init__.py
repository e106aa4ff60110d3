"""The scenario runner: JSON Lines scripts of a Bowling Poker match, run in memory.

See :mod:`alley_poker.scenario.runner` and ``docs/rules.md``.
"""

from alley_poker.scenario.runner import ScenarioError, ScenarioRun, run_scenario

__all__ = ["ScenarioError", "ScenarioRun", "run_scenario"]
