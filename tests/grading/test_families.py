"""The bridge between Problem rows and the engine: validation, tolerance, seeds."""

import pytest

from courses.bank.importer import bank_import
from courses.bank.issues import BankError
from courses.models import Problem
from grading.families import attempt_seed, practice_seed, problem_errors, problem_tolerance
from tests.courses.test_bank import shipped_document, write_bank

pytestmark = pytest.mark.django_db


def test_problem_errors_accepts_the_defaults():
    assert problem_errors("dot-variance", {}, None, None) == {}


def test_problem_errors_names_unknown_families_and_parameters():
    assert "family" in problem_errors("no-such-family", {}, None, None)
    errors = problem_errors("dot-variance", {"bogus": 1}, None, None)
    assert list(errors) == ["params.bogus"]
    assert "tolerance" in problem_errors("dot-variance", {}, 0.1, None)
    assert "tolerance" in problem_errors("dot-variance", {}, -1.0, 0.0)


def test_the_bank_importer_checks_families_with_the_engine(tmp_path):
    document = shipped_document()
    document["problems"][0]["family"] = "no-such-family"
    document["problems"][1]["params"] = {"bogus": 3}
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document)])
    text = str(caught.value)
    assert f"problems[1] ({document['problems'][0]['slug']}).family" in text
    assert f"problems[2] ({document['problems'][1]['slug']}).params.bogus" in text
    assert not Problem.objects.exists()


def test_problem_tolerance_defaults_to_the_family(shipped_bank):
    problem = Problem.objects.get(slug="dot-variance")
    default = problem_tolerance(problem)
    problem.atol, problem.rtol = 0.5, 0.0
    assert problem_tolerance(problem).atol == 0.5
    assert default.rtol > 0


def test_seeds_are_derived_from_the_secret_and_differ_by_purpose(settings):
    a = practice_seed(user_id=1, problem_id=2, counter=3)
    assert a == practice_seed(user_id=1, problem_id=2, counter=3)
    assert a != practice_seed(user_id=1, problem_id=2, counter=4)
    assert a != attempt_seed(attempt_id=1, item_id=2)
    settings.SECRET_KEY = "another-secret-key-for-this-test-only-0123456789abcdef"
    assert a != practice_seed(user_id=1, problem_id=2, counter=3)
