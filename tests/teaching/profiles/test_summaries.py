"""Misconception profiles on hand-made tries: what each learner showed, and whether they later
answered the family right on another instance; the course summary per misconception."""

from __future__ import annotations

from teaching.profiles.summaries import TryRow, course_summary, profiles


def tries(*rows) -> list[TryRow]:
    """(learner, family, instance, status, misconception, attempt) in the order made."""
    return [
        TryRow(i, learner, family, instance, status, misconception, attempt)
        for i, (learner, family, instance, status, misconception, attempt) in enumerate(
            rows, start=1
        )
    ]


ROWS = tries(
    # Ann: std-for-variance on dot-variance (variant 1), retried right on the same variant
    # (does not count), then right on variant 2 (counts).
    ("ann", "dot-variance", 1, "incorrect", "std-for-variance", 10),
    ("ann", "dot-variance", 1, "correct", "", 10),
    ("ann", "dot-variance", 2, "correct", "", 11),
    # Ben: std-for-variance on dot-variance, right on variant 4, then shows it again on 5:
    # after his last showing, nothing right yet.
    ("ben", "dot-variance", 3, "incorrect", "std-for-variance", None),
    ("ben", "dot-variance", 4, "correct", "", None),
    ("ben", "dot-variance", 5, "incorrect", "std-for-variance", 12),
    # Ben shows width-ignored on dot-std and later answers dot-std right on new numbers.
    ("ben", "dot-std", 6, "incorrect", "width-ignored", 12),
    ("ben", "dot-std", 7, "correct", "", 13),
    # Cai: std-for-variance on a formula problem; right on dot-variance is another family.
    ("cai", "formula:9", 8, "incorrect", "std-for-variance", 14),
    ("cai", "dot-variance", 9, "correct", "", 14),
    # Dan answers right only.
    ("dan", "dot-variance", 10, "correct", "", 15),
)


def test_each_learner_s_misconceptions_and_whether_they_later_got_the_family_right():
    found = profiles(ROWS)
    assert found["dan"] == ()
    (ann,) = found["ann"]
    assert (ann.misconception, ann.family, ann.times, ann.first, ann.last) == (
        "std-for-variance",
        "dot-variance",
        1,
        1,
        1,
    )
    assert (ann.last_attempt, ann.later_right) == (10, 3)
    ben = {(s.misconception, s.family): s for s in found["ben"]}
    assert ben["std-for-variance", "dot-variance"].times == 2
    assert ben["std-for-variance", "dot-variance"].later_right is None
    assert ben["width-ignored", "dot-std"].later_right == 8
    # Most shown first.
    assert [s.misconception for s in found["ben"]] == ["std-for-variance", "width-ignored"]
    (cai,) = found["cai"]
    assert cai.later_right is None


def test_the_course_summary_counts_learners_and_those_later_right_everywhere():
    summary = {s.misconception: s for s in course_summary(profiles(ROWS))}
    std = summary["std-for-variance"]
    assert std.learners == ("ann", "ben", "cai")
    assert std.later_right == ("ann",)
    assert std.still_showing == ("ben", "cai")
    assert std.families == ("dot-variance", "formula:9")
    assert std.tries == 4
    width = summary["width-ignored"]
    assert (width.learners, width.later_right, width.tries) == (("ben",), ("ben",), 1)
    assert [s.misconception for s in course_summary(profiles(ROWS))] == [
        "std-for-variance",
        "width-ignored",
    ]


def test_a_learner_later_right_in_one_family_only_is_not_later_right():
    rows = tries(
        ("eve", "a", 1, "incorrect", "m", None),
        ("eve", "a", 2, "correct", "", None),
        ("eve", "b", 3, "incorrect", "m", None),
    )
    (summary,) = course_summary(profiles(rows))
    assert (summary.learners, summary.later_right) == (("eve",), ())
