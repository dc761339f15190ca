from django.urls import path

from accounts import views

urlpatterns = [
    path("", views.account_settings, name="account-settings"),
    path("language/", views.language_choose, name="language-choose"),
]
