"""An answer's body is read the same way whether or not it takes the direct path.

`AnswerSerializer.answer` checks the two everyday bodies itself and hands anything else to the
serializer's fields; whatever a caller sends, it must accept exactly what the serializer accepts,
return the same answer, and refuse with the same errors.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from grading.api.serializers import AnswerSerializer

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
choice_lists = st.lists(
    st.integers(min_value=-3, max_value=10**6)
    | st.booleans()
    | st.floats(0, 5)
    | st.text(max_size=2),
    max_size=AnswerSerializer._CHOICES_AT_MOST + 2,
)
bodies = (
    st.fixed_dictionaries({"text": st.text(max_size=30) | json_values})
    | st.fixed_dictionaries({"choices": choice_lists | json_values})
    | st.dictionaries(st.sampled_from(["text", "choices", "extra"]), json_values, max_size=3)
    | json_values
)


def _through_serializer(data):
    serializer = AnswerSerializer(data=data)
    if serializer.is_valid():
        return "accepted", dict(serializer.validated_data)
    return "refused", serializer.errors


def _through_answer(data):
    try:
        return "accepted", dict(AnswerSerializer.answer(data))
    except ValidationError as exc:
        return "refused", exc.detail


@settings(max_examples=400, deadline=None)
@given(bodies)
@example({"text": "sqrt(64)"})
@example({"text": ""})
@example({"text": "a\x00b"})
@example({"text": "\ud800"})
@example({"text": "√64"})
@example({"text": 12})
@example({"text": True})
@example({"choices": []})
@example({"choices": [1, 2]})
@example({"choices": [0]})
@example({"choices": [True]})
@example({"choices": [1.0]})
@example({"choices": ["1"]})
@example({"choices": list(range(1, 52))})
@example({"text": "1", "choices": [1]})
@example({"texts": "1"})
@example({})
@example([{"text": "1"}])
def test_answer_agrees_with_the_serializer_on_any_body(data):
    assert _through_answer(data) == _through_serializer(data)


@pytest.mark.parametrize("data", [{"text": "sqrt(64)"}, {"choices": [3, 1]}])
def test_everyday_bodies_build_no_serializer(data, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("built a serializer for an everyday body")

    monkeypatch.setattr(AnswerSerializer, "__init__", refuse)
    assert AnswerSerializer.answer(data) == data


def test_the_answer_is_a_copy_of_the_sent_choices():
    sent = [2, 1]
    answer = AnswerSerializer.answer({"choices": sent})
    sent.append(3)
    assert answer == {"choices": [2, 1]}
