"""Suite-wide hooks.

A run that skipped the browser tests (no Chromium or no Playwright on this machine) says so once, at
the end, with the one command that enables them: a skip is otherwise visible only with ``-rs``.
"""

from __future__ import annotations

#: The command that makes the browser tests run on a Debian machine (Playwright comes with the
#: `test` extra; the browser is Debian's Chromium, never a downloaded build).
ENABLE_BROWSER = "apt-get install -y chromium"


def _is_browser_skip(report) -> bool:
    return "browser" in getattr(report, "keywords", {}) or "test_browser" in report.nodeid


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if _is_browser_skip(r)]
    if not skipped:
        return
    reasons = sorted({str(r.longrepr[2]).removeprefix("Skipped: ") for r in skipped
                      if isinstance(r.longrepr, tuple) and len(r.longrepr) == 3})
    terminalreporter.write_sep("-", "browser tests skipped")
    terminalreporter.write_line(f"{len(skipped)} browser test(s) of the web board did not run: {'; '.join(reasons)}.")
    terminalreporter.write_line(f"Enable them with: {ENABLE_BROWSER}   (then run pytest again)")


pytest_plugins = ["pytester"]
