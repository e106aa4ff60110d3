"""The research generators the odds are judged on live in ``benchmarks/`` (not in the
package), which pytest does not collect doctests from: their examples are run here."""

from __future__ import annotations

import doctest

import pytest

from benchmarks import _deflection_bowlers, _generated_centre, _practice_match


@pytest.mark.parametrize("module", [_practice_match, _deflection_bowlers, _generated_centre],
                         ids=lambda module: module.__name__)
def test_the_generators_examples_hold(module):
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0
