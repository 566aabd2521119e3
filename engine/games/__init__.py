"""The games this engine plays, as first-class objects: the state protocol every game state
implements (protocol.py) and the registry of games by name (registry.py). See docs/architecture.md,
"Games: the registry and the state protocol" and "How to add a game"."""
