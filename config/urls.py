from django.contrib import admin
from django.urls import include, path

from accounts.catalog import javascript_catalog
from availability.views import health
from security.logins import LimitedAdminLoginForm

# Failed sign-ins at the admin are limited as on the pages (security/logins.py).
admin.site.login_form = LimitedAdminLoginForm

urlpatterns = [
    path("health/", health, name="health"),
    path("jsi18n/<str:language>/", javascript_catalog, name="javascript-catalog"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("config.api")),
    path("lti/", include("lti.urls")),
    path("teach/", include("teaching.urls")),
    path("", include("courses.urls")),
    # Before Django's account pages: grading's sign-in page (rate limited) replaces theirs.
    path("", include("grading.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("account/", include("accounts.urls")),
]

# An outage (the database or the cache not answering) is a 503 with Retry-After, anything else
# Django's 500 (availability/outages.py).
handler500 = "availability.outages.server_error_or_unavailable"
