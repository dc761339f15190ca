from django.urls import path

from teaching import views
from teaching.accommodations import views as accommodation_views
from teaching.discovery import views as discovery_views
from teaching.profiles import views as profile_views
from teaching.results import views as results_views
from teaching.scores import views as score_views
from teaching.statistics import views as statistics_views

app_name = "teaching"

PROBLEM = "courses/<slug:slug>/problems/<slug:problem>/"

urlpatterns = [
    path("", views.course_list, name="courses"),
    path("courses/<slug:slug>/", views.course_detail, name="course"),
    path("quizzes/<slug:slug>/", results_views.quiz_results, name="quiz-results"),
    path("quizzes/<slug:slug>/gradebook.csv", results_views.quiz_gradebook, name="quiz-gradebook"),
    path("quizzes/<slug:slug>/responses.csv", results_views.quiz_responses, name="quiz-responses"),
    path(
        "quizzes/<slug:slug>/statistics/",
        statistics_views.quiz_statistics,
        name="quiz-statistics",
    ),
    path(
        "quizzes/<slug:slug>/items/<int:item_id>/responses/",
        statistics_views.item_responses,
        name="item-responses",
    ),
    path(
        "quizzes/<slug:slug>/items/<int:item_id>/grade/",
        score_views.item_grading,
        name="item-grading",
    ),
    path(
        "courses/<slug:slug>/accommodations/",
        accommodation_views.course_accommodations,
        name="accommodations",
    ),
    path(
        "courses/<slug:slug>/accommodations/learners/",
        accommodation_views.course_learner_search,
        name="accommodation-learners",
    ),
    path(
        "accommodations/<int:pk>/",
        accommodation_views.accommodation_edit,
        name="accommodation-edit",
    ),
    path(
        "accommodations/<int:pk>/remove/",
        accommodation_views.accommodation_delete,
        name="accommodation-remove",
    ),
    path("attempts/<int:pk>/", results_views.attempt_review, name="attempt"),
    path(
        "attempts/<int:pk>/items/<int:item_pk>/override/",
        score_views.item_override,
        name="item-override",
    ),
    path("items/<int:pk>/regrade/", score_views.item_regrade, name="item-regrade"),
    # Beyond the anchors: by parameter, new misconceptions, misconception profiles.
    path(
        "courses/<slug:slug>/problems/",
        discovery_views.course_problems,
        name="course-problems",
    ),
    path(
        PROBLEM + "parameters/",
        discovery_views.problem_parameters,
        name="problem-parameters",
    ),
    path(
        PROBLEM + "misconceptions/",
        discovery_views.problem_misconceptions,
        name="problem-misconceptions",
    ),
    path(
        PROBLEM + "misconceptions/name/",
        discovery_views.problem_misconception_name,
        name="problem-misconception-name",
    ),
    path(
        "courses/<slug:slug>/misconceptions/",
        profile_views.course_misconceptions,
        name="course-misconceptions",
    ),
    path(
        "courses/<slug:slug>/learners/<int:pk>/",
        profile_views.learner_profile,
        name="learner-profile",
    ),
]
