/**
 * What this build is, for gp_build_info and the traces' `service.version`: the provider's
 * package version, the commit when the build recorded one (GP_BUILD_COMMIT), and Node's version.
 */
import { readFileSync } from 'node:fs';

function packageVersion(): string {
  try {
    // src/infra/ and dist/infra/ both sit two folders below the provider's package.json.
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const BUILD = {
  version: packageVersion(),
  commit: /^[0-9a-f]{7,40}$/i.test(process.env.GP_BUILD_COMMIT?.trim() ?? '') ? process.env.GP_BUILD_COMMIT!.trim().toLowerCase() : 'unknown',
  node: process.versions.node,
} as const;
