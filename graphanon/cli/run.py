"""``graphanon run JOB.toml``: run a scheduled export job (see :mod:`graphanon.jobs`)."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

import click

from ._console import echo, quiet

__all__ = ["COMMANDS", "JsonLinesFormatter", "run"]


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, event and the event's fields."""

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": getattr(record, "event", None) or record.getMessage(),
        }
        payload.update(getattr(record, "fields", {}) or {})
        if record.exc_info and record.exc_info[1] is not None:
            payload["error"] = str(record.exc_info[1])
        return json.dumps(payload, default=str)


@click.command("run")
@click.argument("job_file", type=click.Path(dir_okay=False))
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Job log lines on stderr: text or JSON lines.")
@click.option("--lock-dir", type=click.Path(file_okay=False),
              help="Folder of the job's lock file (default: next to JOB_FILE).")
def run(job_file: str, log_format: str, lock_dir: str | None) -> None:
    """Run the export job in JOB_FILE: read its source, run its steps, write its sinks.

    Exit codes: 0 success, 2 bad input or configuration (or the job is already running),
    3 privacy budget refused, 4 database unavailable. Neo4j credentials come from the
    environment (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD or NEO4J_PASSWORD_FILE).
    """
    from ..jobs import run_job

    logger = logging.getLogger("graphanon.jobs")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLinesFormatter() if log_format == "json" else logging.Formatter(
        "%(asctime)s %(levelname)s %(message)s %(fields)s"))
    logger.addHandler(handler)
    old_level, old_propagate = logger.level, logger.propagate
    logger.setLevel(logging.WARNING if quiet() and log_format == "text" else logging.INFO)
    logger.propagate = False
    try:
        result = run_job(job_file, lock_dir=lock_dir)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate
    echo(f"job {result.job}: release {result.release_id}; wrote {', '.join(result.outputs)}")


COMMANDS = [run]
