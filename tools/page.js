/* SPDX-License-Identifier: MIT */
/* The script of `vramtrace html`'s page, embedded in it (tools/CMakeLists.txt makes page_js.c of
 * this file). It draws the timeline again from the page's data (the JSON element "vt-data",
 * tools/page_data.c) with what a static SVG cannot do: hover a moment or a band for the
 * call-sites live then and their stacks; zoom (wheel, buttons) and pan (drag); click a call-site
 * to highlight its memory on the chart; frames folded to the program's own or all. Without
 * script the page keeps its static chart: this only adds. Nothing is fetched. */
(function () {
  'use strict';
  var dataEl = document.getElementById('vt-data');
  var section = document.getElementById('timeline');
  if (!dataEl || !section || !window.JSON || !document.createElementNS) return;
  var D = JSON.parse(dataEl.textContent);
  var N = D.n_cols, SPAN = Math.max(D.span_ns, 1);
  var NS = 'http://www.w3.org/2000/svg';
  var PX0 = 84, PR = 24, PH = 260, PT = 34, PANEL = PH + PT + 40;

  /* Run-length coded columns (page_data.c): a value, then -K for K more of it. */
  function decode(a) {
    var out = new Float64Array(N), k = 0, prev = 0;
    for (var i = 0; i < a.length && k < N; i++) {
      var v = a[i];
      if (v < 0) { for (var r = 0; r < -v && k < N; r++) out[k++] = prev; }
      else { out[k++] = v; prev = v; }
    }
    return out;
  }
  D.devices.forEach(function (d) {
    d.cats = d.by_category.map(decode);
    d.total = new Float64Array(N);
    d.cats.forEach(function (c) { for (var i = 0; i < N; i++) d.total[i] += c[i]; });
  });
  D.sites.forEach(function (s, k) { s.k = k; s.series = decode(s.cols); });

  var state = { t0: 0, t1: SPAN, allFrames: !!D.all_frames, selected: -1, pinned: null };

  /* ---- formatting ---- */
  function fmtBin(v) {
    if (v < 1024) return Math.round(v) + ' B';
    var u = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'], x = v / 1024, i = 0;
    while (x >= 1024 && i < 5) { x /= 1024; i++; }
    return x.toFixed(2) + ' ' + u[i];
  }
  function fmtTick(v) {
    if (!v) return '0';
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'], x = v, i = 0;
    while (x >= 1024 && i < 5) { x /= 1024; i++; }
    return parseFloat(x.toFixed(3)) + ' ' + u[i];
  }
  function unitOf(span) {
    return span >= 1e9 ? [1e9, 's'] : span >= 1e6 ? [1e6, 'ms'] : span >= 1e3 ? [1e3, 'us'] : [1, 'ns'];
  }
  function fmtTime(ns, span) {
    var u = unitOf(span || ns), dec = Math.max(0, Math.min(9, 3 - Math.floor(Math.log10(Math.max(span || ns, 1) / u[0]))));
    return (ns / u[0]).toFixed(dec) + ' ' + u[1];
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }
  function el(tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  var COLORS = D.colors;

  /* ---- controls ---- */
  var bar = document.createElement('div');
  bar.id = 'vt-controls';
  bar.innerHTML = '<button type="button" id="vt-zoom-in" title="zoom in (or the mouse wheel)">+</button> ' +
    '<button type="button" id="vt-zoom-out" title="zoom out">&minus;</button> ' +
    '<button type="button" id="vt-reset">whole run</button> ' +
    '<label><input type="checkbox" id="vt-all-frames"> all frames</label> ' +
    '<span id="vt-range"></span> <span class="vt-help">hover for the call-sites live then; ' +
    'drag to pan, wheel to zoom; click the chart to pin, a call-site to highlight it</span>';
  var chart = document.createElement('div');
  chart.id = 'vt-chart';
  var hover = document.createElement('div');
  hover.id = 'vt-hover';
  hover.innerHTML = '<p>Hover the chart: the call-sites live at that moment appear here.</p>';
  var tip = document.createElement('div');
  tip.id = 'vt-tip';
  tip.style.display = 'none';
  var staticChart = document.getElementById('vt-static');
  if (staticChart) staticChart.style.display = 'none';
  section.appendChild(bar);
  section.appendChild(chart);
  section.appendChild(tip);
  section.appendChild(hover);
  var allBox = document.getElementById('vt-all-frames');
  allBox.checked = state.allFrames;

  /* ---- the chart ---- */
  function visibleCols() {
    var c0 = Math.max(0, Math.floor(state.t0 / SPAN * N));
    var c1 = Math.min(N - 1, Math.ceil(state.t1 / SPAN * N));
    return [c0, c1];
  }
  function niceTime(span) {
    var m = 1;
    for (;;) {
      if (span / m <= 10) return m;
      if (span / (2 * m) <= 10) return 2 * m;
      if (span / (5 * m) <= 10) return 5 * m;
      m *= 10;
    }
  }
  /* Labels placed left to right in the first of three rows where they fit, else left out (the
   * band's title names it): labels never overlap. */
  function placeLabels(items, x0, x1) {
    var rows = [-Infinity, -Infinity, -Infinity], out = [];
    items.forEach(function (it) {
      var w = it.text.length * 6.6 + 8;
      if (it.x + w > x1 && it.x < x1) it.x = Math.max(x0, x1 - w);
      for (var r = 0; r < rows.length; r++) {
        if (it.x >= rows[r] && it.x + w <= x1 + 1) {
          rows[r] = it.x + w;
          out.push({ x: it.x, row: r, text: it.text, title: it.title });
          return;
        }
      }
    });
    return out;
  }

  var panels = [];
  function draw() {
    chart.innerHTML = '';
    panels = [];
    var W = Math.max(600, chart.clientWidth || section.clientWidth || 1200);
    var PW = W - PX0 - PR, span = state.t1 - state.t0;
    var vc = visibleCols();
    function X(t) { return PX0 + (t - state.t0) / span * PW; }
    document.getElementById('vt-range').textContent =
      fmtTime(state.t0, span) + ' \u2013 ' + fmtTime(state.t1, span) + ' of ' + fmtTime(SPAN);
    D.devices.forEach(function (d, di) {
      var svg = el('svg', { width: W, height: PANEL, viewBox: '0 0 ' + W + ' ' + PANEL,
        'class': 'vt-panel', 'font-family': 'sans-serif', 'font-size': 12 });
      var title = 'device ' + d.device + (d.name ? ' (' + d.name + (d.capacity_bytes ? ', ' + fmtBin(d.capacity_bytes) : '') + ')' : '');
      svg.appendChild(el('text', { x: PX0, y: 18, 'font-weight': 'bold', 'font-size': 14 }, title));
      var top = 1;
      for (var i = vc[0]; i <= vc[1]; i++) top = Math.max(top, d.total[i]);
      var cap = d.capacity_bytes, capOn = cap && cap / 4 <= top;
      if (capOn && cap > top) top = cap;
      var step = 1;
      while (Math.ceil(top / step) > 8) step *= 2;
      var ymax = Math.ceil(top / step) * step;
      function Y(v) { return PT + PH - PH * v / ymax; }
      svg.appendChild(el('rect', { x: PX0, y: PT, width: PW, height: PH, fill: '#fafafa', stroke: '#999' }));
      var clip = el('clipPath', { id: 'vt-clip' + di });
      clip.appendChild(el('rect', { x: PX0, y: PT - 20, width: PW, height: PH + 20 }));
      svg.appendChild(clip);
      var plot = el('g', { 'clip-path': 'url(#vt-clip' + di + ')' });
      svg.appendChild(plot);
      /* phase bands behind the areas */
      var labels = [];
      D.bands.forEach(function (b) {
        if (b[1] < state.t0 || b[0] > state.t1) return;
        var x0 = Math.max(PX0, X(b[0])), x1 = Math.min(PX0 + PW, X(b[1]));
        var r = el('rect', { 'class': 'vt-phase', x: x0, y: PT, width: Math.max(1, x1 - x0), height: PH,
          fill: '#8c8cc8', 'fill-opacity': 0.18, stroke: '#8c8cc8', 'stroke-opacity': 0.35 });
        r.appendChild(el('title', {}, b[2] + ': ' + fmtTime(b[0], span) + ' \u2013 ' + fmtTime(b[1], span)));
        plot.appendChild(r);
        if (x1 - x0 >= 24) labels.push({ x: x0 + 3, text: b[2], title: b[2] });
      });
      /* the areas, stacked in category order; a step per column */
      var base = new Float64Array(vc[1] - vc[0] + 1);
      d.cats.forEach(function (c, ci) {
        var any = false;
        for (var i = vc[0]; i <= vc[1] && !any; i++) any = c[i] > 0;
        if (!any) return;
        var up = [], down = [];
        for (var i2 = vc[0]; i2 <= vc[1]; i2++) {
          var j = i2 - vc[0], xa = X(i2 * SPAN / N), xb = X((i2 + 1) * SPAN / N);
          var lo = base[j], hi = lo + c[i2];
          up.push(xa.toFixed(1) + ' ' + Y(hi).toFixed(1), xb.toFixed(1) + ' ' + Y(hi).toFixed(1));
          down.push(xb.toFixed(1) + ' ' + Y(lo).toFixed(1), xa.toFixed(1) + ' ' + Y(lo).toFixed(1));
          base[j] = hi;
        }
        down.reverse();
        var p = el('path', { 'class': 'vt-area ' + D.categories[ci], fill: COLORS[ci], 'fill-opacity': 0.85,
          d: 'M' + up.join(' L') + ' L' + down.join(' L') + ' Z' });
        plot.appendChild(p);
      });
      /* the highlighted call-site: its live bytes, outlined over the areas */
      var sel = D.sites[state.selected];
      if (sel && sel.device === d.device) {
        var pts = [];
        for (var i3 = vc[0]; i3 <= vc[1]; i3++) {
          var y = Y(sel.series[i3]).toFixed(1);
          pts.push(X(i3 * SPAN / N).toFixed(1) + ' ' + y, X((i3 + 1) * SPAN / N).toFixed(1) + ' ' + y);
        }
        plot.appendChild(el('path', { 'class': 'vt-highlight', fill: '#000', 'fill-opacity': 0.28,
          stroke: '#000', 'stroke-width': 2, d: 'M' + X(vc[0] * SPAN / N).toFixed(1) + ' ' + Y(0) +
          ' L' + pts.join(' L') + ' L' + X((vc[1] + 1) * SPAN / N).toFixed(1) + ' ' + Y(0) + ' Z' }));
      }
      /* marks: ticks at the top */
      D.marks.forEach(function (m) {
        if (m[0] < state.t0 || m[0] > state.t1) return;
        var l = el('line', { 'class': 'vt-mark', x1: X(m[0]), x2: X(m[0]), y1: PT, y2: PT + 6, stroke: '#446' });
        l.appendChild(el('title', {}, m[1] + ' at ' + fmtTime(m[0], span)));
        plot.appendChild(l);
      });
      placeLabels(labels, PX0, PX0 + PW).forEach(function (l) {
        var t = el('text', { 'class': 'vt-phase-label', x: l.x, y: PT + 12 + 13 * l.row, fill: '#446' }, l.text);
        plot.appendChild(t);
      });
      /* axes */
      for (var v = 0; v <= ymax; v += step) {
        svg.appendChild(el('line', { x1: PX0, x2: PX0 + PW, y1: Y(v), y2: Y(v), stroke: '#ddd' }));
        svg.appendChild(el('text', { 'class': 'vt-ytick', x: PX0 - 6, y: Y(v) + 4, 'text-anchor': 'end' }, fmtTick(v)));
      }
      var xs = niceTime(span), u = unitOf(span), q = xs / u[0];
      var dec = q >= 1 ? 0 : Math.min(9, Math.ceil(-Math.log10(q) - 1e-9));
      for (var t = Math.ceil(state.t0 / xs) * xs; t <= state.t1; t += xs) {
        svg.appendChild(el('line', { x1: X(t), x2: X(t), y1: PT + PH, y2: PT + PH + 5, stroke: '#999' }));
        svg.appendChild(el('text', { 'class': 'vt-xtick', x: X(t), y: PT + PH + 18, 'text-anchor': 'middle' },
          t ? (t / u[0]).toFixed(Math.max(0, dec)) + ' ' + u[1] : '0'));
      }
      /* the capacity, the peak, the OOMs */
      if (capOn)
        svg.appendChild(el('line', { 'class': 'vt-capacity', x1: PX0, x2: PX0 + PW, y1: Y(cap), y2: Y(cap),
          stroke: '#000', 'stroke-width': 1.5 }));
      if (capOn)
        svg.appendChild(el('text', { x: PX0 + PW - 4, y: Y(cap) - 4, 'text-anchor': 'end' }, 'capacity ' + fmtBin(cap)));
      else if (cap)
        svg.appendChild(el('text', { x: PX0 + PW, y: 18, 'text-anchor': 'end' }, 'capacity ' + fmtBin(cap) + ', above the scale'));
      if (d.peak_bytes && d.peak_ns >= state.t0 && d.peak_ns <= state.t1) {
        var px = X(d.peak_ns), right = px > PX0 + 0.7 * PW;
        plot.appendChild(el('line', { 'class': 'vt-peak', x1: px, x2: px, y1: PT, y2: PT + PH, stroke: '#c00',
          'stroke-width': 1.5, 'stroke-dasharray': '4 3' }));
        plot.appendChild(el('text', { x: right ? px - 4 : px + 4, y: PT + PH - 8, fill: '#c00',
          'text-anchor': right ? 'end' : 'start' }, 'peak ' + fmtBin(d.peak_bytes) + ' at ' + fmtTime(d.peak_ns, span) +
          (D.peak_phase && D.peak_device === d.device ? ' in ' + D.peak_phase : '')));
      }
      D.ooms.forEach(function (o, oi) {
        if (o.device !== d.device || o.time_ns < state.t0 || o.time_ns > state.t1) return;
        var ox = X(o.time_ns);
        var g = el('g', { 'class': 'vt-oom' });
        g.appendChild(el('line', { x1: ox, x2: ox, y1: PT - 14, y2: PT + PH, stroke: '#d00', 'stroke-width': 2 }));
        g.appendChild(el('text', { x: ox + 3, y: PT - 4, fill: '#d00', 'font-weight': 'bold' }, 'OOM'));
        g.appendChild(el('title', {}, 'out of memory at ' + fmtTime(o.time_ns, span) + ': ' + fmtBin(o.requested_bytes) +
          ' requested (the post-mortem is at the top of the page)'));
        svg.appendChild(g);
        g.addEventListener('click', function () {
          var pm = document.getElementById('postmortem');
          if (pm && pm.scrollIntoView) pm.scrollIntoView();
        });
        void oi;
      });
      /* what the mouse talks to */
      var cursor = el('line', { 'class': 'vt-cursor', x1: 0, x2: 0, y1: PT, y2: PT + PH, stroke: '#333', visibility: 'hidden' });
      svg.appendChild(cursor);
      var overlay = el('rect', { 'class': 'vt-overlay', x: PX0, y: PT, width: PW, height: PH, fill: 'transparent' });
      svg.appendChild(overlay);
      panels.push({ d: d, svg: svg, X: X, PW: PW, ymax: ymax, cursor: cursor, overlay: overlay });
      chart.appendChild(svg);
      listen(panels[panels.length - 1]);
    });
  }

  /* ---- the mouse ---- */
  function at(p, ev) {
    var box = p.svg.getBoundingClientRect();
    var sx = box.width ? p.svg.viewBox.baseVal.width / box.width : 1;
    var x = (ev.clientX - box.left) * sx, y = (ev.clientY - box.top) * sx;
    var t = state.t0 + (x - PX0) / p.PW * (state.t1 - state.t0);
    t = Math.max(0, Math.min(SPAN, t));
    var col = Math.max(0, Math.min(N - 1, Math.floor(t / SPAN * N)));
    var v = p.ymax * (PT + PH - y) / PH, cat = -1, sum = 0;
    for (var c = 0; c < p.d.cats.length; c++) {
      sum += p.d.cats[c][col];
      if (p.d.cats[c][col] > 0 && v >= 0 && v <= sum) { cat = c; break; }
    }
    return { x: x, t: t, col: col, cat: cat };
  }
  var drag = null;
  function listen(p) {
    p.overlay.addEventListener('mousemove', function (ev) {
      if (drag) {
        var dt = (ev.clientX - drag.x) / drag.scale * (drag.t1 - drag.t0) / p.PW;
        if (Math.abs(ev.clientX - drag.x) > 3) drag.moved = true;
        setView(drag.t0 - dt, drag.t1 - dt);
        return;
      }
      var a = at(p, ev);
      p.cursor.setAttribute('x1', a.x);
      p.cursor.setAttribute('x2', a.x);
      p.cursor.setAttribute('visibility', 'visible');
      showTip(p, a, ev);
      if (!state.pinned) showMoment(p.d, a);
    });
    p.overlay.addEventListener('mouseleave', function () {
      p.cursor.setAttribute('visibility', 'hidden');
      tip.style.display = 'none';
    });
    p.overlay.addEventListener('mousedown', function (ev) {
      var box = p.svg.getBoundingClientRect();
      drag = { x: ev.clientX, t0: state.t0, t1: state.t1, moved: false,
        scale: box.width ? box.width / p.svg.viewBox.baseVal.width : 1 };
      ev.preventDefault();
    });
    p.overlay.addEventListener('click', function (ev) {
      if (dragged) { dragged = false; return; }
      var a = at(p, ev);
      state.pinned = state.pinned ? null : { d: p.d, a: a };
      showMoment(p.d, a);
    });
    p.overlay.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var a = at(p, ev);
      zoom(ev.deltaY < 0 ? 0.8 : 1.25, a.t);
    });
  }
  var dragged = false; /* the click that ends a drag pins nothing */
  window.addEventListener('mouseup', function () { dragged = !!(drag && drag.moved); drag = null; });

  function showTip(p, a, ev) {
    var d = p.d, parts = [];
    d.cats.forEach(function (c, ci) { if (c[a.col]) parts.push(D.categories[ci] + ' ' + fmtBin(c[a.col])); });
    tip.innerHTML = '<b>' + esc(fmtTime(a.t, state.t1 - state.t0)) + '</b>: ' + esc(fmtBin(d.total[a.col])) +
      (a.cat >= 0 ? ' &mdash; band <b>' + esc(D.categories[a.cat]) + '</b> ' + esc(fmtBin(d.cats[a.cat][a.col])) : '') +
      '<br>' + esc(parts.join(', '));
    tip.style.display = 'block';
    var box = section.getBoundingClientRect();
    tip.style.left = Math.min(ev.clientX - box.left + 14, box.width - 320) + 'px';
    tip.style.top = (ev.clientY - box.top + 14) + 'px';
  }

  function framesHtml(s) {
    var f = state.allFrames ? s.all : s.folded;
    if (!f.length) return '<i>no call-site recorded</i>';
    return '<ol class="frames">' + f.map(function (i) { return '<li>' + esc(D.frames[i]) + '</li>'; }).join('') + '</ol>';
  }
  function swatch(c) {
    return '<span class="swatch" style="background:' + COLORS[c] + '"></span>';
  }

  var moment = null;
  /* The call-sites live at a's column on device d, those of the hovered band first. */
  function showMoment(d, a) {
    moment = { d: d, a: a };
    var col = a.col, span = state.t1 - state.t0;
    var live = D.sites.filter(function (s) { return s.device === d.device && s.series[col] > 0; });
    live.sort(function (x, y) {
      if ((x.category === a.cat) !== (y.category === a.cat)) return x.category === a.cat ? -1 : 1;
      return y.series[col] - x.series[col];
    });
    var t0 = col * SPAN / N, t1 = (col + 1) * SPAN / N;
    var h = '<p class="vt-moment"><b>' + (state.pinned ? 'pinned: ' : '') + 'device ' + d.device + ', ' +
      esc(fmtTime(t0, span)) + ' \u2013 ' + esc(fmtTime(t1, span)) + '</b>: ' + esc(fmtBin(d.total[col])) + ' live';
    if (a.cat >= 0) h += '; band ' + swatch(a.cat) + '<b>' + esc(D.categories[a.cat]) + '</b> ' + esc(fmtBin(d.cats[a.cat][col]));
    h += '</p>';
    if (!live.length) h += '<p>No call-site the page follows was live then.</p>';
    else h += '<p>Call-sites live then (the most each held in that span), innermost frame first; click one to ' +
      'highlight it:</p><ul class="vt-sites">' + live.slice(0, 12).map(function (s) {
        return '<li class="vt-site' + (s.k === state.selected ? ' vt-selected' : '') + '" data-site="' + s.k + '">' +
          swatch(s.category) + '<b>' + esc(fmtBin(s.series[col])) + '</b> ' + esc(D.categories[s.category]) +
          ', ' + s.allocs + ' allocation' + (s.allocs === 1 ? '' : 's') + ' in all' + framesHtml(s) + '</li>';
      }).join('') + '</ul>';
    if (live.length > 12) h += '<p>' + (live.length - 12) + ' more.</p>';
    hover.innerHTML = h;
    Array.prototype.forEach.call(hover.querySelectorAll('.vt-site'), function (li) {
      li.addEventListener('click', function () { select(+li.getAttribute('data-site')); });
    });
  }

  function select(k) {
    state.selected = state.selected === k ? -1 : k;
    Array.prototype.forEach.call(document.querySelectorAll('[data-site]'), function (e) {
      e.classList.toggle('vt-selected', +e.getAttribute('data-site') === state.selected);
    });
    draw();
  }

  /* The tables' call-sites: clickable, and their frames follow the toggle. */
  function tableFrames() {
    Array.prototype.forEach.call(document.querySelectorAll('tr[data-site]'), function (tr) {
      var s = D.sites[+tr.getAttribute('data-site')], ol = tr.querySelector('ol.frames');
      if (!s || !ol) return;
      var f = state.allFrames ? s.all : s.folded;
      ol.innerHTML = f.map(function (i) { return '<li>' + esc(D.frames[i]) + '</li>'; }).join('');
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('tr[data-site]'), function (tr) {
    tr.classList.add('vt-clickable');
    tr.addEventListener('click', function () { select(+tr.getAttribute('data-site')); });
  });

  function setView(t0, t1) {
    var w = t1 - t0, minW = Math.max(2 * SPAN / N, Math.min(SPAN, 1000));
    if (w < minW) { var c = (t0 + t1) / 2; t0 = c - minW / 2; t1 = c + minW / 2; w = minW; }
    if (w > SPAN) { t0 = 0; t1 = SPAN; }
    if (t0 < 0) { t1 -= t0; t0 = 0; }
    if (t1 > SPAN) { t0 -= t1 - SPAN; t1 = SPAN; }
    state.t0 = Math.max(0, t0);
    state.t1 = t1;
    draw();
  }
  function zoom(f, around) {
    if (around === undefined) around = (state.t0 + state.t1) / 2;
    setView(around - (around - state.t0) * f, around + (state.t1 - around) * f);
  }
  document.getElementById('vt-zoom-in').addEventListener('click', function () { zoom(0.5); });
  document.getElementById('vt-zoom-out').addEventListener('click', function () { zoom(2); });
  document.getElementById('vt-reset').addEventListener('click', function () { setView(0, SPAN); });
  allBox.addEventListener('change', function () {
    state.allFrames = allBox.checked;
    tableFrames();
    if (moment) showMoment(moment.d, moment.a);
  });
  window.addEventListener('resize', draw);
  tableFrames();
  draw();
})();
