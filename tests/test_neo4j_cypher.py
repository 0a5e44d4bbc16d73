"""The Cypher loader and identifier validation."""

from __future__ import annotations

import pytest

from graphanon.errors import InvalidParameterError
from graphanon.io import cypher

HOSTILE = [
    "",
    "User`) DETACH DELETE n //",
    "User`",
    "Us er",
    "User})",
    "User:Admin",
    "User\n",
    "1User",
    "Usеr",  # Cyrillic 'е' look-alike
    "User\u200b",  # zero-width space
    "User\u202e",  # right-to-left override
    "Ｕser",  # full-width letter
    "a" * 65,
    "$label",
    "n.uid",
    None,
    3,
]


@pytest.mark.parametrize("name", ["User", "HAS_INTEREST", "_x", "a1", "A" * 64])
def test_valid_identifiers_are_backtick_quoted(name: str) -> None:
    assert cypher.validate_identifier(name, "--label") == name
    assert cypher.quote_identifier(name) == f"`{name}`"


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_identifiers_are_rejected_with_the_parameter_name(name: object) -> None:
    with pytest.raises(InvalidParameterError, match=r"'--label' parameter must be a Neo4j"):
        cypher.validate_identifier(name, "--label")


@pytest.mark.parametrize("name", HOSTILE[:8])
def test_load_refuses_hostile_placeholder_values(name: str) -> None:
    with pytest.raises(InvalidParameterError, match="'label' parameter"):
        cypher.load("count_nodes", label=name)


def test_every_statement_loads_and_has_no_stray_braces() -> None:
    names = cypher.statement_names()
    assert len(names) >= 20
    for name in names:
        ids = {key: "X" for key in cypher.placeholders(name)}
        text = cypher.load(name, **ids)
        assert "//" not in text  # comments are stripped
        assert not cypher._PLACEHOLDER.search(text), name
        assert "id(" not in text.replace("elementId(", ""), f"{name} uses the deprecated id()"


def test_placeholders_are_filled_exactly() -> None:
    text = cypher.load("read_graph_edges", label="Person", rel_type="KNOWS")
    assert "MATCH (a:`Person`)-[:`KNOWS`]->(b:`Person`)" in text
    with pytest.raises(InvalidParameterError, match="needs identifiers"):
        cypher.load("read_graph_edges", label="Person")
    with pytest.raises(InvalidParameterError, match="needs identifiers"):
        cypher.load("count_nodes", label="A", extra="B")


def test_unknown_statement() -> None:
    with pytest.raises(InvalidParameterError, match="no Cypher statement named"):
        cypher.load("nope")
    with pytest.raises(InvalidParameterError, match="no Cypher statement named"):
        cypher.load("../pyproject")


def test_cypher_dir_is_the_top_level_folder_in_a_checkout() -> None:
    d = cypher.cypher_dir()
    assert (d / "write_nodes.cypher").is_file()
