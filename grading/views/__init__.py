"""The learner's pages: home with progress, practice, quizzes, results, history, sign-in and
sign-up.

Each view parses its input, calls one service or selector, and renders; every POST ends in a
redirect (post/redirect/get), so a refresh never submits twice. Objects are always looked up
together with the learner who owns them, so another learner's attempt or variant is a 404.

progress.py: home and history; accounts.py: sign-in and sign-up; practice.py: a lesson's
problems and one problem's variants; attempts.py: a quiz, its attempts and their results;
previews.py: an instructor's preview of a quiz, which then runs on the attempt pages;
refusals.py: the 404s and refusal messages every page words the same way.
"""
