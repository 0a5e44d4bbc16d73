"""The package layout: mechanisms in their family, old module paths as warning aliases."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import graphanon

MOVED = {
    "graphanon.projection": "graphanon.nodedp.projection",
    "graphanon.privacy.node_dp": "graphanon.nodedp.theta_dk",
    "graphanon.privacy.rps": "graphanon.nodedp.degree_sequences",
    "graphanon.privacy.personalized": "graphanon.dk.personalized",
    "graphanon.privacy.preferences": "graphanon.dk.preferences",
    "graphanon.privacy.randomized_response": "graphanon.anonymity.randomized_response",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_module_paths_still_import_with_a_warning(old: str, new: str) -> None:
    target = importlib.import_module(new)
    alias = importlib.import_module(old)
    for name in target.__all__:
        with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
            assert getattr(alias, name) is getattr(target, name)
    with pytest.raises(AttributeError):
        alias.no_such_name  # noqa: B018


def test_from_import_of_a_moved_name_warns() -> None:
    with pytest.warns(DeprecationWarning, match="graphanon.nodedp.theta_dk"):
        from graphanon.privacy.node_dp import theta_dk_release
    from graphanon.nodedp import theta_dk_release as new

    assert theta_dk_release is new


def test_privacy_holds_the_core_only() -> None:
    """Every module of graphanon.privacy is core (noise, records, ledger, audits, pseudonyms,
    the operator key, the published view and payload binding) or a deprecation alias: no
    mechanism defines a function there."""
    import graphanon.privacy as core

    core_modules = {"noise", "release", "accountant", "audit", "pseudonyms", "keys", "publish"}
    for info in pkgutil.iter_modules(core.__path__):
        name = f"graphanon.privacy.{info.name}"
        if name in MOVED:  # an alias module: nothing but the forwarding __getattr__
            module = importlib.import_module(name)
            assert {n for n in vars(module) if not n.startswith("__")} == {"moved_module"}
        else:
            assert info.name in core_modules, name


def test_secure_mechanisms_do_not_mention_the_thesis_variants() -> None:
    """The secure functions are straight paths: no reproduction branch mentions 'thesis'
    outside their References section (issue 19)."""
    from graphanon.dk.personalized import personalized_query, release_personalized
    from graphanon.dk.release import release_dk
    from graphanon.nodedp.degree_sequences import rps_degree_sequence
    from graphanon.nodedp.theta_dk import theta_dk_release

    for func in (release_dk, rps_degree_sequence, theta_dk_release, release_personalized,
                 personalized_query):
        code = inspect.getsource(inspect.unwrap(func))
        body = code.split('"""', 2)[2] if code.count('"""') >= 2 else code
        assert "thesis" not in body.lower(), func.__name__
        for word in ("observed", "cauchy", "lemma 5"):
            assert word not in body.lower(), (func.__name__, word)


def test_package_docstring_names_the_families() -> None:
    for family in ("graphanon.anonymity", "graphanon.dk", "graphanon.nodedp",
                   "graphanon.reproduce", "graphanon.privacy"):
        assert family in (graphanon.__doc__ or "")
