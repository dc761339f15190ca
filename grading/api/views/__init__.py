"""Attempts, answers and practice over HTTP: each view parses, calls one service or
selector, and renders. Grading and the quiz rules live in grading.services, shared with the pages.

attempts.py: list, start, read, submit and the result; answers.py: answering an attempt's item
or a practice variant, idempotent under a key; practice.py: variants and mastery streaks.
Grades are teaching.api's (the gradebook's numbers, for every learner).
"""
