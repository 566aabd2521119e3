"""Imports every effect module so that their registrations run."""

import importlib
import pkgutil

import engine.game.effects as _package

for _module in pkgutil.iter_modules(_package.__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"engine.game.effects.{_module.name}")
