"""Neutral protections the apps share: who a request comes from (addresses) and how often a
client may do something (limits). Imports Django only, never an app of the project."""
