"""Game review in the browser (docs/server.md "Game review"): the review of a finished game, the
same as `ftc review RECORD` (engine/games/review.py, docs/review.md), run by the server and polled
by the page.

- ``POST /api/games/{id}/review`` (a seat's token) starts the review of the game, or answers the
  one already started or finished; ``GET /api/games/{id}/review`` answers how far it is (the
  decisions reviewed so far and the summary of those). A spectator of a game open to spectators has
  the same two at ``/api/games/{id}/watch/review``.
- **Only a finished game** (409 before): once a game is over its record, every hidden card in it,
  is served to each seat (``GET /api/games/{id}/record``) and to its spectators
  (``/watch/record``), so the review of every player is theirs too. Each player's decisions are
  searched from what that player knew at each (``state_at``: every card hidden from that player
  dealt again from the review's seed), never from the real cards.
- **Bounded**: each decision is one task of the AI's worker pool at hint priority (below every
  game's AI turn, in the asking client's fair queue), one decision of a review at a time; a client
  runs one review at a time (``Limits.reviews_per_client``) and the server ``Limits.reviews_at_once``;
  a review searches the first ``Limits.review_decisions`` decisions of the game at most, each with
  the budget ``Limits.review_iterations`` (the information-set searches) or ``Limits.review_depth``
  (an alpha-beta), within ``Limits.review_seconds``; the same seed (0) every time, so the server's
  review is `ftc review --seed 0` on the same budget.
- **Cached**: a finished game does not change, so its review is kept (``Limits.review_cache``
  games, the least recently asked dropped first) and asked again it is answered without a search.
- **A loaded record** on the analysis board (game_analysis.py, ``POST /api/analysis/game-review``) is
  reviewed by the same jobs (``Reviews.start_record``) for the seat it was loaded as, with the same
  limits, budget, seed and cache (under its loaded id); the client gave the record, so nothing in it
  is a secret, and it may be unfinished: its decisions so far are reviewed.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse

from engine.games import registry
from engine.games.review import build_report, check_record, review_decision, review_units
from engine.interfaces.server.ai import HINT, AIFailure
from engine.interfaces.server.guard import client_key

__all__ = ["review_router", "review_task", "Reviews", "ReviewJob", "REVIEW_SEED"]

log = logging.getLogger("ftc.server")

#: The seed of every server review's searches and sampled hidden cards (`ftc review --seed 0`).
REVIEW_SEED = 0


def review_task(record: dict, decision: int, settings: dict, deadline: float) -> dict:
    """Run in an AI worker: the review of one decision (engine/games/review.py ``review_decision``).
    The budget is fixed (iterations or depth), so ``deadline`` is the pool's limit only."""
    return review_decision(record, decision, settings)


class ReviewJob:
    """The review of one finished game: its units (one per decision, at most the limit), the
    decisions reviewed so far, and whether it runs, is done or failed."""

    def __init__(self, game_id: str, game: registry.Game, record: dict, players: tuple[int, ...], settings: dict,
                 units: list[tuple], total: int, client: str, source: str | None = None):
        self.game_id, self.game = game_id, game
        self.record: dict | None = record
        #: What the report names as its record ("game ID", "the loaded record").
        self.source = source or f"game {game_id}"
        self.players, self.settings, self.units = players, settings, units
        #: The decisions this job reviews (``units`` is emptied once it ends: a kept review holds no record).
        self.of = len(units)
        #: Every decision of the reviewed players in the game (``units`` may hold fewer: the limit).
        self.total = total
        self.client = client
        self.entries: list[dict] = []
        self.status = "running"
        self.error: str | None = None
        #: Decisions searched for this job (a cached answer searches none).
        self.searched = 0

    def answer(self) -> dict:
        """The JSON answer: the review's report (docs/review.md "JSON") as far as it goes, with
        ``status`` (running, done, failed), ``error`` and ``skipped`` (decisions past the limit)."""
        report = build_report(self.game, self.source, self.players, self.settings, self.entries,
                              self.of)
        return {**report, "status": self.status, "error": self.error, "skipped": self.total - self.of}


class Reviews:
    """The server's reviews: the jobs by game (running and finished, the cache) and who runs which."""

    def __init__(self, server):
        self.server = server
        self.limits = server.limits
        self.jobs: OrderedDict[str, ReviewJob] = OrderedDict()

    def running(self, client: str | None = None) -> list[ReviewJob]:
        return [job for job in self.jobs.values() if job.status == "running" and client in (None, job.client)]

    def settings_for(self, game: registry.Game) -> dict:
        """The budget of a review of ``game`` (the options its review takes, others None)."""
        options = game.analysis.review_options
        return {"iterations": self.limits.review_iterations if "iterations" in options else None,
                "seconds": None, "depth": self.limits.review_depth if "depth" in options else None,
                "seed": REVIEW_SEED}

    def get(self, game_id: str) -> ReviewJob | None:
        job = self.jobs.get(game_id)
        if job is not None:
            self.jobs.move_to_end(game_id)
        return job

    def start(self, live, client: str) -> ReviewJob:
        """The review of the finished game ``live``: the one kept, else a new one started for
        ``client`` (HTTPException 409 when the game cannot be reviewed, 429 over a limit)."""
        job = self.get(live.id)
        if job is not None and job.status != "failed":
            return job
        self._admit(client)
        record = live.snap.state.record()
        try:
            game, players = check_record(record)
        except ValueError as exc:
            raise HTTPException(409, f"this game cannot be reviewed: {exc}") from None
        chosen = tuple(range(players))
        return self._begin(live.id, None, game, record, chosen, review_units(record, chosen, self.settings_for(game)),
                           client)

    async def start_record(self, key: str, source: str, record: dict, players: tuple[int, ...], client: str) -> ReviewJob:
        """The review of ``players``' decisions in a record the client gave (the analysis board's
        loaded record, game_analysis.py), kept under ``key``: the one kept, else a new one (429 over
        a limit, 409 when its game has no review). The record may be unfinished."""
        job = self.get(key)
        if job is not None and job.status != "failed":
            return job
        self._admit(client)

        def checked() -> tuple[registry.Game, list[tuple]]:         # replays of the record: off the loop
            game, _ = check_record(record)
            return game, review_units(record, players, self.settings_for(game))

        try:
            game, units = await asyncio.to_thread(checked)
        except ValueError as exc:
            raise HTTPException(409, f"this record cannot be reviewed: {exc}") from None
        job = self.get(key)                                          # started while it was checked
        if job is not None and job.status != "failed":
            return job
        self._admit(client)
        return self._begin(key, source, game, record, players, units, client)

    def answer(self, job: ReviewJob) -> JSONResponse:
        """200 with a finished review, 202 while it runs."""
        return _answer(job)

    def _admit(self, client: str) -> None:
        """429 when ``client`` or the server runs as many reviews as it may."""
        if len(self.running(client)) >= self.limits.reviews_per_client:
            raise HTTPException(429, f"at most {self.limits.reviews_per_client} review at a time per client: wait "
                                     "for the one running", headers={"Retry-After": "5"})
        if len(self.running()) >= self.limits.reviews_at_once:
            raise HTTPException(429, f"at most {self.limits.reviews_at_once} reviews at once on this server: try "
                                     "again soon", headers={"Retry-After": "5"})

    def _begin(self, key: str, source: str | None, game: registry.Game, record: dict, players: tuple[int, ...],
               units: list[tuple], client: str) -> ReviewJob:
        """Keep a new review of ``players``' decisions (``units``: review_units') under ``key`` and
        start it in the AI's pool: the first ``Limits.review_decisions`` of them."""
        job = ReviewJob(key, game, record, players, self.settings_for(game), units[:self.limits.review_decisions],
                        len(units), client, source)
        self.jobs[key] = job
        while len(self.jobs) > self.limits.review_cache:
            oldest = next((name for name, kept in self.jobs.items() if kept.status != "running"), None)
            if oldest is None:
                break
            del self.jobs[oldest]
        task = asyncio.get_running_loop().create_task(self._run(job))
        self.server.background.add(task)          # cancelled when the server closes
        task.add_done_callback(self.server.background.discard)
        return job

    async def _run(self, job: ReviewJob) -> None:
        """Review the job's decisions one after the other in the AI's pool, below the game turns."""
        try:
            await self.server.pool.ready()
            for record, decision, settings in job.units:
                job.entries.append(await self.server.pool.run(review_task, record, decision, settings,
                                                              seconds=self.limits.review_seconds,
                                                              client=job.client, priority=HINT))
                job.searched += 1
            job.status = "done"
        except (AIFailure, ValueError) as exc:
            job.status, job.error = "failed", f"the review stopped: {exc}"
            log.warning("review of %s: %s", job.source, exc)
        finally:
            if job.status == "running":          # cancelled: the server is closing
                job.status, job.error = "failed", "the review stopped: the server is closing"
            job.record, job.units = None, []     # the cache keeps the answer only (a record may be MiBs)


def _answer(job: ReviewJob) -> JSONResponse:
    """200 with a finished review, 202 while it runs."""
    return JSONResponse(job.answer(), status_code=202 if job.status == "running" else 200)


def review_router(server) -> APIRouter:
    """The review's routes (``server``: core.Server); the reviews are ``server.reviews``."""
    router = APIRouter()
    reviews = Reviews(server)
    server.reviews = reviews

    def finished(live) -> None:
        if not server.over(live):
            raise HTTPException(409, "the game is not over: a game is reviewed once it is finished (its record is "
                                     "public then)")

    def kept(live) -> JSONResponse:
        finished(live)
        job = reviews.get(live.id)
        if job is None:
            raise HTTPException(404, "no review of this game yet: POST to this path starts one")
        return _answer(job)

    @router.post("/api/games/{game_id}/review", summary="Start the review of your finished game (or answer the one "
                                                        "started); 202 while it runs, 200 when done")
    async def start(game_id: str, request: Request):
        live, _ = await server.seat_for_request(request, game_id)
        finished(live)
        return _answer(reviews.start(live, client_key(request.scope)))

    @router.get("/api/games/{game_id}/review", summary="The review of your finished game as far as it has gone")
    async def progress(game_id: str, request: Request):
        live, _ = await server.seat_for_request(request, game_id)
        return kept(live)

    @router.post("/api/games/{game_id}/watch/review", summary="A spectator starts the review of a finished game")
    async def watch_start(game_id: str, request: Request):
        live = await server.watched(game_id)
        finished(live)
        return _answer(reviews.start(live, client_key(request.scope)))

    @router.get("/api/games/{game_id}/watch/review", summary="A spectator's review of a finished game, as far as it "
                                                             "has gone")
    async def watch_progress(game_id: str):
        return kept(await server.watched(game_id))

    return router
