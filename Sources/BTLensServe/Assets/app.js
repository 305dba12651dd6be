// btlens live page: reads the /events WebSocket (protocol: the serve-protocol text) and shows a
// virtualised timeline, details, a sequence chart and a diagnostics table.
// Capture strings are hostile: data only ever reaches the page through textContent and
// setAttribute on inert attributes; never innerHTML.
(() => {
  'use strict';

  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';
  const CAP = 1000000;          // events the page keeps; the oldest go first
  const FIELDS_CAP = 100000;    // raw JSON lines kept for the field table of recent events
  const ROW_H = 18;             // must match --row in app.css
  const OVERSCAN = 8;
  const MAX_PX = 15000000;      // browsers cap element height (Firefox ~17.9M px): scale beyond this
  const CHART_ITEMS = 200;
  const BACKOFF = [500, 1000, 2000, 4000, 8000, 15000];
  const fmt = (n) => Number(n || 0).toLocaleString('en-US');

  // ---- event store: parallel ring buffers indexed by seq % CAP (seq grows forever) ----
  // flags: bits 0-1 direction (1 sent, 2 received), 2-3 severity (1 note, 2 warning, 3 error),
  // 4 frame-like (drawn in the chart), 5 transport (att/rfcomm: merged into the message above it),
  // 6 app message (a5/message), 7 log line.
  const F_FRAME = 16, F_TRANSPORT = 32, F_APP = 64, F_LOG = 128;
  const SEV_NAMES = ['', 'note', 'warning', 'error'];
  const texts = new Array(CAP);
  const recs = new Float64Array(CAP);
  const flags = new Uint8Array(CAP);
  const diagOf = new Uint16Array(CAP);   // 1 + index into diagIds, 0 = none
  const raws = new Array(FIELDS_CAP);
  const diagIds = [];
  const diagIndex = new Map();
  let first = 0;          // seq of the oldest event held
  let next = 0;           // seq the next event gets
  let droppedHere = 0;    // oldest events this page let go (CAP)

  // ---- view state ----
  let visEnd = 0;         // events [first, visEnd) are listed; frozen while paused
  let paused = false;
  let follow = true;      // keep the list scrolled to the newest row
  let selSeq = -1;
  let selRec = null;
  let appliedFilter = '';
  let sentFilter = null;
  let pendingFilter = null;
  const diagStats = new Map();  // id -> {severity, count, first}
  const status = { state: null, records: 0, events: 0, held: 0, dropped: 0, evicted_before: 0 };
  let mode = '';
  let ended = false;

  const NOT_FRAMES = new Set(['diagnostic', 'note', 'log', 'connection', 'undecoded-none']);
  function flagsOf(o) {
    let f = o.direction === 'sent' ? 1 : o.direction === 'received' ? 2 : 0;
    const t = typeof o.type === 'string' ? o.type : '';
    if (t === 'diagnostic') {
      const s = SEV_NAMES.indexOf(o.severity);
      f |= (s > 0 ? s : 1) << 2;
    }
    if ((f & 3) && !NOT_FRAMES.has(t) && !t.startsWith('hci') && !t.startsWith('ll')) f |= F_FRAME;
    if (t === 'att' || t === 'rfcomm') f |= F_TRANSPORT;
    if (t === 'a5' || t === 'message') f |= F_APP;
    if (t === 'log') f |= F_LOG;
    return f;
  }

  function diagSlot(id) {
    let i = diagIndex.get(id);
    if (i === undefined) {
      if (diagIds.length >= 65535) return 0;
      i = diagIds.length + 1;
      diagIds.push(id);
      diagIndex.set(id, i);
    }
    return i;
  }

  function addEvent(o, line) {
    if (next - first >= CAP) { first++; droppedHere++; }
    const i = next % CAP;
    const rec = Number.isFinite(o.record) ? o.record : -1;
    texts[i] = typeof o.timeline === 'string' ? o.timeline : String(o.type || 'event') + (rec >= 0 ? ' #' + rec : '');
    recs[i] = rec;
    const f = flagsOf(o);
    flags[i] = f;
    diagOf[i] = 0;
    if (f & 12) {
      const id = typeof o.id === 'string' ? o.id : '?';
      diagOf[i] = diagSlot(id);
      const sev = SEV_NAMES[(f >> 2) & 3];
      const d = diagStats.get(id);
      if (d) d.count++;
      else diagStats.set(id, { severity: sev, count: 1, first: rec });
      dirty.diags = true;
    }
    raws[next % FIELDS_CAP] = line;
    next++;
    if (!paused) visEnd = next;
    if (visEnd < first) visEnd = first;
  }

  function clearAll() {
    first = next;
    visEnd = next;
    droppedHere = 0;
    selSeq = -1;
    follow = true;
    diagStats.clear();
    setPaused(false);
    dirty.diags = dirty.chart = dirty.header = dirty.timeline = true;
  }

  // ---- render scheduling: everything the socket changes is drawn once per frame ----
  const dirty = { timeline: true, header: true, diags: true, chart: true };
  let rafPending = false;
  let lastSlow = 0;
  let slowTimer = 0;
  function schedule() {
    if (!rafPending) { rafPending = true; requestAnimationFrame(render); }
  }
  function render(now) {
    rafPending = false;
    renderTimeline();
    if (dirty.header) renderHeader();
    // The chart and the diagnostics table are rebuilt whole: at most ~4 times a second.
    if (dirty.chart || dirty.diags) {
      if (now - lastSlow > 250) {
        lastSlow = now;
        if (dirty.diags) { dirty.diags = false; renderDiags(); }
        if (dirty.chart) { dirty.chart = false; renderChart(); }
      } else if (!slowTimer) {
        slowTimer = setTimeout(() => { slowTimer = 0; schedule(); }, 260);
      }
    }
  }
  function changed() {
    dirty.timeline = dirty.header = dirty.chart = true;
    schedule();
  }

  // ---- header ----
  const el = {
    source: $('source'), mode: $('mode'), state: $('state'), records: $('records'),
    shown: $('events-shown'), held: $('events-held'), dropped: $('dropped'), evicted: $('evicted'),
    pageDropped: $('page-dropped'), filter: $('filter'), filterError: $('filter-error'),
    pause: $('pause'), badge: $('paused-badge'), timeline: $('timeline'), spacer: $('timeline-spacer'),
    rows: $('timeline-rows'), seq: $('seq'), seqHead: $('seq-head'), seqBox: $('seq-box'),
    seqNote: $('seq-note'), diags: $('diags'), diagsEmpty: $('diags-empty'), diagsCount: $('diags-count'),
  };
  let connState = 'connecting';
  let reconnectAt = 0;
  function renderHeader() {
    dirty.header = false;
    let state;
    let label;
    if (connState === 'open') {
      state = status.state || (ended ? 'ended' : 'live');
      label = state;
    } else if (connState === 'reconnecting') {
      state = 'reconnecting';
      label = 'disconnected, reconnecting in ' + Math.max(0, Math.ceil((reconnectAt - Date.now()) / 1000)) + ' s';
    } else {
      state = connState;
      label = connState === 'disconnected' && status.state ? status.state + ', disconnected' : connState;
    }
    el.state.textContent = label;
    el.state.setAttribute('data-state', state);
    el.mode.textContent = mode;
    el.records.textContent = fmt(status.records);
    el.shown.textContent = fmt(visEnd - first);
    el.held.textContent = fmt(status.held);
    show(el.dropped, status.dropped > 0, fmt(status.dropped) + ' events dropped: this page was too slow');
    show(el.evicted, status.evicted_before > 0, 'events before #' + status.evicted_before + ' are no longer held by the server');
    show(el.pageDropped, droppedHere > 0, fmt(droppedHere) + ' oldest events dropped from this page');
    show(el.badge, paused, fmt(next - visEnd) + ' new while paused');
  }
  function show(node, on, text) {
    node.hidden = !on;
    if (on && node.textContent !== text) node.textContent = text;
  }

  // ---- timeline: a virtual list; a pool of row elements is reused as the view scrolls ----
  const classCache = new Array(256);
  function rowClass(f) {
    let c = classCache[f];
    if (c === undefined) {
      c = 'row';
      if ((f & 3) === 1) c += ' sent';
      if ((f & 3) === 2) c += ' received';
      if (f & 12) c += ' diag-' + SEV_NAMES[(f >> 2) & 3];
      if (f & F_APP) c += ' frame';
      if (f & F_LOG) c += ' log';
      classCache[f] = c;
    }
    return c;
  }
  const pool = [];
  let lastFirst = 0;
  let spacerPx = -1;
  function geometry() {
    const n = visEnd - first;
    const total = n * ROW_H;
    const px = Math.min(total, MAX_PX);
    const viewH = el.timeline.clientHeight;
    const ratio = total > MAX_PX && px > viewH ? (total - viewH) / (px - viewH) : 1;
    return { n, px, viewH, ratio };
  }
  function renderTimeline() {
    if (!dirty.timeline) return;
    dirty.timeline = false;
    const g = geometry();
    if (g.px !== spacerPx) { spacerPx = g.px; el.spacer.style.height = g.px + 'px'; }
    // Rows dropped from the top while the user reads: keep the same rows in view.
    if (first !== lastFirst) {
      if (!follow && first > lastFirst) el.timeline.scrollTop -= (first - lastFirst) * ROW_H / g.ratio;
      lastFirst = first;
    }
    if (follow) el.timeline.scrollTop = g.px;
    // Chromium may clamp scrollTop after a shrink only at its next layout: clamp it here.
    const top = Math.min(el.timeline.scrollTop, Math.max(0, g.px - g.viewH));
    const vy = top * g.ratio;
    const from = Math.max(0, Math.floor(vy / ROW_H) - OVERSCAN);
    const to = Math.min(g.n, Math.ceil((vy + g.viewH) / ROW_H) + OVERSCAN);
    el.rows.style.transform = 'translateY(' + (top - vy + from * ROW_H) + 'px)';
    const count = Math.max(0, to - from);
    while (pool.length < count) {
      const r = document.createElement('div');
      r.setAttribute('role', 'listitem');
      r._seq = -1;
      pool.push(r);
      el.rows.appendChild(r);
    }
    for (let k = 0; k < pool.length; k++) {
      const r = pool[k];
      if (k >= count) {
        if (!r.hidden) { r.hidden = true; r._seq = -1; }
        continue;
      }
      const seq = first + from + k;
      const sel = seq === selSeq;
      if (r._seq !== seq || r._sel !== sel || r.hidden) {
        const i = seq % CAP;
        r.hidden = false;
        r._seq = seq;
        r._sel = sel;
        r.className = rowClass(flags[i]) + (sel ? ' selected' : '');
        r.setAttribute('data-record', recs[i] >= 0 ? String(recs[i]) : '');
        r.textContent = texts[i];
      }
    }
    el.timeline.setAttribute('data-count', String(g.n));
  }
  el.timeline.addEventListener('scroll', () => {
    const t = el.timeline;
    follow = t.scrollTop + t.clientHeight >= t.scrollHeight - ROW_H / 2;
    dirty.timeline = true;
    schedule();
  }, { passive: true });
  // A wheel up while new rows arrive must win over the auto-scroll of the same frame.
  el.timeline.addEventListener('wheel', (e) => { if (e.deltaY < 0) follow = false; }, { passive: true });
  el.rows.addEventListener('click', (e) => {
    const r = e.target.closest('.row');
    if (r && r._seq >= first) select(r._seq, false);
  });
  el.timeline.addEventListener('keydown', (e) => {
    if (e.key === 'End') { follow = true; changed(); return; }
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    e.preventDefault();
    const base = selSeq >= first && selSeq < visEnd ? selSeq : (e.key === 'ArrowDown' ? first - 1 : visEnd);
    const s = base + (e.key === 'ArrowDown' ? 1 : -1);
    if (s >= first && s < visEnd) select(s, true);
  });
  window.addEventListener('resize', () => { dirty.timeline = true; schedule(); });

  function scrollToSeq(seq) {
    const g = geometry();
    const y = (seq - first) * ROW_H;
    const t = el.timeline;
    if (y >= t.scrollTop * g.ratio && y + ROW_H <= t.scrollTop * g.ratio + g.viewH) return;
    follow = false;
    t.scrollTop = Math.max(0, (y - g.viewH / 2) / g.ratio);
  }

  // A selected row stays where it is: selecting stops following the tail.
  function select(seq, scroll) {
    selSeq = seq;
    follow = false;
    const i = seq % CAP;
    selRec = recs[i];
    if (scroll) scrollToSeq(seq);
    showDetailsFor(seq);
    if (selRec >= 0) send({ details: selRec });
    dirty.timeline = dirty.chart = true;
    lastSlow = 0;   // redraw the chart around the selection now
    schedule();
  }

  // The row of record `rec`: the diagnostic `id` raised there when given, else its first row.
  function jumpToRecord(rec, id) {
    const want = id === undefined ? 0 : diagIndex.get(id) || 0;
    let exact = -1, after = -1;
    for (let s = first; s < visEnd; s++) {
      const i = s % CAP;
      if (recs[i] === rec) {
        if (!want || diagOf[i] === want) { exact = s; break; }
        if (exact < 0) exact = s;
      } else if (after < 0 && recs[i] > rec) after = s;
    }
    const s = exact >= 0 ? exact : after;
    if (s >= 0) select(s, true);
  }


  // ---- details pane ----
  const det = {
    title: $('details-title'), note: $('details-note'), fields: $('details-fields').tBodies[0],
    lines: $('details-lines'), hex: $('details-hex'), bytes: $('details-bytes'),
  };
  function showDetailsFor(seq) {
    const i = seq % CAP;
    det.title.textContent = (recs[i] >= 0 ? '#' + recs[i] : 'event') + (recs[i] >= 0 ? ' (loading…)' : '');
    det.lines.textContent = '';
    det.hex.textContent = '';
    det.bytes.hidden = true;
    det.note.hidden = true;
    const rows = [];
    let obj = null;
    if (seq >= next - FIELDS_CAP) {
      try { obj = JSON.parse(raws[seq % FIELDS_CAP]); } catch (_) { obj = null; }
    }
    if (obj && typeof obj === 'object') {
      for (const k of Object.keys(obj)) {
        if (k === 'timeline' && obj.timeline === texts[i]) continue;
        const v = obj[k];
        rows.push([k, v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v)]);
      }
    } else {
      rows.push(['record', String(recs[i])], ['fields', 'no longer held by the page (only the newest ' + fmt(FIELDS_CAP) + ' are)']);
    }
    rows.push(['timeline', texts[i]]);
    det.fields.replaceChildren(...rows.map(([k, v]) => {
      const tr = document.createElement('tr');
      const a = document.createElement('td');
      const b = document.createElement('td');
      a.textContent = k;
      b.textContent = v;
      tr.append(a, b);
      return tr;
    }));
  }
  function onDetails(o) {
    if (o.record !== selRec) return;  // an answer to an older click
    det.title.textContent = '#' + o.record;
    det.lines.textContent = Array.isArray(o.lines) ? o.lines.map(String).join('\n') : '';
    const hex = typeof o.hex === 'string' && /^[0-9a-fA-F]*$/.test(o.hex) ? o.hex.toLowerCase() : '';
    const have = hex.length >> 1;
    det.hex.textContent = hexDump(hex);
    const total = Number.isFinite(o.bytes) ? o.bytes : have;
    show(det.bytes, total > have, fmt(have) + ' of ' + fmt(total) + ' bytes');
    show(det.note, typeof o.note === 'string' && o.note !== '', String(o.note));
  }
  // offset, 16 bytes in hex (a gap after 8), the bytes as ASCII with '.' for the rest
  function hexDump(hex) {
    const n = Math.min(hex.length >> 1, 65536);
    const w = n > 0xffff ? 8 : 4;
    const out = [];
    for (let off = 0; off < n; off += 16) {
      let h = '';
      let a = '';
      for (let j = 0; j < 16; j++) {
        if (j === 8) h += ' ';
        if (off + j < n) {
          const s = hex.substr((off + j) * 2, 2);
          const b = parseInt(s, 16);
          h += s + ' ';
          a += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
        } else h += '   ';
      }
      out.push(off.toString(16).padStart(w, '0') + '  ' + h + ' ' + a);
    }
    return out.join('\n');
  }

  // ---- sequence chart ----
  const W = 600, PHONE = 130, PEER = 470, STEP = 24, TOP = 16;
  const SEV_COLOR = ['#57606a', '#0b6bcb', '#9a6700', '#b3261e'];
  function svg(tag, attrs, text) {
    const n = document.createElementNS(SVG, tag);
    for (const k in attrs) n.setAttribute(k, String(attrs[k]));
    if (text !== undefined) n.textContent = text;
    return n;
  }
  // A label cut to about `px` of 11 px monospace, as the report does.
  function fit(s, px) {
    const n = Math.max(1, Math.floor(px / 6.6));
    return s.length <= n ? s : s.slice(0, n - 1) + '…';
  }
  // "#7   0.007500 > 0x0001 ATT   Read Request" -> "ATT Read Request"
  function shortLabel(t) {
    return t.replace(/^#\S+\s+\S+\s+\S+\s+\S+\s+/, '').replace(/\s+/g, ' ');
  }
  (function drawHead() {
    el.seqHead.setAttribute('viewBox', '0 0 ' + W + ' 22');
    el.seqHead.append(
      svg('text', { x: PHONE, y: 15, 'text-anchor': 'middle', 'font-weight': 'bold' }, 'Phone (sent)'),
      svg('text', { x: PEER, y: 15, 'text-anchor': 'middle', 'font-weight': 'bold' }, 'Accessory / peer (received)'));
  })();

  // Frame-like events and diagnostics to draw: around the selection, or the newest.
  function chartSeqs() {
    const want = (f) => (f & F_FRAME) || (f & 12);
    const out = [];
    if (selSeq >= first && selSeq < visEnd) {
      const before = [];
      for (let s = selSeq; s >= first && before.length < CHART_ITEMS / 2; s--) if (want(flags[s % CAP])) before.push(s);
      before.reverse();
      const after = [];
      for (let s = selSeq + 1; s < visEnd && after.length < CHART_ITEMS / 2; s++) if (want(flags[s % CAP])) after.push(s);
      return { seqs: before.concat(after), around: true };
    }
    for (let s = visEnd - 1; s >= first && out.length < CHART_ITEMS; s--) if (want(flags[s % CAP])) out.push(s);
    return { seqs: out.reverse(), around: false };
  }

  function chartRows(seqs) {
    const rows = [];
    for (const s of seqs) {
      const i = s % CAP, f = flags[i], rec = recs[i];
      const dir = f & 3;
      if (f & F_FRAME) {
        const prev = rows[rows.length - 1];
        // ATT/RFCOMM carrying the A5 frame of the same record: one arrow, the upper layer's name.
        if (prev && prev.frame && prev.transport && prev.rec === rec && prev.dir === dir && !prev.marks.length) {
          prev.seq = s; prev.transport = (f & F_TRANSPORT) !== 0; prev.text = texts[i];
          prev.sel = prev.sel || s === selSeq;
          continue;
        }
        rows.push({ seq: s, rec, dir, frame: true, transport: (f & F_TRANSPORT) !== 0, text: texts[i], marks: [], sel: s === selSeq });
      } else {
        const sev = (f >> 2) & 3;
        const id = diagOf[i] ? diagIds[diagOf[i] - 1] : '?';
        // A diagnostic raised on a drawn frame's record is a mark on that arrow.
        let host = null;
        for (let k = rows.length - 1; k >= 0 && k >= rows.length - 4; k--) {
          if (rows[k].frame && rows[k].rec === rec) { host = rows[k]; break; }
        }
        if (host) { host.marks.push({ id, sev }); host.sel = host.sel || s === selSeq; }
        else rows.push({ seq: s, rec, dir, frame: false, text: texts[i], marks: [{ id, sev }], sel: s === selSeq });
      }
    }
    return rows;
  }

  function renderChart() {
    const { seqs, around } = chartSeqs();
    const rows = chartRows(seqs);
    const box = el.seqBox;
    const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    const height = TOP + STEP * Math.max(rows.length, 1);
    el.seq.setAttribute('viewBox', '0 0 ' + W + ' ' + height);
    const defs = svg('defs', {});
    const marker = svg('marker', { id: 'seq-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
    marker.appendChild(svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#57606a' }));
    defs.appendChild(marker);
    const parts = [defs];
    for (const x of [PHONE, PEER]) parts.push(svg('line', { x1: x, y1: 0, x2: x, y2: height, stroke: '#d9dde5', 'stroke-width': 2 }));
    let selY = -1;
    rows.forEach((r, k) => {
      const y = TOP + STEP * k;
      const g = svg('g', { class: 'item' + (r.sel ? ' selected' : ''), 'data-record': r.rec >= 0 ? r.rec : '', 'data-seq': r.seq });
      const worst = r.marks.reduce((m, d) => Math.max(m, d.sev), 0);
      const ids = r.marks.map((d) => d.id).join(' ');
      g.appendChild(svg('title', {}, r.text + (ids ? ' — ' + ids : '')));
      if (r.sel) { selY = y; g.appendChild(svg('rect', { x: 0, y: y - STEP / 2 - 2, width: W, height: STEP, fill: '#eef5fd' })); }
      const label = shortLabel(r.text);
      if (r.frame) {
        const sent = r.dir === 1;
        const [x1, x2] = sent ? [PHONE, PEER] : [PEER, PHONE];
        const color = worst === 3 ? '#b3261e' : '#57606a';
        g.appendChild(svg('line', { x1, y1: y, x2, y2: y, stroke: color, 'stroke-width': 1.5, 'marker-end': 'url(#seq-arrow)' }));
        g.appendChild(svg('text', { x: (PHONE + PEER) / 2, y: y - 4, 'text-anchor': 'middle' }, fit('#' + r.rec + ' ' + label.replace(/^#\S+\s*/, ''), PEER - PHONE - 24)));
        if (worst) {
          g.appendChild(svg('circle', { cx: x2 + (sent ? 10 : -10), cy: y, r: 5, fill: SEV_COLOR[worst] }));
          const x = sent ? PEER + 20 : PHONE - 20;
          g.appendChild(svg('text', sent ? { x, y: y + 4, fill: SEV_COLOR[worst] } : { x, y: y + 4, fill: SEV_COLOR[worst], 'text-anchor': 'end' },
            fit(ids, sent ? W - x - 2 : x - 2)));
        }
      } else {
        // A diagnostic on no drawn frame: a diamond on its side's lane and its line.
        const sev = r.marks[0].sev;
        const cx = r.dir === 1 ? PHONE : r.dir === 2 ? PEER : (PHONE + PEER) / 2;
        g.appendChild(svg('path', { d: `M${cx},${y - 5} L${cx + 5},${y} L${cx},${y + 5} L${cx - 5},${y} z`, fill: SEV_COLOR[sev] }));
        const left = r.dir === 2;
        g.appendChild(svg('text', left ? { x: cx - 10, y: y + 4, fill: SEV_COLOR[sev], 'text-anchor': 'end' } : { x: cx + 10, y: y + 4, fill: SEV_COLOR[sev] },
          fit(label, left ? cx - 12 : W - cx - 12)));
      }
      parts.push(g);
    });
    el.seq.replaceChildren(...parts);
    const frames = rows.filter((r) => r.frame).length;
    el.seqNote.textContent = rows.length === 0 ? 'No frames or diagnostics in the list.'
      : 'Drawn: ' + fmt(frames) + ' exchanges and ' + fmt(rows.length - frames) + ' diagnostics of no exchange, ' +
        (around ? 'around the selected row' : 'the newest of the list') + '.';
    // Follow the newest arrows like the list does, or bring the selection into view.
    if (around && selY >= 0) {
      const scale = box.clientWidth / W;
      box.scrollTop = Math.max(0, selY * scale - box.clientHeight / 2);
    } else if (atBottom || follow) box.scrollTop = box.scrollHeight;
  }
  el.seq.addEventListener('click', (e) => {
    const g = e.target.closest('.item');
    if (!g) return;
    const s = Number(g.getAttribute('data-seq'));
    if (s >= first && s < visEnd) select(s, true);
  });

  // ---- diagnostics table ----
  const RANK = { error: 3, warning: 2, note: 1 };
  function renderDiags() {
    const list = [...diagStats.entries()].sort((a, b) =>
      (RANK[b[1].severity] || 0) - (RANK[a[1].severity] || 0) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const body = el.diags.tBodies[0];
    body.replaceChildren(...list.map(([id, d]) => {
      const tr = document.createElement('tr');
      const sev = document.createElement('td');
      sev.className = 'sev-' + (RANK[d.severity] ? d.severity : 'note');
      sev.textContent = d.severity;
      const idc = document.createElement('td');
      const idb = document.createElement('button');
      idb.type = 'button';
      idb.className = 'diag-id';
      idb.title = 'filter: id == "' + id + '"';
      idb.setAttribute('data-id', id);
      idb.textContent = id;
      idc.appendChild(idb);
      const cnt = document.createElement('td');
      cnt.textContent = fmt(d.count);
      const fr = document.createElement('td');
      if (d.first >= 0) {
        const rb = document.createElement('button');
        rb.type = 'button';
        rb.className = 'diag-record';
        rb.setAttribute('data-record', String(d.first));
        rb.setAttribute('data-id', id);
        rb.textContent = '#' + d.first;
        fr.appendChild(rb);
      }
      tr.className = 'diag-' + d.severity;
      tr.append(sev, idc, cnt, fr);
      return tr;
    }));
    el.diagsEmpty.hidden = list.length > 0;
    el.diagsCount.textContent = list.length ? '(' + list.length + ')' : '';
  }
  el.diags.addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    if (b.classList.contains('diag-id')) {
      const id = b.getAttribute('data-id') || '';
      el.filter.value = 'id == "' + id.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
      applyFilter(el.filter.value);
    } else if (b.classList.contains('diag-record')) {
      jumpToRecord(Number(b.getAttribute('data-record')), b.getAttribute('data-id') || undefined);
    }
  });

  // ---- tabs ----
  for (const t of document.querySelectorAll('#tabs button')) {
    t.addEventListener('click', () => {
      for (const u of document.querySelectorAll('#tabs button')) {
        const on = u === t;
        u.setAttribute('aria-selected', String(on));
        $(u.getAttribute('data-panel')).hidden = !on;
      }
      dirty.chart = true;
      schedule();
    });
  }

  // ---- filter ----
  let debounce = 0;
  function applyFilter(text) {
    clearTimeout(debounce);
    sentFilter = text;
    if (!send({ filter: text })) {
      pendingFilter = text;
      if (connState !== 'open' && connState !== 'reconnecting') connect();
    }
  }
  el.filter.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); applyFilter(el.filter.value); }
  });
  el.filter.addEventListener('input', () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => { if (el.filter.value !== sentFilter) applyFilter(el.filter.value); }, 300);
  });
  $('filter-apply').addEventListener('click', () => applyFilter(el.filter.value));
  function showFilterError(o) {
    const expr = typeof o.expression === 'string' ? o.expression : '';
    // column/length count characters: index by code point, not UTF-16 unit
    const chars = Array.from(expr);
    const col = Math.max(0, Math.min(Number.isFinite(o.column) ? o.column : 0, chars.length));
    const len = Math.max(1, Number.isFinite(o.length) ? o.length : 1);
    $('filter-error-expr').textContent = expr + '\n' + ' '.repeat(col) + '^' + '~'.repeat(len - 1);
    $('filter-error-message').textContent = typeof o.message === 'string' ? o.message : 'filter refused';
    el.filterError.hidden = false;
    el.filter.classList.add('bad');
  }
  function setSaveLinks() {
    const f = encodeURIComponent(appliedFilter);
    $('save-html').setAttribute('href', '/report?format=html&filter=' + f);
    $('save-md').setAttribute('href', '/report?format=md&filter=' + f);
  }

  // ---- pause ----
  function setPaused(p) {
    paused = p;
    if (!p) visEnd = next;
    el.pause.textContent = p ? 'Resume' : 'Pause';
    el.pause.setAttribute('aria-pressed', String(p));
    changed();
  }
  el.pause.addEventListener('click', () => setPaused(!paused));

  // ---- socket ----
  let ws = null;
  let attempt = 0;
  let retryTimer = 0;
  let tick = 0;
  let hadHello = false;
  function send(obj) {
    if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(obj)); return true; }
    return false;
  }
  function connect() {
    clearTimeout(retryTimer);
    connState = 'connecting';
    dirty.header = true;
    schedule();
    // The filter this page had goes with the connection, so the server replays its selection once.
    const f = pendingFilter !== null ? pendingFilter : hadHello ? appliedFilter : '';
    const query = f ? '?filter=' + encodeURIComponent(f) : '';
    const sock = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/events' + query);
    ws = sock;
    sock.onopen = () => { connState = 'open'; ended = false; dirty.header = true; schedule(); };
    sock.onmessage = (e) => { if (typeof e.data === 'string') onMessage(e.data); };
    sock.onclose = () => {
      if (ws !== sock) return;
      ws = null;
      // Closed while live: try again with backoff. After the end nothing more would come.
      if (ended || status.state === 'ended' || status.state === 'stopped') {
        connState = 'disconnected';
      } else {
        const delay = BACKOFF[Math.min(attempt, BACKOFF.length - 1)];
        attempt++;
        connState = 'reconnecting';
        reconnectAt = Date.now() + delay;
        retryTimer = setTimeout(connect, delay);
        clearInterval(tick);
        tick = setInterval(() => {
          if (connState !== 'reconnecting') { clearInterval(tick); return; }
          dirty.header = true; schedule();
        }, 1000);
      }
      dirty.header = true;
      schedule();
    };
  }

  let badLines = 0;
  function onMessage(data) {
    const lines = data.split('\n');
    for (const line of lines) {
      if (!line || line === '\r') continue;
      try {
        const o = JSON.parse(line);
        if (!o || typeof o !== 'object' || Array.isArray(o)) { badLines++; continue; }
        if (typeof o.type === 'string' && o.type.startsWith('btlens.')) control(o);
        else addEvent(o, line);
      } catch (err) {
        badLines++;  // a malformed line is skipped; the rest of the message still counts
      }
    }
    changed();
  }

  function control(o) {
    switch (o.type) {
      case 'btlens.hello': {
        attempt = 0;
        mode = typeof o.mode === 'string' ? o.mode : '';
        el.source.textContent = typeof o.source === 'string' ? o.source : '';
        if (typeof o.source === 'string') document.title = 'btlens ' + (mode === 'view' ? 'view' : 'live') + ': ' + o.source;
        // A stream followed without --write has no file to make a report from.
        $('save').hidden = o.report === false;
        $('save-none').hidden = o.report !== false;
        const f = typeof o.filter === 'string' ? o.filter : '';
        // On a reconnect (or a filter typed while away) ask again for the filter this page had.
        const want = pendingFilter !== null ? pendingFilter : hadHello ? appliedFilter : null;
        pendingFilter = null;
        if (!hadHello && document.activeElement !== el.filter) el.filter.value = f;
        hadHello = true;
        if (want !== null && want !== f) { sentFilter = want; send({ filter: want }); }
        break;
      }
      case 'btlens.reset':
        clearAll();
        appliedFilter = typeof o.filter === 'string' ? o.filter : '';
        sentFilter = sentFilter === null ? appliedFilter : sentFilter;
        if (document.activeElement !== el.filter) el.filter.value = appliedFilter;
        el.filterError.hidden = true;
        el.filter.classList.remove('bad');
        setSaveLinks();
        break;
      case 'btlens.filter.error':
        showFilterError(o);
        break;
      case 'btlens.status':
        for (const k of ['records', 'events', 'held', 'dropped', 'evicted_before']) if (Number.isFinite(o[k])) status[k] = o[k];
        if (typeof o.state === 'string') status.state = o.state;
        if (status.state === 'live') ended = false;
        break;
      case 'btlens.details':
        onDetails(o);
        break;
      case 'btlens.end':
        ended = true;
        if (!status.state || status.state === 'live') status.state = 'ended';
        break;
      default:
        break;  // unknown control lines: ignore
    }
    dirty.header = true;
  }

  setSaveLinks();
  connect();
})();
