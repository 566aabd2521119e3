"""What the home page shows of the games, from GET /api/games/kinds (issue 39, item 6; in a browser:
test_browser_pages.py): each game's blurb is a sentence from a capital letter; every bot its menus
offer comes with a label in words (``bot_labels``, made by the registry's ``Game.bot_label``), never
the spec itself; the page names the hub, not one game; For the Crown's levels, written in
index.html, say what the registry says of their bots."""

import re

from engine.games import registry
from engine.games.bots import describe_spec
from engine.interfaces.server.app import STATIC, game_levels

BUILT_IN = ("crown", "kings-ransom", "crownfall", "crusade")


def test_every_blurb_starts_with_a_capital_letter(client):
    kinds = {k["name"]: k for k in client.get("/api/games/kinds").json()["games"]}
    for name in BUILT_IN:
        description = kinds[name]["description"]
        assert description[:1].isupper(), (name, description)
        assert description == registry.get(name).description


def test_each_bot_of_the_menus_has_a_label_in_words(client):
    kinds = {k["name"]: k for k in client.get("/api/games/kinds").json()["games"]}
    for name in BUILT_IN:
        kind = kinds[name]
        specs = set(kind["ai_levels"].values()) | set(kind["bots"])
        assert set(kind["bot_labels"]) == specs, name
        for spec, label in kind["bot_labels"].items():
            assert label == registry.get(name).bot_label(spec)
            assert not re.search(r"\w:\S", label), (name, spec, label)        # no "alphabeta:0.5s"
    assert kinds["crownfall"]["bot_labels"]["ismcts:0.5s"] == "full AI, 0.5 s a decision"
    assert kinds["crusade"]["bot_labels"]["alphabeta:0.5s"] == "alpha-beta search, 0.5 s a decision"
    assert kinds["crusade"]["bot_labels"]["alphabeta:2s"] == "alpha-beta search, 2 s a decision"
    assert kinds["crownfall"]["bot_labels"]["greedy"] == "greedy"
    assert kinds["crown"]["bot_labels"]["alphabeta"] == "alpha-beta search (Point-Buy Chess)"


def test_a_spec_in_words():
    assert describe_spec("ismcts:800") == "full AI, 800 iterations a decision"
    assert describe_spec("alphabeta:4") == "alpha-beta search, 4 plies deep"
    assert describe_spec("mcts:1.5s") == "full AI, 1.5 s a decision"
    assert describe_spec("random") == "random moves"
    assert describe_spec("minimax:3") == "minimax, 3 iterations a decision"          # a name no table knows
    assert describe_spec("expert", {"expert": "the rulebook's advice"}) == "the rulebook's advice"


def test_the_page_names_the_hub_and_for_the_crowns_levels_say_the_registrys_words():
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    titles = {game.title for game in registry.games()}
    assert re.search(r"<h1>ftc-engine</h1>", page) and "<title>ftc-engine</title>" in page
    assert re.search(r"<h1>([^<]*)</h1>", page).group(1) not in titles
    crown = registry.get("crown")
    levels = game_levels(crown)
    for level, text in re.findall(r'<option value="(easy|normal|strong)"[^>]*>([^<]+)</option>', page):
        assert text == f"{level.capitalize()} ({crown.bot_label(levels[level])})"


def test_every_view_names_its_game_module_title_and_seats(client):
    """One client shell (issue 41): whatever the game, its view names the game, the board module that
    draws it, its title and its seats, as the registry says (the shell names no game itself). The
    seat's view, the answer to an action's POST and a spectator's view alike."""
    for name in BUILT_IN:
        game = registry.get(name)
        response = client.post("/api/games", json={"game": name, "human": 0, "ai": {"bot": "random"}})
        assert response.status_code == 201, (name, response.text)
        view = response.json()
        token = view.pop("token")
        seen = [view, client.get(f"/api/games/{view['id']}", headers={"Authorization": f"Bearer {token}"}).json(),
                client.get(f"/api/games/{view['id']}/watch").json()]
        for shown in seen:
            assert shown["game"] == name and shown["module"] == game.web.module, (name, shown.get("game"), shown.get("module"))
            assert shown["title"] == game.title, name
            assert shown["players"] == [game.seat(p) for p in range(len(shown["players"]))] and len(shown["players"]) >= 2, name


def test_every_game_board_is_a_module_of_its_own(client):
    """Each registered game's board is drawn by a module of its own under static/ (issue 41: For
    the Crown's board left the shell, app.js), served under /static/ and exporting the one
    ``render(view, actions, ctx)`` contract."""
    kinds = client.get("/api/games/kinds").json()["games"]
    for kind in kinds:
        module = kind["module"]
        assert module not in ("app.js", "dom.js"), (kind["name"], module)
        answer = client.get(f"/static/{module}")
        assert answer.status_code == 200, (kind["name"], module)
        assert re.search(r"^export function render\(view, actions, ctx\)", answer.text, re.M), (kind["name"], module)


def test_the_new_game_form_comes_from_the_registry(client):
    """Every game's own fields of the new-game form come from its registry entry (``WebBoard.form``,
    GET /api/games/kinds ``form``), For the Crown's included (issue 41: the shell names no game): its
    variants are the registry's, and the fields the body takes at its top level (variant, supply,
    seed, human) are NewGame's own."""
    from engine.interfaces.server.models import NewGame

    kinds = {k["name"]: k for k in client.get("/api/games/kinds").json()["games"]}
    crown = kinds["crown"]["form"]
    assert [field["name"] for field in crown] == ["variant", "supply", "seed"]
    assert [c["value"] for c in crown[0]["choices"]] == list(registry.get("crown").variants)
    for name, kind in kinds.items():
        for field in kind["form"] or ():
            assert field["label"] and len(field.get("title", "")) > 10, (name, field["name"])
            assert ("choices" in field) != ("number" in field), (name, field["name"])
            for choice in field.get("choices", ()):
                assert set(choice) <= {"value", "label", "title", "note", "seats", "first"}, (name, choice)
                assert len(choice.get("seats", ())) in (0, kind["players"][1]), (name, choice)
    assert {"variant", "supply", "seed", "human"} <= set(NewGame.model_fields)
    # The form's body for For the Crown (as the shell sends it, registry names only) makes a game.
    body = {"game": "crown", "variant": "last-stand", "supply": "first-game", "seed": 3, "human": 1,
            "ai": {"level": "easy"}}
    created = client.post("/api/games", json=body)
    assert created.status_code == 201, created.text
    assert created.json()["game"] == "crown"
