"""docs/protocol.md's example sessions (For the Crown's and King's Ransom's) show every command and
an error of each kind. That each response is what a real `ftc engine` answers is checked by
tests/test_docs_examples.py, the one replay of every doc's examples (the sessions are its
```engine replay blocks)."""

import json

from tests.test_docs_examples import blocks

DOC = "docs/protocol.md"


EXAMPLE = "## Example session"
RANSOM_EXAMPLE = "### King's Ransom example session"


def example_session(heading: str = EXAMPLE) -> list[tuple[str, str]]:
    """The (request, response) pairs of the first replayed session block under ``heading``."""
    from tests.support import ROOT

    start = (ROOT / DOC).read_text(encoding="utf-8").splitlines().index(heading) + 1
    block = next(b for b in blocks(DOC) if b.line > start and b.info == "engine replay")
    requests = [line[2:] for line in block.body if line.startswith("> ")]
    responses = [line[2:] for line in block.body if line.startswith("< ")]
    assert len(requests) == len(responses) and requests, "every request needs its one response"
    return list(zip(requests, responses))


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
