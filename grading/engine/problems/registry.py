"""Every problem family by key: the one place Django looks a family up."""

from __future__ import annotations

from grading.engine.problems.base import Family
from grading.engine.problems.formula import FORMULA
from grading.engine.problems.saturation import SaturatedSlope, SaturationMaxProb
from grading.engine.problems.scores import ScaledDot
from grading.engine.problems.softmax import Softmax, SoftmaxJacobian, SoftmaxSlope
from grading.engine.problems.variance import (
    DotStd,
    DotVariance,
    ScaledVariance,
    ScaleForUnitVariance,
    WidthForStd,
)

FAMILIES: dict[str, Family] = {
    family.key: family
    for family in (
        DotVariance(),
        DotStd(),
        ScaledVariance(),
        ScaleForUnitVariance(),
        WidthForStd(),
        ScaledDot(),
        Softmax(),
        SoftmaxSlope(),
        SoftmaxJacobian(),
        SaturationMaxProb(),
        SaturatedSlope(),
        FORMULA,
    )
}


class UnknownFamily(KeyError, ValueError):
    """No family has this key; the message lists the keys that exist."""

    def __init__(self, key: object) -> None:
        self.key = key
        self.message = (
            f"unknown problem family {key!r}; known families: {', '.join(sorted(FAMILIES))}"
        )
        super().__init__(self.message)

    def __str__(self) -> str:
        # KeyError would otherwise print the message wrapped in quotes.
        return self.message


def get_family(key: str) -> Family:
    """The family registered under key, e.g. get_family('softmax'); raises UnknownFamily."""
    try:
        return FAMILIES[key]
    except (KeyError, TypeError):
        raise UnknownFamily(key) from None
