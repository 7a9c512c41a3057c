"""Turning engine answers into the HTML the Record pane shows.

Everything here is plain Python without Qt, so it runs on a worker thread
and is tested without a display. The output targets Qt's rich-text engine
(QTextBrowser / QLabel), which reads a subset of HTML 4 and CSS; nothing
raw from a record ever reaches it unescaped, and the only links it carries
are the ones `links.classify` allows.
"""

from knowledge_desktop.ui.render.links import Anchor, parse_anchor, record_href
from knowledge_desktop.ui.render.record_html import render_document, render_gone_banner, render_header
from knowledge_desktop.ui.render.theme import Colors

__all__ = [
    "Anchor",
    "Colors",
    "parse_anchor",
    "record_href",
    "render_document",
    "render_gone_banner",
    "render_header",
]
