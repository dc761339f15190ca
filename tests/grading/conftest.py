import pytest

from tests.factories import UserFactory


@pytest.fixture
def learner():
    return UserFactory()


@pytest.fixture
def learner_client(client, learner):
    """The test client, logged in as the learner."""
    client.force_login(learner)
    return client


@pytest.fixture
def staff():
    """A staff member with no permission of their own: an instructor, as far as scores go."""
    return UserFactory(is_staff=True)


@pytest.fixture
def hook_calls(settings):
    """The attempts grading tells the LMS of (the submitted-attempt hooks), in order."""
    from tests.grading import exam_records

    settings.SOFTGRADE_ATTEMPT_SUBMITTED_HOOKS = [
        "tests.grading.exam_records.record_submitted_hook"
    ]
    exam_records.submitted_hook_calls.clear()
    return exam_records.submitted_hook_calls
