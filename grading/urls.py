from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", views.SignIn.as_view(), name="login"),
    path("accounts/signup/", views.signup, name="signup"),
    path("lessons/<slug:slug>/practice/", views.practice_lesson, name="practice-lesson"),
    path("practice/<slug:slug>/", views.practice, name="practice"),
    path("practice/<slug:slug>/new/", views.practice_new_variant, name="practice-new"),
    path("quizzes/<slug:slug>/", views.quiz_detail, name="quiz-detail"),
    path("quizzes/<slug:slug>/start/", views.attempt_start, name="attempt-start"),
    path("attempts/<int:pk>/", views.attempt_take, name="attempt-take"),
    path("attempts/<int:pk>/items/<int:item_pk>/", views.attempt_answer, name="attempt-answer"),
    path("attempts/<int:pk>/save/", views.attempt_sheet_save, name="attempt-save"),
    path("attempts/<int:pk>/submit/", views.attempt_submit, name="attempt-submit"),
    path("attempts/<int:pk>/results/", views.attempt_results, name="attempt-results"),
    path("history/", views.history, name="history"),
]
