# ruff: noqa: E501
"""The human page for the OpenAPI document: a self-contained HTML/JS renderer (no CDN).

``__OPENAPI_URL__`` is replaced by the document's absolute path when served, so the
page works at ``/docs`` and ``/docs/`` alike (a relative URL broke under the slash).
"""

DOCS_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>houkai REST API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{margin-bottom:.2rem} code{background:#f3f3f3;padding:0 .25rem;border-radius:3px}
details{border:1px solid #ddd;border-radius:6px;margin:.4rem 0;padding:.3rem .7rem}
summary{cursor:pointer} .m{display:inline-block;width:4.5rem;font-weight:700}
.GET{color:#1a7f37}.POST{color:#0969da}.PATCH{color:#9a6700}.DELETE{color:#cf222e}
pre{background:#f6f8fa;padding:.6rem;overflow:auto;font-size:13px}
table{border-collapse:collapse}td,th{border-bottom:1px solid #eee;padding:.15rem .6rem;text-align:left}
</style></head><body>
<h1>houkai REST API</h1><p id="desc"></p>
<p>Machine-readable: <a href="__OPENAPI_URL__"><code>/openapi.json</code></a> (OpenAPI 3.1).</p>
<div id="ops">Loading…</div>
<script>
const esc = s => String(s).replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
fetch("__OPENAPI_URL__").then(r => r.json()).then(doc => {
  document.getElementById("desc").textContent = doc.info.description;
  let html = "";
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (path.startsWith("/c/{collection}")) continue;
    for (const [method, op] of Object.entries(ops)) {
      const M = method.toUpperCase();
      html += `<details><summary><span class="m ${M}">${M}</span><code>${esc(path)}</code> — ${esc(op.summary||"")}</summary>`;
      const ps = (op.parameters||[]);
      if (ps.length) {
        html += "<table><tr><th>parameter</th><th>in</th><th>schema</th></tr>";
        for (const p of ps) html += `<tr><td><code>${esc(p.name)}</code>${p.required?" *":""}</td><td>${p.in}</td><td><code>${esc(JSON.stringify(p.schema))}</code></td></tr>`;
        html += "</table>";
      }
      if (op.requestBody) html += "<p>JSON body:</p><pre>" + esc(JSON.stringify(op.requestBody.content["application/json"].schema, null, 2)) + "</pre>";
      html += "<p>Responses: " + Object.entries(op.responses).map(([c, r]) => `<code>${c}</code> ${esc(r.description)}`).join(" · ") + "</p></details>";
    }
  }
  document.getElementById("ops").innerHTML = html + "<p>Every memory route also exists under <code>/c/{collection}</code>.</p>";
}).catch(e => { document.getElementById("ops").textContent = "could not load openapi.json: " + e; });
</script></body></html>
"""
