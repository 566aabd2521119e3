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


CRUSADE_EXAMPLE = "### Crusade & Conquer example session"
CROWNFALL_EXAMPLE = "### Crownfall example session"


def test_every_registered_game_has_its_section_and_replayed_session():
    """The doc names each game with its `game` name where it introduces the protocol, and each game
    but For the Crown (whose session opens the doc) has a section with an example session."""
    from engine.games import registry
    from tests.support import ROOT

    text = (ROOT / DOC).read_text(encoding="utf-8")
    intro = " ".join(text[:text.index("## Framing")].split())
    for game in registry.games():
        assert f"{game.title} (`{game.name}`" in intro, game.name
        if game.name != "crown":
            assert f"\n## {game.title}\n" in text and f"\n### {game.title} example session\n" in text, game.name
            assert example_session(f"### {game.title} example session")


def test_the_crusade_example_shows_a_game_its_analysis_and_its_errors():
    pairs = example_session(CRUSADE_EXAMPLE)
    requests = [json.loads(request) for request, _ in pairs]
    answers = [json.loads(response) for _, response in pairs]
    assert requests[0] == {"id": 1, "cmd": "new", "game": "crusade"}
    assert {"new", "actions", "apply", "observe", "analyze", "perft", "record"} <= {r["cmd"] for r in requests}
    assert any(a.get("nodes") == 361 for a in answers)            # tests/data/crusade_perft.epd, D2
    assert any(a.get("over") and a.get("winner") == 0 for a in answers)
    assert {e["field"] for e in answers if e["ok"] is False} >= {"action", "player", "cmd", "config.players"}


def test_the_crownfall_example_shows_a_game_of_three_and_its_errors():
    pairs = example_session(CROWNFALL_EXAMPLE)
    requests = [json.loads(request) for request, _ in pairs]
    answers = [json.loads(response) for _, response in pairs]
    assert requests[0]["game"] == "crownfall" and requests[0]["config"]["players"] == 3
    assert {"new", "actions", "apply", "observe", "search", "analyze", "record"} <= {r["cmd"] for r in requests}
    assert any(a.get("player") == 2 and "observation" in a for a in answers)
    assert {e["field"] for e in answers if e["ok"] is False} >= {"action", "player", "full", "cmd", "config.players"}


def test_the_docs_unknown_game_error_is_the_one_the_protocol_gives():
    from engine.interfaces.protocol import Session
    from tests.support import ROOT

    answer = json.loads(Session().handle('{"cmd": "new", "game": "chess"}'))
    text = " ".join((ROOT / DOC).read_text(encoding="utf-8").split())
    assert f"(`{answer['error']}`)" in text
