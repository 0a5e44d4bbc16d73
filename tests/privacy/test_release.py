"""Release records: construction, validation, JSON round trip."""

from __future__ import annotations

import json
import re
import uuid

import numpy as np
import pytest

from graphanon import __version__
from graphanon.errors import InvalidParameterError
from graphanon.privacy.release import Release


def _release(**kw):
    base = dict(mechanism="randomized-response", neighbourhood="edge", epsilon=1.0,
                sensitivity=1.0, sensitivity_derivation="one cell", params={"p": np.float64(0.4)},
                backend="opendp", source_fingerprint="abc")
    base.update(kw)
    return Release.create(**base)


def test_create_fills_metadata_and_round_trips():
    r = _release()
    assert r.graphanon_version == __version__
    assert r.created_at.endswith("Z")
    uuid.UUID(r.release_id)
    assert r.params == {"p": 0.4} and type(r.params["p"]) is float
    d = json.loads(r.to_json())
    assert Release.from_dict(d) == r
    assert Release.from_json(r.to_json()) == r
    assert not r.reproducible and _release(seed=3, backend="numpy-insecure").reproducible
    assert _release().release_id != r.release_id


def test_personalized_release_needs_summary():
    summ = Release.summarize_epsilons([0.5, 1.0, 2.0])
    r = _release(neighbourhood="personalized-node", epsilon=None, epsilon_summary=summ)
    assert r.epsilon_summary == {"min": 0.5, "median": 1.0, "max": 2.0}
    with pytest.raises(InvalidParameterError, match="epsilon_summary"):
        _release(neighbourhood="personalized-edge", epsilon=None)


def test_validation():
    with pytest.raises(InvalidParameterError, match="'neighbourhood' parameter of Release"):
        _release(neighbourhood="vertex")
    with pytest.raises(InvalidParameterError, match="must state its epsilon"):
        _release(epsilon=None)
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter of Release"):
        _release(epsilon=float("inf"))
    assert _release(neighbourhood="k-anonymity", epsilon=None).epsilon is None
    d = _release().to_dict()
    d["extra"] = 1
    with pytest.raises(InvalidParameterError, match="unknown keys"):
        Release.from_dict(d)
    r = _release()
    with pytest.raises(AttributeError):
        r.epsilon = 2.0  # frozen


def test_published_fingerprint_is_keyed(monkeypatch):
    """An adversary who knows the input up to one edge must not be able to test candidates
    against the published fingerprint: it is an HMAC under the operator's secret key."""
    from graphanon.graph import Graph
    from graphanon.privacy.release import keyed_fingerprint

    G = Graph.from_edges([0, 1], [1, 2])
    rec = Release.create(mechanism="m", neighbourhood="edge", epsilon=1.0,
                         source_fingerprint=G.content_hash)
    assert G.content_hash not in rec.to_json()
    assert rec.source_fingerprint == keyed_fingerprint(G.content_hash, rec.release_id)
    monkeypatch.setenv("GRAPHANON_FINGERPRINT_KEY", "another operator")
    assert keyed_fingerprint(G.content_hash, rec.release_id) != rec.source_fingerprint


def test_fingerprints_of_repeated_releases_cannot_be_compared():
    """Salted with its release id, the fingerprint of an unchanged input differs between two
    releases, so comparing a weekly job's records tells nothing about whether one edge was
    added; the operator still checks provenance with the key and the release id."""
    from graphanon.graph import Graph
    from graphanon.privacy.release import keyed_fingerprint

    G = Graph.from_edges([0, 1], [1, 2])
    H = Graph.from_edges([0, 1, 2], [1, 2, 0])
    a, b = (Release.create(mechanism="m", neighbourhood="edge", epsilon=1.0,
                           source_fingerprint=G.content_hash) for _ in range(2))
    assert a.source_fingerprint != b.source_fingerprint
    for rec in (a, b):
        assert rec.source_fingerprint == keyed_fingerprint(G.content_hash, rec.release_id)
        assert rec.source_fingerprint != keyed_fingerprint(H.content_hash, rec.release_id)


def test_key_file_is_created_once_and_private(monkeypatch, tmp_path):
    from graphanon.privacy.release import keyed_fingerprint

    monkeypatch.delenv("GRAPHANON_FINGERPRINT_KEY")
    monkeypatch.setenv("GRAPHANON_HOME", str(tmp_path))
    a = keyed_fingerprint("abc")
    key = tmp_path / "fingerprint.key"
    assert key.stat().st_mode & 0o077 == 0 and len(key.read_bytes()) == 32
    assert keyed_fingerprint("abc") == a


def test_seed_alone_does_not_make_a_release_reproducible():
    secure = Release.create(mechanism="m", neighbourhood="edge", epsilon=1.0, backend="opendp",
                            seed=3)
    insecure = Release.create(mechanism="m", neighbourhood="edge", epsilon=1.0,
                              backend="numpy-insecure", seed=3)
    assert not secure.reproducible and insecure.reproducible


@pytest.mark.parametrize("size", [0, 31, 33])
def test_a_damaged_key_file_is_refused_and_kept(monkeypatch, tmp_path, size):
    """A 0-byte key (a full disk at first use, a crash between creating and writing the file)
    was read as b"" and keyed every pseudonym with a key everyone knows. Now a key of the
    wrong length is refused, naming the file, and is never replaced by a new one."""
    from graphanon.privacy.pseudonyms import pseudonymize
    from graphanon.privacy.release import keyed_fingerprint

    monkeypatch.delenv("GRAPHANON_FINGERPRINT_KEY")
    monkeypatch.setenv("GRAPHANON_HOME", str(tmp_path))
    key = tmp_path / "fingerprint.key"
    key.write_bytes(b"k" * size)
    for use in (lambda: keyed_fingerprint("abc"), lambda: pseudonymize([1], scope="r")):
        with pytest.raises(InvalidParameterError,
                           match=re.escape(f"fingerprint key {key} holds {size} bytes, not 32")):
            use()
    assert key.read_bytes() == b"k" * size
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fingerprint.key"]


def test_an_unreadable_key_file_is_refused(monkeypatch, tmp_path):
    from graphanon.privacy.release import keyed_fingerprint

    monkeypatch.delenv("GRAPHANON_FINGERPRINT_KEY")
    monkeypatch.setenv("GRAPHANON_HOME", str(tmp_path))
    (tmp_path / "fingerprint.key").mkdir()  # unreadable as a file, even for root
    with pytest.raises(InvalidParameterError, match=r"fingerprint key .* cannot be read"):
        keyed_fingerprint("abc")


def test_a_key_that_cannot_be_written_leaves_no_key_file(monkeypatch, tmp_path):
    """The key is written to a temporary file and synced before it gets its name: a full
    disk leaves no (short) key file behind, and the run stops with one line."""
    import errno
    import os

    from graphanon.privacy.release import keyed_fingerprint

    monkeypatch.delenv("GRAPHANON_FINGERPRINT_KEY")
    monkeypatch.setenv("GRAPHANON_HOME", str(tmp_path))

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(InvalidParameterError, match=r"cannot be created .No space left"):
        keyed_fingerprint("abc")
    assert list(tmp_path.iterdir()) == []


def test_concurrent_first_uses_agree_on_one_key(monkeypatch, tmp_path):
    """Two processes creating the key at once: the one that links its key second reads and
    uses the first one's (the old code could read the winner's file before it was written:
    b"")."""
    import os

    from graphanon.privacy import keys

    monkeypatch.delenv("GRAPHANON_FINGERPRINT_KEY")
    monkeypatch.setenv("GRAPHANON_HOME", str(tmp_path))
    winner = b"w" * 32
    link = os.link

    def lose(src, dst):  # the other process links its key just before this one
        (tmp_path / "other").write_bytes(winner)
        link(tmp_path / "other", dst)
        os.unlink(tmp_path / "other")
        return link(src, dst)

    monkeypatch.setattr(os, "link", lose)
    assert keys.operator_key() == winner
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fingerprint.key"]


def test_concurrent_processes_create_one_key(tmp_path):
    import os
    import subprocess
    import sys

    code = "from graphanon.privacy.keys import operator_key; print(operator_key().hex())"
    env = {k: v for k, v in os.environ.items() if k != "GRAPHANON_FINGERPRINT_KEY"}
    env["GRAPHANON_HOME"] = str(tmp_path)
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              text=True) for _ in range(4)]
    seen = {p.communicate(timeout=120)[0].strip() for p in procs}
    assert seen == {(tmp_path / "fingerprint.key").read_bytes().hex()}


def test_cli_refuses_an_empty_key_with_one_line_exit_2(monkeypatch, tmp_path, capsys):
    from graphanon.cli import main

    monkeypatch.delenv("GRAPHANON_FINGERPRINT_KEY")
    monkeypatch.setenv("GRAPHANON_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "fingerprint.key").write_bytes(b"")
    g = tmp_path / "g.txt"
    g.write_text("1 2\n2 3\n")
    out = tmp_path / "out.tsv"
    code = main(["-q", "release-dk", str(g), "--d", "1", "--epsilon", "1", "--max-degree", "3",
                 "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "fingerprint.key holds 0 bytes" in err and "delete it" in err
    assert not out.exists()
