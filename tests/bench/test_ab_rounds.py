"""The rounds that measure the code here against another ref: the trees' alternating order, the
samples gathered per tree, measure and kind, their summary, the printed table and the posted
form's fields."""

import pytest

from bench.ab_rounds import bench_name, form_data, gather, report_lines, round_order, summary


def test_the_trees_order_alternates_from_round_to_round():
    orders = [round_order(["main", "here"], round_) for round_ in range(4)]

    assert orders == [["main", "here"], ["here", "main"], ["main", "here"], ["here", "main"]]


def test_one_tree_runs_alone_every_round():
    assert round_order({"here": "/tree"}, 1) == ["here"]


def test_a_childs_samples_are_added_to_those_kept_for_its_tree():
    kept: dict = {}
    gather(kept, {"cpu": {"save": [0.01], "page": [0.02]}}, ("save", "page", "submit"))
    gather(kept, {"cpu": {"save": [0.03]}, "statements": {"page": [7]}}, ("save", "page", "submit"))

    assert kept == {
        "cpu": {"save": [0.01, 0.03], "page": [0.02], "submit": []},
        "statements": {"save": [], "page": [7], "submit": []},
    }


def _samples() -> dict:
    return {
        "cpu": {"save": [0.010, 0.030, 0.0125], "page": []},
        "database": {"save": [0.002, 0.004, 0.003], "page": []},
        "statements": {"save": [12, 14, 13], "page": []},
    }


def test_summary_gives_the_median_and_mean_in_milliseconds_and_the_most_statements():
    figures = summary(_samples(), ("save",), count="saves")

    assert figures == {
        "save": {
            "saves": 3,
            "app_cpu_ms_median": 12.5,
            "app_cpu_ms_mean": 17.5,
            "database_cpu_ms_mean": 3.0,
            "statements": 14,
        }
    }


def test_summary_rounds_to_the_places_asked_and_may_leave_out_the_mean():
    figures = summary(_samples(), ("save",), count="requests", digits=2, with_mean=False)

    assert figures["save"] == {
        "requests": 3,
        "app_cpu_ms_median": 12.5,
        "database_cpu_ms_mean": 3.0,
        "statements": 14,
    }
    assert summary(_samples(), ("save",), count="n", digits=0)["save"]["app_cpu_ms_mean"] == 18.0


def test_summary_leaves_out_a_kind_without_samples_only_when_asked():
    assert list(summary(_samples(), ("save", "page"), count="pages", sampled_only=True)) == ["save"]
    # no median of nothing: a kind the journey never ran
    with pytest.raises(ValueError, match="no median"):
        summary(_samples(), ("save", "page"), count="pages")


def test_the_table_has_a_line_per_tree_and_kind_under_its_header():
    report = {
        "main": {
            "save": {
                "saves": 3,
                "app_cpu_ms_median": 12.5,
                "database_cpu_ms_mean": 3.0,
                "statements": 14,
            }
        },
        "here": {
            "save": {
                "saves": 3,
                "app_cpu_ms_median": 9.25,
                "database_cpu_ms_mean": 2.5,
                "statements": 10,
            }
        },
    }

    lines = report_lines(report, column="save", width=8, count="saves")

    assert lines == [
        "code      save     saves  app CPU ms  PG CPU ms   SQL",
        "main      save         3        12.5        3.0    14",
        "here      save         3        9.25        2.5    10",
    ]


def test_a_forms_repeated_field_keeps_every_value_in_order():
    fields = [("token", "t1"), ("item-4", "2"), ("item-4", "5"), ("item-9", "0.7")]

    assert form_data(fields) == {"token": ["t1"], "item-4": ["2", "5"], "item-9": ["0.7"]}


def test_a_benchs_results_are_named_after_its_script():
    assert bench_name("/repo/bench/attempt_page_profile.py") == "attempt-page-profile"
    assert bench_name("bench/request_costs.py") == "request-costs"


def test_the_count_may_be_headed_otherwise_than_its_figure_is_named():
    report = {
        "here": {
            "submit": {
                "requests": 4,
                "app_cpu_ms_median": 6.5,
                "database_cpu_ms_mean": 0.0,
                "statements": 11,
            }
        }
    }

    lines = report_lines(
        report, column="request", width=14, count="requests", count_heading="count"
    )

    assert lines == [
        "code      request        count  app CPU ms  PG CPU ms   SQL",
        "here      submit             4         6.5        0.0    11",
    ]
