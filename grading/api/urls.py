from django.urls import path

from grading.api import views

urlpatterns = [
    path("attempts/", views.AttemptList.as_view(), name="attempt-list"),
    path("attempts/<int:attempt_id>/", views.AttemptDetail.as_view(), name="attempt-detail"),
    path("attempts/<int:attempt_id>/items/", views.AttemptItems.as_view(), name="attempt-items"),
    path(
        "attempts/<int:attempt_id>/items/<int:item_id>/answers/",
        views.ItemAnswer.as_view(),
        name="item-answer",
    ),
    path("attempts/<int:attempt_id>/submit/", views.AttemptSubmit.as_view(), name="attempt-submit"),
    path("attempts/<int:attempt_id>/result/", views.AttemptResult.as_view(), name="attempt-result"),
    path("variants/", views.VariantCreate.as_view(), name="variant-create"),
    path("variants/<int:variant_id>/", views.VariantDetail.as_view(), name="variant-detail"),
    path(
        "variants/<int:variant_id>/answers/", views.VariantAnswer.as_view(), name="variant-answer"
    ),
    path("streaks/", views.StreakList.as_view(), name="streak-list"),
    path("grades/", views.GradeList.as_view(), name="grade-list"),
    path("grades.csv", views.GradeCsv.as_view(), name="grade-csv"),
]
