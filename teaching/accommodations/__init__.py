"""Accommodations: extra time and later deadlines for a learner, per quiz."""
