"""factory_boy factories for every model the tests build."""

import factory
from django.contrib.auth import get_user_model

from courses.models import (
    Choice,
    Course,
    KeyTerm,
    Lesson,
    Misconception,
    Pool,
    Problem,
    Question,
    Quiz,
    QuizItem,
)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"learner{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", "correct horse battery")

    @factory.post_generation
    def save_password(self, create, extracted, **kwargs):
        if create:
            self.save()


class InstructorFactory(UserFactory):
    username = factory.Sequence(lambda n: f"instructor{n}")
    is_staff = True
    is_superuser = True


class CourseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Course

    slug = factory.Sequence(lambda n: f"course-{n}")
    title = factory.Sequence(lambda n: f"Course {n}")


class LessonFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Lesson

    course = factory.SubFactory(CourseFactory)
    slug = factory.Sequence(lambda n: f"lesson-{n}")
    title = factory.Sequence(lambda n: f"Lesson {n}")
    order = factory.Sequence(lambda n: n + 1)
    body = "The variance of $q \\cdot k$ is $d_k$."


class KeyTermFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = KeyTerm

    lesson = factory.SubFactory(LessonFactory)
    slug = factory.Sequence(lambda n: f"term-{n}")
    term = factory.Sequence(lambda n: f"Term {n}")
    definition = "A definition."


class MisconceptionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Misconception

    lesson = factory.SubFactory(LessonFactory)
    code = factory.Sequence(lambda n: f"misconception-{n}")
    title = "A wrong idea"
    explanation = "Why the idea is wrong."


class QuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Question

    lesson = factory.SubFactory(LessonFactory)
    slug = factory.Sequence(lambda n: f"q-{n}")
    kind = Question.Kind.SINGLE
    prompt = "What is $\\operatorname{Var}(q \\cdot k)$?"
    published = True  # tests assume learners see it; the model's own default is unpublished


class ChoiceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Choice

    question = factory.SubFactory(QuestionFactory)
    text = "$d_k$"
    is_correct = True


class ProblemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Problem

    lesson = factory.SubFactory(LessonFactory)
    slug = factory.Sequence(lambda n: f"problem-{n}")
    title = "Variance of a dot product"
    family = "dot-variance"
    params = factory.LazyFunction(dict)
    published = True  # tests assume learners see it; the model's own default is unpublished


class QuizFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Quiz

    lesson = factory.SubFactory(LessonFactory)
    slug = factory.Sequence(lambda n: f"quiz-{n}")
    title = factory.Sequence(lambda n: f"Quiz {n}")
    published = True  # tests assume learners see it; the model's own default is unpublished


class QuizItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = QuizItem

    quiz = factory.SubFactory(QuizFactory)
    question = factory.SubFactory(QuestionFactory)
    order = factory.Sequence(lambda n: n)


class PoolFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Pool

    lesson = factory.SubFactory(LessonFactory)
    slug = factory.Sequence(lambda n: f"pool-{n}")
    title = factory.Sequence(lambda n: f"Pool {n}")
