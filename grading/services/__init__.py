"""What learners do, as typed service functions: pages and the API call these and nothing else.

One module per concern; callers import each name from the module that defines it:
practice (variants to practise, answers, streaks), attempts (start, expire, submit, rescore),
previews (an instructor's preview of a quiz as a learner sees it, counted nowhere),
responses (one answer to an item of an attempt, a whole answer sheet), verdicts (grading
without writing), replays (idempotency keys and double clicks), variants (a problem's
variant made for a seed), hooks (what other apps hear after a commit) and errors (what the
rules refuse). What an answer or an attempt counts for is grading.scores, what a learner may
see grading.policy.
"""
