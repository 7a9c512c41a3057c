"""Five short pages, each about one thing, for the tests of search by meaning that need a
vault whose nearest neighbours are easy to tell apart."""

from __future__ import annotations

from pathlib import Path

from tests.vaultkit import VaultKit

PAGES = {
    "tomas": ("Tomás", "Tomás builds the mobile app.\n\nHe is on parental leave until September.\n"),
    "budget": ("Budget", "The board froze all spending.\n\nInvoices wait until the new quarter.\n"),
    "maps": ("Maps", "Vector tiles cached for offline hiking.\n"),
    "harbour": ("Harbour", "Ferries leave the harbour at dawn.\n\nThe pier was repaired in spring.\n"),
    "garden": ("Garden", "Tomatoes and beans in the raised beds.\n"),
}


def five_pages(root: Path) -> VaultKit:
    """A vault of the five pages, as notes-type pages of the private partition."""
    kit = VaultKit(root)
    for name, (title, body) in PAGES.items():
        kit.page(f"private/notes/{name}.md", f"pg_{name}", title, body, type="note")
    return kit
