"""The `ftc` command line, the JSON-lines engine protocol and UCI."""
