from django.urls import path

from grading.views import accounts, attempts, practice, previews, progress

urlpatterns = [
    path("", progress.home, name="home"),
    path("accounts/login/", accounts.SignIn.as_view(), name="login"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/password_reset/", accounts.PasswordReset.as_view(), name="password_reset"),
    path("lessons/<slug:slug>/practice/", practice.practice_lesson, name="practice-lesson"),
    path("practice/<slug:slug>/", practice.practice, name="practice"),
    path("practice/<slug:slug>/new/", practice.practice_new_variant, name="practice-new"),
    path("practice/<slug:slug>/solution/", practice.practice_solution, name="practice-solution"),
    path("quizzes/<slug:slug>/", attempts.quiz_detail, name="quiz-detail"),
    path("quizzes/<slug:slug>/start/", attempts.attempt_start, name="attempt-start"),
    path("quizzes/<slug:slug>/preview/", previews.quiz_preview, name="quiz-preview"),
    path("attempts/<int:pk>/", attempts.attempt_take, name="attempt-take"),
    path("attempts/<int:pk>/items/<int:item_pk>/", attempts.attempt_answer, name="attempt-answer"),
    path("attempts/<int:pk>/save/", attempts.attempt_sheet_save, name="attempt-save"),
    path("attempts/<int:pk>/submit/", attempts.attempt_submit, name="attempt-submit"),
    path("attempts/<int:pk>/results/", attempts.attempt_results, name="attempt-results"),
    path("history/", progress.history, name="history"),
]
