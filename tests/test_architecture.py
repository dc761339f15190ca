"""The arrows between packages (docs in README "Layout"), read from every module's imports.

Imports are parsed, not executed, so an import inside a function counts like one at the top.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "accounts",
    "api",
    "availability",
    "config",
    "courses",
    "grading",
    "integrations",
    "lti",
    "security",
    "teaching",
)
APPS = ("accounts", "courses", "grading", "integrations", "lti", "teaching")
DRF = ("rest_framework", "drf_spectacular")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The absolute module a (possibly relative) `from … import` names."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


@cache
def imports() -> dict[str, list[tuple[str, str | None]]]:
    """Every project module: the (module, name) pairs it imports (name None for `import x`)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = _module_name(path)
            pairs = []
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    pairs += [(alias.name, None) for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    source = _resolve(module, node, path.name == "__init__.py")
                    pairs += [(source, alias.name) for alias in node.names]
            found[module] = pairs
    return found


def _top(module: str) -> str:
    return module.split(".")[0]


def _imported(module: str) -> set[str]:
    """The modules `module` imports (for `from package import name`, also package.name)."""
    names = set()
    for source, name in imports()[module]:
        names.add(source)
        if name is not None:
            names.add(f"{source}.{name}")
    return names


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(f"{prefix}.")


def _offences(modules, forbidden) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module in modules
        for target in _imported(module)
        if any(_within(target, prefix) for prefix in forbidden)
    )


def _modules_in(prefix: str) -> list[str]:
    return [module for module in imports() if _within(module, prefix)]


def package_graph() -> dict[str, set[str]]:
    """Top-level package -> the other project packages its modules import."""
    graph = {package: set() for package in PACKAGES}
    for module in imports():
        for target in _imported(module):
            if _top(target) in PACKAGES and _top(target) != _top(module):
                graph[_top(module)].add(_top(target))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle of the graph, each once, as the path that closes it."""
    found = []

    def walk(path: list[str]) -> None:
        for following in sorted(graph.get(path[-1], ())):
            if following == path[0]:
                found.append([*path, following])
            elif following not in path and following > path[0]:
                walk([*path, following])

    for start in sorted(graph):
        walk([start])
    return found


def test_every_package_is_read():
    for package in PACKAGES:
        assert f"{package}" in imports(), package
    assert "api.errors" in imports()
    assert "grading.engine.grade" in imports()


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_relative_imports_are_resolved():
    node = ast.parse("from ..models import Attempt").body[0]
    assert _resolve("grading.api.views", node, is_package=False) == "grading.models"
    node = ast.parse("from . import views").body[0]
    assert _resolve("grading.api", node, is_package=True) == "grading.api"


def test_no_cycles_between_packages():
    assert cycles(package_graph()) == []


def test_the_engine_imports_no_django_and_no_app():
    forbidden = ("django", *DRF, *(p for p in PACKAGES if p != "grading"))
    engine = _modules_in("grading.engine")
    assert _offences(engine, forbidden) == []
    outside_engine = [
        f"{module} imports {target}"
        for module in engine
        for target in _imported(module)
        if _within(target, "grading") and not _within(target, "grading.engine")
    ]
    assert outside_engine == []


# What each package may import of the others (README "Layout"). Anything else, and any cycle, is
# a wrong arrow: courses never reaches grading, api/ and security/ know no app.
ALLOWED = {
    # A person's own settings (their time zone) and how a time is written for them: low, so
    # every app may use them; they import no other app.
    "accounts": set(),
    "api": {"security"},
    "security": {"availability"},  # limits stay open while the cache is down
    "availability": set(),  # the 503 for outages: neutral, like api/ and security/
    "config": {
        "accounts",  # the page scripts' catalog (accounts/catalog.py)
        "api",
        "availability",
        "security",
    },  # urls.py and api.py name the apps' urls by string
    "courses": {"accounts", "api", "availability"},
    "integrations": {"accounts", "api", "courses"},
    # grading and courses read their shared caches and do without them while the cache is down.
    "grading": {"accounts", "api", "availability", "courses", "integrations", "security"},
    "lti": {"accounts", "courses", "grading", "security"},
    # The instructor's side reads what instructors author and what learners did; nothing
    # imports it (config names its urls, LTI its role grant, by string). Its API (statistics
    # for LMS dashboards) uses the API's plumbing and the key's scope, like grading's.
    "teaching": {"accounts", "api", "courses", "grading", "integrations"},
}


def test_every_package_has_its_arrows():
    assert set(ALLOWED) == set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_what_it_may(package):
    assert package_graph()[package] <= ALLOWED[package], package_graph()[package] - ALLOWED[package]


def test_nothing_imports_teaching():
    importers = [
        f"{module} imports {target}"
        for module in imports()
        if not _within(module, "teaching")
        for target in _imported(module)
        if _within(target, "teaching")
    ]
    assert importers == []


def test_grading_reaches_integrations_only_from_its_api():
    """The learners' work (services, pages) knows no API key: only the API's views and reads
    ask what a key reaches. (grading never imports lti: tests/lti/test_layout.py.)"""
    outside_api = [m for m in _modules_in("grading") if not _within(m, "grading.api")]
    assert _offences(outside_api, ("integrations",)) == []


def test_teaching_reaches_the_api_and_integrations_only_from_its_api():
    """The instructor pages know no API key: only teaching.api asks what a key reaches."""
    outside_api = [m for m in _modules_in("teaching") if not _within(m, "teaching.api")]
    assert _offences(outside_api, ("api", "integrations")) == []


def test_only_the_api_layers_import_the_api_and_drf():
    """Domain code (models, services, selectors, policy, the engine) raises its own errors:
    the API's plumbing and DRF are for api/, each app's api/ package, and config's wiring."""
    api_layers = (
        "api",
        "config.api",
        "config.settings",
        *(f"{app}.api" for app in APPS),
        "integrations.apps",  # registers the key scheme with the OpenAPI generator
    )
    domain = [m for m in imports() if not any(_within(m, layer) for layer in api_layers)]
    assert _offences(domain, ("api", *DRF)) == []


def test_no_private_names_from_django_or_drf():
    private = sorted(
        f"{module} imports {source}.{name}" if name else f"{module} imports {source}"
        for module, pairs in imports().items()
        for source, name in pairs
        if _top(source) in ("django", *DRF)
        and (
            any(part.startswith("_") for part in source.split("."))
            or (name is not None and name.startswith("_"))
        )
    )
    assert private == []


def test_domain_errors_in_the_table_are_exceptions(settings):
    from api.errors import domain_errors

    assert domain_errors(), "SOFTGRADE_API_ERRORS maps no domain error"
    assert all(issubclass(error, Exception) for error, _ in domain_errors())


def module_graph() -> dict[str, set[str]]:
    """Project module -> the project modules it imports (a package's own __init__ left out: it
    holds no code here, so importing through it closes no loop)."""
    known = set(imports())
    return {
        module: {
            target
            for target in _imported(module)
            if target in known and target != module and not _within(module, target)
        }
        for module in known
    }


def tangles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other round a loop (strongly connected components
    of more than one module), each sorted; found with Tarjan's algorithm, iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, following = work[-1]
            step = next(following, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found)


def test_the_tangle_finder_finds_loops():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert tangles(graph) == [["a", "b", "c"]]
    assert tangles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_round_a_loop():
    """No two modules import each other, directly or round a longer loop, even through an
    import inside a function (a deferred import only hides the loop)."""
    assert tangles(module_graph()) == []


# "Small enough to read in one sitting": about 400 lines; a module held together by one meaning
# may run a little over, never past this.
MODULE_LINES_MAX = 450


def test_every_module_reads_in_one_sitting():
    long = sorted(
        f"{path.relative_to(ROOT)}: {lines} lines"
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
        and (lines := len(path.read_text().splitlines())) > MODULE_LINES_MAX
    )
    assert long == []
