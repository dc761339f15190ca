from django.urls import path

from teaching import score_views, views

app_name = "teaching"

urlpatterns = [
    path("", views.course_list, name="courses"),
    path("courses/<slug:slug>/", views.course_detail, name="course"),
    path("quizzes/<slug:slug>/", views.quiz_results, name="quiz-results"),
    path("quizzes/<slug:slug>/gradebook.csv", views.quiz_gradebook, name="quiz-gradebook"),
    path("attempts/<int:pk>/", views.attempt_review, name="attempt"),
    path(
        "attempts/<int:pk>/items/<int:item_pk>/override/",
        score_views.item_override,
        name="item-override",
    ),
    path("items/<int:pk>/regrade/", score_views.item_regrade, name="item-regrade"),
]
