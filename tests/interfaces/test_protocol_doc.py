"""docs/protocol.md's example sessions (For the Crown's and King's Ransom's) are real runs: this test
replays their requests through a real `ftc engine` process and compares every response with the
documented one, line for line. Only the
`seconds` timings are allowed to differ. When the protocol changes on purpose, regenerate the block
from the run and re-read the notes under it."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.support import FTC, ROOT, child_env

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
SECONDS = re.compile(r'"seconds":[0-9.eE+-]+')


EXAMPLE = "## Example session"
RANSOM_EXAMPLE = "### King's Ransom example session"


def example_session(heading: str = EXAMPLE) -> list[tuple[str, str]]:
    """The (request, response) pairs of the first code block under ``heading``."""
    text = DOC.read_text(encoding="utf-8")
    block = text[text.index(heading):]
    block = block[block.index("```\n") + 4:]
    block = block[:block.index("```")]
    lines = block.splitlines()
    requests = [line[2:] for line in lines if line.startswith("> ")]
    responses = [line[2:] for line in lines if line.startswith("< ")]
    assert all(line[:2] in ("> ", "< ") for line in lines), "a line of the block is neither > nor <"
    assert len(requests) == len(responses) and requests, "every request needs its one response"
    return list(zip(requests, responses))


@pytest.mark.parametrize("heading", [EXAMPLE, RANSOM_EXAMPLE])
def test_the_documented_session_is_what_the_engine_answers(heading):
    pairs = example_session(heading)
    run = subprocess.run([*FTC, "engine"], env=child_env(), cwd=ROOT,
                         input="".join(r + "\n" for r, _ in pairs), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    answers = run.stdout.splitlines()
    assert len(answers) == len(pairs), f"{len(pairs)} requests, {len(answers)} responses"
    for number, ((request, documented), answer) in enumerate(zip(pairs, answers), 1):
        assert SECONDS.sub('"seconds":S', answer) == SECONDS.sub('"seconds":S', documented), \
            f"docs/protocol.md example, request {number}: {request}"


def test_the_example_shows_every_command_and_an_error_of_each_kind():
    pairs = example_session()
    commands = set()
    for request, _ in pairs:
        try:
            commands.add(json.loads(request)["cmd"])
        except ValueError:
            pass                                   # the deliberately broken line
    assert {"hello", "position", "apply", "perft", "search", "new", "actions", "observe", "record", "quit"} <= commands
    errors = [json.loads(response) for _, response in pairs if '"ok":false' in response]
    assert any("field" not in e for e in errors), "no error of a bad line (invalid JSON)"
    assert any(e.get("field") == "action" for e in errors)


def test_the_kings_ransom_example_shows_a_game_and_its_errors():
    pairs = example_session(RANSOM_EXAMPLE)
    requests = [json.loads(request) for request, _ in pairs]
    assert requests[0]["cmd"] == "new" and requests[0]["config"]["variant"] == "kings-ransom"
    assert {"new", "observe", "actions", "apply", "search", "perft"} <= {r["cmd"] for r in requests}
    answers = [json.loads(response) for _, response in pairs]
    assert any(a.get("nodes") == 30951 for a in answers)
    assert {e["field"] for e in answers if e["ok"] is False} >= {"action", "player", "position", "cmd"}
