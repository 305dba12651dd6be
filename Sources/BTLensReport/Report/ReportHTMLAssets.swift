/// The report page's style and script, inline so the file needs nothing from the network.
enum ReportHTMLAssets {
    /// Nothing may load from anywhere: styles and scripts are inline, images are data: URLs.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

    static let css = """
        :root { --fg:#1d2330; --muted:#5b6475; --line:#d9dde5; --bg:#fff; --soft:#f5f7fa; --err:#b3261e; --warn:#9a6700; --note:#0b6bcb; --a5:#1a7f37; --log:#8250df; }
        * { box-sizing: border-box; }
        body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; max-width: 1280px; padding: 0 20px 40px; }
        header { padding: 18px 0 8px; border-bottom: 1px solid var(--line); }
        h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 10px; } h3 { font-size: 14px; margin: 16px 0 6px; }
        .file { font-family: ui-monospace, Menlo, Consolas, monospace; color: var(--muted); word-break: break-all; }
        nav { position: sticky; top: 0; background: var(--bg); padding: 8px 0; border-bottom: 1px solid var(--line); z-index: 2; }
        nav a { margin-right: 16px; color: var(--note); text-decoration: none; }
        .cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0; }
        .card { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; min-width: 120px; }
        .card b { display: block; font-size: 18px; } .card span { color: var(--muted); font-size: 12px; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { background: var(--soft); font-weight: 600; }
        code, .mono, #timeline td { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
        .sev-error { color: var(--err); font-weight: 600; } .sev-warning { color: var(--warn); font-weight: 600; } .sev-note { color: var(--note); }
        tr.diag-error td { background: #fdecea; } tr.diag-warning td { background: #fff6e0; } tr.diag-note td { background: #eef5fd; }
        tr.layer-A5 td:nth-child(5), tr.layer-MSG td:nth-child(5) { color: var(--a5); font-weight: 600; }
        #timeline td:first-child a { color: var(--muted); text-decoration: none; }
        tr.layer-LOG td { background: #f3f0fb; } tr.layer-LOG td:nth-child(5), tr.layer-LOG td:first-child a { color: var(--log); font-weight: 600; }
        .src { color: var(--muted); }
        #timeline tr:target td { outline: 2px solid var(--note); }
        details summary { cursor: pointer; } details .hex { color: var(--muted); word-break: break-all; }
        #timeline td:last-child { overflow-wrap: anywhere; }
        .filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; background: var(--soft); padding: 8px; border-radius: 6px; }
        .filters label { font-size: 12px; color: var(--muted); } .filters select, .filters input { font: inherit; padding: 2px 4px; }
        .note { color: var(--muted); font-style: italic; }
        svg { max-width: 100%; height: auto; } svg text { font: 11px ui-monospace, Menlo, Consolas, monospace; } svg text:not([fill]) { fill: var(--fg); }
        .sequence-chart { max-height: 600px; overflow-y: auto; border-bottom: 1px solid var(--line); }
        .empty { color: var(--muted); }
        @media print { nav, .filters { display: none; } tr[hidden] { display: none; } .sequence-chart { max-height: none; overflow: visible; } body { max-width: none; } }
        """

    static let script = """
        (function () {
          'use strict';
          var $ = function (s) { return document.querySelector(s); };
          var rows = Array.prototype.slice.call(document.querySelectorAll('#timeline > tbody > tr'));
          var ids = ['layer', 'conn', 'stream', 'command', 'severity', 'text'];
          var controls = {};
          ids.forEach(function (k) { controls[k] = $('#f-' + k); });
          var rank = { note: 0, warning: 1, error: 2 };
          function apply() {
            var v = {};
            ids.forEach(function (k) { v[k] = controls[k] ? controls[k].value : ''; });
            var text = v.text.trim().toLowerCase();
            var shown = 0;
            rows.forEach(function (r) {
              var d = r.dataset;
              var ok = (!v.layer || d.layer === v.layer) && (!v.conn || d.conn === v.conn) &&
                (!v.stream || d.stream === v.stream) && (!v.command || d.command === v.command) &&
                (!v.severity || (d.severity !== undefined && rank[d.severity] >= rank[v.severity])) &&
                (!text || r.textContent.toLowerCase().indexOf(text) >= 0);
              r.hidden = !ok;
              if (ok) { shown += 1; }
            });
            $('#shown').textContent = String(shown);
            return shown;
          }
          ids.forEach(function (k) { if (controls[k]) { controls[k].addEventListener('input', apply); } });
          var reset = $('#f-reset');
          if (reset) { reset.addEventListener('click', function () { ids.forEach(function (k) { controls[k].value = ''; }); apply(); }); }
          apply();
          // Printed, every row shows its fields and bytes; afterwards the page is as it was.
          var details = Array.prototype.slice.call(document.querySelectorAll('#timeline details'));
          window.addEventListener('beforeprint', function () {
            details.forEach(function (d) { d.dataset.closed = d.open ? '' : '1'; d.open = true; });
          });
          window.addEventListener('afterprint', function () {
            details.forEach(function (d) { if (d.dataset.closed) { d.open = false; } });
          });
          // #selftest: drive every filter and write what was shown, for the headless-browser test.
          if (location.hash === '#selftest') {
            var out = [];
            var visible = function () { return rows.filter(function (r) { return !r.hidden; }).map(function (r) { return r.dataset.record; }).join(','); };
            out.push('all=' + apply());
            ids.forEach(function (k) {
              var c = controls[k];
              if (!c || k === 'text') { return; }
              for (var i = 1; i < c.options.length; i += 1) {
                c.value = c.options[i].value;
                out.push(k + '=' + c.value + ' ' + apply() + ' [' + visible() + ']');
                c.value = '';
              }
            });
            controls.text.value = 'checksum';
            out.push('text=checksum ' + apply() + ' [' + visible() + ']');
            controls.text.value = '';
            out.push('reset=' + apply());
            $('#selftest').textContent = out.join('\\n');
          }
        })();
        """
}
