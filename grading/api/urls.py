from django.urls import path

from grading.api.views import answers, attempts, practice, rules, solutions

urlpatterns = [
    path("attempts/", attempts.AttemptList.as_view(), name="attempt-list"),
    path("attempts/<int:attempt_id>/", attempts.AttemptDetail.as_view(), name="attempt-detail"),
    path("attempts/<int:attempt_id>/items/", attempts.AttemptItems.as_view(), name="attempt-items"),
    path(
        "attempts/<int:attempt_id>/items/<int:item_id>/answers/",
        answers.ItemAnswer.as_view(),
        name="item-answer",
    ),
    path(
        "attempts/<int:attempt_id>/submit/",
        attempts.AttemptSubmit.as_view(),
        name="attempt-submit",
    ),
    path(
        "attempts/<int:attempt_id>/result/",
        attempts.AttemptResult.as_view(),
        name="attempt-result",
    ),
    path("quizzes/<slug:slug>/rules/", rules.LearnerQuizRules.as_view(), name="quiz-rules"),
    path("variants/", practice.VariantCreate.as_view(), name="variant-create"),
    path("variants/<int:variant_id>/", practice.VariantDetail.as_view(), name="variant-detail"),
    path(
        "variants/<int:variant_id>/answers/", answers.VariantAnswer.as_view(), name="variant-answer"
    ),
    path(
        "variants/<int:variant_id>/solution/",
        solutions.VariantSolution.as_view(),
        name="variant-solution",
    ),
    path("streaks/", practice.StreakList.as_view(), name="streak-list"),
]
