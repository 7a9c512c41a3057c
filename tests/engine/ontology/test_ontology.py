"""Ontology composition: activation, precedence, borrowing, aliases, classification, fingerprints.

Spec: records-and-ontology — Ontology, Composition rules, Default vocabulary, Fingerprints.
"""

from __future__ import annotations

import textwrap

import pytest

from knowledge_desktop.engine.ontology.compose import (
    SHIPPED_PATH,
    Activation,
    ManifestProblem,
    ManifestSource,
    Ontology,
    activate,
    shipped_default_path,
)

# --------------------------------------------------------------------------- helpers

ACTIVE_PATH = "private/ontology.yaml"

DEFAULT_PAGE_TYPES = {
    "person",
    "company",
    "media",
    "tweet",
    "social-digest",
    "analysis",
    "atom",
    "concept",
    "source",
    "deal",
    "email",
    "slack",
    "meeting",
    "conversation",
    "writing",
    "project",
    "note",
    "event",
    "diary",
}
UNRESTRICTED_RELATIONSHIPS = {
    "partner_of",
    "relates_to",
    "mentions",
    "discusses",
    "owes_to",
    "awaiting_reply_from",
    "founded",
    "works_at",
    "invested_in",
    "advises",
    "sourced_from",
    "derived_from",
    "supersedes",
    "redirects_to",
    "attended",
    "authored",
    "attributed_to",
}
DEFAULT_RELATIONSHIPS = UNRESTRICTED_RELATIONSHIPS | {"leads", "supports"}
DEFAULT_PRIMITIVES = {
    "person": "entity",
    "company": "entity",
    "media": "media",
    "tweet": "media",
    "analysis": "media",
    "source": "media",
    "writing": "media",
    "social-digest": "temporal",
    "deal": "temporal",
    "email": "temporal",
    "slack": "temporal",
    "meeting": "temporal",
    "conversation": "temporal",
    "event": "temporal",
    "diary": "temporal",
    "atom": "annotation",
    "concept": "concept",
    "project": "concept",
    "note": "concept",
}


def yml(text: str) -> str:
    """Dedent an inline YAML manifest."""
    return textwrap.dedent(text).lstrip("\n")


def header(name: str, extends: str | None = "knowledge-default", version: str = "1.0.0") -> str:
    """The top of a manifest; append a `definitions:` block (or nothing)."""
    lines = ["format: knowledge-ontology-v1", f"name: {name}", f"version: {version}"]
    if extends is not None:
        lines.append(f"extends: {extends}")
    return "\n".join(lines) + "\n"


def shipped() -> ManifestSource:
    return ManifestSource(SHIPPED_PATH, shipped_default_path().read_text(encoding="utf-8"))


def lib(stem: str, text: str) -> ManifestSource:
    """A local library manifest under `ontologies/`."""
    return ManifestSource(f"private/ontologies/{stem}.yaml", text)


def run(active_text: str | None, *library: ManifestSource) -> Activation:
    """Activate `active_text` (None: no ontology.yaml) over the shipped default plus `library`."""
    active = None if active_text is None else ManifestSource(ACTIVE_PATH, active_text)
    return activate(active, [shipped(), *library])


def ok(active_text: str | None, *library: ManifestSource) -> Ontology:
    activation = run(active_text, *library)
    assert activation.failure is None, activation.failure
    assert activation.ontology is not None
    return activation.ontology


def fails(active_text: str | None, *library: ManifestSource) -> ManifestProblem:
    activation = run(active_text, *library)
    assert activation.ontology is None, "activation should have failed"
    assert activation.failure is not None
    assert activation.failure.message
    return activation.failure


def default() -> Ontology:
    return ok(None)


def kinds(ontology: Ontology, kind: str) -> set[str]:
    return {n for n, d in ontology.definitions.items() if d.kind == kind}


RESEARCH = yml("""
    format: knowledge-ontology-v1
    name: research
    version: 1.0.0
    description: Local research vocabulary
    extends: knowledge-default
    definitions:
      - name: researcher
        label: Researcher
        kind: page
        primitive: entity
        directory: researchers/
        aliases: [person]
        fields:
          - name: specialty
            type: string
            required: true
            values: [ecology, history]
      - name: investigates
        label: Investigates
        kind: relationship
        directory: relationships/
        from_types: [researcher]
        to_types: [project]
""")


# --------------------------------------------------------------------------- default vocabulary


def test_default_is_active_without_local_manifest() -> None:
    """Ontology: with no ontology.yaml the shipped knowledge-default@1.0.0 is the whole chain."""
    ontology = default()
    assert (ontology.name, ontology.version) == ("knowledge-default", "1.0.0")
    assert ontology.chain == [("knowledge-default", SHIPPED_PATH)]
    assert ontology.borrowed == []


def test_default_has_nineteen_page_types_and_nineteen_relationships() -> None:
    """Default vocabulary: the shipped pack has exactly the tabled 19 pages and 19 relations."""
    ontology = default()
    assert kinds(ontology, "page") == DEFAULT_PAGE_TYPES
    assert kinds(ontology, "relationship") == DEFAULT_RELATIONSHIPS
    assert len(ontology.definitions) == 38


def test_default_company_and_organization_alias_expand_both_ways() -> None:
    """Default vocabulary: the company/organization query alias works from either name."""
    ontology = default()
    assert ontology.expand("company") == {"company", "organization"}
    assert ontology.expand("organization") == {"company", "organization"}
    assert "organization" not in ontology.definitions


def test_default_project_status_enumeration() -> None:
    """Default vocabulary: project has an optional status drawn from four fixed words."""
    (status,) = [f for f in default().definitions["project"].fields if f.name == "status"]
    assert status.values == ["active", "paused", "completed", "cancelled"]
    assert status.type == "string"
    assert status.required is False


def test_default_notes_fields() -> None:
    """Default vocabulary: person has a role field and meeting an occurred_at string."""
    definitions = default().definitions
    assert "role" in {f.name for f in definitions["person"].fields}
    (occurred,) = [f for f in definitions["meeting"].fields if f.name == "occurred_at"]
    assert occurred.type == "string"
    source_fields = {f.name for f in definitions["source"].fields}
    assert any(n.startswith("canonical") for n in source_fields)
    assert any(n.startswith("snapshot") for n in source_fields)


def test_default_constrained_relationship_endpoints() -> None:
    """Default vocabulary: leads goes person to project, supports goes company to project."""
    definitions = default().definitions
    assert (definitions["leads"].from_types, definitions["leads"].to_types) == (["person"], ["project"])
    assert (definitions["supports"].from_types, definitions["supports"].to_types) == (
        ["company"],
        ["project"],
    )


def test_default_other_relationships_are_unrestricted() -> None:
    """Default vocabulary: the seventeen remaining relations constrain neither endpoint."""
    definitions = default().definitions
    for name in UNRESTRICTED_RELATIONSHIPS:
        assert definitions[name].from_types == [], name
        assert definitions[name].to_types == [], name


def test_default_fields_are_all_optional() -> None:
    """Default vocabulary: no field the shipped pack declares is mandatory."""
    for definition in default().definitions.values():
        for field_definition in definition.fields:
            assert field_definition.required is False, (definition.name, field_definition.name)


def test_default_primitives_follow_the_category_table() -> None:
    """Default vocabulary: each page type is grouped under the primitive its table row names."""
    definitions = default().definitions
    assert {n: definitions[n].primitive for n in DEFAULT_PAGE_TYPES} == DEFAULT_PRIMITIVES


# --------------------------------------------------------------------------- extends and chain


def test_extends_by_manifest_name_adds_types_and_keeps_inherited() -> None:
    """Ontology: extends follows manifest names (not paths); new and inherited types coexist."""
    base = lib(
        "some-file-name",
        header("team-base")
        + yml("""
        definitions:
          - name: researcher
            kind: page
            directory: researchers/
    """),
    )
    active = header("lab", extends="team-base") + yml("""
        definitions:
          - name: experiment
            kind: page
            primitive: temporal
            directory: experiments/
    """)
    activation = run(active, base)
    ontology = activation.ontology
    assert ontology is not None, activation.failure
    assert {"experiment", "researcher"} <= set(ontology.definitions)
    assert set(ontology.definitions) >= DEFAULT_PAGE_TYPES | DEFAULT_RELATIONSHIPS
    assert (ontology.name, ontology.version) == ("lab", "1.0.0")
    assert ontology.chain == [
        ("lab", ACTIVE_PATH),
        ("team-base", "private/ontologies/some-file-name.yaml"),
        ("knowledge-default", SHIPPED_PATH),
    ]


def test_spec_example_manifest_activates() -> None:
    """Ontology: the worked research manifest extends the default with a page and a relation."""
    ontology = ok(RESEARCH)
    assert ontology.definitions["researcher"].fields[0].required is True
    assert ontology.definitions["investigates"].kind == "relationship"
    assert len(ontology.definitions) == 40


# --------------------------------------------------------------------------- override semantics


def test_override_replaces_whole_definition() -> None:
    """Composition: a child's redefinition wins wholesale; nothing of the parent's is merged in."""
    parent = lib(
        "parent",
        header("parent")
        + yml("""
        definitions:
          - name: gadget
            label: Gadget
            kind: page
            primitive: media
            directory: gadgets/
            prefixes: [gadgets/, devices/]
            aliases: [widget]
            behaviors: {extractable: true, expert_routing: true}
            fields:
              - name: colour
              - name: weight
                type: number
    """),
    )
    active = header("child", extends="parent") + yml("""
        definitions:
          - name: gadget
            kind: page
            directory: tools/
            fields:
              - name: size
          - name: person
            kind: page
            directory: people/
          - name: company
            kind: page
            directory: companies/
          - name: leads
            kind: relationship
            directory: relationships/
    """)
    ontology = ok(active, parent)
    gadget = ontology.definitions["gadget"]
    assert [f.name for f in gadget.fields] == ["size"]
    assert gadget.label is None
    assert gadget.primitive is None
    assert gadget.aliases == []
    assert gadget.prefixes is None
    assert gadget.effective_prefixes() == ["tools/"]
    assert (gadget.behaviors.extractable, gadget.behaviors.expert_routing) == (False, False)
    assert ontology.expand("gadget") == {"gadget"}
    assert ontology.classify("devices/x.md") is None
    # root definitions are replaced just as completely
    assert ontology.definitions["person"].fields == []
    assert ontology.definitions["person"].primitive is None
    assert ontology.definitions["company"].aliases == []
    assert ontology.expand("organization") == {"organization"}
    assert ontology.definitions["leads"].from_types == []
    assert ontology.definitions["leads"].to_types == []


# --------------------------------------------------------------------------- precedence


def _maybe_person(label: str, present: bool) -> str:
    if not present:
        return "definitions: []\n"
    return yml(f"""
        definitions:
          - name: person
            label: {label}
            kind: page
            directory: people/
    """)


@pytest.mark.parametrize(
    ("declared_in", "winner"),
    [
        ({"child", "donor", "parent", "grand"}, "From child"),
        ({"donor", "parent", "grand"}, "From donor"),
        ({"parent", "grand"}, "From parent"),
        ({"grand"}, "From grand"),
        (set(), "Person"),
        ({"child", "grand"}, "From child"),
        ({"donor", "grand"}, "From donor"),
    ],
)
def test_precedence_child_borrowed_nearest_parent_ancestors(declared_in: set[str], winner: str) -> None:
    """Composition: a name declared at several levels resolves child > borrowed > parent > older."""
    grand = lib("grand", header("grand") + _maybe_person("From grand", "grand" in declared_in))
    parent = lib(
        "parent", header("parent", extends="grand") + _maybe_person("From parent", "parent" in declared_in)
    )
    donor = lib("donor", header("donor", extends=None) + _maybe_person("From donor", "donor" in declared_in))
    borrow = (
        yml("""
        borrow_from:
          - ontology: donor
            types: [person]
    """)
        if "donor" in declared_in
        else ""
    )
    child = header("child", extends="parent") + borrow + _maybe_person("From child", "child" in declared_in)
    ontology = ok(child, grand, parent, donor)
    assert ontology.definitions["person"].label == winner
    assert [name for name, _ in ontology.chain] == ["child", "parent", "grand", "knowledge-default"]


# --------------------------------------------------------------------------- borrowing

DONOR = header("research-library") + yml("""
    definitions:
      - name: researcher
        label: Researcher
        kind: page
        directory: researchers/
      - name: investigates
        kind: relationship
        directory: relationships/
      - name: grant
        kind: page
        directory: grants/
""")


def test_borrow_takes_only_requested_own_declarations() -> None:
    """Composition: selective borrowing brings in just the named donor definitions."""
    active = header("mine") + yml("""
        borrow_from:
          - ontology: research-library
            types: [researcher]
            relationships: [investigates]
    """)
    ontology = ok(active, lib("research-library", DONOR))
    assert ontology.definitions["researcher"].label == "Researcher"
    assert ontology.definitions["investigates"].kind == "relationship"
    assert "grant" not in ontology.definitions
    assert ontology.borrowed == [("mine", "research-library", ["researcher", "investigates"])]
    # the donor is not part of the extends chain
    assert [name for name, _ in ontology.chain] == ["mine", "knowledge-default"]


def test_borrow_of_donor_inherited_definition_fails() -> None:
    """Composition: a donor lends only what it declares itself, never what it inherits."""
    active = header("mine") + yml("""
        borrow_from:
          - ontology: research-library
            types: [person]
    """)
    problem = fails(active, lib("research-library", DONOR))
    assert "person" in problem.message


@pytest.mark.parametrize(
    "request_yaml",
    [
        "types: [astronaut]",
        "relationships: [orbits]",
        "types: [investigates]",  # exists, but as a relationship
        "relationships: [researcher]",  # exists, but as a page type
    ],
)
def test_borrow_of_missing_definition_fails(request_yaml: str) -> None:
    """Composition: asking a donor for a definition it lacks stops activation."""
    active = header("mine") + yml(f"""
        borrow_from:
          - ontology: research-library
            {request_yaml}
    """)
    problem = fails(active, lib("research-library", DONOR))
    wanted = request_yaml.split("[")[1].rstrip("]")
    assert wanted in problem.message


def test_borrow_from_unknown_donor_fails() -> None:
    """Ontology: a donor that no manifest names is a missing dependency."""
    active = header("mine") + yml("""
        borrow_from:
          - ontology: nowhere
            types: [researcher]
    """)
    assert "nowhere" in fails(active).message


def test_overlapping_donors_new_first_override_last() -> None:
    """Composition: overlapping donors give new names from the first, overrides from the last."""

    def donor(name: str) -> ManifestSource:
        return lib(
            name,
            header(name, extends=None)
            + yml(f"""
            definitions:
              - name: gadget
                label: Gadget from {name}
                kind: page
                directory: gadgets/
              - name: person
                label: Person from {name}
                kind: page
                directory: people/
        """),
        )

    active = header("mine") + yml("""
        borrow_from:
          - ontology: first-donor
            types: [gadget, person]
          - ontology: second-donor
            types: [gadget, person]
    """)
    ontology = ok(active, donor("first-donor"), donor("second-donor"))
    assert ontology.definitions["gadget"].label == "Gadget from first-donor"
    assert ontology.definitions["person"].label == "Person from second-donor"


# --------------------------------------------------------------------------- aliases


def test_aliases_symmetric_transitive_and_create_nothing() -> None:
    """Composition: the alias graph links names both ways and through chains, defining nothing."""
    active = header("mine") + yml("""
        definitions:
          - name: alpha
            kind: page
            directory: alpha/
            aliases: [beta]
          - name: gamma
            kind: page
            directory: gamma/
            aliases: [beta]
          - name: firm
            kind: page
            directory: firms/
            aliases: [organization]
    """)
    ontology = ok(active)
    group = {"alpha", "beta", "gamma"}
    assert ontology.expand("alpha") == group
    assert ontology.expand("gamma") == group
    assert ontology.expand("beta") == group
    assert "beta" not in ontology.definitions
    # joins the shipped company/organization group transitively
    assert ontology.expand("company") == {"company", "organization", "firm"}
    assert ontology.expand("firm") == {"company", "organization", "firm"}
    assert "organization" not in ontology.definitions
    assert ontology.expand("concept") == {"concept"}


# --------------------------------------------------------------------------- namespace


@pytest.mark.parametrize(
    ("definitions", "name"),
    [
        ("- {name: person, kind: relationship, directory: relationships/}", "person"),
        ("- {name: leads, kind: page, directory: leads/}", "leads"),
    ],
)
def test_changing_inherited_kind_is_rejected(definitions: str, name: str) -> None:
    """Composition: one namespace for pages and relations; an override may not flip the kind."""
    problem = fails(header("mine") + "definitions:\n  " + definitions + "\n")
    assert name in problem.message


def test_page_and_relationship_share_one_namespace() -> None:
    """Composition: one manifest cannot declare the same name as both a page and a relation."""
    active = header("mine") + yml("""
        definitions:
          - name: widget
            kind: page
            directory: widgets/
          - name: widget
            kind: relationship
            directory: relationships/
    """)
    assert "widget" in fails(active).message


def test_borrowing_cannot_change_inherited_kind() -> None:
    """Composition: a borrowed relation cannot take over an inherited page name."""
    donor = lib(
        "donor",
        header("donor", extends=None)
        + yml("""
        definitions:
          - name: person
            kind: relationship
            directory: relationships/
    """),
    )
    active = header("mine") + yml("""
        borrow_from:
          - ontology: donor
            relationships: [person]
    """)
    assert "person" in fails(active, donor).message


# --------------------------------------------------------------------------- activation failures


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("format: knowledge-ontology-v1\nname: [unclosed\n", "YAML"),
        ("format: knowledge-ontology-v1\nname: a\nname: b\nversion: 1.0.0\n", "YAML"),
        (header("mine") + "definitions:\n  - {name: thing, kind: table}\n", "kind"),
        (header("mine") + "definitions:\n  - {name: thing, kind: page, colour: red}\n", "colour"),
        (header("mine").replace("knowledge-ontology-v1", "knowledge-ontology-v2"), "format"),
        ("format: knowledge-ontology-v1\nname: mine\n", "version"),
        ("- just\n- a list\n", ""),
    ],
    ids=[
        "bad-yaml",
        "duplicate-key",
        "unknown-kind",
        "unknown-key",
        "wrong-format",
        "no-version",
        "not-a-mapping",
    ],
)
def test_malformed_active_manifest_fails(text: str, needle: str) -> None:
    """Ontology: an unreadable or schema-invalid ontology.yaml prevents activation."""
    problem = fails(text)
    assert problem.path == ACTIVE_PATH
    assert needle in problem.message


def test_missing_dependency_fails() -> None:
    """Ontology: extending a manifest name nobody declares prevents activation."""
    problem = fails(header("mine", extends="does-not-exist"))
    assert "does-not-exist" in problem.message
    assert "missing" in problem.message


def test_missing_dependency_deeper_in_chain_fails() -> None:
    """Ontology: an unresolved extends anywhere in the chain prevents activation."""
    middle = lib("middle", header("middle", extends="ghost"))
    problem = fails(header("mine", extends="middle"), middle)
    assert "ghost" in problem.message


def test_malformed_needed_parent_fails() -> None:
    """Ontology: a broken manifest that the extends chain needs prevents activation."""
    broken = lib("parent", header("parent") + "definitions:\n  - {name: thing, kind: table}\n")
    activation = run(header("mine", extends="parent"), broken)
    assert activation.ontology is None
    assert activation.failure is not None
    assert "parent" in activation.failure.message
    assert [p.path for p in activation.problems] == ["private/ontologies/parent.yaml"]


def test_duplicate_referenced_library_names_fail() -> None:
    """Ontology: two library manifests claiming a name that is used make activation fail."""
    one = lib("one", header("shared"))
    two = lib("two", header("shared"))
    problem = fails(header("mine", extends="shared"), one, two)
    assert "duplicate" in problem.message
    assert "shared" in problem.message


def test_duplicate_donor_names_fail() -> None:
    """Ontology: a borrowed donor whose name two library manifests claim makes activation fail."""
    one = lib("one", DONOR)
    two = lib("two", DONOR)
    active = header("mine") + yml("""
        borrow_from:
          - ontology: research-library
            types: [researcher]
    """)
    problem = fails(active, one, two)
    assert "research-library" in problem.message


@pytest.mark.parametrize("clash", ["team", "knowledge-default"])
def test_active_name_colliding_with_library_fails(clash: str) -> None:
    """Ontology: the active manifest may not share its name with a library manifest."""
    other = lib("team", header("team"))
    active = header(clash, extends=None) + yml("""
        definitions:
          - name: thing
            kind: page
            directory: things/
    """)
    problem = fails(active, other)
    assert clash in problem.message


@pytest.mark.parametrize(
    ("active", "library"),
    [
        (header("a", extends="b"), [lib("b", header("b", extends="a"))]),
        (header("a", extends="a"), []),
        (header("a", extends="b"), [lib("b", header("b", extends="c")), lib("c", header("c", extends="b"))]),
    ],
    ids=["two-cycle", "self", "cycle-below-active"],
)
def test_extends_cycle_fails(active: str, library: list[ManifestSource]) -> None:
    """Ontology: a loop in extends prevents activation."""
    problem = fails(active, *library)
    assert "cycle" in problem.message


def _linear_chain(length: int) -> tuple[str, list[ManifestSource]]:
    """An active manifest plus library so that the whole chain has `length` manifests.

    The last link is the shipped default; levels are named m1 (active) ... m{length-1}.
    """
    names = [f"m{i}" for i in range(1, length)]
    parents = [*names[1:], "knowledge-default"]
    manifests = {
        name: header(name, extends=parent)
        + yml(f"""
            definitions:
              - name: type-{name}
                kind: page
                directory: {name}/
        """)
        for name, parent in zip(names, parents, strict=True)
    }
    return manifests["m1"], [lib(n, manifests[n]) for n in names[1:]]


def test_chain_longer_than_eight_manifests_fails() -> None:
    """Ontology: eight manifests in the extends chain are the maximum; nine fail."""
    active, library = _linear_chain(8)
    ontology = ok(active, *library)
    assert len(ontology.chain) == 8
    assert ontology.chain[-1] == ("knowledge-default", SHIPPED_PATH)
    assert {f"type-m{i}" for i in range(1, 8)} <= set(ontology.definitions)

    active, library = _linear_chain(9)
    problem = fails(active, *library)
    assert "8" in problem.message
    assert "chain" in problem.message


def test_failed_activation_has_no_fallback() -> None:
    """Ontology: a failure leaves no vocabulary, never the shipped default or an older one."""
    assert ok(RESEARCH).name == "research"
    broken = RESEARCH.replace("kind: page", "kind: pages")
    activation = run(broken)
    assert activation.ontology is None
    assert activation.failure is not None
    assert activation.failure.path == ACTIVE_PATH


# --------------------------------------------------------------------------- unused manifests


def test_unused_library_manifest_does_not_activate() -> None:
    """Ontology: only the active chain and its donors count; other library files add nothing."""
    unused = lib(
        "spare",
        header("spare")
        + yml("""
        definitions:
          - name: spaceship
            kind: page
            directory: spaceships/
    """),
    )
    ontology = ok(RESEARCH, unused)
    assert "spaceship" not in ontology.definitions
    assert ontology.classify("spaceships/x.md") is None
    assert "spaceship" not in ok(None, unused).definitions
    # a name clash among manifests that nothing references does not block activation
    twin = lib("spare-copy", header("spare"))
    assert "spaceship" not in ok(RESEARCH, unused, twin).definitions


def test_malformed_unused_manifest_is_reported_not_fatal() -> None:
    """Ontology: a broken library file that nothing needs is a problem report, not a failure."""
    broken = lib("broken", "format: knowledge-ontology-v1\nname: [oops\n")
    activation = run(RESEARCH, broken)
    assert activation.ontology is not None, activation.failure
    assert activation.failure is None
    assert [p.path for p in activation.problems] == ["private/ontologies/broken.yaml"]


# --------------------------------------------------------------------------- classification


def test_classification_uses_ordered_prefixes_first_match_by_precedence() -> None:
    """Pages: untyped paths take the first matching prefix, child types before inherited ones."""
    active = header("mine") + yml("""
        definitions:
          - name: researcher
            kind: page
            directory: researchers/
            prefixes: [people/researchers/, scholars/]
          - name: scholar
            kind: page
            directory: scholars/
          - name: archive
            kind: page
            directory: archive/
          - name: archive-photo
            kind: page
            directory: archive/photos/
    """)
    ontology = ok(active)
    # explicit prefixes replace the directory default, in declared order
    assert ontology.classify("people/researchers/ada.md") == "researcher"
    assert ontology.classify("scholars/bede.md") == "researcher"
    assert ontology.classify("researchers/cyd.md") is None
    # directory is the default prefix
    assert ontology.classify("people/dan.md") == "person"
    assert ontology.classify("companies/acme.md") == "company"
    # within one manifest the earlier declaration matches first
    assert ontology.classify("archive/photos/1.md") == "archive"
    # relationship directories never classify pages; unknown paths stay untyped
    assert ontology.classify("relationships/r.md") is None
    assert ontology.classify("elsewhere/x.md") is None
    assert ontology.order.index("researcher") < ontology.order.index("person")
    assert ontology.order.index("scholar") < ontology.order.index("archive")


def test_classification_precedence_across_chain_and_donor() -> None:
    """Pages: prefix matching follows child, borrowed, nearest parent, then older ancestors."""
    parent = lib(
        "parent",
        header("parent")
        + yml("""
        definitions:
          - {name: staff, kind: page, directory: people/staff/}
          - {name: contractor, kind: page, directory: people/staff/contractors/}
    """),
    )
    donor = lib(
        "donor",
        header("donor", extends=None)
        + yml("""
        definitions:
          - {name: visitor, kind: page, prefixes: [people/staff/visitors/, people/staff/]}
    """),
    )
    active = header("child", extends="parent") + yml("""
        borrow_from:
          - {ontology: donor, types: [visitor]}
        definitions:
          - {name: intern, kind: page, directory: people/}
    """)
    ontology = ok(active, parent, donor)
    assert ontology.classify("people/staff/contractors/a.md") == "intern"
    assert ontology.classify("people/x.md") == "intern"

    active = active.replace("directory: people/}", "directory: interns/}")
    ontology = ok(active, parent, donor)
    assert ontology.classify("people/staff/contractors/a.md") == "visitor"
    assert ontology.classify("people/staff/visitors/a.md") == "visitor"
    assert ontology.classify("people/x.md") == "person"

    no_borrow = header("child", extends="parent")
    ontology = ok(no_borrow, parent, donor)
    assert ontology.classify("people/staff/contractors/a.md") == "staff"
    assert ontology.classify("people/staff/a.md") == "staff"
    assert ontology.classify("people/a.md") == "person"


def test_default_classification_by_directory() -> None:
    """Pages: in the default vocabulary every page type classifies its own directory."""
    ontology = default()
    for name in DEFAULT_PAGE_TYPES:
        directory = ontology.definitions[name].directory
        assert directory is not None
        assert ontology.classify(f"{directory}sample.md") == name


# --------------------------------------------------------------------------- fingerprints

FP_BASE = yml("""
    format: knowledge-ontology-v1
    name: research
    version: 1.0.0
    extends: knowledge-default
    definitions:
      - name: researcher
        label: Researcher
        kind: page
        directory: researchers/
        aliases: [person, scholar]
        fields:
          - name: specialty
            values: [ecology, history]
      - name: investigates
        kind: relationship
        directory: relationships/
        to_types: [project]
""")

FP_VARIANTS = {
    "comments-and-blank-lines": yml("""
        # a comment at the top
        format: knowledge-ontology-v1

        name: research   # trailing comment
        version: 1.0.0
        extends: knowledge-default

        definitions:
          # researchers first
          - name: researcher
            label: Researcher
            kind: page
            directory: researchers/
            aliases: [person, scholar]
            fields:
              - name: specialty
                values: [ecology, history]

          - name: investigates
            kind: relationship
            directory: relationships/
            to_types: [project]
    """),
    "flow-style-and-quoting": yml("""
        {format: "knowledge-ontology-v1", name: 'research', version: "1.0.0",
         extends: knowledge-default, definitions: [
           {name: researcher, label: "Researcher", kind: page, directory: "researchers/",
            aliases: [person, scholar],
            fields: [{name: specialty, values: [ecology, history]}]},
           {name: investigates, kind: relationship, directory: relationships/,
            to_types: [project]}]}
    """),
    "key-order": yml("""
        definitions:
          - fields:
              - values: [ecology, history]
                name: specialty
            directory: researchers/
            aliases: [person, scholar]
            kind: page
            label: Researcher
            name: researcher
          - to_types: [project]
            directory: relationships/
            kind: relationship
            name: investigates
        extends: knowledge-default
        version: 1.0.0
        name: research
        format: knowledge-ontology-v1
    """),
    "spelled-out-defaults": yml("""
        format: knowledge-ontology-v1
        name: research
        version: 1.0.0
        extends: knowledge-default
        borrow_from: []
        definitions:
          - name: researcher
            label: Researcher
            description: null
            kind: page
            primitive: null
            directory: researchers
            aliases: [person, scholar]
            fields:
              - name: specialty
                label: null
                type: string
                required: false
                values: [ecology, history]
            from_types: []
            to_types: []
            behaviors: {extractable: false, expert_routing: false}
          - name: investigates
            kind: relationship
            directory: relationships/
            fields: []
            aliases: []
            from_types: []
            to_types: [project]
            behaviors: {}
    """),
    "alias-order": FP_BASE.replace("[person, scholar]", "[scholar, person]"),
    "manifest-description": FP_BASE.replace(
        "extends:", "description: Only prose, not a definition\nextends:"
    ),
}


def fp(active_text: str | None, *library: ManifestSource) -> str:
    return ok(active_text, *library).fingerprint


def test_fingerprint_is_sha256_hex() -> None:
    """Fingerprints: the value is a SHA-256 digest and is deterministic."""
    value = fp(FP_BASE)
    assert len(value) == 64
    int(value, 16)
    assert fp(FP_BASE) == value
    assert fp(None) != value


@pytest.mark.parametrize("variant", FP_VARIANTS.values(), ids=FP_VARIANTS.keys())
def test_fingerprint_ignores_presentation(variant: str) -> None:
    """Fingerprints: layout, comments, key order and written-out defaults leave it unchanged."""
    assert fp(variant) == fp(FP_BASE)


def test_fingerprint_ignores_unused_declarations() -> None:
    """Fingerprints: library manifests nobody uses and unborrowed donor entries do not count."""
    donor = DONOR
    active = header("mine") + yml("""
        borrow_from:
          - ontology: research-library
            types: [researcher]
    """)
    baseline = fp(active, lib("research-library", donor))
    spare = lib(
        "spare",
        header("spare")
        + yml("""
        definitions:
          - {name: spaceship, kind: page, directory: spaceships/}
    """),
    )
    broken = lib("broken", "name: [oops\n")
    assert fp(active, lib("research-library", donor), spare) == baseline
    assert fp(active, lib("research-library", donor), broken) == baseline
    # editing or adding donor definitions that are not borrowed
    edited = donor.replace("directory: grants/", "directory: funding/") + textwrap.indent(
        yml("""
        - name: telescope
          kind: page
          directory: telescopes/
    """),
        "  ",
    )
    assert edited != donor
    assert fp(active, lib("research-library", edited)) == baseline
    # the donor's own version and description are not definitions
    retagged = donor.replace("version: 1.0.0", "version: 9.9.9")
    assert fp(active, lib("research-library", retagged)) == baseline


def test_fingerprint_changes_with_effective_parent_edit() -> None:
    """Fingerprints: editing an ancestor in a way that alters effective definitions changes it."""
    parent = header("parent") + yml("""
        definitions:
          - name: gadget
            label: Gadget
            kind: page
            directory: gadgets/
    """)
    active = header("child", extends="parent")
    baseline = fp(active, lib("parent", parent))
    assert fp(active, lib("parent", parent.replace("label: Gadget", "label: Gizmo"))) != baseline
    assert fp(active, lib("parent", parent.replace("gadgets/", "gizmos/"))) != baseline
    assert fp(active, lib("parent", header("parent"))) != baseline


def test_fingerprint_changes_with_borrowed_donor_edit() -> None:
    """Fingerprints: editing a definition the active chain borrows changes it."""
    active = header("mine") + yml("""
        borrow_from:
          - ontology: research-library
            types: [researcher]
    """)
    baseline = fp(active, lib("research-library", DONOR))
    edited = DONOR.replace("label: Researcher", "label: Investigator")
    assert fp(active, lib("research-library", edited)) != baseline


def test_fingerprint_changes_with_active_name_or_version() -> None:
    """Fingerprints: the active manifest's identity (name and version) is part of the digest."""
    baseline = fp(FP_BASE)
    assert fp(FP_BASE.replace("version: 1.0.0", "version: 1.0.1")) != baseline
    assert fp(FP_BASE.replace("name: research", "name: research-two")) != baseline


def test_fingerprint_ignores_ancestor_identity() -> None:
    """Fingerprints: only the active manifest's name and version count, not an ancestor's."""
    parent = header("parent") + yml("""
        definitions:
          - {name: gadget, kind: page, directory: gadgets/}
    """)
    baseline = fp(header("child", extends="parent"), lib("parent", parent))
    bumped = parent.replace("version: 1.0.0", "version: 2.0.0")
    assert fp(header("child", extends="parent"), lib("parent", bumped)) == baseline
    renamed = parent.replace("name: parent", "name: parent-renamed")
    assert fp(header("child", extends="parent-renamed"), lib("moved", renamed)) == baseline


def test_fingerprint_ignores_parent_edit_fully_overridden() -> None:
    """Fingerprints: changing an ancestor definition the child replaces leaves it unchanged."""
    parent = header("parent") + yml("""
        definitions:
          - name: gadget
            label: Gadget
            kind: page
            directory: gadgets/
          - name: sprocket
            kind: page
            directory: sprockets/
    """)
    active = header("child", extends="parent") + yml("""
        definitions:
          - name: gadget
            label: Child gadget
            kind: page
            directory: gadgets/
    """)
    baseline = fp(active, lib("parent", parent))
    edited = parent.replace("label: Gadget", "label: Parent gizmo\n    primitive: media")
    assert edited != parent
    assert fp(active, lib("parent", edited)) == baseline
