from django.urls import path

from teaching.api import views

urlpatterns = [
    path(
        "quizzes/<slug:slug>/statistics/",
        views.QuizStatistics.as_view(),
        name="quiz-statistics",
    ),
    path(
        "quizzes/<slug:slug>/statistics.csv",
        views.QuizStatisticsCsv.as_view(),
        name="quiz-statistics-csv",
    ),
]
