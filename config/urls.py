from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("config.api")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("lti/", include("lti.urls")),
    path("", include("courses.urls")),
    path("", include("grading.urls")),
]
