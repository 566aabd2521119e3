"""The test suite, a package: shared helpers in tests/support.py, folders by layer."""
