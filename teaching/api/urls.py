from django.urls import path

from teaching.api import grade_views, views

urlpatterns = [
    path("grades/", grade_views.GradeList.as_view(), name="grade-list"),
    path("grades.csv", grade_views.GradeCsv.as_view(), name="grade-csv"),
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
