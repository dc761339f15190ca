from django.urls import path

from . import views

# The home page (courses with the learner's progress) is served by grading.urls.
urlpatterns = [
    path("lessons/<slug:slug>/", views.lesson_detail, name="lesson-detail"),
]
