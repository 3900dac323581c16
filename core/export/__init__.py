"""Exports of the memory: the standalone HTML graph viewer (APP.md §2)."""

from core.export.html import export_html, graph_data, page_data, render_page, safe_json

__all__ = ["export_html", "graph_data", "page_data", "render_page", "safe_json"]
