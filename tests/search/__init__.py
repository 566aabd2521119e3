"""Alpha-beta, ISMCTS, time management and matches."""
