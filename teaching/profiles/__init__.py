"""Misconception profiles: a course's misconceptions over time and each learner's."""
