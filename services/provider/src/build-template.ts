/** Build step: the embedded database's template (store/embedded-template.ts), dist/pglite-template.tar.gz. */
import { statSync } from 'node:fs';
import { buildTemplate, TEMPLATE_FILE } from './store/embedded-template.js';

const started = Date.now();
const ran = await buildTemplate();
console.log(
  `embedded template: ${ran.length} migrations, ${(statSync(TEMPLATE_FILE).size / 1024).toFixed(0)} KiB in ${((Date.now() - started) / 1000).toFixed(1)} s → ${TEMPLATE_FILE}`,
);
