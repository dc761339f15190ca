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
