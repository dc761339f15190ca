from django.urls import path

from integrations.api import views

urlpatterns = [
    path("learners/", views.LearnerList.as_view(), name="learner-list"),
    path("learners/<str:external_id>/", views.LearnerDetail.as_view(), name="learner-detail"),
]
