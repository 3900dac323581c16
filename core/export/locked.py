"""The passphrase-locked viewer (`pulse export-html --lock`, docs/privacy.md §Locked viewer).

The page is the ordinary viewer with its data replaced by ciphertext: the graph data (the
same JSON an unlocked export carries) sealed as pulse-sealed/1 (core/sealed.py: AES-256-GCM,
key from PBKDF2-SHA256 with 600,000 iterations, the header line as associated data). In the
browser, resources/viewer/unlock.js asks for the passphrase and decrypts with WebCrypto; the
Content-Security-Policy still allows no request at all. No label, description or name is in
the file's bytes: only the header (format, salt, nonce, iteration count) and base64
ciphertext.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from core import sealed
from core.export.html import RESOURCES, _assets, _sha256, safe_json

_DATA_TAG = '<script type="application/json" id="pulse-data">@@data@@</script>'
_LOCK_BOX = """<div id="lock" hidden role="dialog" aria-labelledby="lock-title">
  <div class="box">
    <h1 id="lock-title">This memory viewer is locked</h1>
    <p>Whoever sent it will give you the passphrase another way (a phone call, not this
    e-mail). It is decrypted here, in this browser; nothing is sent anywhere.</p>
    <div class="row">
      <input id="lock-passphrase" type="password" autocomplete="off" spellcheck="false"
             aria-label="Passphrase" placeholder="Passphrase">
      <button id="lock-open" type="button">Open</button>
    </div>
    <p id="lock-message" aria-live="polite"></p>
  </div>
</div>
<script type="application/json" id="pulse-sealed">@@data@@</script>
<script>@@unlock@@</script>"""


def render_locked_page(graph_data: dict[str, Any], passphrase: str) -> str:
    if not passphrase:
        from core.errors import PulseError

        raise PulseError("a locked viewer needs a passphrase")
    assets = _assets()
    unlock = (RESOURCES / "unlock.js").read_text(encoding="utf-8").replace("\r\n", "\n")
    if "</script" in unlock.lower() or "<!--" in unlock:
        raise RuntimeError("resources/viewer/unlock.js cannot be inlined safely")
    plain = json.dumps(graph_data, ensure_ascii=False, separators=(",", ":"),
                       allow_nan=False).encode("utf-8")
    _, line, body = sealed.seal_parts(plain, passphrase, "pulse-graph/1")
    payload = safe_json({"line": line.decode("ascii"),
                         "ciphertext": base64.b64encode(body).decode("ascii")})
    scripts = [unlock, assets["vis"], assets["js"]]
    csp = ("default-src 'none'; "
           f"script-src {' '.join(_sha256(s) for s in scripts)}; "
           "style-src 'unsafe-inline'; img-src data:; font-src 'none'; connect-src 'none'; "
           "frame-src 'none'; worker-src 'none'; object-src 'none'; base-uri 'none'; "
           "form-action 'none'")
    template = assets["template"]
    if _DATA_TAG not in template:
        raise RuntimeError("resources/viewer/viewer.html: the data element moved")
    template = template.replace(_DATA_TAG, _LOCK_BOX)
    title = "Pulse · locked memory viewer"
    template = template.replace("<title>Pulse · memory graph</title>", f"<title>{title}</title>")
    parts = {"csp": csp, "css": assets["css"], "vis": assets["vis"], "js": assets["js"],
             "data": payload, "unlock": unlock}
    return re.sub(r"@@(csp|css|vis|js|data|unlock)@@", lambda m: parts[m.group(1)], template)
