"""The instructor's side: who teaches which course (course roles) and the pages under /teach/.

It reads `courses` and `grading` and nothing imports it: config wires its pages, and LTI grants
roles at launch through the function settings name (SOFTGRADE_LAUNCH_COURSE_ROLE_HOOKS).
"""
