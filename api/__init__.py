"""The REST API's neutral plumbing: one error shape and the table from domain errors to it,
what a request reaches (scope), paging, strict input, rate limits and the JSON body parser.

It imports no app: the apps' API views import it, and settings wire it (REST_FRAMEWORK,
SOFTGRADE_API_ERRORS). Domain code (services, selectors, models) imports none of it.
"""
