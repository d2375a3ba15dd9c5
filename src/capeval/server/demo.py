"""The built-in demo challenge, made from the bundled COCO demo data.

The 1,000-image COCO val2014 demo subset shipped in ``capeval/data/coco_demo`` is split
by sorted image id: even positions form a public ``val`` split, odd positions a hidden
``test`` split whose references participants never see. A host account owns a baseline
entry in both phases: the "fakecap" sample results from the COCO caption toolkit.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from sqlalchemy import select

from capeval.io import parse_candidates
from capeval.server.config import ChallengeConfig, PhaseConfig, SplitConfig
from capeval.server.db import Database
from capeval.server.models import Phase, Submission, User
from capeval.server.services.accounts import create_user
from capeval.server.services.audit import audit
from capeval.server.services.challenges import install_challenge, load_references
from capeval.server.services.submissions import create_submission

__all__ = ["DEMO_SLUG", "DemoInfo", "demo_data_dir", "install_demo"]

DEMO_SLUG = "coco-demo"
DEMO_HOST = "host"
REFERENCES_FILE = "captions_val2014_demo_subset.json"
RESULTS_FILE = "captions_val2014_fakecap_results.json"


@dataclass(frozen=True)
class DemoInfo:
    """What ``install_demo`` created: the challenge id and, when new, the host's password."""

    challenge_id: int
    host_username: str
    host_password: str | None


def demo_data_dir() -> Path:
    """The bundled demo data folder (``capeval/data/coco_demo``)."""
    return Path(str(resources.files("capeval") / "data" / "coco_demo"))


def _demo_config(references: dict[int, list[str]]) -> tuple[ChallengeConfig, list[int], list[int]]:
    ids = sorted(references)
    val_ids, test_ids = ids[0::2], ids[1::2]
    config = ChallengeConfig(
        slug=DEMO_SLUG,
        title="COCO captions demo",
        description=(
            f"A demo challenge on {len(ids)} COCO val2014 images: a public val split "
            f"({len(val_ids)} images) and a hidden test split ({len(test_ids)} images) whose references stay on "
            "the server."
        ),
        splits=[
            SplitConfig(name="val", references="(bundled)", visibility="public", image_ids=val_ids),
            SplitConfig(name="test", references="(bundled)", visibility="hidden", image_ids=test_ids),
        ],
        phases=[
            PhaseConfig(name="val", splits=["val"], max_per_day=20, max_total=200, max_in_flight=3),
            PhaseConfig(name="test", splits=["test"], max_per_day=5, max_total=50, max_in_flight=1),
        ],
    )
    return config, val_ids, test_ids


def install_demo(
    db: Database,
    *,
    scorer_version: str,
    max_attempts: int,
    data_dir: Path | None = None,
    host_password: str | None = None,
) -> DemoInfo:
    """Create the demo challenge, host account and baseline entries unless they exist.

    Args:
        db: The database (schema already migrated).
        scorer_version: Scorer identity for the baseline jobs.
        max_attempts: Job attempts.
        data_dir: Folder with the two demo files (default: the bundled one).
        host_password: Password of the demo host (default: a random one, returned once).

    Raises:
        ValueError: when the demo data is missing.
    """
    data_dir = data_dir or demo_data_dir()
    refs_path, results_path = data_dir / REFERENCES_FILE, data_dir / RESULTS_FILE
    if not refs_path.is_file() or not results_path.is_file():
        raise ValueError(f"demo data not found in {data_dir} (expected {REFERENCES_FILE} and {RESULTS_FILE})")
    references = load_references(refs_path)
    config, val_ids, test_ids = _demo_config(references)
    with db.read() as session:
        host = session.scalar(select(User).where(User.username == DEMO_HOST))
    new_password = None
    if host is None:
        new_password = host_password or secrets.token_urlsafe(12)
        host = create_user(db, DEMO_HOST, new_password, team_name="challenge hosts", is_host=True)
    challenge_id = install_challenge(
        db,
        config,
        references={"val": {i: references[i] for i in val_ids}, "test": {i: references[i] for i in test_ids}},
    )
    with db.read() as session:
        has_baseline = session.scalar(select(Submission.id).where(Submission.is_baseline.is_(True))) is not None
    if not has_baseline:
        raw = results_path.read_bytes()
        parsed = parse_candidates(raw, name=str(results_path), integer_ids=True)
        captions = {int(str(image_id)): caption for image_id, caption in parsed.items()}
        with db.read() as session:
            phases = {p.name: p.id for p in session.scalars(select(Phase).where(Phase.challenge_id == challenge_id))}
        for phase_name, ids in (("val", val_ids), ("test", test_ids)):
            create_submission(
                db,
                user_id=host.id,
                phase_id=phases[phase_name],
                captions={i: captions[i] for i in ids},
                file_sha256=hashlib.sha256(raw).hexdigest(),
                filename=RESULTS_FILE,
                n_bytes=len(raw),
                scorer_version=scorer_version,
                max_attempts=max_attempts,
                method_name="fakecap (COCO toolkit sample results)",
                method_description="The sample results file shipped with the COCO caption evaluation toolkit.",
                is_baseline=True,
                enforce_limits=False,
            )
        with db.read() as session:
            audit(session, None, "demo_baseline", f"challenge:{DEMO_SLUG}")
    return DemoInfo(challenge_id, DEMO_HOST, new_password)
