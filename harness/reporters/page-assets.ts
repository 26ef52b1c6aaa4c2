// The page's style sheet and its small script, inlined into reports/index.html so the file needs no
// network, CDN or font: it opens from disk and from a CI artifact alike. Status is never colour
// alone: every status has its own symbol and word, and the cell border its own line style.

export const PAGE_STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa;
  --passed: #1a7f37; --passed-bg: #dafbe1; --failed: #cf222e; --failed-bg: #ffebe9; --expected-failure: #9a6700; --expected-failure-bg: #fff8c5;
  --unsupported: #6639ba; --unsupported-bg: #fbefff; --inapplicable: #57606a; --inapplicable-bg: #f6f8fa; --skipped: #57606a; --skipped-bg: #eaeef2; --focus: #0969da; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #161b22;
  --passed: #3fb950; --passed-bg: #12261e; --failed: #f85149; --failed-bg: #2d1214; --expected-failure: #d29922; --expected-failure-bg: #2b2111;
  --unsupported: #ab7df8; --unsupported-bg: #231a33; --inapplicable: #9198a1; --inapplicable-bg: #161b22; --skipped: #9198a1; --skipped-bg: #21262d; --focus: #4493f8; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 1rem; background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 1400px; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; } h2 { font-size: 1.25rem; margin: 1.5rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; } h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--panel); border: 1px solid var(--line); padding: .5rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
dl.run { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .75rem; margin: .5rem 0; } dl.run dt { color: var(--muted); } dl.run dd { margin: 0; overflow-wrap: anywhere; }
.toolbar { padding: .5rem 0; border-bottom: 1px solid var(--line); }
.toolbar input { width: min(36rem, 100%); font: inherit; padding: .4rem .6rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); }
.legend { display: flex; flex-wrap: wrap; gap: .25rem .75rem; margin: .5rem 0 0; padding: 0; list-style: none; color: var(--muted); font-size: .9rem; }
.grid-wrap { overflow-x: auto; }
table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: .25rem .4rem; text-align: left; vertical-align: top; }
table.grid th[scope=col] { font-weight: 600; min-width: 8rem; } table.grid td { padding: .2rem; }
.cell { display: block; width: 100%; min-width: 9rem; min-height: 3rem; text-align: left; font: inherit; cursor: pointer; border-radius: 6px; padding: .3rem .5rem; color: var(--fg); border: 2px solid; }
.cell:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.cell[aria-pressed=true] { box-shadow: 0 0 0 3px var(--focus); }
.cell.dim { opacity: .35; }
.cell .status { font-weight: 700; } .cell .counts { display: block; font-size: .85rem; color: var(--muted); }
.cell[data-status=passed], .badge[data-status=passed] { --c: var(--passed); --cb: var(--passed-bg); border-style: solid; }
.cell[data-status=failed], .badge[data-status=failed] { --c: var(--failed); --cb: var(--failed-bg); border-style: solid; border-width: 3px; }
.cell[data-status=expected-failure], .badge[data-status=expected-failure] { --c: var(--expected-failure); --cb: var(--expected-failure-bg); border-style: dashed; }
.cell[data-status=unsupported], .badge[data-status=unsupported] { --c: var(--unsupported); --cb: var(--unsupported-bg); border-style: dotted; }
.cell[data-status=inapplicable], .badge[data-status=inapplicable], .cell[data-status=skipped], .badge[data-status=skipped] { --c: var(--inapplicable); --cb: var(--inapplicable-bg); border-style: dotted; }
.cell[data-status], .badge[data-status] { border-color: var(--c); background: var(--cb); } .cell[data-status] .status, .badge[data-status] { color: var(--c); }
.badge { display: inline-block; border: 1px solid; border-radius: 999px; padding: 0 .5rem; font-size: .85rem; font-weight: 600; white-space: nowrap; }
.badge.flip, .badge.baseline { border-style: dashed; color: var(--fg); border-color: var(--muted); }
.panel { margin: .75rem 0; padding: .5rem .75rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); }
.panel .hint { margin: .25rem 0; color: var(--muted); }
ol.rows { list-style: none; padding: 0; margin: 0; } li.row { border-top: 1px solid var(--line); padding: .6rem 0; } li.row[hidden] { display: none; }
li.row header { display: flex; flex-wrap: wrap; gap: .4rem; align-items: baseline; } li.row .group { color: var(--muted); overflow-wrap: anywhere; }
table.findings { margin: .4rem 0; width: 100%; } table.findings td:first-child { white-space: nowrap; }
.party { font-weight: 600; }
ul.flat { margin: .25rem 0; padding-left: 1.2rem; } ul.flat li { overflow-wrap: anywhere; }
table.coverage td:nth-child(4), table.coverage td:nth-child(5), table.coverage td:nth-child(6) { text-align: right; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
@media (max-width: 640px) { body { padding: .5rem; font-size: 14px; } .cell { min-width: 6.5rem; } dl.run { grid-template-columns: 1fr; } dl.run dd { margin-bottom: .3rem; } table.coverage td:nth-child(8), table.coverage th:nth-child(8) { display: none; } }
@media print { li.row[hidden] { display: block; } }
`;

/**
 * A click on a cell lists that cell's failing rows in its family's panel; the filter lists every
 * failing row whose id, SDKs, group or labels contain the text, and dims the cells with none.
 */
export const PAGE_SCRIPT = `
(() => {
  const rows = [...document.querySelectorAll('li.row')];
  const cells = [...document.querySelectorAll('button.cell')];
  const filter = document.getElementById('filter');
  const hint = (project, text) => { const el = document.getElementById('hint-' + project); if (el) el.textContent = text; };
  const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');
  const projects = [...new Set(cells.map((cell) => cell.dataset.project))];
  const reset = () => { for (const project of projects) hint(project, 'Select a cell to list its failing rows.'); };
  const select = (cell) => {
    filter.value = '';
    const project = cell.dataset.project;
    let shown = 0;
    for (const other of cells) { other.classList.remove('dim'); if (other.dataset.project === project) other.setAttribute('aria-pressed', String(other === cell)); }
    for (const row of rows) {
      if (row.dataset.project !== project) continue;
      const mine = row.dataset.group === cell.dataset.group;
      row.hidden = !mine; if (mine) shown++;
    }
    hint(project, shown === 0 ? cell.dataset.group + ': no failing rows (' + cell.dataset.status + ')' : cell.dataset.group + ': ' + plural(shown, 'failing row'));
    const panel = document.getElementById('panel-' + project);
    if (panel && shown > 0) panel.scrollIntoView({ block: 'nearest' });
  };
  for (const cell of cells) cell.addEventListener('click', () => select(cell));
  filter.addEventListener('input', () => {
    const query = filter.value.trim().toLowerCase();
    for (const cell of cells) cell.setAttribute('aria-pressed', 'false');
    if (query === '') { for (const row of rows) row.hidden = true; for (const cell of cells) cell.classList.remove('dim'); reset(); return; }
    const matching = new Set();
    const perProject = new Map(projects.map((project) => [project, 0]));
    for (const row of rows) {
      const hit = row.dataset.search.includes(query);
      row.hidden = !hit;
      if (hit) { matching.add(row.dataset.project + '\\u0000' + row.dataset.group); perProject.set(row.dataset.project, (perProject.get(row.dataset.project) || 0) + 1); }
    }
    for (const cell of cells) cell.classList.toggle('dim', !matching.has(cell.dataset.project + '\\u0000' + cell.dataset.group));
    for (const [project, n] of perProject) hint(project, plural(n, 'failing row') + ' match "' + filter.value.trim() + '"');
  });
  reset();
})();
`;
