from django.urls import path

from . import setup_views, views

app_name = "lti"

urlpatterns = [
    path("jwks/", views.jwks, name="jwks"),
    path("login/", views.oidc_login, name="login"),
    path("login/<uuid:registration_uuid>/", views.oidc_login, name="login-registration"),
    path("launch/", views.launch, name="launch"),
    path("deep-linking/<str:token>/", views.deep_linking, name="deep-linking"),
    path("links/<int:pk>/", views.link_instructor, name="link-instructor"),
    path("links/<int:pk>/roster/", views.link_roster_sync, name="link-roster-sync"),
    path("setup/", setup_views.setup, name="setup"),
    path("setup/configuration.json", setup_views.configuration, name="configuration"),
    path("setup/registration-link/", setup_views.registration_invite, name="registration-invite"),
    path("register/<str:token>/", setup_views.register, name="register"),
]
