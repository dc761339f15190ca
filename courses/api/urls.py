from django.urls import path

from courses.api import views

urlpatterns = [
    path("courses/", views.CourseList.as_view(), name="course-list"),
    path("courses/<slug:slug>/", views.CourseDetail.as_view(), name="course-detail"),
    path("lessons/", views.LessonList.as_view(), name="lesson-list"),
    path("lessons/<slug:slug>/", views.LessonDetail.as_view(), name="lesson-detail"),
    path("quizzes/", views.QuizList.as_view(), name="quiz-list"),
    path("quizzes/<slug:slug>/", views.QuizDetail.as_view(), name="quiz-detail"),
    path("problems/", views.ProblemList.as_view(), name="problem-list"),
    path("problems/<slug:slug>/", views.ProblemDetail.as_view(), name="problem-detail"),
]
