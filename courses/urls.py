from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("lessons/<slug:slug>/", views.lesson_detail, name="lesson-detail"),
]
