/* revloop report: client behaviour (no dependencies, no network).
   - legend buttons focus one or more controllers across every chart;
   - the drill-down reads the trajectory data embedded once as a JSON script element,
     filters and searches it, lists matches a page at a time, and builds a trajectory's details
     (drafts, word diffs, verifier reports) only when it is opened.
   Every model-written string is inserted with textContent, never as HTML. */
/* global document, window, location, history */
(function () {
  'use strict';

  var PAGE = 100;

  // Energies are shown rounded (4 significant digits); the exact value is the tooltip (and in the data).
  function energyText(e) {
    return e == null ? '–' : String(Number(e.toPrecision(4)));
  }
  function energyTitle(e) {
    return e == null ? null : 'exact: ' + String(e);
  }

  // A controller's name as shown next to its SIMULATED badge: without the label's own "[simulated]".
  function shownName(c) {
    return c.simulated ? c.name.replace(/\s*\[simulated\]$/i, '') : c.name;
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      for (var key in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, key)) continue;
        var value = attrs[key];
        if (value == null || value === false) continue;
        if (key === 'text') node.textContent = value;
        else if (key === 'className') node.className = value;
        else node.setAttribute(key, value === true ? '' : String(value));
      }
    }
    (children || []).forEach(function (c) {
      if (c == null) return;
      node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return node;
  }

  /* ---------- legend focus (charts and bars) ---------- */
  function setupLegend() {
    var focused = {};
    var buttons = document.querySelectorAll('[data-focus-controller]');
    function apply() {
      var any = false;
      for (var k in focused) if (focused[k]) any = true;
      document.body.classList.toggle('focus-mode', any);
      document.querySelectorAll('[data-controller]').forEach(function (node) {
        node.classList.toggle('focused', !!focused[node.getAttribute('data-controller')]);
      });
      buttons.forEach(function (b) {
        b.setAttribute('aria-pressed', focused[b.getAttribute('data-focus-controller')] ? 'true' : 'false');
      });
    }
    buttons.forEach(function (b) {
      b.addEventListener('click', function () {
        var name = b.getAttribute('data-focus-controller');
        focused[name] = !focused[name];
        apply();
      });
    });
    var clear = document.getElementById('clear-focus');
    if (clear)
      clear.addEventListener('click', function () {
        focused = {};
        apply();
      });
  }

  /* ---------- drill-down ---------- */
  function readData() {
    var node = document.getElementById('revloop-data');
    if (!node) return null;
    return JSON.parse(node.textContent);
  }

  function setupDrilldown(data) {
    var root = document.getElementById('drilldown');
    if (!root || !data) return;
    var strings = data.strings;
    var trajs = data.trajectories;
    var controllers = data.controllers;
    var labels = data.labels || { repeat: {}, category: {}, outcome: {} };
    var lower = new Array(strings.length);
    function lowerOf(i) {
      var s = lower[i];
      if (s === undefined) s = lower[i] = strings[i].toLowerCase();
      return s;
    }

    var fController = document.getElementById('f-controller');
    var fFamily = document.getElementById('f-family');
    var fOutcome = document.getElementById('f-outcome');
    var fRepeat = document.getElementById('f-repeat');
    var fCategory = document.getElementById('f-category');
    var fSearch = document.getElementById('f-search');
    var fDrafts = document.getElementById('f-drafts');
    var count = document.getElementById('f-count');
    var tbody = document.getElementById('traj-rows');
    var more = document.getElementById('traj-more');
    var detail = document.getElementById('traj-detail');

    function addOptions(select, values, labelOf) {
      values.forEach(function (v) {
        select.appendChild(el('option', { value: v, text: labelOf ? labelOf(v) : v }));
      });
    }
    function distinct(fn) {
      var seen = {};
      var out = [];
      trajs.forEach(function (t) {
        var v = fn(t);
        if (v == null || seen[v]) return;
        seen[v] = true;
        out.push(v);
      });
      return out;
    }
    addOptions(
      fController,
      controllers.map(function (_c, i) {
        return String(i);
      }),
      function (i) {
        var c = controllers[+i];
        return shownName(c) + (c.simulated ? ' (SIMULATED)' : '');
      },
    );
    addOptions(
      fFamily,
      distinct(function (t) {
        return t.fam;
      }),
    );
    addOptions(
      fOutcome,
      distinct(function (t) {
        return t.outcome;
      }),
      function (v) {
        return labels.outcome[v] || v;
      },
    );
    addOptions(
      fRepeat,
      Object.keys(labels.repeat).filter(function (k) {
        return trajs.some(function (t) {
          return t.rc === k;
        });
      }),
      function (v) {
        return labels.repeat[v] || v;
      },
    );
    var cats = Object.keys(labels.category).filter(function (k) {
      return trajs.some(function (t) {
        return t.cat === k;
      });
    });
    addOptions(fCategory, cats, function (v) {
      return labels.category[v] || v;
    });
    if (!cats.length) fCategory.closest('label').hidden = true;

    var matches = [];
    var shown = 0;
    var selectedId = null;

    function matchesQuery(t, q, inDrafts) {
      if (!q) return true;
      if (t.caseId.toLowerCase().indexOf(q) >= 0 || t.run.toLowerCase().indexOf(q) >= 0 || t.src.toLowerCase().indexOf(q) >= 0) return true;
      if (controllers[t.k].name.toLowerCase().indexOf(q) >= 0) return true;
      if (!inDrafts) return false;
      for (var i = 0; i < t.rounds.length; i++) if (lowerOf(t.rounds[i].t).indexOf(q) >= 0) return true;
      return false;
    }

    function applyFilters() {
      var c = fController.value;
      var f = fFamily.value;
      var o = fOutcome.value;
      var r = fRepeat.value;
      var cat = fCategory.value;
      var q = fSearch.value.trim().toLowerCase();
      var inDrafts = fDrafts.checked;
      matches = [];
      for (var i = 0; i < trajs.length; i++) {
        var t = trajs[i];
        if (c !== '' && String(t.k) !== c) continue;
        if (f !== '' && t.fam !== f) continue;
        if (o !== '' && t.outcome !== o) continue;
        if (r !== '' && t.rc !== r) continue;
        if (cat !== '' && t.cat !== cat) continue;
        if (!matchesQuery(t, q, inDrafts)) continue;
        matches.push(i);
      }
      tbody.textContent = '';
      shown = 0;
      renderMore();
    }

    function outcomeBadge(t) {
      var cls = t.outcome === 'success' ? 'ok' : t.outcome === 'failure' ? 'bad' : 'neutral';
      return el('span', { className: 'badge ' + cls, text: labels.outcome[t.outcome] || t.outcome });
    }
    function simBadge() {
      return el('span', { className: 'badge sim', text: 'SIMULATED', title: 'Simulated controller: not a model\u2019s behaviour' });
    }

    function rowFor(index) {
      var t = trajs[index];
      var c = controllers[t.k];
      var last = t.rounds.length ? t.rounds[t.rounds.length - 1] : null;
      var tr = el('tr', { tabindex: '0', 'data-id': t.id, 'aria-selected': t.id === selectedId ? 'true' : 'false' }, [
        el('td', null, [el('code', { text: t.caseId })]),
        el('td', null, [shownName(c), c.simulated ? ' ' : null, c.simulated ? simBadge() : null]),
        el('td', { text: t.fam }),
        el('td', { text: t.src }),
        el('td', null, [outcomeBadge(t)]),
        el('td', { text: t.rc ? labels.repeat[t.rc] || t.rc : '' }),
        el('td', { className: 'num', text: String(Math.max(0, t.rounds.length - 1)) }),
        el('td', { className: 'num', text: energyText(last ? last.e : null), title: energyTitle(last ? last.e : null) }),
      ]);
      function open() {
        openTrajectory(index, true);
      }
      tr.addEventListener('click', open);
      tr.addEventListener('keydown', function (ev) {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          open();
        }
      });
      return tr;
    }

    function renderMore() {
      var end = Math.min(matches.length, shown + PAGE);
      var frag = document.createDocumentFragment();
      for (var i = shown; i < end; i++) frag.appendChild(rowFor(matches[i]));
      tbody.appendChild(frag);
      shown = end;
      count.textContent =
        'Showing ' +
        shown.toLocaleString('en') +
        ' of ' +
        matches.length.toLocaleString('en') +
        ' matching trajectories (' +
        trajs.length.toLocaleString('en') +
        ' in total)';
      more.hidden = shown >= matches.length;
    }

    /* Renders the word diff between two drafts from the encoded [op, length, …] list. */
    function diffNode(oldText, newText, ops) {
      var frag = document.createDocumentFragment();
      var i = 0;
      var j = 0;
      for (var k = 0; k < ops.length; k += 2) {
        var op = ops[k];
        var len = ops[k + 1];
        if (op === 1) {
          frag.appendChild(el('ins', { className: 'add', text: newText.slice(j, j + len) }));
          j += len;
        } else if (op === -1) {
          frag.appendChild(el('del', { className: 'rem', text: oldText.slice(i, i + len) }));
          i += len;
        } else {
          frag.appendChild(document.createTextNode(newText.slice(j, j + len)));
          i += len;
          j += len;
        }
      }
      return frag;
    }

    function draftPane(t, ri) {
      var r = t.rounds[ri];
      var text = strings[r.t];
      var prev = ri > 0 ? t.rounds[ri - 1] : null;
      var pre = el('pre', { className: 'text' });
      var title = el('div', { className: 'pane-title' }, [t.imp ? 'Draft (imported, as logged by its source)' : 'Draft']);
      var canDiff = prev && r.d;
      function show(mode) {
        pre.textContent = '';
        if (mode === 'diff') pre.appendChild(diffNode(strings[prev.t], text, r.d));
        else pre.textContent = text;
        if (!text.length) pre.appendChild(el('span', { className: 'empty', text: '(empty draft)' }));
        tabs.querySelectorAll('button').forEach(function (b) {
          b.setAttribute('aria-pressed', b.getAttribute('data-mode') === mode ? 'true' : 'false');
        });
      }
      var tabs = el('span', { className: 'tabs' });
      if (canDiff) {
        var bd = el('button', { type: 'button', 'data-mode': 'diff', text: 'diff vs r' + prev.v });
        var bt = el('button', { type: 'button', 'data-mode': 'text', text: 'text' });
        bd.addEventListener('click', function () {
          show('diff');
        });
        bt.addEventListener('click', function () {
          show('text');
        });
        tabs.appendChild(bd);
        tabs.appendChild(bt);
        title.appendChild(tabs);
      } else if (prev && r.d === null) {
        title.appendChild(el('span', { className: 'muted', text: '(diff too large to compute; full text shown)' }));
      } else if (prev && prev.t === r.t) {
        title.appendChild(el('span', { className: 'muted', text: '(unchanged from revision ' + prev.v + ')' }));
      }
      show(canDiff ? 'diff' : 'text');
      return el('div', { className: 'pane draft' }, [title, pre]);
    }

    function feedbackPane(t, r) {
      if (r.j)
        return el('div', { className: 'pane' }, [
          el('div', { className: 'pane-title', text: 'Verifier' }),
          el('p', { text: 'Joint success: every constraint holds. The loop stops here.' }),
        ]);
      if (r.fb < 0)
        return el('div', { className: 'pane' }, [
          el('div', { className: 'pane-title', text: 'Verifier report' }),
          el('p', { className: 'empty', text: t.err || 'not available' }),
        ]);
      // An import's reports were never sent by revloop: they are its rendering of the stored state.
      if (t.imp)
        return el('div', { className: 'pane' }, [
          el('div', {
            className: 'pane-title',
            text: 'Verifier report \u2014 revloop\u2019s rendering of this state (imported: not sent by revloop)',
          }),
          el('pre', { className: 'feedback unsent', text: strings[r.fb] }),
        ]);
      return el('div', { className: 'pane' }, [
        el('div', {
          className: 'pane-title',
          text: r.sent ? 'Verifier report \u2014 sent to the model' : 'Verifier report \u2014 not sent (budget exhausted)',
        }),
        el('pre', { className: 'feedback' + (r.sent ? '' : ' unsent'), text: strings[r.fb] }),
      ]);
    }

    function openTrajectory(index, updateHash) {
      var t = trajs[index];
      var c = controllers[t.k];
      selectedId = t.id;
      tbody.querySelectorAll('tr[aria-selected="true"]').forEach(function (tr) {
        tr.setAttribute('aria-selected', 'false');
      });
      var row = tbody.querySelector('tr[data-id="' + cssEscape(t.id) + '"]');
      if (row) row.setAttribute('aria-selected', 'true');
      detail.textContent = '';
      detail.hidden = false;
      var head = el('h3', null, [
        'Case ',
        el('code', { text: t.caseId }),
        ' \u00b7 ',
        shownName(c),
        c.simulated ? ' ' : null,
        c.simulated ? simBadge() : null,
      ]);
      var facts = [
        ['run', t.run],
        ['family', t.fam],
        ['source', t.src],
        ['outcome', null],
        ['repeat class', t.rc ? labels.repeat[t.rc] || t.rc : t.outcome === 'failure' ? '' : 'n/a (not a failure)'],
      ];
      if (t.cat) facts.push(['failure category', labels.category[t.cat] || t.cat]);
      if (t.target != null) facts.push(['target words', String(t.target)]);
      if (t.anchors) facts.push(['anchors', t.anchors.join('; ')]);
      facts.push(['revisions used', String(Math.max(0, t.rounds.length - 1)) + ' of ' + t.budget]);
      if (t.status !== 'complete') facts.push(['status', t.status + (t.why ? ': ' + t.why : '')]);
      var dl = el('dl');
      facts.forEach(function (f) {
        dl.appendChild(el('dt', { text: f[0] }));
        dl.appendChild(f[0] === 'outcome' ? el('dd', null, [outcomeBadge(t)]) : el('dd', { text: f[1] }));
      });
      var parts = [head, dl];
      if (t.imp)
        parts.push(
          el('p', { className: 'note import-note' }, [
            el('span', { className: 'badge neutral', text: 'IMPORTED' }),
            ' Imported trajectory (' +
              t.imp +
              '): its drafts are as logged by its source. revloop verified them and sent nothing to any model; the prompt and verifier reports below are revloop\u2019s renderings for this case and these states, not a record of what the source sent.',
          ]),
        );
      if (t.p >= 0) {
        parts.push(
          el('details', { className: 'more' }, [
            el('summary', {
              text: t.imp
                ? 'Initial prompt (revloop\u2019s rendering of this case; imported run: not sent by revloop)'
                : 'Initial prompt (exactly as sent)',
            }),
            el('pre', { className: 'prompt', text: strings[t.p] }),
          ]),
        );
      }
      if (t.err) parts.push(el('p', { className: 'note', text: t.err }));
      var firstSeen = {};
      t.rounds.forEach(function (r, ri) {
        var badges = [
          el('strong', { text: 'Revision ' + r.v }),
          r.j ? el('span', { className: 'badge ok', text: 'joint success' }) : el('span', { className: 'badge bad', text: 'violations' }),
          el('span', { className: 'muted', text: 'energy ' + energyText(r.e), title: energyTitle(r.e) }),
        ];
        if (firstSeen[r.t] !== undefined)
          badges.push(el('span', { className: 'badge neutral', text: 'identical to revision ' + firstSeen[r.t] }));
        else firstSeen[r.t] = r.v;
        parts.push(
          el('div', { className: 'round', 'data-revision': r.v }, [
            el('div', { className: 'round-head' }, badges),
            el('div', { className: 'cols' }, [draftPane(t, ri), feedbackPane(t, r)]),
          ]),
        );
      });
      if (!t.rounds.length) parts.push(el('p', { className: 'empty', text: 'No accepted drafts.' }));
      var close = el('button', { type: 'button', className: 'action no-print', text: 'Close' });
      close.addEventListener('click', function () {
        detail.hidden = true;
        selectedId = null;
        if (row) row.setAttribute('aria-selected', 'false');
        history.replaceState(null, '', location.pathname + location.search + '#drilldown');
      });
      parts.unshift(el('div', { className: 'no-print' }, [close]));
      parts.forEach(function (p) {
        detail.appendChild(p);
      });
      if (updateHash) history.replaceState(null, '', '#t=' + encodeURIComponent(t.id));
      detail.scrollIntoView({ block: 'start' });
    }

    function cssEscape(s) {
      return s.replace(/["\\]/g, '\\$&');
    }

    var timer = null;
    [fController, fFamily, fOutcome, fRepeat, fCategory, fDrafts].forEach(function (s) {
      s.addEventListener('change', applyFilters);
    });
    fSearch.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(applyFilters, 150);
    });
    more.addEventListener('click', renderMore);
    document.getElementById('f-reset').addEventListener('click', function () {
      [fController, fFamily, fOutcome, fRepeat, fCategory].forEach(function (s) {
        s.value = '';
      });
      fSearch.value = '';
      applyFilters();
    });
    applyFilters();

    var m = /^#t=(.+)$/.exec(location.hash);
    if (m) {
      var id = decodeURIComponent(m[1]);
      for (var i = 0; i < trajs.length; i++)
        if (trajs[i].id === id) {
          openTrajectory(i, false);
          break;
        }
    }
    root.setAttribute('data-ready', 'true');
  }

  // A table wider than the page scrolls inside its box: say so above it, with the number of columns
  // out of sight, and let the keyboard scroll it (the CSS adds edge shadows while there is more).
  function markOverflow() {
    document.querySelectorAll('.table-wrap').forEach(function (wrap) {
      var over = wrap.scrollWidth > wrap.clientWidth + 1;
      var cue =
        wrap.previousElementSibling && wrap.previousElementSibling.classList.contains('scroll-cue') ? wrap.previousElementSibling : null;
      wrap.classList.toggle('overflows', over);
      if (!over) {
        if (cue) cue.remove();
        wrap.removeAttribute('tabindex');
        return;
      }
      var right = wrap.getBoundingClientRect().right;
      var row = wrap.querySelector('thead tr:last-child') || wrap.querySelector('tr');
      var hidden = row
        ? Array.prototype.filter.call(row.children, function (cell) {
            return cell.getBoundingClientRect().right > right + 1;
          }).length
        : 0;
      var text =
        '\u2194 ' +
        (hidden ? hidden + ' more column' + (hidden === 1 ? '' : 's') + ' to the right: ' : 'More columns to the right: ') +
        'scroll the table sideways';
      if (!cue) {
        cue = el('p', { className: 'scroll-cue no-print' });
        wrap.parentNode.insertBefore(cue, wrap);
      }
      cue.textContent = text;
      wrap.setAttribute('tabindex', '0');
      if (!wrap.getAttribute('aria-label')) wrap.setAttribute('aria-label', 'table (scrolls sideways)');
    });
  }

  function start() {
    setupLegend();
    markOverflow();
    window.addEventListener('resize', markOverflow);
    window.addEventListener('beforeprint', function () {
      document.querySelectorAll('details.more').forEach(function (d) {
        d.open = true;
      });
    });
    var data;
    try {
      data = readData();
    } catch (e) {
      var root = document.getElementById('drilldown');
      if (root)
        root.appendChild(el('p', { className: 'banner', text: 'The embedded trajectory data could not be read: ' + (e && e.message) }));
      return;
    }
    setupDrilldown(data);
    document.documentElement.setAttribute('data-report-ready', 'true');
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
