"""What reads report of the write side: conflicts not yet reviewed, requests left unfinished.

Spec (corrections-and-merges, Recovery and safeguards): a conflict keeps its
material and reads report it until someone reviews it. Each unreviewed
conflict is a `write-conflict` diagnostic on the file it concerns (so the
record's own view shows it, and `knowledge diagnostics` lists it), and each
entry still pending — a request that nobody could finish yet — is a
`write-interrupted` one.
"""

from __future__ import annotations

from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.write.publish import Publisher


def findings(publisher: Publisher) -> list[dg.Diagnostic]:
    out: list[dg.Diagnostic] = []
    for entry, _paths in publisher.open_conflicts():
        outcome = entry.outcome or {}
        path = str(outcome.get("path", ""))
        out.append(
            dg.make(
                "write-conflict",
                path,
                f"{entry.operation} by {entry.actor or 'someone'} (request {entry.request_id}, journal "
                f"{entry.seq}) met an outside edit of this file and wrote nothing; the proposed, original "
                f"and displaced versions are in {outcome.get('conflictDir')}. Review them, then run "
                f"`knowledge resume VAULT {entry.request_id} --reviewed`",
                record_id=outcome.get("recordId"),
            )
        )
    for entry in publisher.interrupted():
        out.append(
            dg.make(
                "write-interrupted",
                ".knowledge/state.sqlite",
                f"{entry.operation} by {entry.actor or 'someone'} (request {entry.request_id}, journal "
                f"{entry.seq}) was interrupted; run `knowledge resume VAULT {entry.request_id}` to finish "
                "it or roll it back",
                record_id=entry.target_id,
            )
        )
    return out
