from django.urls import path

from teaching import views

app_name = "teaching"

urlpatterns = [
    path("", views.course_list, name="courses"),
    path("courses/<slug:slug>/", views.course_detail, name="course"),
    path("quizzes/<slug:slug>/", views.quiz_results, name="quiz-results"),
    path("quizzes/<slug:slug>/gradebook.csv", views.quiz_gradebook, name="quiz-gradebook"),
    path("attempts/<int:pk>/", views.attempt_review, name="attempt"),
]
