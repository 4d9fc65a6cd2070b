// Public API of the self-contained HTML report (`revloop/report`, docs/report.md): revision
// trajectories and their analysis → one HTML file that needs no network, with a trajectory browser.
// `revloop report` is a thin shell over `reportPage` in report/page.ts (every registered study's
// sections; inside the repository only, since studies are not part of the package's API).
export { renderReport, revisionReportPage, writeReportFile, type RevisionReportOptions, type DrilldownOptions } from './page.ts';
export { renderReportPage, type ReportPage } from './render.ts';

// Every built-in family, registered before the library's user calls anything here (the registry
// loads them on demand otherwise: core/verify/registry.ts).
import '../core/verify/builtin-families.ts';
