"""The suite's own hooks (tests/conftest.py), run on a small suite of their own with pytester."""

from pathlib import Path

HOOKS = (Path(__file__).parent / "conftest.py").read_text()


def test_skipped_browser_tests_are_named_once_at_the_end_with_the_command_that_enables_them(pytester):
    pytester.makeconftest(HOOKS)
    pytester.makepyfile(test_browser_x="""
        import pytest
        pytestmark = pytest.mark.skipif(True, reason="no Chromium at /usr/bin/chromium")
        def test_a(): pass
        def test_b(): pass
    """, test_other="""
        import pytest
        def test_c(): pytest.skip("unrelated")
    """)
    result = pytester.runpytest("-p", "no:xdist", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=3)
    text = result.stdout.str()
    assert text.count("browser test(s) of the web board did not run") == 1
    result.stdout.fnmatch_lines(["2 browser test(s) of the web board did not run: no Chromium at /usr/bin/chromium.",
                                 "Enable them with: apt-get install -y chromium*"])
    assert "unrelated" not in text


def test_a_run_without_browser_skips_says_nothing_about_them(pytester):
    pytester.makeconftest(HOOKS)
    pytester.makepyfile(test_plain="def test_ok(): pass")
    result = pytester.runpytest("-p", "no:xdist", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "browser test" not in result.stdout.str()


def test_the_default_run_names_every_skipped_test_and_why(pytester):
    """The project's own pytest settings (pyproject's [tool.pytest.ini_options], its addopts) make a run
    end with each skipped test's place and reason (issue 39: a new user saw "3 skipped" and no more)."""
    import tomllib

    settings = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["tool"]["pytest"]
    addopts = settings["ini_options"]["addopts"].replace("-p no:cacheprovider", "")
    pytester.makeini(f"[pytest]\naddopts = {addopts}\nmarkers =\n    slow: x\n    soak: x\n")
    pytester.makeconftest(HOOKS)
    pytester.makepyfile(test_other="""
        import pytest
        def test_c(): pytest.skip("no PostgreSQL binaries on this machine")
        def test_d(): pass
    """)
    result = pytester.runpytest("-p", "no:xdist", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*short test summary info*",
                                 "SKIPPED [[]1[]] test_other.py:2: no PostgreSQL binaries on this machine"])
