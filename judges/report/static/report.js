// citejudge report: the answer, run and leaderboard pages' behaviour (no library, nothing fetched).
var CJ = {};
CJ.el = function (tag, attrs, text) {
  var e = document.createElement(tag);
  for (var k in (attrs || {})) e.setAttribute(k, attrs[k]);
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
};
CJ.num = function (v, d) {
  return (v === null || v === undefined) ? '—' :
    (typeof v === 'number' ? v.toFixed(d === undefined ? 3 : d) : String(v));
};
CJ.FILTERS = [['unsupported', 'unsupported only'], ['missing', 'missing'], ['capped', 'capped'],
  ['xlang', 'cross-language'], ['labelled', 'labelled by an assessor'], ['disagree', 'disagrees with a label']];
CJ.kinds = function (c) {
  var k = {};
  if (c.status === 'unsupported') k.unsupported = 1;
  if (c.status === 'missing') k.missing = 1;
  if (c.capped) k.capped = 1;
  if (c.xlang) k.xlang = 1;
  if (c.human_label) k.labelled = 1;
  if (c.disagree) k.disagree = 1;
  return k;
};
CJ.chosen = function () {
  var m = /[#&]f=([a-z,]*)/.exec(location.hash); var out = {};
  if (m) m[1].split(',').forEach(function (f) { if (f) out[f] = 1; });
  return out;
};
CJ.filterBar = function (host, counts, onChange) {
  var bar = CJ.el('div', {'class': 'filters', id: 'filters'}); bar.appendChild(CJ.el('b', {}, 'Show only: '));
  var on = CJ.chosen();
  CJ.FILTERS.forEach(function (f) {
    var lab = CJ.el('label'); var box = CJ.el('input', {type: 'checkbox', value: f[0], id: 'f-' + f[0]});
    if (on[f[0]]) box.checked = true;
    box.addEventListener('change', function () {
      var sel = []; bar.querySelectorAll('input:checked').forEach(function (b) { sel.push(b.value); });
      history.replaceState(null, '', '#f=' + sel.join(',')); onChange(CJ.chosen());
    });
    lab.appendChild(box); lab.appendChild(document.createTextNode(' ' + f[1] + ' (' + (counts[f[0]] || 0) + ')'));
    bar.appendChild(lab);
  });
  host.appendChild(bar);
  return on;
};
CJ.pass = function (c, on) {
  var any = false, k = CJ.kinds(c);
  for (var f in on) { any = true; if (k[f]) return true; }
  return !any;
};
// UTF-16 offsets (the data holds them as JavaScript counts characters). Every span of `spans` ([a, b], in
// document order, disjoint) is marked, the best one (`best`) with the id `id` (no best: all alike, the first
// with the id); with `ctx`, only `ctx` characters around each span are shown (parts that meet are joined, the
// others cut with '…').
CJ.marked = function (text, spans, best, ctx, id) {
  var box = CJ.el('div', {'class': 'doc'}), parts = [];
  spans.forEach(function (s) {
    var lo = ctx ? Math.max(0, s[0] - ctx) : 0, hi = ctx ? Math.min(text.length, s[1] + ctx) : text.length;
    var last = parts[parts.length - 1];
    if (last && lo <= last[1]) last[1] = Math.max(last[1], hi); else parts.push([lo, hi]);
  });
  parts.forEach(function (p) {
    if (p[0] > 0) box.appendChild(document.createTextNode('… '));
    var at = p[0];
    spans.forEach(function (s) {
      if (s[0] < p[0] || s[1] > p[1]) return;
      var main = !best || (s[0] === best[0] && s[1] === best[1]);
      var m = CJ.el('mark', {'class': main ? 'evidence' : 'evidence further'});
      if (main && id) { m.id = id; id = null; }
      box.appendChild(document.createTextNode(text.slice(at, s[0])));
      m.textContent = text.slice(s[0], s[1]); box.appendChild(m); at = s[1];
    });
    box.appendChild(document.createTextNode(text.slice(at, p[1])));
  });
  if (parts.length && parts[parts.length - 1][1] < text.length) box.appendChild(document.createTextNode(' …'));
  return box;
};
CJ.reveal = function (panel, head, m) {
  // The evidence brought into sight with the panel's heading above it: the window scrolled only as far
  // as needed and never past the panel's top (the page's navigation stays in sight when it can), then
  // the panel itself (its heading sticky).
  var r = m.getBoundingClientRect(), room = window.innerHeight - 8;
  if (r.bottom > room) window.scrollBy(0, Math.max(0, Math.min(r.bottom - room, panel.getBoundingClientRect().top - 8)));
  var top = head.getBoundingClientRect().bottom + 8;
  var bottom = Math.min(panel.getBoundingClientRect().bottom, window.innerHeight) - 8;
  r = m.getBoundingClientRect();
  if (r.bottom > bottom) panel.scrollTop += Math.max(0, Math.min(r.bottom - bottom, r.top - top));
  else if (r.top < top) panel.scrollTop -= top - r.top;
};
CJ.show = function (P, c, btn) {
  var D = window.CJ_DOCS || {}, panel = document.getElementById('panel');
  document.querySelectorAll('button.cite.on').forEach(function (b) { b.classList.remove('on'); });
  if (btn) btn.classList.add('on');
  panel.textContent = '';
  var h = CJ.el('h3'); h.appendChild(CJ.el('span', {'class': 'badge b-' + c.status}, c.status));
  h.appendChild(document.createTextNode(' sentence ' + c.sentence_index + ', citation [' + (c.rank + 1) + ']: ' +
    (c.doc_id === null ? c.citation : c.doc_id)));
  panel.appendChild(h);
  panel.appendChild(CJ.el('div', {'class': 'explanation', id: 'explanation'}, c.explanation));
  var sent = CJ.el('p'); sent.appendChild(CJ.el('b', {}, 'Sentence: '));
  sent.appendChild(document.createTextNode(c.sentence)); panel.appendChild(sent);
  var t = CJ.el('table', {'class': 'kv'}), T = P.thresholds || {};
  var rows = [['support judge said', c.support_status + (T.judge ? ' (' + T.judge + ')' : '')],
    ['P(full)', CJ.num(c.p_full) +
      (T.p_supported !== undefined ? '   (supported at ≥ ' + CJ.num(T.p_supported) + ')' : '')],
    ['P(any)', CJ.num(c.p_any) +
      (T.p_partial !== undefined ? '   (partial at ≥ ' + CJ.num(T.p_partial) + ')' : '')],
    ['norm_score', CJ.num(c.norm_score) +
      (T.norm_supported !== undefined ?
        '   (supported ≥ ' + T.norm_supported + ', partial ≥ ' + T.norm_partial + ')' : '')],
    ['alignment score', c.score], ['answer coverage', CJ.num(c.answer_coverage)],
    ['evidence coverage', CJ.num(c.evidence_coverage)],
    ['numbers missing', (c.numbers_missing || []).join(', ') || 'none'],
    ['entities missing', (c.entities_missing || []).join(', ') || 'none'],
    ['capped', c.capped ? 'yes: lowered to partial' : 'no']];
  if (c.llm_answer !== null && c.llm_answer !== undefined) rows.push(['LLM answer', c.llm_answer +
    (c.llm_p_yes !== null ?
      (['FULL', 'PARTIAL', 'NONE'].includes(c.llm_answer) ? ' (P(FULL) ' : ' (P(YES) ') + CJ.num(c.llm_p_yes) + ')' :
      '')]);
  if (c.human_label) rows.push(["assessor's label (judge --labels, final)", c.human_label]);
  if (c.label) rows.push(['human label (report --labels)', c.label + (c.disagree ? '  (disagrees)' : '')]);
  if (c.xlang) rows.push(['languages', c.xlang]);
  if (c.reason) rows.push(['reason', c.reason]);
  rows.push(['document', (c.doc_source || '') + (c.doc_chars ? ', ' + c.doc_chars + ' characters' : '') +
    ', evidence at characters ' + ((c.evidence_spans || []).length > 1 ? c.evidence_spans.map(function (s) {
      return s.char_start + '–' + s.char_end;
    }).join(', ') : c.char_start + '–' + c.char_end)]);
  if (c.pages && c.pages.length) rows.push(['pages', c.pages.map(function (p) { return p + 1; })
    .join(', ')]);
  if (c.boxes && c.boxes.length) rows.push(['boxes', c.boxes.map(function (b) {
    return 'p' + (b.page_index + 1) + ' [' + b.bbox.join(', ') + ']';
  }).join('; ')]);
  rows.forEach(function (r) {
    var tr = CJ.el('tr'); tr.appendChild(CJ.el('th', {'class': 'l'}, r[0])); tr.appendChild(CJ.el('td', {}, r[1]));
    t.appendChild(tr);
  });
  panel.appendChild(t);
  var doc = c.doc ? D[c.doc] : null;
  if (doc) {
    if (doc.title) panel.appendChild(CJ.el('h4', {}, doc.title));
    var best = [c.a16, c.b16], spans = c.spans16 && c.spans16.length ? c.spans16 : [best];
    if (c.char_end > c.char_start) {
      panel.appendChild(CJ.el('h4', {}, spans.length > 1 ? 'Evidence in context (' + spans.length + ' places)' :
        'Evidence in context'));
      var p = CJ.marked(doc.text, spans, best, 400, 'evidence'); p.id = 'passage'; panel.appendChild(p);
    } else panel.appendChild(CJ.el('p', {'class': 'muted'},
      'No aligned evidence: nothing in the document matched the sentence.'));
    var det = CJ.el('details', {id: 'whole'});
    det.appendChild(CJ.el('summary', {}, 'Whole document (' + doc.text.length + ' characters)'));
    det.appendChild(CJ.marked(doc.text, spans, best, 0, null)); panel.appendChild(det);
  } else if (c.status !== 'missing') {
    panel.appendChild(CJ.el('p', {'class': 'warning'},
      'Document text not found in the inputs the report read (inputs moved? give report --rag-responses and ' +
      '--corpus); the evidence from the assessments:'));
    var q = CJ.el('div', {'class': 'doc', id: 'passage'});
    var mk = CJ.el('mark', {id: 'evidence', 'class': 'evidence'}, c.evidence); q.appendChild(mk); panel.appendChild(q);
  }
  var m = document.getElementById('evidence'); if (m) CJ.reveal(panel, h, m);
  history.replaceState(null, '', '#c=' + c.key +
    (location.hash.match(/&?f=[a-z,]*/) ? '&' + location.hash.match(/f=[a-z,]*/)[0] : ''));
};
CJ.page = function () {
  var P = window.CJ_PAGE, app = document.getElementById('app');
  var counts = {}, byKey = {};
  P.sentences.forEach(function (s) {
    s.cites.forEach(function (c) {
      var k = CJ.kinds(c); for (var f in k) counts[f] = (counts[f] || 0) + 1; byKey[c.key] = c;
    });
  });
  var on = CJ.filterBar(app, counts, apply);
  var lay = CJ.el('div', {'class': 'layout'}), ans = CJ.el('div', {'class': 'answer', id: 'answer'}),
    panel = CJ.el('div', {'class': 'panel', id: 'panel'});
  panel.appendChild(CJ.el('p', {'class': 'muted'},
    'Click a citation to see the cited document with the evidence highlighted, the scores, and why it was judged so.'));
  lay.appendChild(ans); lay.appendChild(panel); app.appendChild(lay);
  var buttons = [];
  P.sentences.forEach(function (s) {
    var sp = CJ.el('span', {'class': 'sent st-' + s.status, id: 's' + s.index,
      title: 'sentence ' + s.index + ': ' + s.status}, s.text);
    ans.appendChild(sp);
    s.cites.forEach(function (c) {
      var b = CJ.el('button', {'class': 'cite s-' + c.status, 'data-key': c.key, title: c.explanation},
        '[' + (c.rank + 1) + ']');
      b.addEventListener('click', function () { CJ.show(P, c, b); });
      ans.appendChild(b); buttons.push([b, c, sp, s]);
    });
    ans.appendChild(document.createTextNode(' '));
    if (s.paragraph_end) ans.appendChild(CJ.el('br'));
  });
  function apply(on) {
    var keep = {};
    buttons.forEach(function (x) {
      var ok = CJ.pass(x[1], on); x[0].classList.toggle('hide', !ok); if (ok) keep[x[3].index] = 1;
    });
    var any = Object.keys(on).length > 0;
    P.sentences.forEach(function (s) {
      document.getElementById('s' + s.index).classList.toggle('dim', any && !keep[s.index]);
    });
  }
  apply(on);
  var m = /[#&]c=([^&]+)/.exec(location.hash);
  if (m && byKey[m[1]]) {
    var b = document.querySelector('button[data-key="' + m[1] + '"]'); CJ.show(P, byKey[m[1]], b);
  }
};
// The answer's nuggets (window.CJ_PAGE.nuggets, from NAME.nuggets.parquet): found (support, partial support)
// and missing, each in the bank's order; a click (or a link #n=K, K the number the page shows: nugget K, index
// K-1) shows the answer with the spans that carry it marked (UTF-16 offsets into CJ_PAGE.nugget_text), its
// probabilities and its explanation.
CJ.NUGGET = {support: ['supported', 'support'], partial_support: ['partial', 'partial support'],
  not_support: ['unsupported', 'not found']};
CJ.nuggets = function () {
  var P = window.CJ_PAGE, host = document.getElementById('nugget-app'), byIndex = {};
  var lay = CJ.el('div', {'class': 'layout'}), list = CJ.el('div', {'class': 'answer', id: 'nugget-list'}),
    panel = CJ.el('div', {'class': 'panel', id: 'nugget-panel'});
  panel.appendChild(CJ.el('p', {'class': 'muted'}, 'Click a nugget to see where the answer states it.'));
  lay.appendChild(list); lay.appendChild(panel); host.appendChild(lay);
  [['found', function (n) { return n.assignment !== 'not_support'; }],
    ['missing', function (n) { return n.assignment === 'not_support'; }]].forEach(function (g) {
    var items = P.nuggets.filter(g[1]), ol = CJ.el('ol', {'class': 'nuggets', id: 'nuggets-' + g[0]});
    list.appendChild(CJ.el('h3', {}, (g[0] === 'found' ? 'Found' : 'Missing') + ' (' + items.length + ')'));
    items.forEach(function (n) {
      var k = CJ.NUGGET[n.assignment],
        li = CJ.el('li', {'class': 'nugget', id: 'n' + n.i, value: n.i + 1, title: n.explanation});
      li.appendChild(CJ.el('span', {'class': 'badge b-' + k[0]}, k[1]));
      li.appendChild(CJ.el('span', {'class': n.vital ? 'vital' : 'okay'}, n.vital ? 'vital' : 'okay'));
      li.appendChild(document.createTextNode(n.text));
      if (n.human && n.human !== n.assignment) li.appendChild(CJ.el('span', {'class': 'disagree',
        title: "the assessors' assignment (the judge's --nuggets labels) differs"}, 'assessors: ' + CJ.NUGGET[n.human][1]));
      li.addEventListener('click', function () { CJ.showNugget(P, n, li); });
      ol.appendChild(li); byIndex[n.i] = [n, li];
    });
    list.appendChild(ol);
  });
  function opened() {  // a link to one nugget (#n=K: nugget K as numbered on the page), on load or within it
    var m = /[#&]n=(\d+)/.exec(location.hash), i = m ? parseInt(m[1], 10) - 1 : -1;
    if (byIndex[i]) {
      document.getElementById('nuggets').scrollIntoView(); CJ.showNugget(P, byIndex[i][0], byIndex[i][1]);
    }
  }
  opened(); window.addEventListener('hashchange', opened);
};
CJ.showNugget = function (P, n, li) {
  var panel = document.getElementById('nugget-panel'), k = CJ.NUGGET[n.assignment];
  document.querySelectorAll('li.nugget.on').forEach(function (x) { x.classList.remove('on'); });
  li.classList.add('on'); panel.textContent = '';
  var h = CJ.el('h3'); h.appendChild(CJ.el('span', {'class': 'badge b-' + k[0]}, k[1]));
  h.appendChild(document.createTextNode(' nugget ' + (n.i + 1) + ' (' + (n.vital ? 'vital' : 'okay') + '): ' + n.text));
  panel.appendChild(h);
  panel.appendChild(CJ.el('div', {'class': 'explanation', id: 'nugget-explanation'}, n.explanation));
  var t = CJ.el('table', {'class': 'kv'}), rows = [['P(support)', CJ.num(n.p[0])],
    ['P(partial support)', CJ.num(n.p[1])], ['P(not)', CJ.num(n.p[2])], ['importance', n.vital ? 'vital' : 'okay']];
  if (n.human) rows.push(["assessors' assignment", n.human + (n.human !== n.assignment ? '  (disagrees)' : '')]);
  rows.forEach(function (r) {
    var tr = CJ.el('tr'); tr.appendChild(CJ.el('th', {'class': 'l'}, r[0])); tr.appendChild(CJ.el('td', {}, r[1]));
    t.appendChild(tr);
  });
  panel.appendChild(t);
  if (n.assignment === 'not_support') {
    panel.appendChild(CJ.el('p', {'class': 'muted'}, 'Not found in the answer.'));
  } else if (n.spans16.length) {
    panel.appendChild(CJ.el('h4', {}, 'In the answer' + (n.spans16.length > 1 ? ' (' + n.spans16.length +
      ' places)' : '')));
    var box = CJ.marked(P.nugget_text, n.spans16, null, 0, 'nugget-mark'); box.id = 'nugget-answer';
    panel.appendChild(box);
  } else {
    panel.appendChild(CJ.el('p', {'class': 'warning'}, 'The answer in the run files is not the text judged ' +
      '(run files changed?); the places the judge found: ' + n.span_text.join(' … ')));
  }
  var mk = document.getElementById('nugget-mark'); if (mk) CJ.reveal(panel, h, mk);
  history.replaceState(null, '', '#n=' + (n.i + 1));  // the number shown: 'nugget K' is #n=K
};
CJ.run = function () {
  var R = window.CJ_RUN, host = document.getElementById('citations'), counts = {};
  R.rows.forEach(function (r) { var k = CJ.kinds(r); for (var f in k) counts[f] = (counts[f] || 0) + 1; });
  var on = CJ.filterBar(host, counts, draw), box = CJ.el('div'); host.appendChild(box);
  function draw(on) {
    box.textContent = '';
    var shown = R.rows.filter(function (r) { return CJ.pass(r, on); }), limit = 1000;
    box.appendChild(CJ.el('p', {'class': 'muted', id: 'shown'}, shown.length + ' of ' + R.rows.length + ' citations' +
      (shown.length > limit ? ' (the first ' + limit + ' listed)' : '')));
    var t = CJ.el('table', {'class': 'sortable'}), head = CJ.el('tr');
    var labelled = R.rows.some(function (r) { return r.human_label; });
    ['topic', 'sentence', 'citation', 'document', 'status', 'P(full)'].concat(labelled ? ["assessor's label"] : [])
      .concat(['explanation']).forEach(function (h) { head.appendChild(CJ.el('th', {'class': 'l'}, h)); });
    t.appendChild(head);
    shown.slice(0, limit).forEach(function (r) {
      var tr = CJ.el('tr', {'class': 'st-' + r.status}), a = CJ.el('a', {href: r.href + '#c=' + r.key}, r.topic_id),
        td = CJ.el('td', {'class': 'l'});
      td.appendChild(a); tr.appendChild(td);
      [r.sentence_index, '[' + (r.rank + 1) + ']', r.doc_id, r.status, CJ.num(r.p_full)]
        .concat(labelled ? [r.human_label || ''] : []).concat([r.explanation])
        .forEach(function (v) { tr.appendChild(CJ.el('td', {'class': 'l'}, v)); });
      t.appendChild(tr);
    });
    box.appendChild(t);
  }
  draw(on);
};
CJ.sortable = function () {
  document.querySelectorAll('table.sortable').forEach(function (t) {
    t.querySelectorAll('th').forEach(function (th, i) {
      th.addEventListener('click', function () {
        var rows = Array.prototype.slice.call(t.querySelectorAll('tr'))
          .filter(function (r) { return r.querySelector('td'); });
        // the first click sorts by the header's data-first (asc for a rank: best first), else descending
        var now = th.getAttribute('data-dir') || (th.getAttribute('data-first') === 'asc' ? 'desc' : 'asc');
        var dir = now === 'desc' ? 1 : -1;
        th.setAttribute('data-dir', dir === 1 ? 'asc' : 'desc');
        function key(r) {
          var c = r.children[i]; if (!c) return '';
          var v = c.getAttribute('data-v'); if (v === null) return c.textContent;
          var n = parseFloat(v); return isNaN(n) ? null : n;
        }
        rows.sort(function (a, b) {  // no value ('—') last, either way
          var x = key(a), y = key(b);
          if (x === null || y === null) return (x === null) - (y === null);
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
        rows.forEach(function (r) { r.parentNode.appendChild(r); });
      });
    });
  });
};
document.addEventListener('DOMContentLoaded', CJ.sortable);
