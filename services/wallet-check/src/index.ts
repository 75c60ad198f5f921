/** The wallet conformance checker as a library (the command line is cli.ts). */
export { runWalletCheck, TOOL, type CheckResult, type CheckStatus, type Report, type WalletCheckOptions } from './runner.js';
export { CHECKS, CATEGORIES, type Category, type CheckDef } from './checks/index.js';
export { htmlReport, jsonReport, textReport } from './report.js';
export { junitReport, pdfSummary } from './report-files.js';
export { main, USAGE } from './cli.js';
