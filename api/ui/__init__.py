"""The web dashboard at ``/ui``: one HTML shell plus hand-written JS/CSS, no build step.

The page holds no data and no logic of its own: the browser calls the same REST
routes as any client, with the bearer token the user pasted (kept in
``sessionStorage``, sent as an ``Authorization`` header, never in a URL). The
shell and its assets are public; every datum behind them needs the token.
Charts and the link graph are drawn as inline SVG by ``static/app.js``, so
nothing is fetched from a CDN.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from houkai import __version__
from houkai.domain.model import LINK_RELS, MEMORY_TYPES

#: Same-origin only; inline style attributes are allowed for the SVG plots.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'"
)

bp = Blueprint(
    "ui",
    __name__,
    url_prefix="/ui",
    template_folder="templates",
    static_folder="static",
    static_url_path="/static",
)


@bp.get("")
def index() -> Response:
    """The single-page shell; views are ``#/search``, ``#/browse``, ``#/m/<id>``, …"""
    response = Response(
        render_template("index.html", version=__version__, types=MEMORY_TYPES, rels=LINK_RELS),
        mimetype="text/html",
    )
    response.headers["Content-Security-Policy"] = CSP
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def openapi_paths() -> dict:
    """OpenAPI entries for the dashboard's HTML and assets (every served route is documented)."""
    html = {"description": "OK", "content": {"text/html": {"schema": {"type": "string"}}}}
    return {
        "/ui": {
            "get": {
                "operationId": "ui",
                "tags": ["dashboard"],
                "parameters": [],
                "security": [],
                "summary": "The web dashboard (log in with a bearer token in the page).",
                "responses": {"200": html},
            }
        },
        "/ui/static/{filename}": {
            "get": {
                "operationId": "ui_static",
                "tags": ["dashboard"],
                "parameters": [
                    {
                        "name": "filename",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "security": [],
                "summary": "The dashboard's script, stylesheet and icon.",
                "responses": {
                    "200": {"description": "OK", "content": {"*/*": {"schema": {}}}},
                    "404": {"description": "No such asset"},
                },
            }
        },
    }
