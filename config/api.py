"""The REST API for LMS integrations, mounted at /api/v1/ by config/urls.py.

Content comes from courses.api, attempts and practice from grading.api, learners and keys from
integrations.api, grades and quiz statistics from teaching.api, and the API's plumbing (errors,
scope, paging, throttles, CSV) from api/; docs/api.md walks through a whole integration.
"""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView

from api.errors import endpoint_not_found
from api.views import ApiDocs, ApiRoot

app_name = "api"

urlpatterns = [
    path("", ApiRoot.as_view(), name="root"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", ApiDocs.as_view(url_name="api:schema"), name="docs"),
    # Answers are the busiest endpoint: their URLs are tried first.
    path("", include("grading.api.urls")),
    path("", include("integrations.api.urls")),
    path("", include("courses.api.urls")),
    path("", include("teaching.api.urls")),
    # Anything else under /api/v1/ is a 404 in the API's error shape, not an HTML page.
    # [\s\S], not a dot: a path with a line break in it (%0A) must land here too.
    re_path(r"^[\s\S]*$", endpoint_not_found),
]
